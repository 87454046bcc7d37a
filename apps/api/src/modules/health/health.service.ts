import type { HealthReport } from '@centralita/contracts';
import { Inject, Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type Redis from 'ioredis';
import type { DataSource } from 'typeorm';
import { REDIS } from '../redis/redis.module';

const CHECK_TIMEOUT_MS = 2000;

function withTimeout<T>(work: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`timed out after ${ms} ms`)), ms);
  });
  return Promise.race([work, timeout]).finally(() => clearTimeout(timer));
}

@Injectable()
export class HealthService {
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    @Inject(REDIS) private readonly redis: Redis,
  ) {}

  /** Each dependency is probed with a short deadline so a dead one answers 'down', never a hang. */
  async check(): Promise<HealthReport> {
    const [database, redis] = await Promise.all([
      withTimeout(this.dataSource.query('SELECT 1'), CHECK_TIMEOUT_MS).then(
        () => 'up' as const,
        () => 'down' as const,
      ),
      withTimeout(this.redis.ping(), CHECK_TIMEOUT_MS).then(
        (reply) => (reply === 'PONG' ? ('up' as const) : ('down' as const)),
        () => 'down' as const,
      ),
    ]);
    return { database, redis };
  }
}
