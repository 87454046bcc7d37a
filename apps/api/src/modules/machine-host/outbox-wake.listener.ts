import { outboxWakeChannel, wokenOutboxIds } from '@centralita/contracts/server';
import { Inject, Injectable, Logger, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { Client, type ClientConfig } from 'pg';
import { DataSource, type DataSourceOptions } from 'typeorm';
import { APP_CONFIG, type AppConfig } from '../../config/app-config';
import { OutboxRelay } from './outbox-relay.service';

type PostgresConnectionOptions = Extract<DataSourceOptions, { type: 'postgres' }>;

/** Reconnection after the listening connection is lost: doubling from the first, capped. */
const RECONNECT_FIRST_MS = 500;
const RECONNECT_MAX_MS = 30_000;

/**
 * Hears the worker's committed outbox rows (its deployment's wake channel, outboxWakeChannel of
 * QUEUE_PREFIX, notified inside the transaction that wrote them: see insertOutbox) and hands their ids to this process's relay, which claims them
 * with SKIP LOCKED: every API process hears each notification, one delivers. Without it a status
 * tick, an inbound e-mail or a sentiment alert written by the worker waited for the poller to find
 * it stale (OUTBOX_STALE_MS + up to OUTBOX_POLL_MS, 2-3 s). One dedicated connection, outside the
 * pool: LISTEN lasts as long as its session. While it is down (database restart), the poller still
 * delivers everything, only later; it reconnects by itself.
 */
@Injectable()
export class OutboxWakeListener implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger(OutboxWakeListener.name);
  private client: Client | null = null;
  private stopped = false;
  private retryMs = RECONNECT_FIRST_MS;
  private retryTimer: NodeJS.Timeout | null = null;
  private readonly channel: string;

  constructor(
    private readonly dataSource: DataSource,
    private readonly relay: OutboxRelay,
    @Inject(APP_CONFIG) config: AppConfig,
  ) {
    this.channel = outboxWakeChannel(config.queuePrefix);
  }

  async onApplicationBootstrap(): Promise<void> {
    await this.listen();
  }

  async onApplicationShutdown(): Promise<void> {
    this.stopped = true;
    if (this.retryTimer) clearTimeout(this.retryTimer);
    const client = this.client;
    this.client = null;
    await client?.end().catch(() => undefined);
  }

  /** The database session that listens (its backend pid), or null while there is none. */
  get listeningSession(): number | null {
    return (this.client as (Client & { processID?: number }) | null)?.processID ?? null;
  }

  private async listen(): Promise<void> {
    if (this.stopped) return;
    const client = new Client(connectionConfig(this.dataSource.options as PostgresConnectionOptions));
    client.on('notification', (message) => {
      if (message.channel !== this.channel) return;
      const ids = wokenOutboxIds(message.payload);
      // Ids without their records: the relay claims them from the table (FOR UPDATE SKIP LOCKED).
      if (ids.length > 0) this.relay.wake(ids);
    });
    // An error or end of the connection: drop it and connect again later (the poller covers the gap).
    const lost = (reason: string) => {
      if (this.client !== client) return;
      this.client = null;
      void client.end().catch(() => undefined);
      this.logger.warn(`outbox wake-ups lost (${reason}); the poller delivers meanwhile`);
      this.reconnectLater();
    };
    client.on('error', (error) => lost(error.message));
    client.on('end', () => lost('connection ended'));
    try {
      await client.connect();
      // A plain lower-case identifier (outboxWakeChannel): nothing to quote.
      await client.query(`LISTEN ${this.channel}`);
    } catch (error) {
      await client.end().catch(() => undefined);
      if (this.stopped) return;
      this.logger.warn(`outbox wake-ups not heard yet (${(error as Error).message}); the poller delivers meanwhile`);
      this.reconnectLater();
      return;
    }
    if (this.stopped) {
      await client.end().catch(() => undefined);
      return;
    }
    this.client = client;
    this.retryMs = RECONNECT_FIRST_MS;
  }

  private reconnectLater(): void {
    if (this.stopped || this.retryTimer) return;
    this.retryTimer = setTimeout(() => {
      this.retryTimer = null;
      void this.listen();
    }, this.retryMs);
    this.retryTimer.unref();
    this.retryMs = Math.min(this.retryMs * 2, RECONNECT_MAX_MS);
  }
}

/** The pool's own connection settings, for one connection of our own. */
function connectionConfig(options: PostgresConnectionOptions): ClientConfig {
  const common: ClientConfig = { application_name: 'centralita-outbox-wake', connectionTimeoutMillis: 5000, keepAlive: true };
  if (options.ssl !== undefined) common.ssl = options.ssl as ClientConfig['ssl'];
  if (options.url) return { ...common, connectionString: options.url };
  return {
    ...common,
    host: options.host,
    port: options.port,
    user: options.username,
    password: typeof options.password === 'string' ? options.password : undefined,
    database: options.database,
  };
}
