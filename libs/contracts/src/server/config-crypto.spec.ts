import { createHash } from 'node:crypto';
import { ConfigCrypto, configEncryptionKeyProblem } from './config-crypto';

describe(ConfigCrypto.name, () => {
  const key = 'ab'.repeat(32);

  it('round-trips a secret and never stores it in clear', () => {
    const crypto = new ConfigCrypto({ CONFIG_ENCRYPTION_KEY: key, NODE_ENV: 'test' });
    const stored = crypto.encrypt('EAAG-secret-token');
    expect(stored).not.toContain('EAAG');
    expect(stored.startsWith('v1.')).toBe(true);
    expect(crypto.decrypt(stored)).toBe('EAAG-secret-token');
  });

  it('uses a fresh IV each time and detects tampering', () => {
    const crypto = new ConfigCrypto({ CONFIG_ENCRYPTION_KEY: key, NODE_ENV: 'test' });
    const a = crypto.encrypt('x');
    expect(crypto.encrypt('x')).not.toBe(a);
    // Flip one bit of the ciphertext: a replacement byte could equal the real one (1 in 256).
    const parts = a.split('.');
    const data = Buffer.from(parts[3], 'base64');
    data[0] ^= 0x01;
    parts[3] = data.toString('base64');
    expect(() => crypto.decrypt(parts.join('.'))).toThrow();
  });

  it('refuses a truncated authentication tag (GCM would otherwise accept 4 bytes)', () => {
    const crypto = new ConfigCrypto({ CONFIG_ENCRYPTION_KEY: key, NODE_ENV: 'test' });
    const parts = crypto.encrypt('secret').split('.');
    parts[2] = Buffer.from(parts[2], 'base64').subarray(0, 4).toString('base64');
    expect(() => crypto.decrypt(parts.join('.'))).toThrow(/unknown secret format/);
  });

  it('refuses to start in production without a key, and a key of the wrong size', () => {
    expect(() => new ConfigCrypto({ NODE_ENV: 'production' })).toThrow(/required/);
    expect(() => new ConfigCrypto({ CONFIG_ENCRYPTION_KEY: 'short', NODE_ENV: 'test' })).toThrow(/32 bytes/);
  });

  it('cannot read secrets written with another key', () => {
    const stored = new ConfigCrypto({ CONFIG_ENCRYPTION_KEY: key, NODE_ENV: 'test' }).encrypt('x');
    expect(() => new ConfigCrypto({ CONFIG_ENCRYPTION_KEY: 'cd'.repeat(32), NODE_ENV: 'test' }).decrypt(stored)).toThrow();
  });
});

describe('ConfigCrypto without a key', () => {
  it('has no published fallback key: outside production it warns and refuses every secret', () => {
    const warnings: string[] = [];
    const crypto = new ConfigCrypto({ NODE_ENV: 'development' }, (message) => warnings.push(message));
    expect(warnings).toEqual([expect.stringMatching(/CONFIG_ENCRYPTION_KEY is not set/)]);
    expect(crypto.configured).toBe(false);
    expect(() => crypto.encrypt('trunk-password')).toThrow(/CONFIG_ENCRYPTION_KEY is not set/);
    // What the old built-in development key wrote is not readable with any key but the one it was.
    const published = createHash('sha256').update('centralita development configuration key').digest('hex');
    const stored = ConfigCrypto.fromKey(published).encrypt('x');
    expect(() => crypto.decrypt(stored)).toThrow(/CONFIG_ENCRYPTION_KEY is not set/);
  });

  it('names the problem for the configuration loaders', () => {
    expect(configEncryptionKeyProblem({ NODE_ENV: 'production' })).toMatch(/required when NODE_ENV=production/);
    expect(configEncryptionKeyProblem({ NODE_ENV: 'development' })).toBeNull();
    expect(configEncryptionKeyProblem({ CONFIG_ENCRYPTION_KEY: 'cd'.repeat(31) })).toMatch(/32 bytes/);
    expect(
      configEncryptionKeyProblem({ NODE_ENV: 'production', CONFIG_ENCRYPTION_KEY: Buffer.alloc(32, 7).toString('base64') }),
    ).toBeNull();
  });

  it('tells which key wrote a secret', () => {
    const a = ConfigCrypto.fromKey('ab'.repeat(32));
    const b = ConfigCrypto.fromKey('cd'.repeat(32));
    const stored = a.encrypt('s');
    expect(a.canDecrypt(stored)).toBe(true);
    expect(b.canDecrypt(stored)).toBe(false);
  });
});
