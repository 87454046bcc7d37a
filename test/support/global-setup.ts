/**
 * Per-run database for the integration and e2e tiers: created here, migrated once, dropped in
 * global-teardown. Jest workers inherit the environment set here (they start after it).
 */
import { Client } from 'pg';
import { randomBytes } from 'node:crypto';

export default async function globalSetup(): Promise<void> {
  if (process.env.CENTRALITA_TEST_DB_READY) return; // several projects share one run
  const adminUrl = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
  const name = `centralita_test_${Date.now()}_${randomBytes(3).toString('hex')}`;
  const admin = new Client({ connectionString: adminUrl });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  process.env.CENTRALITA_ADMIN_DATABASE_URL = adminUrl;
  process.env.DATABASE_URL = url.toString();
  process.env.CENTRALITA_TEST_DB = name;
  process.env.REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
  // Queues and rate-limit keys of this run never meet another run's in a shared Redis.
  process.env.QUEUE_PREFIX = `ct-${name}`;
  process.env.JWT_SECRET = process.env.JWT_SECRET ?? randomBytes(32).toString('hex');
  // Secrets at rest have no built-in key: each run gets one, shared by its API and worker processes.
  process.env.CONFIG_ENCRYPTION_KEY = process.env.CONFIG_ENCRYPTION_KEY ?? randomBytes(32).toString('hex');
  process.env.NODE_ENV = 'test';
  const { runMigrations } = await import('../../apps/api/src/database/migrate');
  await runMigrations(process.env.DATABASE_URL);
  process.env.CENTRALITA_TEST_DB_READY = '1';
}
