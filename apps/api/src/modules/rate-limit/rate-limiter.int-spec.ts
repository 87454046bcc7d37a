import Redis from 'ioredis';
import { randomBytes } from 'node:crypto';
import { RedisKeys } from '../redis/redis.module';
import type { AppConfig } from '../../config/app-config';
import { AppException } from '../../common/app.exception';
import { RateLimiterService } from './rate-limiter.service';

describe(RateLimiterService.name, () => {
  const prefix = `${process.env.QUEUE_PREFIX}-limiter-${randomBytes(3).toString('hex')}`;
  let redis: Redis;
  let limiter: RateLimiterService;
  const rule = { limit: 3, windowSeconds: 60 };

  beforeAll(() => {
    redis = new Redis(process.env.REDIS_URL!);
    limiter = new RateLimiterService(redis, new RedisKeys({ queuePrefix: prefix } as AppConfig));
  });
  afterAll(async () => {
    const keys = await redis.keys(`${prefix}:*`);
    if (keys.length) await redis.del(...keys);
    await redis.quit();
  });

  it('allows up to the limit within a window, then refuses with the time left', async () => {
    const now = 1_700_000_050_000; // 10 s into a 60 s window
    const results = [];
    for (let i = 0; i < 4; i++) results.push(await limiter.hit('test', 'a@example.com', rule, now));
    expect(results.map((result) => result.allowed)).toEqual([true, true, true, false]);
    expect(results[3].retryAfterSeconds).toBeCloseTo(50, 0);
  });

  it('counts concurrent attempts exactly once each (one atomic step per attempt)', async () => {
    const now = 1_700_000_170_000;
    const results = await Promise.all(Array.from({ length: 50 }, () => limiter.hit('test', 'd@example.com', rule, now)));
    expect(results.map((result) => result.count).sort((x, y) => x - y)).toEqual(Array.from({ length: 50 }, (_, i) => i + 1));
    expect(results.filter((result) => result.allowed)).toHaveLength(rule.limit);
  });

  it('starts afresh in the next window', async () => {
    const now = 1_700_000_100_000;
    for (let i = 0; i < 4; i++) await limiter.hit('test', 'b@example.com', rule, now);
    expect((await limiter.hit('test', 'b@example.com', rule, now + 60_000)).allowed).toBe(true);
  });

  it('keys live under the prefix, expire, and hold a hash instead of the subject', async () => {
    await limiter.hit('test', 'secret@example.com', rule);
    const keys = await redis.keys(`${prefix}:rl:test:*`);
    expect(keys.length).toBeGreaterThan(0);
    expect(keys.some((key) => key.includes('secret@example.com'))).toBe(false);
    expect(await redis.pttl(keys[0])).toBeGreaterThan(0);
  });

  it('consume throws 429 rate_limited with Retry-After; reset clears the subject', async () => {
    for (let i = 0; i < 3; i++) await limiter.consume('consume', 'c@example.com', rule);
    const error = await limiter.consume('consume', 'c@example.com', rule).catch((thrown: unknown) => thrown);
    expect(error).toBeInstanceOf(AppException);
    expect(error).toMatchObject({ code: 'rate_limited', status: 429 });
    expect(Number((error as AppException).headers['Retry-After'])).toBeGreaterThanOrEqual(1);
    await limiter.reset('consume', 'c@example.com', rule);
    await expect(limiter.consume('consume', 'c@example.com', rule)).resolves.toBeUndefined();
  });
});
