import { ConfigError, loadConfig, loadDatabaseUrl, parseTrustProxy } from './app-config';
import { DEMO_CLIENT_ID } from '../database/seed-ids';

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
      registrationClientId: DEMO_CLIENT_ID,
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
      REGISTRATION_CLIENT_ID: 'disabled',
    });
    expect(config).toMatchObject({
      port: 8080,
      host: '0.0.0.0',
      publicUrl: 'https://cc.example.com',
      queuePrefix: 'cc-prod',
      smtpUrl: 'smtp://mail:25',
      trustProxy: ['10.0.0.0/8', 'loopback'],
      registrationClientId: null,
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
      ]);
    }
    const config = loadConfig({
      NODE_ENV: 'production',
      DATABASE_URL: 'postgres://db/cc',
      REDIS_URL: 'redis://redis',
      PUBLIC_URL: 'https://cc.example.com',
      JWT_SECRET: 'x'.repeat(48),
    });
    expect(config.registrationClientId).toBeNull();
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
    expect(() => loadConfig({ REGISTRATION_CLIENT_ID: 'demo' })).toThrow(/REGISTRATION_CLIENT_ID must be a client UUID or "disabled"/);
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
