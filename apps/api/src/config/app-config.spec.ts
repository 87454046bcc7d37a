import { ConfigError, loadConfig, loadDatabaseUrl, parseTrustProxy } from './app-config';

describe('loadConfig', () => {
  it('works locally with no environment at all', () => {
    const config = loadConfig({});
    expect(config).toMatchObject({
      nodeEnv: 'development',
      port: 3000,
      host: undefined,
      databaseUrl: 'postgres://postgres@127.0.0.1:5432/centralita',
      redisUrl: 'redis://127.0.0.1:6379',
      queuePrefix: 'centralita',
      publicUrl: 'http://localhost:3000',
      smtpUrl: null,
      trustProxy: false,
      bodyLimit: '100kb',
      selfRegistration: { enabled: false, resellerId: null },
      devMailbox: false,
    });
    expect(config.jwt).toMatchObject({ ephemeral: true, issuer: 'centralita', audience: 'centralita-console', accessTtlSeconds: 600 });
    expect(config.jwt.secret.length).toBeGreaterThanOrEqual(64);
    expect(config.rateLimits.loginPerAccount).toEqual({ limit: 5, windowSeconds: 60 });
    expect(config.rateLimits.loginPerIp).toEqual({ limit: 20, windowSeconds: 60 });
  });

  it('reads and normalises the environment', () => {
    const config = loadConfig({
      PORT: '8080',
      HOST: '0.0.0.0',
      PUBLIC_URL: 'https://cc.example.com/',
      QUEUE_PREFIX: 'cc-prod',
      JWT_SECRET: 's'.repeat(40),
      SMTP_URL: 'smtp://mail:25',
      TRUST_PROXY: '10.0.0.0/8, loopback',
      SELF_REGISTRATION: 'on',
      SELF_REGISTRATION_RESELLER_ID: '3f1c2b4a-5d6e-4f70-8a91-b2c3d4e5f607',
      DEV_MAILBOX: 'on',
    });
    expect(config).toMatchObject({
      port: 8080,
      host: '0.0.0.0',
      publicUrl: 'https://cc.example.com',
      queuePrefix: 'cc-prod',
      smtpUrl: 'smtp://mail:25',
      trustProxy: ['10.0.0.0/8', 'loopback'],
      selfRegistration: { enabled: true, resellerId: '3f1c2b4a-5d6e-4f70-8a91-b2c3d4e5f607' },
      devMailbox: true,
    });
    expect(config.jwt).toMatchObject({ secret: 's'.repeat(40), ephemeral: false });
  });

  it('in production requires the secrets and URLs and disables self-registration by default', () => {
    expect(() => loadConfig({ NODE_ENV: 'production' })).toThrow(ConfigError);
    try {
      loadConfig({ NODE_ENV: 'production' });
    } catch (error) {
      expect((error as ConfigError).problems).toEqual([
        'DATABASE_URL is required when NODE_ENV=production',
        'REDIS_URL is required when NODE_ENV=production',
        'PUBLIC_URL is required when NODE_ENV=production',
        'JWT_SECRET is required when NODE_ENV=production',
        'CONFIG_ENCRYPTION_KEY is required when NODE_ENV=production (32 random bytes as 64 hex characters, e.g. `openssl rand -hex 32`); the API and the worker must share it',
      ]);
    }
    const config = loadConfig({
      NODE_ENV: 'production',
      DATABASE_URL: 'postgres://db/cc',
      REDIS_URL: 'redis://redis',
      PUBLIC_URL: 'https://cc.example.com',
      JWT_SECRET: 'x'.repeat(48),
      CONFIG_ENCRYPTION_KEY: 'ab'.repeat(32),
    });
    expect(config.selfRegistration.enabled).toBe(false);
    expect(config.devMailbox).toBe(false);
  });

  it('reports every problem at once, clearly', () => {
    expect(() =>
      loadConfig({ PORT: 'http', DATABASE_URL: 'mysql://x', NODE_ENV: 'staging', QUEUE_PREFIX: 'a b', TRUST_PROXY: 'true' }),
    ).toThrow(
      /NODE_ENV must be development, production or test[\s\S]*PORT must be an integer between 0 and 65535[\s\S]*DATABASE_URL must use postgres: or postgresql:[\s\S]*QUEUE_PREFIX may only contain[\s\S]*TRUST_PROXY=true would trust X-Forwarded-For from anyone/,
    );
  });

  it('refuses short production secrets and bad registration tenants', () => {
    expect(() =>
      loadConfig({
        NODE_ENV: 'production',
        DATABASE_URL: 'postgres://db/cc',
        REDIS_URL: 'redis://r',
        PUBLIC_URL: 'https://x',
        JWT_SECRET: 'short',
      }),
    ).toThrow(/JWT_SECRET must be at least 32 characters/);
    // The old setting added self-registered users to an existing tenant: refused, with the way forward.
    expect(() => loadConfig({ REGISTRATION_CLIENT_ID: '3f1c2b4a-5d6e-4f70-8a91-b2c3d4e5f607' })).toThrow(
      /REGISTRATION_CLIENT_ID is no longer supported[\s\S]*SELF_REGISTRATION=on/,
    );
    expect(() => loadConfig({ SELF_REGISTRATION_RESELLER_ID: 'demo' })).toThrow(/SELF_REGISTRATION_RESELLER_ID must be a reseller UUID/);
    expect(() => loadConfig({ SELF_REGISTRATION: 'sometimes' })).toThrow(/SELF_REGISTRATION must be on or off/);
  });

  it('has no development surface unless asked: no dev mailbox, no self-registration, and never the mailbox in production', () => {
    expect(loadConfig({})).toMatchObject({ devMailbox: false, selfRegistration: { enabled: false } });
    expect(loadConfig({ NODE_ENV: 'development', DEV_MAILBOX: 'off', SELF_REGISTRATION: 'off' })).toMatchObject({
      devMailbox: false,
      selfRegistration: { enabled: false },
    });
    const production = {
      NODE_ENV: 'production',
      DATABASE_URL: 'postgres://db/cc',
      REDIS_URL: 'redis://r',
      PUBLIC_URL: 'https://x',
      JWT_SECRET: 'x'.repeat(48),
      CONFIG_ENCRYPTION_KEY: 'ab'.repeat(32),
    };
    expect(() => loadConfig({ ...production, DEV_MAILBOX: 'on' })).toThrow(/DEV_MAILBOX cannot be on when NODE_ENV=production/);
  });

  it('refuses to start in production without CONFIG_ENCRYPTION_KEY (there is no fallback key), or with a malformed one anywhere', () => {
    const production = {
      NODE_ENV: 'production',
      DATABASE_URL: 'postgres://db/cc',
      REDIS_URL: 'redis://r',
      PUBLIC_URL: 'https://x',
      JWT_SECRET: 'x'.repeat(48),
    };
    expect(() => loadConfig(production)).toThrow(/CONFIG_ENCRYPTION_KEY is required when NODE_ENV=production/);
    expect(() => loadConfig({ ...production, CONFIG_ENCRYPTION_KEY: 'secret' })).toThrow(/CONFIG_ENCRYPTION_KEY must be 32 bytes/);
    expect(() => loadConfig({ CONFIG_ENCRYPTION_KEY: 'ab'.repeat(20) })).toThrow(/CONFIG_ENCRYPTION_KEY must be 32 bytes/);
    expect(loadConfig({ ...production, CONFIG_ENCRYPTION_KEY: Buffer.alloc(32, 1).toString('base64') }).nodeEnv).toBe('production');
  });

  it('allows no non-public outgoing range unless the operator lists one, and names a bad entry', () => {
    expect(loadConfig({}).outgoingAllowedCidrs).toEqual([]);
    expect(loadConfig({ OUTGOING_ALLOWED_CIDRS: '10.20.0.0/16 fd12:3456::/48' }).outgoingAllowedCidrs).toEqual([
      '10.20.0.0/16',
      'fd12:3456::/48',
    ]);
    expect(() => loadConfig({ OUTGOING_ALLOWED_CIDRS: '10.0.0.0/40' })).toThrow(
      'OUTGOING_ALLOWED_CIDRS entry "10.0.0.0/40" is not an IP address or CIDR',
    );
  });

  it('applies overrides on top of the environment', () => {
    const config = loadConfig(
      { QUEUE_PREFIX: 'env' },
      { queuePrefix: 'override', rateLimits: { loginPerIp: { limit: 1, windowSeconds: 1 } } },
    );
    expect(config.queuePrefix).toBe('override');
    expect(config.rateLimits.loginPerIp).toEqual({ limit: 1, windowSeconds: 1 });
    expect(config.rateLimits.loginPerAccount).toEqual({ limit: 5, windowSeconds: 60 });
  });
});

describe('parseTrustProxy', () => {
  it.each([
    [undefined, false],
    ['false', false],
    ['0', false],
    ['2', 2],
    ['loopback', ['loopback']],
    ['192.168.0.1, fd00::/8', ['192.168.0.1', 'fd00::/8']],
  ])('%s → %j', (raw, expected) => {
    const problems: string[] = [];
    expect(parseTrustProxy(raw, problems)).toEqual(expected);
    expect(problems).toEqual([]);
  });

  it('refuses names it does not know', () => {
    const problems: string[] = [];
    parseTrustProxy('everyone', problems);
    expect(problems).toEqual(['TRUST_PROXY entry "everyone" is not an address, CIDR or loopback/linklocal/uniquelocal']);
  });
});

describe('loadDatabaseUrl', () => {
  it('needs nothing but DATABASE_URL, with the local default outside production', () => {
    expect(loadDatabaseUrl({ DATABASE_URL: 'postgres://db/cc', NODE_ENV: 'production' })).toBe('postgres://db/cc');
    expect(loadDatabaseUrl({})).toBe('postgres://postgres@127.0.0.1:5432/centralita');
    expect(() => loadDatabaseUrl({ NODE_ENV: 'production' })).toThrow('DATABASE_URL is required when NODE_ENV=production');
  });
});
