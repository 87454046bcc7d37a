import { randomBytes } from 'node:crypto';
import { createDataSource, MIGRATIONS } from './data-source';
import { runMigrations } from './migrate';

describe('database schema', () => {
  it('matches the entities exactly after the migrations (no drift for synchronize to fix)', async () => {
    const dataSource = createDataSource(process.env.DATABASE_URL!);
    await dataSource.initialize();
    try {
      const pending = await dataSource.driver.createSchemaBuilder().log();
      expect(pending.upQueries.map((query) => query.query)).toEqual([]);
      expect(await dataSource.showMigrations()).toBe(false);
    } finally {
      await dataSource.destroy();
    }
  });

  it('migrates a fresh database, reverts every migration and migrates again', async () => {
    const admin = createDataSource(process.env.CENTRALITA_ADMIN_DATABASE_URL!);
    const name = `centralita_migrations_${randomBytes(4).toString('hex')}`;
    await admin.initialize();
    await admin.query(`CREATE DATABASE ${name}`);
    const url = new URL(process.env.CENTRALITA_ADMIN_DATABASE_URL!);
    url.pathname = `/${name}`;
    try {
      const applied = await runMigrations(url.toString());
      expect(applied).toEqual(MIGRATIONS.map((migration) => migration.name));
      expect(await runMigrations(url.toString())).toEqual([]);

      const dataSource = createDataSource(url.toString());
      await dataSource.initialize();
      try {
        for (let i = 0; i < MIGRATIONS.length; i++) await dataSource.undoLastMigration();
        const tables: { table_name: string }[] = await dataSource.query(
          `SELECT table_name FROM information_schema.tables WHERE table_schema = 'public' AND table_name <> 'typeorm_migrations'`,
        );
        expect(tables).toEqual([]);
      } finally {
        await dataSource.destroy();
      }
      expect(await runMigrations(url.toString())).toHaveLength(MIGRATIONS.length);
    } finally {
      await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await admin.destroy();
    }
  });
});
