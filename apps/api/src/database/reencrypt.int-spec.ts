import { randomBytes } from 'node:crypto';
import { ConfigCrypto } from '@centralita/contracts/server';
import type { DataSource } from 'typeorm';
import { createTenant, createUser } from '../../test/support/factories';
import { reencryptArgs } from './cli';
import { createDataSource } from './data-source';
import { runMigrations } from './migrate';
import { ENCRYPTED_COLUMNS, publishedDevelopmentKey, ReencryptError, reencryptSecrets } from './reencrypt';

/**
 * Issue 17 item 5: rotating CONFIG_ENCRYPTION_KEY re-encrypts every stored secret in one
 * transaction, and running it again changes nothing. A database of its own: the rotation touches
 * every row of the encrypted columns, which other suites of the run write with the run's key.
 */
describe('reencrypt (CONFIG_ENCRYPTION_KEY rotation)', () => {
  const oldKey = randomBytes(32).toString('hex');
  const newKey = randomBytes(32).toString('hex');
  const oldCrypto = ConfigCrypto.fromKey(oldKey);
  const newCrypto = ConfigCrypto.fromKey(newKey);
  const name = `centralita_reencrypt_${randomBytes(4).toString('hex')}`;
  let admin: DataSource;
  let db: DataSource;

  beforeAll(async () => {
    admin = createDataSource(process.env.CENTRALITA_ADMIN_DATABASE_URL!);
    await admin.initialize();
    await admin.query(`CREATE DATABASE ${name}`);
    const url = new URL(process.env.CENTRALITA_ADMIN_DATABASE_URL!);
    url.pathname = `/${name}`;
    await runMigrations(url.toString());
    db = createDataSource(url.toString());
    await db.initialize();
  });
  afterAll(async () => {
    await db?.destroy();
    await admin?.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    await admin?.destroy();
  });

  async function seedSecrets(crypto: ConfigCrypto): Promise<{ trunkId: string; userId: string; channelId: string }> {
    const tenant = await createTenant(db);
    const { user } = await createUser(db, tenant);
    const [trunk] = (await db.query(
      `INSERT INTO trunks (client_id, name, host, transport, max_concurrent_calls, password_encrypted)
       VALUES ($1, 'Carrier', 'sip.example.com', 'udp', 5, $2) RETURNING id`,
      [tenant.client.id, crypto.encrypt('trunk-pass')],
    )) as { id: string }[];
    await db.query(
      `INSERT INTO softphone_accounts (user_id, client_id, extension, auth_user, password_secret) VALUES ($1, $2, '101', 'u101', $3)`,
      [user.id, tenant.client.id, crypto.encrypt('sip-pass')],
    );
    const [channel] = (await db.query(
      `INSERT INTO channel_configs (client_id, channel, secrets) VALUES ($1, 'Telegram', $2::jsonb) RETURNING id`,
      [tenant.client.id, JSON.stringify({ botToken: crypto.encrypt('tg-token'), webhookSecret: crypto.encrypt('tg-hook') })],
    )) as { id: string }[];
    return { trunkId: trunk.id, userId: user.id, channelId: channel.id };
  }

  async function read(ids: { trunkId: string; userId: string; channelId: string }) {
    const [trunk] = await db.query(`SELECT password_encrypted FROM trunks WHERE id = $1`, [ids.trunkId]);
    const [account] = await db.query(`SELECT password_secret FROM softphone_accounts WHERE user_id = $1`, [ids.userId]);
    const [channel] = await db.query(`SELECT secrets FROM channel_configs WHERE id = $1`, [ids.channelId]);
    return {
      trunk: trunk.password_encrypted as string,
      account: account.password_secret as string,
      secrets: channel.secrets as Record<string, string>,
    };
  }

  it('covers every encrypted column of the schema', async () => {
    // Columns named like a secret at rest: a new one must be added to ENCRYPTED_COLUMNS.
    const columns = (await db.query(
      `SELECT table_name, column_name FROM information_schema.columns
        WHERE table_schema = 'public' AND (column_name LIKE '%encrypted%' OR column_name LIKE '%secret%')`,
    )) as { table_name: string; column_name: string }[];
    const known = ENCRYPTED_COLUMNS.map(({ table, column }) => `${table}.${column}`).sort();
    expect(columns.map((c) => `${c.table_name}.${c.column_name}`).sort()).toEqual(known);
  });

  it('moves every secret to the new key in one run, and a second run changes nothing', async () => {
    const ids = await seedSecrets(oldCrypto);
    const first = await reencryptSecrets(db, [oldCrypto], newCrypto);
    expect(first).toEqual({ reencrypted: 4, alreadyCurrent: 0 });

    const after = await read(ids);
    expect(newCrypto.decrypt(after.trunk)).toBe('trunk-pass');
    expect(newCrypto.decrypt(after.account)).toBe('sip-pass');
    expect(newCrypto.decrypt(after.secrets.botToken)).toBe('tg-token');
    expect(newCrypto.decrypt(after.secrets.webhookSecret)).toBe('tg-hook');
    expect(oldCrypto.canDecrypt(after.trunk)).toBe(false);

    const second = await reencryptSecrets(db, [oldCrypto], newCrypto);
    expect(second).toEqual({ reencrypted: 0, alreadyCurrent: 4 });
    expect(await read(ids)).toEqual(after);
  });

  it('changes nothing at all when one secret cannot be read with the keys given', async () => {
    const stranger = ConfigCrypto.fromKey(randomBytes(32).toString('hex'));
    const readable = await seedSecrets(oldCrypto);
    const unreadable = await seedSecrets(stranger);
    const before = [await read(readable), await read(unreadable)];
    await expect(reencryptSecrets(db, [oldCrypto], newCrypto)).rejects.toThrow(ReencryptError);
    expect([await read(readable), await read(unreadable)]).toEqual(before);
    // With every old key it goes through (the first run's rows are already current).
    expect(await reencryptSecrets(db, [oldCrypto, stranger], newCrypto)).toEqual({ reencrypted: 8, alreadyCurrent: 4 });
  });

  it('moves data away from the built-in key of older versions', async () => {
    const legacy = ConfigCrypto.fromKey(publishedDevelopmentKey());
    const ids = await seedSecrets(legacy);
    const { from, to } = reencryptArgs(['--from-published-development-key'], { CONFIG_ENCRYPTION_KEY: newKey });
    await reencryptSecrets(db, from, to);
    expect(newCrypto.decrypt((await read(ids)).trunk)).toBe('trunk-pass');
  });

  it('needs the new key and an old one', () => {
    expect(() => reencryptArgs([], { OLD_CONFIG_ENCRYPTION_KEY: oldKey })).toThrow(/set CONFIG_ENCRYPTION_KEY to the NEW key/);
    expect(() => reencryptArgs([], { CONFIG_ENCRYPTION_KEY: newKey })).toThrow(/give the old key/);
    expect(() => reencryptArgs(['--from', 'short'], { CONFIG_ENCRYPTION_KEY: newKey })).toThrow(/32 bytes/);
    expect(reencryptArgs([], { CONFIG_ENCRYPTION_KEY: newKey, OLD_CONFIG_ENCRYPTION_KEY: oldKey }).from).toHaveLength(1);
  });
});
