// `npm start`: build what is stale, resolve PostgreSQL and Redis, migrate, seed the demo tenant,
// run the API (which also serves the console) and a worker, then print the URL and demo accounts.
// `npm run dev`: the same infrastructure, with tsc/node --watch for API and worker and Vite HMR.
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import net from 'node:net';
import path from 'node:path';
import { buildNode, buildWeb } from './lib/build.mjs';
import { DATA_DIR, ROOT, ensureDatabase, resolvePostgres, resolveRedis, stopOwned } from './lib/infra.mjs';
import { displayUrl, isExposed, listenHost, probeUrl } from './lib/host.mjs';
import { fail, log, warn } from './lib/log.mjs';

const dev = process.argv.includes('--dev');
// Quiet by default: the URL, the accounts and warnings. `--verbose` (npm start -- --verbose) or an
// explicit LOG_LEVEL brings back Nest's start-up lines (module init, every mapped route).
const verbose = process.argv.includes('--verbose');
const children = [];

function freePort(preferred) {
  return new Promise((resolve) => {
    const server = net.createServer();
    server.once('error', () => resolve(freePort(preferred === 0 ? 0 : preferred + 1)));
    server.listen(preferred, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

/**
 * A secret from the environment, else one generated on first start and kept in .data/<file>
 * (mode 600, never in git), so it survives restarts: JWT_SECRET, and CONFIG_ENCRYPTION_KEY
 * (there is no built-in key; losing this file makes stored channel secrets and trunk passwords
 * unreadable — back it up with the database, rotate it with the reencrypt command).
 */
function dataSecret(name, file, bytes) {
  if (process.env[name]?.trim()) return process.env[name].trim();
  const target = path.join(DATA_DIR, file);
  mkdirSync(DATA_DIR, { recursive: true });
  if (!existsSync(target)) {
    writeFileSync(target, randomBytes(bytes).toString('hex'), { mode: 0o600 });
    log(`generated ${name} into .data/${file}`);
  }
  return readFileSync(target, 'utf8').trim();
}

function startChild(name, args, env, cwd = ROOT) {
  const child = spawn(process.execPath, args, { cwd, env, stdio: ['ignore', 'inherit', 'inherit'] });
  child.on('exit', (code, signal) => {
    if (!shuttingDown) {
      warn(`${name} exited (${signal ?? code}); stopping`);
      shutdown(1);
    }
  });
  children.push(child);
  return child;
}

function runOnce(args, env) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, { cwd: ROOT, env, stdio: 'inherit' });
    child.on('exit', (code) => (code === 0 ? resolve() : reject(new Error(`${args.join(' ')} exited with ${code}`))));
  });
}

async function waitForHealth(url, timeoutMs = 60_000) {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    try {
      const response = await fetch(`${url}/api/health`);
      if (response.ok) return;
    } catch {
      // not listening yet
    }
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  fail(`the API did not become healthy at ${url} within ${timeoutMs / 1000} s`);
}

let shuttingDown = false;
async function shutdown(code = 0) {
  if (shuttingDown) return;
  shuttingDown = true;
  for (const child of children) child.kill('SIGTERM');
  await Promise.all(children.map((child) => (child.exitCode === null ? new Promise((r) => child.once('exit', r)) : null)));
  await stopOwned();
  process.exit(code);
}
process.on('SIGINT', () => shutdown(0));
process.on('SIGTERM', () => shutdown(0));

async function main() {
  buildNode();
  if (!dev) buildWeb();

  const postgres = await resolvePostgres();
  const redis = await resolveRedis();
  const databaseUrl = await ensureDatabase(postgres.url, process.env.CENTRALITA_DB_NAME ?? 'centralita');
  const port = process.env.PORT ? Number(process.env.PORT) : await freePort(3000);
  // Loopback unless HOST says otherwise (README: "Reaching it from other machines").
  const host = listenHost(process.env);
  // A key generated now may find secrets an older version wrote with its built-in (published) key.
  const firstKey = !process.env.CONFIG_ENCRYPTION_KEY?.trim() && !existsSync(path.join(DATA_DIR, 'config-encryption-key'));
  const publicUrl = process.env.PUBLIC_URL ?? (dev ? 'http://localhost:5173' : displayUrl(host, port));
  const env = {
    ...process.env,
    DATABASE_URL: databaseUrl,
    REDIS_URL: redis.url,
    PORT: String(port),
    HOST: host,
    PUBLIC_URL: publicUrl,
    JWT_SECRET: dataSecret('JWT_SECRET', 'jwt-secret', 48),
    CONFIG_ENCRYPTION_KEY: dataSecret('CONFIG_ENCRYPTION_KEY', 'config-encryption-key', 32),
    WEB_DIST: path.join(ROOT, 'apps/web/dist'),
    NODE_ENV: process.env.NODE_ENV ?? 'development',
    // Development surfaces are off unless asked for; `npm run dev` keeps mail (no SMTP) for
    // administrators at /api/dev/mailbox, `npm start` only logs it. Self-registration: SELF_REGISTRATION.
    DEV_MAILBOX: process.env.DEV_MAILBOX ?? (dev ? 'on' : 'off'),
    LOG_LEVEL: process.env.LOG_LEVEL ?? (verbose ? 'verbose' : 'warn'),
  };

  const cli = path.join(ROOT, 'apps/api/dist/database/cli.js');
  log('running migrations...');
  await runOnce([cli, 'migrate'], env);
  if (firstKey) {
    log('moving secrets written with the old built-in key (if any) to the new CONFIG_ENCRYPTION_KEY...');
    await runOnce([cli, 'reencrypt', '--from-published-development-key'], env).catch((error) =>
      warn(`could not re-encrypt stored secrets: ${error.message} (see README, "Rotating CONFIG_ENCRYPTION_KEY")`),
    );
  }
  log('seeding the demo tenant (idempotent)...');
  await runOnce([cli, 'seed'], env);

  const watch = dev ? ['--watch'] : [];
  if (dev)
    startChild(
      'tsc --watch',
      [
        path.join(ROOT, 'node_modules/typescript/bin/tsc'),
        '-b',
        '-w',
        '--preserveWatchOutput',
        'apps/api/tsconfig.build.json',
        'apps/worker/tsconfig.build.json',
      ],
      env,
    );
  startChild('api', [...watch, path.join(ROOT, 'apps/api/dist/main.js')], env);
  startChild('worker', [...watch, path.join(ROOT, 'apps/worker/dist/main.js')], env);
  const apiUrl = displayUrl(host, port);
  await waitForHealth(probeUrl(host, port));
  if (dev)
    startChild(
      'vite',
      [path.join(ROOT, 'node_modules/vite/bin/vite.js'), '--port', '5173', '--strictPort'],
      { ...env, API_PORT: String(port) },
      path.join(ROOT, 'apps/web'),
    );

  const { DEMO_ACCOUNTS } = createRequire(import.meta.url)(path.join(ROOT, 'apps/api/dist/database/seed.js'));
  const consoleUrl = dev ? 'http://localhost:5173' : apiUrl;
  console.log('');
  log(`Centralita is running: \x1b[1m${consoleUrl}\x1b[0m   (API docs: ${apiUrl}/api/docs)`);
  const width = Math.max(...DEMO_ACCOUNTS.map(({ email }) => email.length));
  const roleWidth = Math.max(...DEMO_ACCOUNTS.map(({ role }) => role.length));
  const print = (accounts) => {
    for (const { email, password, role } of accounts) console.log(`    ${role.padEnd(roleWidth)} ${email.padEnd(width)}  ${password}`);
  };
  log('Demo accounts of the tenant "Demo Contact Centre":');
  print(DEMO_ACCOUNTS.filter((account) => account.level === 'tenant'));
  log('Demo reseller staff (manages the tenants of the reseller "Centralita Demo") and platform operator (every reseller):');
  print(DEMO_ACCOUNTS.filter((account) => account.level !== 'tenant'));
  if (isExposed(host))
    warn(
      `listening on ${host} (HOST): other machines can reach this server and its demo accounts; change their passwords or use HOST=127.0.0.1`,
    );
  else log('Listening on this machine only; set HOST=0.0.0.0 to reach it from the network (see README).');
  if (!verbose && !process.env.LOG_LEVEL) log('Only warnings and errors are logged; `npm start -- --verbose` or LOG_LEVEL=log shows more.');
  log('Press Ctrl+C to stop.');
}

main().catch(async (error) => {
  warn(error.stack ?? String(error));
  await shutdown(1);
});
