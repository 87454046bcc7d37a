import { loadWorkerConfig, WorkerConfigError } from './worker-config';

describe('loadWorkerConfig', () => {
  it('works locally with no environment', () => {
    expect(loadWorkerConfig({})).toEqual({
      nodeEnv: 'development',
      redisUrl: 'redis://127.0.0.1:6379',
      queuePrefix: 'centralita',
      smtpUrl: null,
      devMailbox: false,
      mailFrom: 'Centralita <no-reply@centralita.local>',
      mailConcurrency: 5,
      databaseUrl: 'postgres://postgres@127.0.0.1:5432/centralita',
      reportRetentionHours: 24,
      outgoingAllowedCidrs: [],
      channelSendEnabled: true,
      fileStore: { driver: 'postgres' },
      voice: null,
    });
  });

  it('lets a worker leave provider sends to others, and names a bad switch', () => {
    expect(loadWorkerConfig({ CHANNEL_SEND_ENABLED: 'off' }).channelSendEnabled).toBe(false);
    expect(loadWorkerConfig({ CHANNEL_SEND_ENABLED: 'on' }).channelSendEnabled).toBe(true);
    expect(() => loadWorkerConfig({ CHANNEL_SEND_ENABLED: 'maybe' })).toThrow('CHANNEL_SEND_ENABLED must be on or off (got "maybe")');
  });

  it('reads the ranges the operator allows outgoing connections to, and names a bad entry', () => {
    expect(loadWorkerConfig({ OUTGOING_ALLOWED_CIDRS: '10.20.0.0/16, 192.168.50.7' }).outgoingAllowedCidrs).toEqual([
      '10.20.0.0/16',
      '192.168.50.7',
    ]);
    expect(() => loadWorkerConfig({ OUTGOING_ALLOWED_CIDRS: '10.20.0.0/16,intranet' })).toThrow(
      'OUTGOING_ALLOWED_CIDRS entry "intranet" is not an IP address or CIDR',
    );
  });

  it('reads the environment', () => {
    expect(
      loadWorkerConfig({
        REDIS_URL: 'redis://r:6380/2',
        QUEUE_PREFIX: 'cc',
        SMTP_URL: 'smtps://u:p@mail:465',
        MAIL_FROM: 'CC <cc@example.com>',
      }),
    ).toMatchObject({
      redisUrl: 'redis://r:6380/2',
      queuePrefix: 'cc',
      smtpUrl: 'smtps://u:p@mail:465',
      mailFrom: 'CC <cc@example.com>',
    });
  });

  it('lists every problem', () => {
    expect(() => loadWorkerConfig({ NODE_ENV: 'production', SMTP_URL: 'http://mail', QUEUE_PREFIX: 'a:b', MAIL_CONCURRENCY: '0' })).toThrow(
      WorkerConfigError,
    );
    try {
      loadWorkerConfig({ NODE_ENV: 'production', SMTP_URL: 'http://mail', QUEUE_PREFIX: 'a:b', MAIL_CONCURRENCY: '0' });
    } catch (error) {
      expect((error as WorkerConfigError).problems).toEqual([
        'REDIS_URL is required when NODE_ENV=production',
        'SMTP_URL must use smtp: or smtps: (got "http:")',
        'DATABASE_URL is required when NODE_ENV=production',
        'QUEUE_PREFIX may only contain letters, digits, "_", "." and "-"',
        'CONFIG_ENCRYPTION_KEY is required when NODE_ENV=production (32 random bytes as 64 hex characters, e.g. `openssl rand -hex 32`); the API and the worker must share it',
        'MAIL_CONCURRENCY must be an integer between 1 and 100',
      ]);
    }
  });

  it("refuses to start in production without the API's CONFIG_ENCRYPTION_KEY (no fallback key), or with a malformed one", () => {
    const production = { NODE_ENV: 'production', REDIS_URL: 'redis://r', DATABASE_URL: 'postgres://db/cc', SMTP_URL: 'smtp://mail' };
    expect(() => loadWorkerConfig(production)).toThrow(/CONFIG_ENCRYPTION_KEY is required when NODE_ENV=production/);
    expect(() => loadWorkerConfig({ ...production, CONFIG_ENCRYPTION_KEY: 'not-a-key' })).toThrow(/must be 32 bytes/);
    expect(() => loadWorkerConfig({ CONFIG_ENCRYPTION_KEY: 'ab'.repeat(16) })).toThrow(/must be 32 bytes/);
    expect(loadWorkerConfig({ ...production, CONFIG_ENCRYPTION_KEY: 'ab'.repeat(32) }).nodeEnv).toBe('production');
  });

  it('keeps mail for the dev mailbox only when DEV_MAILBOX=on, and never in production', () => {
    expect(loadWorkerConfig({}).devMailbox).toBe(false);
    expect(loadWorkerConfig({ DEV_MAILBOX: 'on' }).devMailbox).toBe(true);
    expect(() => loadWorkerConfig({ DEV_MAILBOX: 'maybe' })).toThrow(/DEV_MAILBOX must be on or off/);
    expect(() =>
      loadWorkerConfig({
        NODE_ENV: 'production',
        REDIS_URL: 'redis://r',
        DATABASE_URL: 'postgres://db/cc',
        CONFIG_ENCRYPTION_KEY: 'ab'.repeat(32),
        DEV_MAILBOX: 'on',
      }),
    ).toThrow(/DEV_MAILBOX cannot be on when NODE_ENV=production/);
  });
});
