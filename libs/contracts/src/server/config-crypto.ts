import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';

/**
 * AES-256-GCM for secrets at rest (channel secrets, trunk and softphone passwords). The API writes
 * them and the worker's dialer reads trunk passwords, so both must use this one implementation
 * and the same CONFIG_ENCRYPTION_KEY. The key is 32 bytes as 64 hex characters or base64; outside
 * production a fixed development key is derived, with a warning, so local data stays readable
 * across restarts. Stored form: v1.<iv>.<tag>.<ciphertext>.
 *
 * Node-only (node:crypto): exported from `@centralita/contracts/server`, never from the index the
 * console bundles.
 */
export class ConfigCrypto {
  private readonly key: Buffer;

  /** `warn` receives the development-key warning (the API passes its Nest logger). */
  constructor(
    env: NodeJS.ProcessEnv = process.env,
    warn: (message: string) => void = (message) => console.warn(`[ConfigCrypto] ${message}`),
  ) {
    const raw = env.CONFIG_ENCRYPTION_KEY?.trim();
    if (raw) {
      const key = /^[0-9a-fA-F]{64}$/.test(raw) ? Buffer.from(raw, 'hex') : Buffer.from(raw, 'base64');
      if (key.length !== 32) throw new Error('CONFIG_ENCRYPTION_KEY must be 32 bytes (64 hex characters or base64)');
      this.key = key;
    } else if ((env.NODE_ENV ?? 'development') === 'production') {
      throw new Error('CONFIG_ENCRYPTION_KEY is required when NODE_ENV=production');
    } else {
      this.key = createHash('sha256').update('centralita development configuration key').digest();
      if ((env.NODE_ENV ?? 'development') !== 'test') {
        warn('CONFIG_ENCRYPTION_KEY is not set: channel secrets use a development key (never do this in production)');
      }
    }
  }

  encrypt(plain: string): string {
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.key, iv);
    const data = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
    return ['v1', iv.toString('base64'), cipher.getAuthTag().toString('base64'), data.toString('base64')].join('.');
  }

  decrypt(stored: string): string {
    const [version, iv, tag, data] = stored.split('.');
    if (version !== 'v1' || !iv || !tag || data === undefined) throw new Error('unknown secret format');
    const decipher = createDecipheriv('aes-256-gcm', this.key, Buffer.from(iv, 'base64'));
    decipher.setAuthTag(Buffer.from(tag, 'base64'));
    return Buffer.concat([decipher.update(Buffer.from(data, 'base64')), decipher.final()]).toString('utf8');
  }
}
