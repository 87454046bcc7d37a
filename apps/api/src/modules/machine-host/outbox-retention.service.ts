import { Inject, Injectable, Logger, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { REALTIME_CONFIG, type RealtimeConfig } from './realtime-config';

/** Rows looked at (and at most deleted) per statement: short transactions, a bounded lock list. */
const SWEEP_BATCH = 5000;
/** Statements per sweep at most (200,000 rows), so a backlog drains over several sweeps, not in one long burst. */
const SWEEP_BATCHES_MAX = 40;

interface BatchResult {
  deleted: number;
  scanned: number;
  last: string | null;
  /** Whether the batch's newest row is older than the retention: rows beyond it may be too. */
  old: boolean | null;
}

/**
 * Deletes delivered outbox rows once they are older than `outboxRetentionSeconds`: nothing reads
 * a delivered row (the relay and its poller only take `delivered_at IS NULL`), and at S1 rates the
 * table would otherwise grow by some 43 M rows a day. Every API process runs the sweep, but a
 * transaction-level advisory lock lets one at a time work: a process that finds it taken skips its
 * turn. Each batch takes the oldest rows by id (the primary key, ids grow with time) and deletes
 * the delivered ones among them, so undelivered rows are never touched; the sweep goes on while
 * batches are full and their newest row is past the retention. Batched deletes were chosen over
 * time partitions: the numbers are in docs/architecture.md.
 */
@Injectable()
export class OutboxRetention implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger(OutboxRetention.name);
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<void> | null = null;

  constructor(
    private readonly dataSource: DataSource,
    @Inject(REALTIME_CONFIG) private readonly config: RealtimeConfig,
  ) {}

  onApplicationBootstrap(): void {
    this.timer = setInterval(() => {
      if (this.running || !this.dataSource.isInitialized) return;
      this.running = this.sweep()
        .then(() => undefined)
        .catch((error: Error) => this.logger.warn(`outbox retention sweep: ${error.message}`))
        .finally(() => {
          this.running = null;
        });
    }, this.config.outboxSweepMs);
    this.timer.unref();
  }

  async onApplicationShutdown(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    await this.running;
  }

  /** One sweep: answers the rows deleted, or null when another process was sweeping. */
  async sweep(): Promise<number | null> {
    let deleted = 0;
    let after = '0';
    for (let batch = 0; batch < SWEEP_BATCHES_MAX; batch++) {
      const result = await this.dataSource.transaction(async (manager): Promise<BatchResult | null> => {
        const [{ locked }] = (await manager.query(`SELECT pg_try_advisory_xact_lock(hashtext('outbox-retention')) AS locked`)) as {
          locked: boolean;
        }[];
        if (!locked) return null;
        // delivered_at only ever goes from NULL to a time, so the batch's own reading of it is safe to delete by.
        const [row] = (await manager.query(
          `WITH batch AS (
             SELECT id, created_at, delivered_at FROM outbox WHERE id > $1::bigint ORDER BY id LIMIT $2
           ), gone AS (
             DELETE FROM outbox o USING batch b
             WHERE o.id = b.id AND b.delivered_at < clock_timestamp() - make_interval(secs => $3::double precision)
             RETURNING o.id
           )
           SELECT (SELECT count(*)::int FROM gone) AS deleted,
                  (SELECT count(*)::int FROM batch) AS scanned,
                  (SELECT max(id)::text FROM batch) AS last,
                  (SELECT created_at < clock_timestamp() - make_interval(secs => $3::double precision) FROM batch ORDER BY id DESC LIMIT 1) AS old`,
          [after, SWEEP_BATCH, this.config.outboxRetentionSeconds],
        )) as BatchResult[];
        return row;
      });
      if (result === null) return batch === 0 ? null : deleted;
      deleted += result.deleted;
      if (result.scanned < SWEEP_BATCH || !result.old || result.last === null) break;
      after = result.last;
    }
    return deleted;
  }
}
