import type { CampaignIdleReason } from '@centralita/contracts';
import type { ConfigCrypto } from '@centralita/contracts/server';
import type { CallingWindows, DialingMode } from '@centralita/domain';
import type { DataSource } from 'typeorm';
import { CARRIER_LEG_SQL, HUMAN_ANSWERED_SQL, UNANSWERED_OR_CANCELLED_SQL, UNANSWERED_SQL } from './call-status-sql';
import { resolveCampaignTrunk, type TrunkLookup } from './dialing-route';

/** A running campaign as the pacer reads it. */
export interface CampaignRow {
  id: string;
  tenant_id: string;
  mode: DialingMode;
  abandon_cap_percent: string;
  abandon_threshold_ms: number;
  max_attempts: number;
  calling_windows: CallingWindows;
  caller_id: string | null;
  trunk_id: string | null;
  agent_ids: string[];
}

/** A contact the dialer may call. */
export interface ContactRow {
  id: string;
  tenant_id: string;
  campaign_id: string;
  phone: string;
}

/** What pace() is fed for one campaign, counted in one statement. */
export interface PacingStats {
  /** The campaign's agents waiting for an outbound call, not holding a preview record. */
  waiting: number;
  /** The campaign's calls a person answered that no agent has taken yet. */
  awaiting_agent: number;
  /** Contacts reserved and not answered yet (reported or not). */
  in_flight: number;
  resolved: number;
  human: number;
  abandoned: number;
}

/** A preview record an agent asked to dial (reserved by the API), with what its call needs of the campaign. */
export interface PreviewRequest extends ContactRow {
  active_call_id: string;
  attempts: number;
  abandon_threshold_ms: number;
  caller_id: string | null;
  trunk_id: string | null;
}

const DNC_CLEAR = `NOT EXISTS (SELECT 1 FROM do_not_call d WHERE d.tenant_id = ct.tenant_id AND d.phone = ct.phone
                    AND (d.campaign_id IS NULL OR d.campaign_id = ct.campaign_id))`;

/**
 * The dialer's tables (dialer_campaigns, outbound_contacts, outbound_callbacks, outbound_live_numbers,
 * and the counts it reads of outbound_calls and agent_presence), written by the API's machines and
 * read or reserved here. A reservation is the only row the dialer creates: it is what lets one
 * number be live once across processes. PgDialerRows is the real one, FakeDialerRows
 * (dialer-rows.fake.ts) the in-memory one the pacer's and the preview placer's unit specs run on.
 */
export abstract class DialerRows {
  /** Running, not deleted campaigns (of these tenants; null: all), oldest first. */
  abstract runningCampaigns(tenantIds: string[] | null): Promise<CampaignRow[]>;
  /**
   * Pending callbacks of the campaign that came due are marked dialled and reopen their contact (due
   * now, one attempt left at least) unless it is on a call.
   */
  abstract reopenDueCallbacks(campaignId: string, maxAttempts: number): Promise<void>;
  /** The campaign's agents, calls and reservations as pace() counts them. */
  abstract pacingStats(campaign: Pick<CampaignRow, 'id' | 'tenant_id' | 'agent_ids'>): Promise<PacingStats>;
  /**
   * Up to `limit` contacts due, unfinished, free, under the attempt limit, not on a do-not-call list
   * and whose number is not live anywhere, by due time then id.
   */
  abstract dueContacts(campaignId: string, maxAttempts: number, limit: number): Promise<ContactRow[]>;
  /**
   * Reserves the contact for `callId` in one transaction: its number taken live (none else may call
   * it), then the contact claimed by `owner` with one more attempt, do-not-call re-checked. Answers
   * the attempt's number, or null (nothing kept) when the number is live or the contact was taken,
   * finished, used up or listed meanwhile.
   */
  abstract reserveContact(contact: ContactRow, callId: string, owner: string, maxAttempts: number): Promise<number | null>;
  /**
   * Records why the campaign placed no call (null: it is dialling) and until when; `idle_since` kept
   * while the reason lasts. Answers whether anything changed (nothing is written otherwise).
   */
  abstract recordIdle(campaignId: string, reason: CampaignIdleReason | null, until: Date | null): Promise<boolean>;
  /** When the campaign's next contact comes due (a retry or a pending callback); null when none is scheduled. */
  abstract nextDue(campaignId: string, maxAttempts: number): Promise<Date | null>;
  /** The campaign's unfinished contacts plus its pending callbacks. */
  abstract openWork(campaignId: string): Promise<number>;
  /**
   * Calls holding a line on the tenant's trunk now, whichever campaign placed them: reserved by a
   * dialer (not yet reported) or with a carrier leg. A preview record not claimed yet holds none.
   */
  abstract callsOnTrunk(tenantId: string, trunkId: string): Promise<number>;
  /** The campaign's trunk (the tenant's, active, not deleted), password decrypted (see resolveCampaignTrunk). */
  abstract campaignTrunk(tenantId: string, trunkId: string | null): Promise<TrunkLookup>;
  /** Up to 100 preview records waiting to be dialled in running campaigns (of these tenants; null: all), first asked first. */
  abstract previewRequests(tenantIds: string[] | null): Promise<PreviewRequest[]>;
  /** Takes the preview record for `owner` unless another dialer did or its call changed; answers whether it did. */
  abstract claimPreview(contactId: string, callId: string, owner: string): Promise<boolean>;
  /** Marks the preview record as waiting for a line since now, the first time only; answers whether it did. */
  abstract markPreviewAwaitingLine(contactId: string, callId: string): Promise<boolean>;
}

/** The dialer's tables in PostgreSQL. */
export class PgDialerRows extends DialerRows {
  constructor(
    private readonly dataSource: DataSource,
    /** Decrypts trunk passwords; the same CONFIG_ENCRYPTION_KEY as the API. */
    private readonly crypto: Pick<ConfigCrypto, 'decrypt'>,
  ) {
    super();
  }

  async runningCampaigns(tenantIds: string[] | null): Promise<CampaignRow[]> {
    return (await this.dataSource.query(
      `SELECT id, tenant_id, mode, abandon_cap_percent, abandon_threshold_ms, max_attempts, calling_windows, caller_id, trunk_id, agent_ids
         FROM dialer_campaigns WHERE status = 'running' AND deleted_at IS NULL AND ($1::uuid[] IS NULL OR tenant_id = ANY($1::uuid[]))
        ORDER BY created_at, id`,
      [tenantIds],
    )) as CampaignRow[];
  }

  async reopenDueCallbacks(campaignId: string, maxAttempts: number): Promise<void> {
    await this.dataSource.query(
      `WITH due AS (
         UPDATE outbound_callbacks SET status = 'dialed' WHERE campaign_id = $1 AND status = 'pending' AND due_at <= now() RETURNING contact_id)
       UPDATE outbound_contacts ct SET finished = false, next_attempt_at = now(), attempts = LEAST(ct.attempts, $2 - 1)
         FROM due WHERE ct.id = due.contact_id AND ct.active_call_id IS NULL`,
      [campaignId, maxAttempts],
    );
  }

  async pacingStats(campaign: Pick<CampaignRow, 'id' | 'tenant_id' | 'agent_ids'>): Promise<PacingStats> {
    const [stats] = (await this.dataSource.query(
      `SELECT
         (SELECT count(*) FROM agent_presence p WHERE p.tenant_id = $2 AND p.status = 'waitingOutboundCall'
            AND (cardinality($3::uuid[]) = 0 OR p.user_id = ANY($3::uuid[]))
            AND NOT EXISTS (SELECT 1 FROM outbound_contacts pc WHERE pc.preview_agent_id = p.user_id))::int AS waiting,
         (SELECT count(*) FROM outbound_calls WHERE campaign_id = $1 AND status = 'answeredByHuman')::int AS awaiting_agent,
         (SELECT count(*) FROM outbound_contacts ct LEFT JOIN outbound_calls oc ON oc.id = ct.active_call_id
            WHERE ct.campaign_id = $1 AND ct.active_call_id IS NOT NULL AND (oc.id IS NULL OR oc.status IN ${UNANSWERED_SQL}))::int AS in_flight,
         (SELECT count(*) FROM outbound_calls WHERE campaign_id = $1 AND status NOT IN ${UNANSWERED_OR_CANCELLED_SQL})::int AS resolved,
         (SELECT count(*) FROM outbound_calls WHERE campaign_id = $1
            AND status IN ${HUMAN_ANSWERED_SQL})::int AS human,
         (SELECT count(*) FROM outbound_calls WHERE campaign_id = $1 AND status = 'abandoned')::int AS abandoned`,
      [campaign.id, campaign.tenant_id, campaign.agent_ids ?? []],
    )) as PacingStats[];
    return stats;
  }

  async dueContacts(campaignId: string, maxAttempts: number, limit: number): Promise<ContactRow[]> {
    return (await this.dataSource.query(
      `SELECT ct.id, ct.tenant_id, ct.campaign_id, ct.phone FROM outbound_contacts ct
        WHERE ct.campaign_id = $1 AND ct.finished = false AND ct.active_call_id IS NULL AND ct.next_attempt_at <= now()
          AND ct.attempts < $2 AND ${DNC_CLEAR}
          AND NOT EXISTS (SELECT 1 FROM outbound_live_numbers l WHERE l.tenant_id = ct.tenant_id AND l.phone = ct.phone)
        ORDER BY ct.next_attempt_at, ct.id LIMIT $3`,
      [campaignId, maxAttempts, limit],
    )) as ContactRow[];
  }

  async reserveContact(contact: ContactRow, callId: string, owner: string, maxAttempts: number): Promise<number | null> {
    return this.dataSource.transaction(async (manager) => {
      const taken = (await manager.query(
        `INSERT INTO outbound_live_numbers (tenant_id, phone, call_id, contact_id) VALUES ($1, $2, $3, $4) ON CONFLICT DO NOTHING RETURNING call_id`,
        [contact.tenant_id, contact.phone, callId, contact.id],
      )) as unknown[];
      if (taken.length === 0) return null;
      const [rows] = (await manager.query(
        `UPDATE outbound_contacts ct SET active_call_id = $2, dialer_owner = $3, reserved_at = now(), attempts = attempts + 1, updated_at = now()
          WHERE ct.id = $1 AND ct.active_call_id IS NULL AND ct.finished = false AND ct.attempts < $4 AND ${DNC_CLEAR}
          RETURNING attempts`,
        [contact.id, callId, owner, maxAttempts],
      )) as [{ attempts: number }[], number];
      if (rows.length === 0) {
        await manager.query(`DELETE FROM outbound_live_numbers WHERE call_id = $1`, [callId]);
        return null;
      }
      return rows[0].attempts;
    });
  }

  async recordIdle(campaignId: string, reason: CampaignIdleReason | null, until: Date | null): Promise<boolean> {
    const [, changed] = (await this.dataSource.query(
      `UPDATE dialer_campaigns SET idle_reason = $2::varchar, idle_until = $3::timestamptz,
              idle_since = CASE WHEN $2::varchar IS NULL THEN NULL WHEN idle_reason IS NOT DISTINCT FROM $2::varchar THEN idle_since ELSE now() END
        WHERE id = $1 AND (idle_reason IS DISTINCT FROM $2::varchar OR idle_until IS DISTINCT FROM $3::timestamptz)`,
      [campaignId, reason, until],
    )) as [unknown[], number];
    return changed > 0;
  }

  async nextDue(campaignId: string, maxAttempts: number): Promise<Date | null> {
    const [{ due }] = (await this.dataSource.query(
      `SELECT LEAST(
         (SELECT min(next_attempt_at) FROM outbound_contacts WHERE campaign_id = $1 AND finished = false AND active_call_id IS NULL AND attempts < $2),
         (SELECT min(due_at) FROM outbound_callbacks WHERE campaign_id = $1 AND status = 'pending')) AS due`,
      [campaignId, maxAttempts],
    )) as { due: Date | null }[];
    return due === null ? null : new Date(due);
  }

  async openWork(campaignId: string): Promise<number> {
    const [{ open }] = (await this.dataSource.query(
      `SELECT (SELECT count(*) FROM outbound_contacts WHERE campaign_id = $1 AND finished = false)
            + (SELECT count(*) FROM outbound_callbacks WHERE campaign_id = $1 AND status = 'pending') AS open`,
      [campaignId],
    )) as { open: string }[];
    return Number(open);
  }

  async callsOnTrunk(tenantId: string, trunkId: string): Promise<number> {
    const [{ calls }] = (await this.dataSource.query(
      `SELECT count(*)::int AS calls FROM outbound_contacts ct JOIN dialer_campaigns c ON c.id = ct.campaign_id
         LEFT JOIN outbound_calls oc ON oc.id = ct.active_call_id
        WHERE c.tenant_id = $1 AND c.trunk_id = $2 AND ct.active_call_id IS NOT NULL AND ct.dialer_owner IS DISTINCT FROM 'preview'
          AND (oc.id IS NULL OR oc.status IN ${CARRIER_LEG_SQL})`,
      [tenantId, trunkId],
    )) as { calls: number }[];
    return calls;
  }

  campaignTrunk(tenantId: string, trunkId: string | null): Promise<TrunkLookup> {
    return resolveCampaignTrunk(this.dataSource, this.crypto, tenantId, trunkId);
  }

  async previewRequests(tenantIds: string[] | null): Promise<PreviewRequest[]> {
    return (await this.dataSource.query(
      `SELECT ct.id, ct.tenant_id, ct.campaign_id, ct.phone, ct.active_call_id, ct.attempts,
              c.id AS c_id, c.abandon_threshold_ms, c.caller_id, c.trunk_id
         FROM outbound_contacts ct JOIN dialer_campaigns c ON c.id = ct.campaign_id
        WHERE ct.dialer_owner = 'preview' AND ct.preview_dial_at IS NOT NULL AND ct.active_call_id IS NOT NULL AND c.status = 'running'
          AND ($1::uuid[] IS NULL OR ct.tenant_id = ANY($1::uuid[]))
        ORDER BY ct.preview_dial_at, ct.id
        LIMIT 100`,
      [tenantIds],
    )) as PreviewRequest[];
  }

  async claimPreview(contactId: string, callId: string, owner: string): Promise<boolean> {
    const [claimed] = (await this.dataSource.query(
      `UPDATE outbound_contacts SET dialer_owner = $2, preview_line_wait_since = NULL
        WHERE id = $1 AND dialer_owner = 'preview' AND active_call_id = $3 RETURNING id`,
      [contactId, owner, callId],
    )) as [unknown[], number];
    return claimed.length > 0;
  }

  async markPreviewAwaitingLine(contactId: string, callId: string): Promise<boolean> {
    const [marked] = (await this.dataSource.query(
      `UPDATE outbound_contacts SET preview_line_wait_since = now()
        WHERE id = $1 AND active_call_id = $2 AND dialer_owner = 'preview' AND preview_line_wait_since IS NULL RETURNING id`,
      [contactId, callId],
    )) as [unknown[], number];
    return marked.length > 0;
  }
}
