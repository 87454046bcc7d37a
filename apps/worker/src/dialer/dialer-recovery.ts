import { CARRIER_LEG_CALL_STATUSES, UNANSWERED_CALL_STATUSES } from '@centralita/domain';
import type Redis from 'ioredis';
import type { DataSource } from 'typeorm';
import type { DialerReports } from './dialer-reports';

const HEARTBEAT_TTL_MS = 5000;
/** Answered and still on the carrier: an orphan in one of these is hung up, not failed. */
const ANSWERED_WITH_LEG: readonly string[] = CARRIER_LEG_CALL_STATUSES.filter(
  (status) => !(UNANSWERED_CALL_STATUSES as readonly string[]).includes(status),
);

export interface DialerRecoveryOptions {
  dataSource: DataSource;
  redis: Redis;
  queuePrefix: string;
  owner: string;
  tenantIds: string[] | null;
  /** Wrap-up (seconds) after which a lost wrap-up timer is re-sent; the API's WRAP_UP_SECONDS. */
  wrapUpSeconds: number;
  reports: DialerReports;
  log: (message: string) => void;
}

/**
 * What survives a dialer process: its heartbeat in Redis, so another process can tell it died and
 * end the calls it held (never re-dialled at once: the retry policy decides when), and the re-sending
 * of call timers the API lost between commit and enqueue.
 */
export class DialerRecovery {
  constructor(private readonly options: DialerRecoveryOptions) {}

  /** How often this process renews its heartbeat. */
  static readonly BEAT_EVERY_MS = Math.min(1000, HEARTBEAT_TTL_MS / 3);

  private heartbeatKey(owner: string): string {
    return `${this.options.queuePrefix}:dialer-owner:${owner}`;
  }

  async beat(): Promise<void> {
    await this.options.redis.set(this.heartbeatKey(this.options.owner), '1', 'PX', HEARTBEAT_TTL_MS);
  }

  /** Reservations held by dialer processes whose heartbeat is gone: end their calls (never re-dial them now). */
  async recoverOrphans(): Promise<void> {
    const db = this.options.dataSource;
    const owners = (await db.query(
      `SELECT DISTINCT dialer_owner FROM outbound_contacts WHERE active_call_id IS NOT NULL AND dialer_owner IS NOT NULL AND dialer_owner <> $1
         AND dialer_owner <> 'preview'
         AND ($2::uuid[] IS NULL OR tenant_id = ANY($2::uuid[]))`,
      [this.options.owner, this.options.tenantIds],
    )) as { dialer_owner: string }[];
    for (const { dialer_owner: owner } of owners) {
      if ((await this.options.redis.exists(this.heartbeatKey(owner))) === 1) continue;
      const orphans = (await db.query(
        `SELECT ct.id AS contact_id, ct.active_call_id AS call_id, ct.tenant_id, ct.campaign_id, ct.phone, ct.attempts,
                c.abandon_threshold_ms, oc.status
           FROM outbound_contacts ct JOIN dialer_campaigns c ON c.id = ct.campaign_id LEFT JOIN outbound_calls oc ON oc.id = ct.active_call_id
          WHERE ct.dialer_owner = $1 AND ct.active_call_id IS NOT NULL AND ($2::uuid[] IS NULL OR ct.tenant_id = ANY($2::uuid[]))`,
        [owner, this.options.tenantIds],
      )) as {
        contact_id: string;
        call_id: string;
        tenant_id: string;
        campaign_id: string;
        phone: string;
        attempts: number;
        abandon_threshold_ms: number;
        status: string | null;
      }[];
      for (const orphan of orphans) {
        const at = Date.now();
        if (orphan.status === null) {
          // The API may not have seen the call yet: same id as the dead process used, so created once.
          this.options.reports.report(orphan.call_id, '0', {
            kind: 'create',
            callId: orphan.call_id,
            tenantId: orphan.tenant_id,
            campaignId: orphan.campaign_id,
            contactId: orphan.contact_id,
            phone: orphan.phone,
            attempt: orphan.attempts,
            abandonThresholdMs: orphan.abandon_threshold_ms,
            at,
          });
          this.options.reports.report(orphan.call_id, 'lost', { kind: 'failed', callId: orphan.call_id, reason: 'dialer_restart', at });
        } else if ((UNANSWERED_CALL_STATUSES as readonly string[]).includes(orphan.status)) {
          this.options.reports.report(orphan.call_id, 'lost', { kind: 'failed', callId: orphan.call_id, reason: 'dialer_restart', at });
        } else if (ANSWERED_WITH_LEG.includes(orphan.status)) {
          this.options.reports.report(orphan.call_id, 'lost', { kind: 'hungUp', callId: orphan.call_id, at });
        }
      }
      // Adopt what is left (wrap-up, or reports in flight) so the next tick does not resend them.
      await db.query(
        `UPDATE outbound_contacts SET dialer_owner = $2 WHERE dialer_owner = $1 AND active_call_id IS NOT NULL AND ($3::uuid[] IS NULL OR tenant_id = ANY($3::uuid[]))`,
        [owner, this.options.owner, this.options.tenantIds],
      );
      this.options.log(`recovered ${orphans.length} call(s) of dialer ${owner}`);
    }
  }

  /** The API arms abandon and wrap-up timers after commit; a crash there loses one, so re-send overdue ones. */
  async sweepTimers(): Promise<void> {
    const wrapUp = this.options.wrapUpSeconds;
    const rows = (await this.options.dataSource.query(
      `SELECT oc.id, oc.status, (extract(epoch FROM oc.answered_at) * 1000)::bigint AS answered_ms, (extract(epoch FROM oc.hung_up_at) * 1000)::bigint AS hung_ms
         FROM outbound_calls oc JOIN dialer_campaigns c ON c.id = oc.campaign_id
        WHERE ((oc.status = 'answeredByHuman' AND oc.answered_at < now() - make_interval(secs => c.abandon_threshold_ms / 1000.0 + 3))
           OR (oc.status = 'wrapUp' AND oc.hung_up_at < now() - make_interval(secs => $1 + 5)))
          AND ($2::uuid[] IS NULL OR oc.tenant_id = ANY($2::uuid[]))
        LIMIT 200`,
      [wrapUp, this.options.tenantIds],
    )) as { id: string; status: string; answered_ms: string | null; hung_ms: string | null }[];
    for (const row of rows) {
      if (row.status === 'answeredByHuman' && row.answered_ms)
        this.options.reports.report(row.id, `abd-${row.answered_ms}`, {
          kind: 'abandonTimer',
          callId: row.id,
          armedAt: Number(row.answered_ms),
        });
      if (row.status === 'wrapUp' && row.hung_ms)
        this.options.reports.report(row.id, `wrp-${row.hung_ms}`, { kind: 'wrapUpTimer', callId: row.id, armedAt: Number(row.hung_ms) });
    }
  }
}
