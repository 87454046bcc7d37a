import { randomBytes } from 'node:crypto';
import { Client } from 'pg';

/** A database of one suite's own, a copy of the run's migrated template (test/support/global-setup.ts). */
export interface SuiteDatabase {
  url: string;
  /** Drops it (global-teardown drops any a crashed suite left behind). */
  drop(): Promise<void>;
}

/**
 * Every process of a deployment reads the whole database: the routing sweeper routes every line
 * with customers waiting, the outbox poller delivers every pending row. In the shared e2e database
 * the processes of other suites (on other queue prefixes) are such processes too, so a suite on a
 * queue prefix of its own that waits for what its own process does (a `connect` command on its
 * voice queue, a push on its sockets) can see another suite's sweeper take the conversation first
 * and deliver the effect on that suite's queues. Such a suite runs on a database of its own: it
 * is then a deployment of its own, as in production.
 */
export async function createSuiteDatabase(): Promise<SuiteDatabase> {
  const run = process.env.CENTRALITA_TEST_DB;
  const template = process.env.CENTRALITA_TEST_TEMPLATE_DB;
  const adminUrl = process.env.CENTRALITA_ADMIN_DATABASE_URL;
  if (!run || !template || !adminUrl) throw new Error('createSuiteDatabase needs the e2e global setup (test/support/global-setup.ts)');
  const name = `${run}_s${randomBytes(4).toString('hex')}`;
  await admin(adminUrl, `CREATE DATABASE ${name} TEMPLATE ${template}`);
  const url = new URL(process.env.DATABASE_URL!);
  url.pathname = `/${name}`;
  return { url: url.toString(), drop: () => admin(adminUrl, `DROP DATABASE IF EXISTS ${name} WITH (FORCE)`) };
}

async function admin(adminUrl: string, statement: string): Promise<void> {
  const client = new Client({ connectionString: adminUrl });
  await client.connect();
  try {
    await client.query(statement);
  } finally {
    await client.end();
  }
}
