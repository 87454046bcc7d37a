import { Global, Inject, Injectable, Logger, Module, type OnApplicationShutdown } from '@nestjs/common';
import Redis from 'ioredis';
import { APP_CONFIG, type AppConfig } from '../../config/app-config';

export const REDIS = Symbol('REDIS');

/** Every Redis key the API writes lives under the configured prefix (QUEUE_PREFIX). */
@Injectable()
export class RedisKeys {
  constructor(@Inject(APP_CONFIG) private readonly config: AppConfig) {}

  key(...parts: (string | number)[]): string {
    return [this.config.queuePrefix, ...parts].join(':');
  }
}

@Injectable()
class RedisLifecycle implements OnApplicationShutdown {
  constructor(@Inject(REDIS) private readonly redis: Redis) {}

  async onApplicationShutdown(): Promise<void> {
    // QUIT needs a live connection; while Redis is away only disconnect() stops the reconnect loop.
    if (this.redis.status === 'ready') await this.redis.quit().catch(() => this.redis.disconnect());
    else this.redis.disconnect();
  }
}

@Global()
@Module({
  providers: [
    {
      provide: REDIS,
      inject: [APP_CONFIG],
      // Commands fail fast while Redis is away (the API answers 503) instead of queueing forever.
      useFactory: (config: AppConfig) => {
        const redis = new Redis(config.redisUrl, {
          maxRetriesPerRequest: 1,
          commandTimeout: 3000,
          connectTimeout: 3000,
          disconnectTimeout: 500,
        });
        const logger = new Logger('Redis');
        let down = false;
        // One line per outage instead of ioredis' "Unhandled error event" on every retry.
        redis.on('error', (error: Error) => {
          if (!down) logger.warn(`Redis unavailable: ${error.message}`);
          down = true;
        });
        redis.on('ready', () => {
          if (down) logger.log('Redis is back');
          down = false;
        });
        return redis;
      },
    },
    RedisKeys,
    RedisLifecycle,
  ],
  exports: [REDIS, RedisKeys],
})
export class RedisModule {}
