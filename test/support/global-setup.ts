/**
 * Per-run database for the integration and e2e tiers: created here, dropped in global-teardown.
 * The migrations run once, into a template (`<run db>_tpl`, never connected to afterwards); the
 * run's shared database and every suite database (suite-database.ts) are copies of it. Jest
 * workers inherit the environment set here (they start after it).
 */
import { Client } from 'pg';
import { randomBytes } from 'node:crypto';

export default async function globalSetup(): Promise<void> {
  if (process.env.CENTRALITA_TEST_DB_READY) return; // several projects share one run
  const adminUrl = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
  const name = `centralita_test_${Date.now()}_${randomBytes(3).toString('hex')}`;
  const template = `${name}_tpl`;
  const admin = new Client({ connectionString: adminUrl });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${template}`);
  const templateUrl = new URL(adminUrl);
  templateUrl.pathname = `/${template}`;
  const { runMigrations } = await import('../../apps/api/src/database/migrate');
  await runMigrations(templateUrl.toString());
  // PostgreSQL waits (up to 5 s) for the migration's closing backends before copying.
  await admin.query(`CREATE DATABASE ${name} TEMPLATE ${template}`);
  await admin.end();
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  process.env.CENTRALITA_TEST_TEMPLATE_DB = template;
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
  process.env.CENTRALITA_TEST_DB_READY = '1';
}
