import { loadWorkerConfig, WorkerConfigError } from './worker-config';

describe('loadWorkerConfig', () => {
  it('works locally with no environment', () => {
    expect(loadWorkerConfig({})).toEqual({
      nodeEnv: 'development',
      redisUrl: 'redis://127.0.0.1:6379',
      queuePrefix: 'centralita',
      smtpUrl: null,
      mailFrom: 'Centralita <no-reply@centralita.local>',
      mailConcurrency: 5,
      databaseUrl: 'postgres://postgres@127.0.0.1:5432/centralita',
      reportExportDir: expect.stringContaining('centralita-exports'),
      reportRetentionHours: 24,
    });
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
        'MAIL_CONCURRENCY must be an integer between 1 and 100',
      ]);
    }
  });
});
