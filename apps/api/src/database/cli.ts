/**
 * Database tasks from the built app: `node apps/api/dist/database/cli.js migrate|seed`.
 * Needs only DATABASE_URL (same default as the API), so a release step can migrate without the rest.
 */
import 'reflect-metadata';
import { loadDatabaseUrl } from '../config/app-config';
import { createDataSource } from './data-source';
import { runMigrations } from './migrate';
import { seed } from './seed';

async function main(command: string | undefined): Promise<void> {
  const databaseUrl = loadDatabaseUrl(process.env);
  switch (command) {
    case 'migrate': {
      const applied = await runMigrations(databaseUrl);
      console.log(applied.length ? `applied ${applied.length} migration(s): ${applied.join(', ')}` : 'database schema is up to date');
      return;
    }
    case 'seed': {
      // The demo accounts share a published password: never create them in production by accident.
      if (process.env.NODE_ENV === 'production' && process.env.ALLOW_DEMO_SEED !== '1') {
        throw new Error(
          'refusing to seed demo accounts (published password) when NODE_ENV=production; set ALLOW_DEMO_SEED=1 to do it anyway',
        );
      }
      const dataSource = createDataSource(databaseUrl);
      await dataSource.initialize();
      try {
        const summary = await seed(dataSource);
        console.log(`demo tenant ready (client ${summary.clientId}); ${summary.usersCreated} demo user(s) created`);
      } finally {
        await dataSource.destroy();
      }
      return;
    }
    default:
      throw new Error(`usage: node apps/api/dist/database/cli.js migrate|seed (got "${command ?? ''}")`);
  }
}

main(process.argv[2]).catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exitCode = 1;
});
