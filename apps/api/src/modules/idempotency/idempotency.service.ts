import { Injectable, Logger, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { AppException } from '../../common/app.exception';

/** How long a call's answer is kept for repeats with its key. */
export const IDEMPOTENCY_TTL_SECONDS = 24 * 60 * 60;
/**
 * A first call still marked running after this long is taken to have died with its process (the
 * answer was never stored): a repeat then runs the command again instead of waiting forever.
 */
export const IDEMPOTENCY_ABANDONED_SECONDS = 60;
const SWEEP_EVERY_MS = 10 * 60 * 1000;
const SWEEP_BATCH = 5000;

/** Who the key belongs to: keys of different callers never meet, even when equal. */
export interface IdempotencyCaller {
  tenantId: string;
  /** `user:<id>` for staff, `visitor:<conversation id>` for a web-chat session. */
  caller: string;
}

export type IdempotencyClaim = { kind: 'first' } | { kind: 'replay'; statusCode: number; body: unknown };

/**
 * The store behind the Idempotency-Key header (table `idempotency_keys`, see IdempotencyInterceptor):
 * a call claims its key before it runs, stores its answer when it succeeds, and lets go of the key
 * when it fails, since a refused or failed command changed nothing and a repeat should run again.
 * Expired rows are deleted in batches by every API process (a delete of rows another process is
 * deleting only waits for it).
 */
@Injectable()
export class IdempotencyService implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger(IdempotencyService.name);
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<unknown> | null = null;

  constructor(private readonly dataSource: DataSource) {}

  onApplicationBootstrap(): void {
    this.timer = setInterval(() => {
      if (this.running || !this.dataSource.isInitialized) return;
      this.running = this.sweep()
        .catch((error: Error) => this.logger.warn(`idempotency key sweep: ${error.message}`))
        .finally(() => {
          this.running = null;
        });
    }, SWEEP_EVERY_MS);
    this.timer.unref();
  }

  async onApplicationShutdown(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    await this.running;
  }

  /**
   * Claims the key for a call with this request fingerprint. Answers `first` when this call must
   * run (the key is new, expired or abandoned), the stored answer when an earlier identical call
   * finished; refuses a different request under the same key (422) and a repeat while the first
   * call is still running (409, Retry-After: 1).
   */
  async claim(owner: IdempotencyCaller, key: string, requestHash: string): Promise<IdempotencyClaim> {
    // A row swept between the insert and the read is simply claimed on the second round.
    for (let attempt = 0; attempt < 2; attempt++) {
      const claimed = (await this.dataSource.query(
        `INSERT INTO idempotency_keys (tenant_id, caller, key, request_hash, expires_at)
         VALUES ($1, $2, $3, $4, now() + make_interval(secs => $5))
         ON CONFLICT (tenant_id, caller, key) DO UPDATE
           SET request_hash = EXCLUDED.request_hash, status_code = NULL, response = NULL, created_at = now(), expires_at = EXCLUDED.expires_at
           WHERE idempotency_keys.expires_at <= now()
              OR (idempotency_keys.status_code IS NULL AND idempotency_keys.created_at < now() - make_interval(secs => $6))
         RETURNING 1`,
        [owner.tenantId, owner.caller, key, requestHash, IDEMPOTENCY_TTL_SECONDS, IDEMPOTENCY_ABANDONED_SECONDS],
      )) as unknown[];
      if (claimed.length > 0) return { kind: 'first' };
      const [stored] = (await this.dataSource.query(
        `SELECT request_hash, status_code, response FROM idempotency_keys WHERE tenant_id = $1 AND caller = $2 AND key = $3`,
        [owner.tenantId, owner.caller, key],
      )) as { request_hash: string; status_code: number | null; response: unknown }[];
      if (!stored) continue;
      if (stored.request_hash !== requestHash) throw new AppException('idempotency_key_reused');
      if (stored.status_code === null) throw new AppException('idempotency_in_progress', { headers: { 'Retry-After': '1' } });
      return { kind: 'replay', statusCode: stored.status_code, body: stored.response };
    }
    throw new AppException('idempotency_in_progress', { headers: { 'Retry-After': '1' } });
  }

  /** Stores the successful answer of the call that claimed the key. */
  async complete(owner: IdempotencyCaller, key: string, statusCode: number, body: unknown): Promise<void> {
    await this.dataSource.query(
      `UPDATE idempotency_keys SET status_code = $4, response = $5::jsonb
       WHERE tenant_id = $1 AND caller = $2 AND key = $3 AND status_code IS NULL`,
      [owner.tenantId, owner.caller, key, statusCode, JSON.stringify(body ?? null)],
    );
  }

  /** Lets go of a key whose call failed: the next call with it runs. */
  async release(owner: IdempotencyCaller, key: string): Promise<void> {
    await this.dataSource.query(`DELETE FROM idempotency_keys WHERE tenant_id = $1 AND caller = $2 AND key = $3 AND status_code IS NULL`, [
      owner.tenantId,
      owner.caller,
      key,
    ]);
  }

  /** Deletes expired keys in batches; answers how many. */
  async sweep(): Promise<number> {
    let deleted = 0;
    for (;;) {
      const gone = (await this.dataSource.query(
        `DELETE FROM idempotency_keys WHERE ctid = ANY(ARRAY(SELECT ctid FROM idempotency_keys WHERE expires_at <= now() LIMIT $1)) RETURNING 1`,
        [SWEEP_BATCH],
      )) as unknown[];
      deleted += gone.length;
      if (gone.length < SWEEP_BATCH) return deleted;
    }
  }
}
