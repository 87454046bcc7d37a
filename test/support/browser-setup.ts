/**
 * Browser tier: a fresh database (global-setup), the demo tenant seeded, and the BUILT API
 * (apps/api/dist, serving the built console) started as a child process on a free port, the way
 * `npm start` runs it. scripts/test.mjs builds both before jest starts.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import net from 'node:net';
import path from 'node:path';
import { Client } from 'pg';
import globalSetup from './global-setup';

const ROOT = path.resolve(__dirname, '..', '..');

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

/**
 * The browser tier seeds the demo tenant and then changes it (the admin journey adds lines and
 * campaigns), so it gets a database of its own: the integration tier counts the demo tenant's rows.
 */
async function createBrowserDatabase(): Promise<string> {
  const name = `${process.env.CENTRALITA_TEST_DB}_browser`;
  const admin = new Client({ connectionString: process.env.CENTRALITA_ADMIN_DATABASE_URL });
  await admin.connect();
  // A copy of the run's migrated template (global-setup).
  await admin.query(`CREATE DATABASE ${name} TEMPLATE ${process.env.CENTRALITA_TEST_TEMPLATE_DB}`);
  await admin.end();
  process.env.CENTRALITA_BROWSER_TEST_DB = name;
  const url = new URL(process.env.DATABASE_URL!);
  url.pathname = `/${name}`;
  return url.toString();
}

export default async function browserSetup(): Promise<void> {
  await globalSetup();
  const databaseUrl = await createBrowserDatabase();
  const port = await freePort();
  const env = {
    ...process.env,
    DATABASE_URL: databaseUrl,
    PORT: String(port),
    PUBLIC_URL: `http://127.0.0.1:${port}`,
    WEB_DIST: path.join(ROOT, 'apps/web/dist'),
    // Its own Redis namespace: the e2e tier's logins from 127.0.0.1 must not use up this tier's rate limits.
    QUEUE_PREFIX: `${process.env.QUEUE_PREFIX}-browser`,
    // Every suite signs in from 127.0.0.1, dozens of times a minute with two workers: the per-IP
    // sign-in limit (20 a minute) is for people, and has its own e2e suite (rate-limit.e2e-spec.ts).
    RATE_LIMIT_LOGIN_IP: '100000',
    // Likewise the per-IP limit on reset and invitation links (10 per 15 minutes): every suite that
    // makes a user accepts an invitation from 127.0.0.1. The limit itself is covered by the e2e tier.
    RATE_LIMIT_RESET_IP: '100000',
    // The softphone suite's SIP server (kamailio) listens on loopback: allowed for this deployment
    // the way an operator allows an on-premises range (outgoing-addresses.e2e-spec.ts covers the refusals).
    OUTGOING_ALLOWED_CIDRS: '127.0.0.0/8',
    // The suites find the demo content by its English names ('Customer service', 'Welcome campaign'…);
    // `npm start` seeds it in Spanish (seed-content holds all seven languages).
    SEED_LANGUAGE: 'en',
  };
  const seeded = spawnSync(process.execPath, [path.join(ROOT, 'apps/api/dist/database/cli.js'), 'seed'], { env, encoding: 'utf8' });
  if (seeded.status !== 0) throw new Error(`seeding the demo tenant failed:\n${seeded.stdout}\n${seeded.stderr}`);
  const api: ChildProcess = spawn(process.execPath, [path.join(ROOT, 'apps/api/dist/main.js')], {
    env,
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  (globalThis as { __centralitaApi?: ChildProcess }).__centralitaApi = api;
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 30_000;
  for (;;) {
    if (api.exitCode !== null) throw new Error(`the API exited with ${api.exitCode} before becoming healthy`);
    try {
      if ((await fetch(`${url}/api/health`)).ok) break;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) throw new Error(`the API was not healthy at ${url} within 30 s`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  process.env.CENTRALITA_E2E_URL = url;
}
