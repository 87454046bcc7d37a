import { createHash } from 'node:crypto';
import { ConfigCrypto } from '@centralita/contracts/server';
import type { DataSource, EntityManager } from 'typeorm';

/**
 * Every column that holds a ConfigCrypto ciphertext. A new encrypted column must be added here, or
 * rotating CONFIG_ENCRYPTION_KEY would leave it unreadable (reencrypt.int-spec.ts checks the list
 * against the schema).
 */
export const ENCRYPTED_COLUMNS = [
  { table: 'trunks', key: 'id', column: 'password_encrypted', shape: 'text' },
  { table: 'softphone_accounts', key: 'user_id', column: 'password_secret', shape: 'text' },
  { table: 'channel_configs', key: 'id', column: 'secrets', shape: 'json-map' },
  { table: 'channel_accounts', key: 'id', column: 'secrets', shape: 'json-map' },
] as const;

/**
 * The key versions before issue 17 derived when CONFIG_ENCRYPTION_KEY was unset (published in the
 * source): only ever a key to move data AWAY from, never one to write with.
 */
export function publishedDevelopmentKey(): string {
  return createHash('sha256').update('centralita development configuration key').digest('hex');
}

export interface ReencryptSummary {
  /** Secrets rewritten under the new key. */
  reencrypted: number;
  /** Secrets already under the new key (left as they are: running twice changes nothing). */
  alreadyCurrent: number;
}

export class ReencryptError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ReencryptError';
  }
}

/**
 * Re-encrypts every stored secret from any of the `from` keys to `to`, in ONE transaction with the
 * rows locked: either every secret ends under the new key or nothing changes (a secret no given
 * key can read aborts the run and names its row). Idempotent: secrets the new key already reads
 * are skipped, so an interrupted or repeated rotation is safe to run again.
 */
export async function reencryptSecrets(dataSource: DataSource, from: ConfigCrypto[], to: ConfigCrypto): Promise<ReencryptSummary> {
  if (!to.configured) throw new ReencryptError('the new key (CONFIG_ENCRYPTION_KEY) is not set');
  const summary: ReencryptSummary = { reencrypted: 0, alreadyCurrent: 0 };
  const convert = (stored: string, where: string): string => {
    if (to.canDecrypt(stored)) {
      summary.alreadyCurrent++;
      return stored;
    }
    for (const key of from) {
      if (!key.canDecrypt(stored)) continue;
      summary.reencrypted++;
      return to.encrypt(key.decrypt(stored));
    }
    throw new ReencryptError(`${where} cannot be decrypted with the new key nor with any old key given: nothing was changed`);
  };

  await dataSource.transaction(async (manager: EntityManager) => {
    for (const { table, key, column, shape } of ENCRYPTED_COLUMNS) {
      const rows = (await manager.query(
        `SELECT "${key}" AS key, "${column}" AS value FROM "${table}" WHERE "${column}" IS NOT NULL FOR NO KEY UPDATE`,
      )) as {
        key: string;
        value: string | Record<string, string>;
      }[];
      for (const row of rows) {
        const where = `${table}.${column} of ${key} ${row.key}`;
        if (shape === 'text') {
          const next = convert(row.value as string, where);
          if (next !== row.value) await manager.query(`UPDATE "${table}" SET "${column}" = $1 WHERE "${key}" = $2`, [next, row.key]);
          continue;
        }
        const map = row.value as Record<string, string>;
        let changed = false;
        const next: Record<string, string> = {};
        for (const [name, stored] of Object.entries(map)) {
          next[name] = typeof stored === 'string' ? convert(stored, `${where} (${name})`) : stored;
          changed ||= next[name] !== stored;
        }
        if (changed)
          await manager.query(`UPDATE "${table}" SET "${column}" = $1::jsonb WHERE "${key}" = $2`, [JSON.stringify(next), row.key]);
      }
    }
  });
  return summary;
}
