import type { ChildProcess } from 'node:child_process';
import { Client } from 'pg';
import Redis from 'ioredis';

async function stopBrowserTierApi(): Promise<void> {
  const api = (globalThis as { __centralitaApi?: ChildProcess }).__centralitaApi;
  if (!api || api.exitCode !== null) return;
  const exited = new Promise((resolve) => api.once('exit', resolve));
  api.kill('SIGTERM');
  await exited;
}

export default async function globalTeardown(): Promise<void> {
  await stopBrowserTierApi();
  const name = process.env.CENTRALITA_TEST_DB;
  const adminUrl = process.env.CENTRALITA_ADMIN_DATABASE_URL;
  if (!name || !adminUrl || process.env.CENTRALITA_TEST_DB_DROPPED) return;
  process.env.CENTRALITA_TEST_DB_DROPPED = '1';
  const admin = new Client({ connectionString: adminUrl });
  await admin.connect();
  // The run's database, its template, the browser tier's and every suite's (all named after the run's).
  const escaped = name.replace(/[\\_%]/g, (c) => `\\${c}`);
  const databases = (await admin.query(`SELECT datname FROM pg_database WHERE datname = $1 OR datname LIKE $2`, [name, `${escaped}\\_%`]))
    .rows as { datname: string }[];
  for (const { datname } of databases) await admin.query(`DROP DATABASE IF EXISTS "${datname}" WITH (FORCE)`);
  await admin.end();
  const redis = new Redis(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379');
  const stream = redis.scanStream({ match: `${process.env.QUEUE_PREFIX}*`, count: 500 });
  for await (const keys of stream) if ((keys as string[]).length) await redis.del(...(keys as string[]));
  await redis.quit();
}
