import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';

/** GCM authentication tag length written and required (the full 128 bits). */
const AUTH_TAG_BYTES = 16;
const KEY_HELP = 'CONFIG_ENCRYPTION_KEY must be 32 bytes (64 hex characters or base64)';
const MISSING =
  'CONFIG_ENCRYPTION_KEY is required when NODE_ENV=production (32 random bytes as 64 hex characters, e.g. `openssl rand -hex 32`); the API and the worker must share it';

/** The 32-byte key of a CONFIG_ENCRYPTION_KEY value (64 hex characters or base64); throws on anything else. */
export function parseConfigEncryptionKey(raw: string): Buffer {
  const value = raw.trim();
  const key = /^[0-9a-fA-F]{64}$/.test(value)
    ? Buffer.from(value, 'hex')
    : /^[A-Za-z0-9+/]{43}=?$/.test(value)
      ? Buffer.from(value, 'base64')
      : Buffer.alloc(0);
  if (key.length !== 32) throw new Error(KEY_HELP);
  return key;
}

/**
 * What is wrong with the environment's CONFIG_ENCRYPTION_KEY for this NODE_ENV, or null. The API's
 * and the worker's configuration loaders report it with their other problems at start-up.
 */
export function configEncryptionKeyProblem(env: NodeJS.ProcessEnv): string | null {
  const raw = env.CONFIG_ENCRYPTION_KEY?.trim();
  if (!raw) return (env.NODE_ENV ?? 'development').trim() === 'production' ? MISSING : null;
  try {
    parseConfigEncryptionKey(raw);
    return null;
  } catch {
    return KEY_HELP;
  }
}

/**
 * AES-256-GCM for secrets at rest (channel secrets, trunk and softphone passwords). The API writes
 * them and the worker's dialer reads trunk passwords, so both must use this one implementation
 * and the same CONFIG_ENCRYPTION_KEY (32 bytes as 64 hex characters or base64). There is no
 * built-in key: production refuses to start without one, and elsewhere (`npm start` and
 * `npm run dev` generate one into .data/) a process without a key starts but refuses to store or
 * read a secret. Stored form: v1.<iv>.<tag>.<ciphertext>. Rotation: `node apps/api/dist/database/cli.js
 * reencrypt` (docs/operations.md).
 *
 * Node-only (node:crypto): exported from `@centralita/contracts/server`, never from the index the
 * console bundles.
 */
export class ConfigCrypto {
  private readonly key: Buffer | null;

  /** `warn` receives the missing-key warning outside production (the API passes its Nest logger). */
  constructor(
    env: NodeJS.ProcessEnv = process.env,
    warn: (message: string) => void = (message) => console.warn(`[ConfigCrypto] ${message}`),
  ) {
    const raw = env.CONFIG_ENCRYPTION_KEY?.trim();
    if (raw) {
      this.key = parseConfigEncryptionKey(raw);
    } else if ((env.NODE_ENV ?? 'development').trim() === 'production') {
      throw new Error(MISSING);
    } else {
      this.key = null;
      if ((env.NODE_ENV ?? 'development').trim() !== 'test')
        warn('CONFIG_ENCRYPTION_KEY is not set: channel secrets and trunk passwords cannot be stored or read until it is');
    }
  }

  /** A ConfigCrypto of one given key (the re-encrypt command's old and new keys). */
  static fromKey(raw: string): ConfigCrypto {
    return new ConfigCrypto({ CONFIG_ENCRYPTION_KEY: raw, NODE_ENV: 'test' });
  }

  get configured(): boolean {
    return this.key !== null;
  }

  private requireKey(): Buffer {
    if (!this.key) throw new Error('CONFIG_ENCRYPTION_KEY is not set: secrets cannot be stored or read');
    return this.key;
  }

  encrypt(plain: string): string {
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.requireKey(), iv);
    const data = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
    return ['v1', iv.toString('base64'), cipher.getAuthTag().toString('base64'), data.toString('base64')].join('.');
  }

  decrypt(stored: string): string {
    const [version, iv, tag, data] = stored.split('.');
    if (version !== 'v1' || !iv || !tag || data === undefined) throw new Error('unknown secret format');
    const tagBytes = Buffer.from(tag, 'base64');
    // GCM accepts tags as short as 4 bytes unless told otherwise; a truncated tag would weaken the
    // authentication to a guessable size, so only the full 16 bytes written by encrypt() are read.
    if (tagBytes.length !== AUTH_TAG_BYTES) throw new Error('unknown secret format');
    const decipher = createDecipheriv('aes-256-gcm', this.requireKey(), Buffer.from(iv, 'base64'), {
      authTagLength: AUTH_TAG_BYTES,
    });
    decipher.setAuthTag(tagBytes);
    return Buffer.concat([decipher.update(Buffer.from(data, 'base64')), decipher.final()]).toString('utf8');
  }

  /** True when `stored` was written with this key (it decrypts and authenticates). */
  canDecrypt(stored: string): boolean {
    try {
      this.decrypt(stored);
      return true;
    } catch {
      return false;
    }
  }
}
