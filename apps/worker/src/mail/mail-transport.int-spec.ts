import { randomBytes } from 'node:crypto';
import { DEV_MAILBOX, devMailboxKey, type DevMailboxEntry } from '@centralita/contracts';
import { Logger } from '@nestjs/common';
import Redis from 'ioredis';
import { loadWorkerConfig } from '../config/worker-config';
import { MailTransportService } from './mail-transport.service';

describe(MailTransportService.name, () => {
  const prefix = `${process.env.QUEUE_PREFIX}-mailbox-${randomBytes(3).toString('hex')}`;
  let redis: Redis;
  beforeAll(() => {
    redis = new Redis(process.env.REDIS_URL!);
    jest.spyOn(Logger.prototype, 'log').mockImplementation(() => undefined);
    jest.spyOn(Logger.prototype, 'warn').mockImplementation(() => undefined);
  });
  afterAll(async () => {
    await redis.del(devMailboxKey(prefix));
    await redis.quit();
  });

  it('without SMTP_URL and with DEV_MAILBOX=on keeps the newest 50 mails in the dev mailbox, newest first', async () => {
    const transport = new MailTransportService(
      loadWorkerConfig({ REDIS_URL: process.env.REDIS_URL, QUEUE_PREFIX: prefix, NODE_ENV: 'development', DEV_MAILBOX: 'on' }),
    );
    try {
      for (let i = 0; i < DEV_MAILBOX.limit + 5; i++)
        await transport.send({ to: `user${i}@example.com`, subject: `Mail ${i}`, text: `https://x/session/resetPassword/${i}` });
      const entries = (await redis.lrange(devMailboxKey(prefix), 0, -1)).map((raw) => JSON.parse(raw) as DevMailboxEntry);
      expect(entries).toHaveLength(DEV_MAILBOX.limit);
      expect(entries[0]).toMatchObject({
        to: 'user54@example.com',
        subject: 'Mail 54',
        from: 'Centralita <no-reply@centralita.local>',
        at: expect.any(String),
        clientId: null,
      });
      expect(entries.at(-1)!.subject).toBe('Mail 5');
      await transport.send({
        to: 'admin@example.com',
        subject: 'Tenant mail',
        text: 't',
        clientId: '7a0c0c54-4f6e-4b8e-9d0c-1f2e3d4c5b6a',
      });
      const [newest] = (await redis.lrange(devMailboxKey(prefix), 0, 0)).map((raw) => JSON.parse(raw) as DevMailboxEntry);
      expect(newest).toMatchObject({ subject: 'Tenant mail', clientId: '7a0c0c54-4f6e-4b8e-9d0c-1f2e3d4c5b6a' });
    } finally {
      await transport.onApplicationShutdown();
    }
  });

  it('without DEV_MAILBOX=on only logs the mail: nothing is kept for anyone to read', async () => {
    const quiet = `${prefix}-off`;
    const transport = new MailTransportService(
      loadWorkerConfig({ REDIS_URL: process.env.REDIS_URL, QUEUE_PREFIX: quiet, NODE_ENV: 'development' }),
    );
    try {
      await transport.send({ to: 'user@example.com', subject: 'Reset', text: 'https://x/session/resetPassword/secret' });
      expect(await redis.llen(devMailboxKey(quiet))).toBe(0);
    } finally {
      await transport.onApplicationShutdown();
    }
  });

  it('in production without SMTP_URL refuses to pretend it delivered', async () => {
    jest.spyOn(Logger.prototype, 'error').mockImplementation(() => undefined);
    const transport = new MailTransportService(
      loadWorkerConfig({
        REDIS_URL: process.env.REDIS_URL,
        DATABASE_URL: process.env.DATABASE_URL,
        QUEUE_PREFIX: prefix,
        NODE_ENV: 'production',
        CONFIG_ENCRYPTION_KEY: 'ab'.repeat(32),
      }),
    );
    await expect(transport.send({ to: 'a@b.co', subject: 's', text: 't' })).rejects.toThrow('SMTP_URL is not configured');
    await transport.onApplicationShutdown();
  });
});
