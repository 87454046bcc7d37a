import { QUEUES, isQueueName, type OutboxJob, type QueueName } from '@centralita/contracts';
import { Inject, Injectable, Logger, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { DataSource, type EntityManager } from 'typeorm';
import { RealtimeService } from '../realtime/realtime.service';
import type { OutboxEffect, OutboxRecord, OutboxTopic } from './outbox';
import { QueueRegistry, within } from './queue-registry.service';
import { REALTIME_CONFIG, type RealtimeConfig } from './realtime-config';

/** BullMQ waits for Redis without limit; the relay gives up and leaves the row to the poller. */
const JOB_DEADLINE_MS = 3000;
/** How long delivered rows of the fast path wait to be marked, together (capped by a quarter of outboxStaleMs). */
const MARK_DELAY_MS = 100;
/** Marked at once when this many are waiting. */
const MARK_BATCH_MAX = 2000;
/** Announced rows claimed in one transaction at most (see wake). */
const WOKEN_PER_CLAIM = 500;

/**
 * How a delivered job is retried when its consumer fails. The API's own queues retry fast (a
 * routing run or a timer is worth little late); the worker's sentiment scoring waits out a database
 * outage of the worker for ~30 minutes (2 s doubling, 11 tries), since nothing else asks again.
 */
type Retry = { attempts: number; backoff: { type: 'exponential' | 'custom'; delay: number } };
const RETRIES: Partial<Record<QueueName, Retry>> & { default: Retry } = {
  default: { attempts: 5, backoff: { type: 'exponential', delay: 200 } },
  [QUEUES.sentiment]: { attempts: 11, backoff: { type: 'exponential', delay: 2000 } },
  // A provider's rate limit names when to try again: the worker's channel-send backoff strategy
  // (apps/worker/src/channels) honours it, else doubles from `delay`; then the message is failed.
  [QUEUES.channelSend]: { attempts: 8, backoff: { type: 'custom', delay: 1000 } },
  // A receipt may arrive before the send's answer stored the provider's id: its event is retried
  // (0.5 s doubling, ~1 minute in all) before the unknown receipt is given up (channels/inbound).
  [QUEUES.channelInbound]: { attempts: 8, backoff: { type: 'exponential', delay: 500 } },
};

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
  topic: OutboxTopic;
  payload: OutboxEffect['payload'];
}

/**
 * Delivers committed outbox rows: BullMQ jobs (deterministic ids, so a second delivery enqueues
 * nothing), job removals and socket pushes; then marks them delivered.
 *
 * Fast path: the transaction that wrote the rows hands them over right after commit (`kick`), and
 * they are delivered from memory, without reading them back. Socket pushes go out at once, in
 * commit order. Jobs of kicks arriving while a delivery is under way are coalesced into the next
 * one, so under load one delivery covers many transactions: one pipelined `addBulk` per queue; and
 * one UPDATE marks everything delivered in the last ~100 ms (pushes included) delivered. Slow path: the poller claims rows older than
 * `outboxStaleMs` with FOR UPDATE SKIP LOCKED (several processes never take the same row) — the
 * rows of a process that died between commit and delivery, or whose Redis call failed.
 * Delivery is at least once: a socket push may repeat if a process stalls past `outboxStaleMs`
 * (views are versioned, clients keep the newest); a job never does (its id is taken).
 */
@Injectable()
export class OutboxRelay implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger(OutboxRelay.name);
  private chain: Promise<void> = Promise.resolve();
  private poller: NodeJS.Timeout | null = null;
  private stopped = false;
  /** Committed rows waiting for the next fast-path delivery, in commit order. */
  private pending: OutboxRow[] = [];
  /** Socket rows pushed straight from `kick`, to be marked delivered by the next flush. */
  private emitted: string[] = [];
  private flushQueued = false;
  /** Ids the fast path delivered, waiting for the next `UPDATE … delivered_at` (see markSoon). */
  private toMark: string[] = [];
  private markTimer: NodeJS.Timeout | null = null;
  /** Ids announced by other processes, waiting for the next claim (see wake). */
  private woken: string[] = [];
  private wakeQueued = false;
  /** Jobs of the API's own queues running in this process (see perform), settled or not. */
  private readonly localRuns = new Set<Promise<void>>();

  constructor(
    private readonly dataSource: DataSource,
    private readonly queues: QueueRegistry,
    private readonly realtime: RealtimeService,
    @Inject(REALTIME_CONFIG) private readonly config: RealtimeConfig,
  ) {}

  onApplicationBootstrap(): void {
    this.poller = setInterval(() => {
      this.enqueue(() => this.deliverStale());
    }, this.config.outboxPollMs);
    this.poller.unref();
  }

  async onApplicationShutdown(): Promise<void> {
    this.stopped = true;
    if (this.poller) clearInterval(this.poller);
    await within(this.idle(), 3000);
  }

  /**
   * Hands freshly committed rows over for delivery now. `records` are the rows as written (see
   * writeOutbox); an id without its record is read back from the table.
   */
  kick(ids: string[], records: OutboxRecord[] = []): void {
    const known = new Set<string>();
    for (const record of records) {
      known.add(record.id);
      const row = { id: record.id, topic: record.topic, payload: JSON.parse(record.payload) as OutboxEffect['payload'] };
      if (row.topic === 'socket') {
        // Pushes go out at once, in commit order, instead of waiting behind the previous delivery's
        // Redis and database round trips; the next flush marks them delivered.
        this.emit(row);
        this.emitted.push(row.id);
      } else this.pending.push(row);
    }
    const unknown = ids.filter((id) => !known.has(id));
    if (unknown.length > 0) this.enqueue(() => this.deliverById(unknown));
    if ((this.pending.length > 0 || this.emitted.length > 0) && !this.flushQueued) {
      this.flushQueued = true;
      this.enqueue(() => this.flush());
    }
  }

  /**
   * Rows another process committed and announced (OutboxWakeListener): claimed by id, as many as
   * were announced by the time the relay gets to them in one claim, so a burst of the worker's
   * status ticks costs one transaction, not one each (every API process hears every announcement,
   * and all but one find the rows taken).
   */
  wake(ids: string[]): void {
    this.woken.push(...ids);
    if (this.wakeQueued) return;
    this.wakeQueued = true;
    this.enqueue(async () => {
      this.wakeQueued = false;
      const claimed = this.woken.splice(0, WOKEN_PER_CLAIM);
      if (this.woken.length > 0) this.wake([]);
      await this.deliverById(claimed);
    });
  }

  /** Resolves once everything kicked so far has been attempted and marked (tests, benchmarks, shutdown). */
  async idle(): Promise<void> {
    await Promise.all([...this.localRuns]);
    this.markNowQueued();
    await this.chain;
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

  /** The fast path: everything committed since the last flush, delivered from memory. */
  private async flush(): Promise<void> {
    this.flushQueued = false;
    const rows = this.pending;
    const emitted = this.emitted;
    this.pending = [];
    this.emitted = [];
    if (!this.dataSource.isInitialized) return;
    const delivered = await this.perform(rows, true);
    this.markSoon([...emitted, ...delivered]);
  }

  /**
   * Marking delivered rows is bookkeeping for the poller, which only takes rows older than
   * outboxStaleMs: so the fast path marks them a little later, many deliveries in one UPDATE,
   * instead of one UPDATE per delivery (at hundreds of messages a second that was a third of the
   * statements a message cost). A process that dies in between leaves them to the poller, which
   * re-pushes (views are versioned) and re-adds jobs under their taken ids (nothing enqueued twice).
   */
  private markSoon(ids: string[]): void {
    if (ids.length === 0) return;
    this.toMark.push(...ids);
    if (this.toMark.length >= MARK_BATCH_MAX) this.markNowQueued();
    else if (!this.markTimer) {
      const delay = Math.max(0, Math.min(MARK_DELAY_MS, Math.floor(this.config.outboxStaleMs / 4)));
      this.markTimer = setTimeout(() => {
        this.markTimer = null;
        this.markNowQueued();
      }, delay);
      this.markTimer.unref();
    }
  }

  private markNowQueued(): void {
    if (this.markTimer) clearTimeout(this.markTimer);
    this.markTimer = null;
    if (this.toMark.length === 0) return;
    const ids = this.toMark;
    this.toMark = [];
    this.enqueue(async () => {
      if (this.dataSource.isInitialized) await this.markDelivered(this.dataSource.manager, ids);
    });
  }

  private emit(row: OutboxRow): void {
    for (const emit of (row.payload as Extract<OutboxEffect, { topic: 'socket' }>['payload']).emits) {
      this.realtime.emit(emit.namespace, emit.rooms, emit.event, emit.data);
    }
  }

  private async deliverById(ids: string[]): Promise<void> {
    await this.claimAndDeliver(
      `SELECT id, topic, payload FROM outbox WHERE id = ANY($1::bigint[]) AND delivered_at IS NULL ORDER BY id FOR UPDATE SKIP LOCKED`,
      [ids],
    );
  }

  private async deliverStale(): Promise<void> {
    await this.claimAndDeliver(
      `SELECT id, topic, payload FROM outbox
       WHERE delivered_at IS NULL AND created_at < clock_timestamp() - make_interval(secs => $1::double precision / 1000)
       ORDER BY id LIMIT 500 FOR UPDATE SKIP LOCKED`,
      [this.config.outboxStaleMs],
    );
  }

  /** The slow path: rows claimed in a transaction, so no other process delivers them meanwhile. */
  private async claimAndDeliver(sql: string, params: unknown[]): Promise<void> {
    if (!this.dataSource.isInitialized) return;
    await this.dataSource.transaction(async (manager) => {
      const rows: OutboxRow[] = await manager.query(sql, params);
      if (rows.length === 0) return;
      await this.markDelivered(manager, await this.perform(rows));
    });
  }

  private async markDelivered(manager: EntityManager, ids: string[]): Promise<void> {
    if (ids.length === 0) return;
    await manager.query(
      `UPDATE outbox SET delivered_at = clock_timestamp(), attempts = attempts + 1 WHERE id = ANY($1::bigint[]) AND delivered_at IS NULL`,
      [ids],
    );
  }

  /**
   * Delivers the rows and answers the ids that went out. Socket pushes are emitted in row order at
   * once; jobs are added per queue in one pipelined call; removals run side by side. A queue whose
   * Redis call fails leaves its rows undelivered for the poller.
   */
  private async perform(rows: OutboxRow[], runLocally = false): Promise<string[]> {
    const delivered: string[] = [];
    const jobs = new Map<QueueName, OutboxRow[]>();
    const removals: Promise<string | null>[] = [];
    for (const row of rows) {
      const effect = { topic: row.topic, payload: row.payload } as OutboxEffect;
      switch (effect.topic) {
        case 'socket':
          this.emit(row);
          delivered.push(String(row.id));
          break;
        case 'job': {
          if (!isQueueName(effect.payload.queue)) {
            // Not a queue of the registry (a row older than a rename): nothing could ever take it.
            this.logger.error(`outbox row ${row.id} names no known queue (${String(effect.payload.queue)}): dropped`);
            delivered.push(String(row.id));
            break;
          }
          // Fast path only: an immediate job of the API's own queues runs here; its row is marked
          // when it settles (or it goes through Redis after all if it fails).
          if (runLocally && !effect.payload.delayMs && this.runHere(row, effect.payload)) break;
          const batch = jobs.get(effect.payload.queue) ?? [];
          batch.push(row);
          jobs.set(effect.payload.queue, batch);
          break;
        }
        case 'job.remove':
          if (!isQueueName(effect.payload.queue)) {
            delivered.push(String(row.id));
            break;
          }
          // A job already running (or gone) cannot be removed; its stale armedAt makes the machine refuse it.
          removals.push(
            deadline(this.queues.queue(effect.payload.queue).remove(effect.payload.jobId), JOB_DEADLINE_MS).then(
              () => String(row.id),
              (error: Error) => (error instanceof RedisUnavailable ? null : String(row.id)),
            ),
          );
          break;
      }
    }
    const added = [...jobs].map(([queue, batch]) =>
      deadline(this.queues.queue(queue).addBulk(batch.map((row) => this.jobOf(row))), JOB_DEADLINE_MS).then(
        () => batch.map((row) => String(row.id)),
        (error: Error) => {
          this.logger.warn(`outbox jobs for ${queue} postponed: ${error.message}`);
          return [];
        },
      ),
    );
    for (const ids of await Promise.all(added)) delivered.push(...ids);
    for (const id of await Promise.all(removals)) if (id !== null) delivered.push(id);
    return delivered;
  }

  private runHere(row: OutboxRow, job: OutboxJob): boolean {
    const id = String(row.id);
    const run = this.queues.runLocally(job.queue, { id: job.jobId ?? `ob-${id}`, name: job.name, data: job.data });
    if (!run) return false;
    const settled = run.then(
      () => this.markSoon([id]),
      (error: Error) => {
        this.logger.warn(`${job.queue} job ${id} failed here, handed to its queue: ${error.message}`);
        this.enqueue(async () => {
          await deadline(this.queues.queue(job.queue).addBulk([this.jobOf(row)]), JOB_DEADLINE_MS);
          this.markSoon([id]);
        });
      },
    );
    this.localRuns.add(settled);
    void settled.finally(() => this.localRuns.delete(settled));
    return true;
  }

  private jobOf(row: OutboxRow) {
    const { queue, name, jobId, delayMs, data } = row.payload as OutboxJob;
    return {
      name,
      data,
      opts: {
        jobId: jobId ?? `ob-${row.id}`,
        ...(delayMs ? { delay: delayMs } : {}),
        ...(RETRIES[queue] ?? RETRIES.default),
        // Kept an hour so a late second delivery of the same row still finds the id taken.
        removeOnComplete: { age: 3600, count: 10_000 },
        removeOnFail: { age: 24 * 3600 },
      },
    };
  }
}
