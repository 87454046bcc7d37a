import { createDataSource } from './data-source';

/** Applies pending migrations; returns the names applied. Used by the CLI and the test global setup. */
export async function runMigrations(url: string): Promise<string[]> {
  const dataSource = createDataSource(url);
  await dataSource.initialize();
  // Two processes starting at once must not both migrate: hold a session advisory lock on a
  // dedicated connection while the migrations run on the pool.
  const lock = dataSource.createQueryRunner();
  try {
    await lock.connect();
    await lock.query('SELECT pg_advisory_lock(hashtext($1))', ['centralita:migrations']);
    const applied = await dataSource.runMigrations({ transaction: 'all' });
    return applied.map((migration) => migration.name);
  } finally {
    await lock.query('SELECT pg_advisory_unlock(hashtext($1))', ['centralita:migrations']).catch(() => undefined);
    await lock.release();
    await dataSource.destroy();
  }
}
