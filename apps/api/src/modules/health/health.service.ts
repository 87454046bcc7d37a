import type { HealthReport } from '@centralita/contracts';
import { Inject, Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type Redis from 'ioredis';
import type { DataSource } from 'typeorm';
import { REDIS, RedisKeys } from '../redis/redis.module';

const CHECK_TIMEOUT_MS = 2000;

function withTimeout<T>(work: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`timed out after ${ms} ms`)), ms);
  });
  return Promise.race([work, timeout]).finally(() => clearTimeout(timer));
}

function voiceStatusUp(raw: string | null): boolean {
  try {
    return raw !== null && (JSON.parse(raw) as { rtpengine?: unknown }).rtpengine === 'up';
  } catch {
    return false;
  }
}

@Injectable()
export class HealthService {
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    @Inject(REDIS) private readonly redis: Redis,
    private readonly keys: RedisKeys,
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
    // The worker's voice server writes `<prefix>:voice:status` every 5 s with a 15 s TTL (apps/worker/src/voice).
    const voice =
      redis === 'up'
        ? await withTimeout(this.redis.get(this.keys.key('voice', 'status')), CHECK_TIMEOUT_MS).then(
            (raw) => (voiceStatusUp(raw) ? ('connected' as const) : ('notConnected' as const)),
            () => 'notConnected' as const,
          )
        : ('notConnected' as const);
    return { database, redis, voice };
  }
}
