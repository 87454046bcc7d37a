/**
 * Database tasks from the built app: `node apps/api/dist/database/cli.js migrate|seed|reencrypt`.
 * Needs only DATABASE_URL (same default as the API), so a release step can migrate without the rest;
 * reencrypt also reads the keys (see reencryptArgs).
 */
import 'reflect-metadata';
import { ConfigCrypto } from '@centralita/contracts/server';
import { loadDatabaseUrl } from '../config/app-config';
import { createDataSource } from './data-source';
import { runMigrations } from './migrate';
import { invitePlatformOperator } from './platform-operator';
import { reencryptSecrets, publishedDevelopmentKey } from './reencrypt';
import { seed } from './seed';
import { seedLanguage } from './seed-content';

/**
 * `reencrypt`: the NEW key is CONFIG_ENCRYPTION_KEY; the old one comes from OLD_CONFIG_ENCRYPTION_KEY
 * (kept out of the shell history and the process list) or `--from <key>`; `--from-published-development-key`
 * adds the built-in key of versions before issue 17 (data written without a configured key).
 */
export function reencryptArgs(argv: string[], env: NodeJS.ProcessEnv): { from: ConfigCrypto[]; to: ConfigCrypto } {
  const from: ConfigCrypto[] = [];
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === '--from') {
      const value = argv[++i];
      if (!value) throw new Error('--from needs the old key');
      from.push(ConfigCrypto.fromKey(value));
    } else if (argv[i] === '--from-published-development-key') from.push(ConfigCrypto.fromKey(publishedDevelopmentKey()));
    else throw new Error(`reencrypt: unknown option "${argv[i]}"`);
  }
  if (env.OLD_CONFIG_ENCRYPTION_KEY?.trim()) from.push(ConfigCrypto.fromKey(env.OLD_CONFIG_ENCRYPTION_KEY));
  if (!env.CONFIG_ENCRYPTION_KEY?.trim()) throw new Error('reencrypt: set CONFIG_ENCRYPTION_KEY to the NEW key');
  if (!from.length)
    throw new Error('reencrypt: give the old key in OLD_CONFIG_ENCRYPTION_KEY (or --from <key>, or --from-published-development-key)');
  return { from, to: ConfigCrypto.fromKey(env.CONFIG_ENCRYPTION_KEY) };
}

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
        const language = seedLanguage(process.env.SEED_LANGUAGE);
        const summary = await seed(dataSource, { language });
        console.log(
          `demo tenant ready (client ${summary.clientId}, language ${summary.language}); ${summary.usersCreated} demo user(s) created`,
        );
        if (summary.language !== language)
          console.log(`the demo tenant already existed in "${summary.language}": its content stays in that language`);
      } finally {
        await dataSource.destroy();
      }
      return;
    }
    case 'reencrypt': {
      const { from, to } = reencryptArgs(process.argv.slice(3), process.env);
      const dataSource = createDataSource(databaseUrl);
      await dataSource.initialize();
      try {
        const { reencrypted, alreadyCurrent } = await reencryptSecrets(dataSource, from, to);
        console.log(`re-encrypted ${reencrypted} secret(s) under the new CONFIG_ENCRYPTION_KEY; ${alreadyCurrent} already used it`);
      } finally {
        await dataSource.destroy();
      }
      return;
    }
    case 'invite-platform-operator': {
      // Bootstraps a deployment: the first platform operator joins through this printed, single-use link.
      const [email, ...name] = process.argv.slice(3);
      if (!email) throw new Error('usage: node apps/api/dist/database/cli.js invite-platform-operator <email> [name]');
      const publicUrl = process.env.PUBLIC_URL ?? `http://localhost:${process.env.PORT ?? 3000}`;
      const dataSource = createDataSource(databaseUrl);
      await dataSource.initialize();
      try {
        const { link, expiresAt } = await invitePlatformOperator(dataSource, { email, name: name.join(' '), publicUrl });
        console.log(`platform operator invitation for ${email} (single use, until ${expiresAt.toISOString()}):\n${link}`);
      } finally {
        await dataSource.destroy();
      }
      return;
    }
    default:
      throw new Error(
        `usage: node apps/api/dist/database/cli.js migrate|seed|reencrypt|invite-platform-operator <email> [name] (got "${command ?? ''}")`,
      );
  }
}

if (require.main === module)
  main(process.argv[2]).catch((error: unknown) => {
    console.error(error instanceof Error ? error.message : error);
    process.exitCode = 1;
  });
