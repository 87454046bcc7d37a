import { Inject, Injectable, Logger, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { RealtimeService } from '../realtime/realtime.service';
import type { OutboxEffect } from './outbox';
import { QueueRegistry, within } from './queue-registry.service';
import { REALTIME_CONFIG, type RealtimeConfig } from './realtime-config';

/** BullMQ waits for Redis without limit; the relay gives up and leaves the row to the poller. */
const JOB_DEADLINE_MS = 3000;

class RedisUnavailable extends Error {}

function deadline<T>(work: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  return Promise.race([
    work,
    new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new RedisUnavailable(`Redis did not answer within ${ms} ms`)), ms);
    }),
  ]).finally(() => clearTimeout(timer));
}

interface OutboxRow {
  id: string;
  topic: OutboxEffect['topic'];
  payload: OutboxEffect['payload'];
}

/**
 * Delivers committed outbox rows: BullMQ jobs (deterministic ids, so a second delivery enqueues
 * nothing), job removals and socket pushes; then marks them delivered. Rows are claimed with
 * FOR UPDATE SKIP LOCKED, so several processes never deliver the same row at once. In-process
 * deliveries run one after another, keeping socket pushes in commit order. The poller picks up
 * rows whose writer died between commit and delivery.
 */
@Injectable()
export class OutboxRelay implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger(OutboxRelay.name);
  private chain: Promise<void> = Promise.resolve();
  private poller: NodeJS.Timeout | null = null;
  private stopped = false;

  constructor(
    private readonly dataSource: DataSource,
    private readonly queues: QueueRegistry,
    private readonly realtime: RealtimeService,
    @Inject(REALTIME_CONFIG) private readonly config: RealtimeConfig,
  ) {}

  onApplicationBootstrap(): void {
    this.poller = setInterval(() => {
      this.enqueue(() => this.deliver(null));
    }, this.config.outboxPollMs);
    this.poller.unref();
  }

  async onApplicationShutdown(): Promise<void> {
    this.stopped = true;
    if (this.poller) clearInterval(this.poller);
    await within(this.chain, 3000);
  }

  /** Hands freshly committed rows over for delivery now. */
  kick(ids: string[]): void {
    if (ids.length > 0) this.enqueue(() => this.deliver(ids));
  }

  /** Resolves once everything kicked so far has been attempted (tests, shutdown). */
  idle(): Promise<void> {
    return this.chain;
  }

  private enqueue(work: () => Promise<void>): void {
    this.chain = this.chain.then(async () => {
      if (this.stopped && this.dataSource.isInitialized === false) return;
      try {
        await work();
      } catch (error) {
        // Left undelivered: the poller tries again.
        this.logger.warn(`outbox delivery postponed: ${(error as Error).message}`);
      }
    });
  }

  private async deliver(ids: string[] | null): Promise<void> {
    if (!this.dataSource.isInitialized) return;
    await this.dataSource.transaction(async (manager) => {
      const rows: OutboxRow[] =
        ids === null
          ? await manager.query(
              `SELECT id, topic, payload FROM outbox
               WHERE delivered_at IS NULL AND created_at < clock_timestamp() - make_interval(secs => $1::double precision / 1000)
               ORDER BY id LIMIT 500 FOR UPDATE SKIP LOCKED`,
              [this.config.outboxStaleMs],
            )
          : await manager.query(
              `SELECT id, topic, payload FROM outbox WHERE id = ANY($1::bigint[]) AND delivered_at IS NULL ORDER BY id FOR UPDATE SKIP LOCKED`,
              [ids],
            );
      const delivered: string[] = [];
      try {
        for (const row of rows) {
          await this.perform(row);
          delivered.push(String(row.id));
        }
      } finally {
        if (delivered.length > 0) {
          await manager.query(`UPDATE outbox SET delivered_at = clock_timestamp(), attempts = attempts + 1 WHERE id = ANY($1::bigint[])`, [
            delivered,
          ]);
        }
      }
    });
  }

  private async perform(row: OutboxRow): Promise<void> {
    const effect = { topic: row.topic, payload: row.payload } as OutboxEffect;
    switch (effect.topic) {
      case 'job': {
        const { queue, name, jobId, delayMs, data } = effect.payload;
        await deadline(
          this.queues.queue(queue).add(name, data, {
            jobId: jobId ?? `ob-${row.id}`,
            ...(delayMs ? { delay: delayMs } : {}),
            attempts: 5,
            backoff: { type: 'exponential', delay: 200 },
            // Kept an hour so a late second delivery of the same row still finds the id taken.
            removeOnComplete: { age: 3600, count: 10_000 },
            removeOnFail: { age: 24 * 3600 },
          }),
          JOB_DEADLINE_MS,
        );
        break;
      }
      case 'job.remove':
        // A job already running (or gone) cannot be removed; its stale armedAt makes the machine refuse it.
        await deadline(this.queues.queue(effect.payload.queue).remove(effect.payload.jobId), JOB_DEADLINE_MS).catch((error: Error) => {
          if (error instanceof RedisUnavailable) throw error;
        });
        break;
      case 'socket':
        for (const emit of effect.payload.emits) this.realtime.emit(emit.namespace, emit.rooms, emit.event, emit.data);
        break;
    }
  }
}
