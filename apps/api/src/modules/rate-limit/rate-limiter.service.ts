import { createHash } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import type Redis from 'ioredis';
import type { RateLimitRule } from '../../config/app-config';
import { AppException } from '../../common/app.exception';
import { REDIS, RedisKeys } from '../redis/redis.module';

export interface RateLimitResult {
  allowed: boolean;
  count: number;
  retryAfterSeconds: number;
}

/**
 * Fixed-window counters in Redis, shared by every API process. Subjects (emails, addresses) are
 * hashed so keys hold no personal data and no client-controlled characters.
 */
@Injectable()
export class RateLimiterService {
  constructor(
    @Inject(REDIS) private readonly redis: Redis,
    private readonly keys: RedisKeys,
  ) {}

  async hit(bucket: string, subject: string, rule: RateLimitRule, now = Date.now()): Promise<RateLimitResult> {
    const windowMs = rule.windowSeconds * 1000;
    const window = Math.floor(now / windowMs);
    const key = this.key(bucket, subject, window);
    const results = await this.redis
      .multi()
      .incr(key)
      .pexpire(key, windowMs + 1000)
      .exec();
    const [incrError, count] = results?.[0] ?? [new Error('rate limiter: empty Redis reply'), 0];
    if (incrError) throw incrError;
    const retryAfterSeconds = ((window + 1) * windowMs - now) / 1000;
    return { allowed: Number(count) <= rule.limit, count: Number(count), retryAfterSeconds };
  }

  /** Counts one attempt and throws 429 (errorCode rate_limited, Retry-After) past the limit. */
  async consume(bucket: string, subject: string, rule: RateLimitRule): Promise<void> {
    const result = await this.hit(bucket, subject, rule);
    if (!result.allowed) throw AppException.rateLimited(result.retryAfterSeconds);
  }

  async reset(bucket: string, subject: string, rule: RateLimitRule, now = Date.now()): Promise<void> {
    await this.redis.del(this.key(bucket, subject, Math.floor(now / (rule.windowSeconds * 1000))));
  }

  private key(bucket: string, subject: string, window: number): string {
    const digest = createHash('sha256').update(subject).digest('base64url').slice(0, 22);
    return this.keys.key('rl', bucket, digest, window);
  }
}
