import { ConfigCrypto } from './config-crypto';

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
    const parts = a.split('.');
    parts[3] = Buffer.from('y').toString('base64');
    expect(() => crypto.decrypt(parts.join('.'))).toThrow();
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

describe('ConfigCrypto development key', () => {
  it('warns once outside test and production, and the API and the worker derive the same key', () => {
    const warnings: string[] = [];
    const api = new ConfigCrypto({ NODE_ENV: 'development' }, (message) => warnings.push(message));
    const worker = new ConfigCrypto({ NODE_ENV: 'development' }, (message) => warnings.push(message));
    expect(warnings).toHaveLength(2);
    expect(warnings[0]).toMatch(/CONFIG_ENCRYPTION_KEY is not set/);
    expect(worker.decrypt(api.encrypt('trunk-password'))).toBe('trunk-password');
  });
});
