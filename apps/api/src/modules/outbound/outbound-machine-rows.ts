import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import { StepRows, withPgStepRows } from '../machine-host/step-rows';
import type { CallRow, CampaignRow } from './outbound-rows';

/** A call's first row: what the dialer reported and its machine's first snapshot (planCreate). */
export interface NewCallRow {
  id: string;
  tenantId: string;
  campaignId: string;
  contactId: string;
  phone: string;
  attempt: number;
  status: string;
  snapshotJson: string;
  lastEvent: string;
  at: Date;
}

/** What an attempt's end leaves on its contact (recordOutcome). */
export interface AttemptEnd {
  contactId: string;
  callId: string;
  outcome: string;
  /** No retry is booked (or the contact asked not to be called): the contact is done. */
  finished: boolean;
  /** When the retry is due; null keeps the contact's next_attempt_at as it is. */
  retryAt: Date | null;
}

/** The agent desk's "waiting for a free trunk line" of a preview call, as the contact row says now. */
export interface PreviewLineWait {
  preview_agent_id: string;
  preview_line_wait_since: Date | null;
}

/** A campaign's due timer as fireTimer reads it. */
export type DueTimerRow = Pick<CampaignRow, 'id' | 'timer_event' | 'timer_at'>;

/**
 * The outbound hosts' tables (outbound_calls, dialer_campaigns, and what their steps read and
 * change of outbound_contacts, outbound_live_numbers, outbound_callbacks and agent_presence) and
 * what they write with their steps (transition_log, outbox). Every method runs on the manager it
 * is given, the caller's transaction. Reads answer undefined (or null) for a row that is not
 * there; who may see it (the tenant) is the host's check. PgOutboundMachineRows is the real one,
 * FakeOutboundMachineRows (outbound-machine-rows.fake.ts) the in-memory one the hosts' unit specs
 * run on.
 */
export abstract class OutboundMachineRows extends StepRows {
  // outbound_calls

  /** Whether the call's row exists (a create reported twice is ignored). */
  abstract callExists(manager: EntityManager, id: string): Promise<boolean>;
  /**
   * Inserts the call at version 1; undefined when a unique index refuses it (its number or its
   * contact's attempt is already live).
   */
  abstract insertCall(manager: EntityManager, row: NewCallRow): Promise<CallRow | undefined>;
  /** The call, locked FOR NO KEY UPDATE by the manager's transaction. */
  abstract lockCall(manager: EntityManager, id: string): Promise<CallRow | undefined>;
  /**
   * The id of the oldest call of the tenant answered by a person and still waiting for an agent,
   * that the agent may take (the campaign's agents, the contact's preview agent), locked FOR NO KEY UPDATE
   * SKIP LOCKED.
   */
  abstract lockAnsweredCallFor(manager: EntityManager, tenantId: string, agentId: string): Promise<string | undefined>;
  /**
   * Serialises the two sides of matching an answered call with a waiting agent in the tenant, to
   * the manager's commit (see PgOutboundMachineRows.lockDialerMatching for why).
   */
  abstract lockDialerMatching(manager: EntityManager, tenantId: string): Promise<void>;

  // agent_presence, as the dialer picks from it (the agent's own steps are MachineHostService's)

  /** The agent, if waiting for an outbound call and not locked by another transaction (FOR NO KEY UPDATE SKIP LOCKED). */
  abstract lockWaitingAgent(manager: EntityManager, userId: string): Promise<string | null>;
  /**
   * The agent of the tenant waiting longest for an outbound call, among the campaign's agents and
   * not holding a preview record, locked FOR NO KEY UPDATE SKIP LOCKED.
   */
  abstract lockWaitingCampaignAgent(manager: EntityManager, tenantId: string, campaignId: string): Promise<string | null>;

  // outbound_contacts and outbound_live_numbers

  /** The agent the contact is previewed by (it goes to nobody else), or null. */
  abstract readPreviewAgentId(manager: EntityManager, contactId: string): Promise<string | null>;
  /** The contact's disposition (`doNotCall` finishes it), or null. */
  abstract readContactDisposition(manager: EntityManager, contactId: string): Promise<string | null>;
  /** The contact's name for the call's view, or null. */
  abstract readContactName(manager: EntityManager, contactId: string): Promise<string | null>;
  /** The preview agent and line wait of the contact the call is reserved on, if it is a preview record. */
  abstract readPreviewLineWait(manager: EntityManager, callId: string): Promise<PreviewLineWait | undefined>;
  /** Frees the contact reserved for a call that was refused (no row was created for it). */
  abstract freeContactOfCall(manager: EntityManager, callId: string): Promise<void>;
  /** Frees the call's contact and records its outcome (a booked retry or the contact finished), if the call still holds it. */
  abstract endAttempt(manager: EntityManager, end: AttemptEnd): Promise<void>;
  /** Releases the number the call held live. */
  abstract releaseLiveNumber(manager: EntityManager, callId: string): Promise<void>;

  // dialer_campaigns, outbound_callbacks

  /** The campaign (not deleted), locked FOR NO KEY UPDATE. */
  abstract lockCampaign(manager: EntityManager, id: string): Promise<CampaignRow | undefined>;
  /**
   * The call's campaign, deleted or not (the call's foreign key keeps it), locked FOR NO KEY UPDATE: it
   * serialises the last outcomes of the campaign.
   */
  abstract lockCampaignOfCall(manager: EntityManager, campaignId: string): Promise<CampaignRow>;
  /** Campaigns whose timer is due at `now` (epoch ms), oldest first, without locks. */
  abstract dueTimers(manager: EntityManager, now: number, limit: number): Promise<string[]>;
  /** The campaign's timer if still due at `now`, locked FOR NO KEY UPDATE SKIP LOCKED (undefined when another holds the row). */
  abstract lockDueTimer(manager: EntityManager, id: string, now: number): Promise<DueTimerRow | undefined>;
  /** Drops the campaign's timer (one its machine refused). */
  abstract clearTimer(manager: EntityManager, id: string): Promise<void>;
  /** Contacts of the campaign not finished yet. */
  abstract countOpenContacts(manager: EntityManager, campaignId: string): Promise<number>;
  /** Callbacks of the campaign still pending. */
  abstract countPendingCallbacks(manager: EntityManager, campaignId: string): Promise<number>;
  /** Marks a point of the manager's transaction that rollbackToSavepoint can return to. */
  abstract savepoint(manager: EntityManager, name: string): Promise<void>;
  /** Undoes what the manager's transaction wrote since the savepoint, keeping its locks. */
  abstract rollbackToSavepoint(manager: EntityManager, name: string): Promise<void>;
}

/** The outbound hosts' tables in PostgreSQL. */
@Injectable()
export class PgOutboundMachineRows extends withPgStepRows(OutboundMachineRows) {
  async callExists(manager: EntityManager, id: string): Promise<boolean> {
    const [exists] = (await manager.query(`SELECT id FROM outbound_calls WHERE id = $1`, [id])) as { id: string }[];
    return exists !== undefined;
  }

  async insertCall(manager: EntityManager, row: NewCallRow): Promise<CallRow | undefined> {
    const [inserted] = (await manager.query(
      `INSERT INTO outbound_calls (id, tenant_id, campaign_id, contact_id, phone, attempt, status, snapshot, version, last_event, created_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, 1, $9, $10) ON CONFLICT DO NOTHING RETURNING *`,
      [row.id, row.tenantId, row.campaignId, row.contactId, row.phone, row.attempt, row.status, row.snapshotJson, row.lastEvent, row.at],
    )) as CallRow[];
    return inserted;
  }

  async lockCall(manager: EntityManager, id: string): Promise<CallRow | undefined> {
    const [row] = (await manager.query(`SELECT * FROM outbound_calls WHERE id = $1 FOR NO KEY UPDATE`, [id])) as CallRow[];
    return row;
  }

  async lockAnsweredCallFor(manager: EntityManager, tenantId: string, agentId: string): Promise<string | undefined> {
    const [call] = (await manager.query(
      `SELECT oc.id FROM outbound_calls oc JOIN dialer_campaigns c ON c.id = oc.campaign_id JOIN outbound_contacts ct ON ct.id = oc.contact_id
        WHERE oc.tenant_id = $1 AND oc.status = 'answeredByHuman'
          AND (cardinality(c.agent_ids) = 0 OR $2 = ANY(c.agent_ids)) AND (ct.preview_agent_id IS NULL OR ct.preview_agent_id = $2)
        ORDER BY oc.answered_at, oc.id LIMIT 1 FOR NO KEY UPDATE OF oc SKIP LOCKED`,
      [tenantId, agentId],
    )) as { id: string }[];
    return call?.id;
  }

  /**
   * Matching a person who answered with an agent who waits happens from both sides: the call's step
   * looks for a waiting agent, the agent's "waiting" looks for an answered call. Each side changes its
   * own row first and then reads the other side with SKIP LOCKED, so two such transactions running at
   * once each skipped the other's (still uncommitted) row and both committed unmatched: the person
   * waited for the abandon timer while the agent waited for a call. One transaction-scoped lock per
   * tenant, taken after the own row changed and held to commit, makes the later one read after the
   * earlier one committed, so one of the two always sees the other. It guards only the short match.
   */
  async lockDialerMatching(manager: EntityManager, tenantId: string): Promise<void> {
    await manager.query(`SELECT pg_advisory_xact_lock(hashtext('dialer-match:' || $1))`, [tenantId]);
  }

  async lockWaitingAgent(manager: EntityManager, userId: string): Promise<string | null> {
    const [own] = (await manager.query(
      `SELECT user_id FROM agent_presence WHERE user_id = $1 AND status = 'waitingOutboundCall' FOR NO KEY UPDATE SKIP LOCKED`,
      [userId],
    )) as { user_id: string }[];
    return own?.user_id ?? null;
  }

  async lockWaitingCampaignAgent(manager: EntityManager, tenantId: string, campaignId: string): Promise<string | null> {
    const [agent] = (await manager.query(
      `SELECT p.user_id FROM agent_presence p, dialer_campaigns c
        WHERE c.id = $2 AND p.tenant_id = $1 AND p.status = 'waitingOutboundCall'
          AND (cardinality(c.agent_ids) = 0 OR p.user_id = ANY(c.agent_ids))
          AND NOT EXISTS (SELECT 1 FROM outbound_contacts pc WHERE pc.preview_agent_id = p.user_id)
        ORDER BY p.state_since, p.user_id LIMIT 1 FOR NO KEY UPDATE OF p SKIP LOCKED`,
      [tenantId, campaignId],
    )) as { user_id: string }[];
    return agent?.user_id ?? null;
  }

  async readPreviewAgentId(manager: EntityManager, contactId: string): Promise<string | null> {
    const [contact] = (await manager.query(`SELECT preview_agent_id FROM outbound_contacts WHERE id = $1`, [contactId])) as {
      preview_agent_id: string | null;
    }[];
    return contact?.preview_agent_id ?? null;
  }

  async readContactDisposition(manager: EntityManager, contactId: string): Promise<string | null> {
    const [contact] = (await manager.query(`SELECT disposition FROM outbound_contacts WHERE id = $1`, [contactId])) as {
      disposition: string | null;
    }[];
    return contact?.disposition ?? null;
  }

  async readContactName(manager: EntityManager, contactId: string): Promise<string | null> {
    const [contact] = (await manager.query(`SELECT name FROM outbound_contacts WHERE id = $1`, [contactId])) as {
      name: string | null;
    }[];
    return contact?.name ?? null;
  }

  async readPreviewLineWait(manager: EntityManager, callId: string): Promise<PreviewLineWait | undefined> {
    const [contact] = (await manager.query(
      `SELECT preview_agent_id, preview_line_wait_since FROM outbound_contacts WHERE active_call_id = $1 AND preview_agent_id IS NOT NULL`,
      [callId],
    )) as PreviewLineWait[];
    return contact;
  }

  async freeContactOfCall(manager: EntityManager, callId: string): Promise<void> {
    await manager.query(
      `UPDATE outbound_contacts SET active_call_id = NULL, dialer_owner = NULL, preview_agent_id = NULL, preview_dial_at = NULL WHERE active_call_id = $1`,
      [callId],
    );
  }

  async endAttempt(manager: EntityManager, end: AttemptEnd): Promise<void> {
    await manager.query(
      `UPDATE outbound_contacts SET active_call_id = NULL, dialer_owner = NULL, preview_agent_id = NULL, preview_dial_at = NULL, last_outcome = $2, finished = $3,
         next_attempt_at = COALESCE($4, next_attempt_at), updated_at = now()
       WHERE id = $1 AND active_call_id = $5`,
      [end.contactId, end.outcome, end.finished, end.retryAt, end.callId],
    );
  }

  async releaseLiveNumber(manager: EntityManager, callId: string): Promise<void> {
    await manager.query(`DELETE FROM outbound_live_numbers WHERE call_id = $1`, [callId]);
  }

  async lockCampaign(manager: EntityManager, id: string): Promise<CampaignRow | undefined> {
    const [row] = (await manager.query(`SELECT * FROM dialer_campaigns WHERE id = $1 AND deleted_at IS NULL FOR NO KEY UPDATE`, [
      id,
    ])) as CampaignRow[];
    return row;
  }

  async lockCampaignOfCall(manager: EntityManager, campaignId: string): Promise<CampaignRow> {
    const [campaign] = (await manager.query(`SELECT * FROM dialer_campaigns WHERE id = $1 FOR NO KEY UPDATE`, [
      campaignId,
    ])) as CampaignRow[];
    return campaign;
  }

  async dueTimers(manager: EntityManager, now: number, limit: number): Promise<string[]> {
    const rows = (await manager.query(
      `SELECT id FROM dialer_campaigns WHERE timer_at IS NOT NULL AND deleted_at IS NULL AND timer_at <= $1 ORDER BY timer_at, id LIMIT $2`,
      [now, limit],
    )) as { id: string }[];
    return rows.map((row) => row.id);
  }

  async lockDueTimer(manager: EntityManager, id: string, now: number): Promise<DueTimerRow | undefined> {
    const [due] = (await manager.query(
      `SELECT id, timer_event, timer_at FROM dialer_campaigns
          WHERE id = $1 AND timer_at IS NOT NULL AND timer_at <= $2 AND deleted_at IS NULL FOR NO KEY UPDATE SKIP LOCKED`,
      [id, now],
    )) as DueTimerRow[];
    return due;
  }

  async clearTimer(manager: EntityManager, id: string): Promise<void> {
    await manager.query(`UPDATE dialer_campaigns SET timer_event = NULL, timer_at = NULL WHERE id = $1`, [id]);
  }

  async countOpenContacts(manager: EntityManager, campaignId: string): Promise<number> {
    const [{ open }] = (await manager.query(
      `SELECT count(*)::int AS open FROM outbound_contacts WHERE campaign_id = $1 AND finished = false`,
      [campaignId],
    )) as { open: number }[];
    return open;
  }

  async countPendingCallbacks(manager: EntityManager, campaignId: string): Promise<number> {
    const [{ pending }] = (await manager.query(
      `SELECT count(*)::int AS pending FROM outbound_callbacks WHERE campaign_id = $1 AND status = 'pending'`,
      [campaignId],
    )) as { pending: number }[];
    return pending;
  }

  async savepoint(manager: EntityManager, name: string): Promise<void> {
    await manager.query(`SAVEPOINT ${name}`);
  }

  async rollbackToSavepoint(manager: EntityManager, name: string): Promise<void> {
    await manager.query(`ROLLBACK TO SAVEPOINT ${name}`);
  }
}
