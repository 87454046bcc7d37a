import { randomBytes } from 'node:crypto';
import type { AuthResult, Envelope } from '@centralita/contracts';
import type { NestExpressApplication } from '@nestjs/platform-express';
import type Redis from 'ioredis';
import request from 'supertest';
import { DataSource } from 'typeorm';
import type { ConfigOverrides } from '../../src/config/app-config';
import { createApp } from '../../src/main';
import { REDIS } from '../../src/modules/redis/redis.module';
import { createSuiteDatabase } from './suite-database';

export interface TestApp {
  app: NestExpressApplication;
  url: string;
  http: () => ReturnType<typeof request>;
  dataSource: DataSource;
  redis: Redis;
  close: () => Promise<void>;
}

/**
 * The real API (real PostgreSQL and Redis from global-setup) listening on port 0. Every suite
 * runs from 127.0.0.1, and suites run in parallel: the per-IP limits are raised here, and the
 * rate-limit suite sets its own. `ownDatabase`: on a database of its own (suite-database.ts),
 * dropped on close — for an app on a queue prefix of its own that waits for its own effects.
 */
export async function startTestApp(config: ConfigOverrides = {}, options: { ownDatabase?: boolean } = {}): Promise<TestApp> {
  const database = options.ownDatabase ? await createSuiteDatabase() : null;
  try {
    return await listen(database ? { ...config, databaseUrl: database.url } : config, async () => database?.drop());
  } catch (error) {
    await database?.drop();
    throw error;
  }
}

async function listen(config: ConfigOverrides, afterClose: () => Promise<void>): Promise<TestApp> {
  const app = await createApp({
    config: {
      ...config,
      rateLimits: {
        loginPerIp: { limit: 10_000, windowSeconds: 60 },
        resetPerIp: { limit: 10_000, windowSeconds: 60 },
        ...config.rateLimits,
      },
    },
    logger: ['error'],
  });
  await app.listen(0, '127.0.0.1');
  const url = (await app.getUrl()).replace('[::1]', '127.0.0.1');
  return {
    app,
    url,
    http: () => request(url),
    dataSource: app.get(DataSource),
    redis: app.get<Redis>(REDIS),
    close: async () => {
      await app.close();
      await afterClose();
    },
  };
}

export function uniqueEmail(prefix = 'user'): string {
  return `${prefix}-${Date.now().toString(36)}-${randomBytes(4).toString('hex')}@test.centralita.io`;
}

export function bearer(token: string): { Authorization: string } {
  return { Authorization: `Bearer ${token}` };
}

export async function login(t: TestApp, email: string, password: string): Promise<AuthResult> {
  const response = await t.http().post('/api/auth/login').send({ email, password });
  if (response.status !== 200) throw new Error(`login of ${email} failed: ${response.status} ${JSON.stringify(response.body)}`);
  return (response.body as Envelope<AuthResult>).data!;
}
