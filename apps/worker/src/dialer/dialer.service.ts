import { ConfigCrypto, OutgoingAddressPolicy } from '@centralita/contracts/server';
import { Inject, Injectable, Logger, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import Redis from 'ioredis';
import { DataSource } from 'typeorm';
import { WORKER_CONFIG, type WorkerConfig } from '../config/worker-config';
import { createTelephony } from '../telephony/create-telephony';
import type { Telephony } from '../telephony/telephony';
import { loadDialerConfig } from './dialer-config';
import { Dialer } from './dialer';

/** Runs the dialer inside the worker (DIALER_ENABLED=false turns it off); telephony from TELEPHONY (simulator by default). */
@Injectable()
export class DialerService implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger('Dialer');
  private dialer: Dialer | null = null;
  private telephony: Telephony | null = null;
  private dataSource: DataSource | null = null;
  private redis: Redis | null = null;

  constructor(@Inject(WORKER_CONFIG) private readonly config: WorkerConfig) {}

  private retry: NodeJS.Timeout | null = null;
  private stopped = false;

  /** Starts in the background: the worker's other queues run even while PostgreSQL is away. */
  onApplicationBootstrap(): void {
    const dialerConfig = loadDialerConfig(process.env);
    if (!dialerConfig.enabled) return;
    const attempt = () => {
      this.boot(dialerConfig).catch((error: Error) => {
        this.logger.warn(`dialer not started (${error.message}); retrying in 5 s`);
        void this.teardown().then(() => {
          if (!this.stopped) this.retry = setTimeout(attempt, 5000);
        });
      });
    };
    attempt();
  }

  private async boot(dialerConfig: ReturnType<typeof loadDialerConfig>): Promise<void> {
    // Trunk passwords are written by the API: the same CONFIG_ENCRYPTION_KEY must be set here (required in production).
    const crypto = new ConfigCrypto(process.env, (message) => this.logger.warn(message));
    // Trunks and SIP domains are tenant-supplied: the same outgoing-address policy as the API's.
    const outgoing = new OutgoingAddressPolicy({ allowedCidrs: this.config.outgoingAllowedCidrs });
    this.telephony = await createTelephony(dialerConfig.telephony, { outgoing });
    this.dataSource = new DataSource({
      type: 'postgres',
      url: this.config.databaseUrl,
      synchronize: false,
      extra: { max: 4, application_name: 'centralita-dialer' },
    });
    await this.dataSource.initialize();
    this.redis = new Redis(this.config.redisUrl, { maxRetriesPerRequest: null, disconnectTimeout: 500 });
    this.redis.on('error', () => undefined);
    this.dialer = new Dialer({
      dataSource: this.dataSource,
      redis: this.redis,
      redisUrl: this.config.redisUrl,
      queuePrefix: this.config.queuePrefix,
      telephony: this.telephony,
      telephonyKind: dialerConfig.telephony.kind,
      crypto,
      outgoing,
      tickMs: dialerConfig.tickMs,
      ringTimeoutSec: dialerConfig.ringTimeoutSec,
      maxCallsPerTick: dialerConfig.maxCallsPerTick,
      tenantIds: dialerConfig.tenantIds,
      driver: dialerConfig.driver,
      log: (message) => this.logger.warn(message),
    });
    await this.dialer.start();
    this.logger.log(`dialer started (${dialerConfig.telephony.kind}, owner ${this.dialer.owner})`);
  }

  async onApplicationShutdown(): Promise<void> {
    this.stopped = true;
    if (this.retry) clearTimeout(this.retry);
    await this.teardown();
  }

  private async teardown(): Promise<void> {
    await this.dialer?.stop();
    this.dialer = null;
    await this.telephony?.close().catch(() => undefined);
    if (this.dataSource?.isInitialized) await this.dataSource.destroy();
    this.redis?.disconnect();
    this.telephony = null;
    this.dataSource = null;
    this.redis = null;
  }
}
