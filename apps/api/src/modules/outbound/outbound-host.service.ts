import {
  OUTBOUND_SOCKET_EVENTS,
  roomName,
  type OutboundCallEventJob,
  type OutboundCallView,
  type OutboundPreviewLineView,
} from '@centralita/contracts';
import {
  describeCampaignState,
  describeOutboundCallState,
  dialerCampaignMachine,
  initial,
  nextAttempt,
  outboundCallMachine,
  persist,
  restore,
  step,
  type Actor,
  type CallOutcome,
  type DialerCampaignEvent,
  type DialingMode,
  type IntentOf,
  type OutboundCallEvent,
  type RetryPolicy,
  type TransitionRecord,
} from '@centralita/domain';
import { Injectable, Logger } from '@nestjs/common';
import { DataSource, type EntityManager } from 'typeorm';
import { AppException } from '../../common/app.exception';
import { isIllegalTransition, MachineHostService } from '../machine-host/machine-host.service';
import { writeOutbox, type OutboxEffect } from '../machine-host/outbox';
import { OutboundQueues } from './outbound-queues.service';

type DistributiveOmit<T, K extends PropertyKey> = T extends unknown ? Omit<T, K> : never;
export type CallEventInput = DistributiveOmit<OutboundCallEvent, 'at' | 'actor'>;
export type CampaignEventInput = DistributiveOmit<DialerCampaignEvent, 'at' | 'actor'>;

const SYSTEM: Actor = { kind: 'system', id: 'dialer' };
/** Wrap-up ends by itself after this long when the agent picks no disposition. */
export const WRAP_UP_SECONDS = 120;

export interface CampaignRow {
  id: string;
  tenant_id: string;
  name: string;
  phone_list_id: string;
  mode: DialingMode;
  abandon_cap_percent: string;
  abandon_threshold_ms: number;
  max_attempts: number;
  retry_delays: Record<string, number>;
  calling_windows: Record<string, { from: string; to: string }[]>;
  schedule_from: Date | null;
  schedule_to: Date | null;
  trunk_id: string | null;
  caller_id: string | null;
  agent_ids: string[];
  status: string;
  snapshot: { value: unknown; context: Record<string, unknown>; status: string };
  version: number;
  last_event: string;
  created_at: Date;
  updated_at: Date;
  deleted_at: Date | null;
}

export interface CallRow {
  id: string;
  tenant_id: string;
  campaign_id: string;
  contact_id: string;
  phone: string;
  attempt: number;
  status: string;
  snapshot: { value: unknown; context: Record<string, unknown>; status: string };
  version: number;
  last_event: string;
  outcome: string | null;
  disposition: string | null;
  agent_id: string | null;
  end_reason: string | null;
  created_at: Date;
  answered_at: Date | null;
  connected_at: Date | null;
  hung_up_at: Date | null;
  finished_at: Date | null;
  /** The last carrier event (by the dialer's numbering) applied to this call. */
  carrier_seq?: number;
}

/** Delayed events the host asks for; enqueued after commit (the dialer's sweep re-sends lost ones). */
interface Timer {
  job: OutboundCallEventJob;
  delayMs: number;
  jobId: string;
}

export interface Work {
  outbox: string[];
  timers: Timer[];
  boards: Set<string>;
}

function illegal(noun: string, eventType: string, status: string): AppException {
  return new AppException('illegal_transition', {
    message: `${eventType} is not allowed while ${noun} is ${status}`,
    data: { event: eventType, state: status },
  });
}

export function retryPolicyOf(campaign: Pick<CampaignRow, 'max_attempts' | 'retry_delays'>): RetryPolicy {
  const byOutcome: RetryPolicy['byOutcome'] = {};
  for (const [outcome, delaySec] of Object.entries(campaign.retry_delays ?? {})) {
    (byOutcome as Record<string, { delaySec: number }>)[outcome] = { delaySec };
  }
  return { maxAttempts: campaign.max_attempts, byOutcome };
}

export function callView(row: CallRow, contactName: string | null = null): OutboundCallView {
  return {
    id: row.id,
    tenantId: row.tenant_id,
    campaignId: row.campaign_id,
    contactId: row.contact_id,
    phone: row.phone,
    contactName,
    attempt: row.attempt,
    status: row.status,
    outcome: row.outcome,
    disposition: row.disposition,
    agentId: row.agent_id,
    version: row.version,
    createdAt: new Date(row.created_at).toISOString(),
    answeredAt: row.answered_at ? new Date(row.answered_at).toISOString() : null,
    connectedAt: row.connected_at ? new Date(row.connected_at).toISOString() : null,
    finishedAt: row.finished_at ? new Date(row.finished_at).toISOString() : null,
  };
}

/**
 * The machine host for outbound dialing: the `dialer-campaign` and `outbound-call` machines run here,
 * in the API, exactly like conversations and agents in MachineHostService (lock → step → row +
 * snapshot v+1 + transition_log + outbox in one transaction). Agent presence changes go through
 * MachineHostService.dispatchAgent inside the same transaction. The dialer worker never runs a
 * machine: it reports what the carrier did as jobs on `outbound-call-events`, which this host applies.
 */
@Injectable()
export class OutboundHostService {
  private readonly logger = new Logger(OutboundHostService.name);
  private boardListener: ((campaignIds: string[]) => void) | null = null;

  constructor(
    private readonly dataSource: DataSource,
    private readonly host: MachineHostService,
    private readonly queues: OutboundQueues,
  ) {}

  /** The board service subscribes to learn which campaigns changed. */
  onBoardsChanged(listener: (campaignIds: string[]) => void): void {
    this.boardListener = listener;
  }

  /** One transaction; after commit: relay the outbox, enqueue the timers, refresh the boards. */
  async run<T>(work: (manager: EntityManager, w: Work) => Promise<T>): Promise<T> {
    const w: Work = { outbox: [], timers: [], boards: new Set() };
    const result = await this.host.transaction(async (manager, outbox) => {
      const value = await work(manager, w);
      outbox.push(...w.outbox);
      return value;
    });
    for (const timer of w.timers) {
      await this.queues.events
        .add(timer.job.kind, timer.job, {
          jobId: timer.jobId,
          delay: timer.delayMs,
          removeOnComplete: { age: 3600 },
          removeOnFail: { age: 86400 },
        })
        .catch((error: Error) => this.logger.warn(`timer ${timer.jobId} not enqueued (the dialer sweep re-sends it): ${error.message}`));
    }
    if (w.boards.size > 0) this.boardListener?.([...w.boards]);
    return result;
  }

  private async log(
    manager: EntityManager,
    entity: 'outbound_call' | 'dialer_campaign',
    id: string,
    tenantId: string,
    record: TransitionRecord,
    version: number,
  ) {
    await manager.query(
      `INSERT INTO transition_log (tenant_id, entity_type, entity_id, from_state, to_state, event, actor_kind, actor_id, at, at_ms, version)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)`,
      [
        tenantId,
        entity,
        id,
        record.from,
        record.to,
        record.event,
        record.actor.kind,
        record.actor.id ?? null,
        new Date(record.at),
        record.at,
        version,
      ],
    );
  }

  // ── campaigns ────────────────────────────────────────────────────────────────────────────

  /** Inserts a draft campaign (row + snapshot v1 + its first log row); the caller fills the columns. */
  async createCampaign(
    manager: EntityManager,
    id: string,
    tenantId: string,
    mode: DialingMode,
    actor: Actor,
  ): Promise<{ snapshot: string; record: TransitionRecord; status: string }> {
    const created = initial(dialerCampaignMachine, { id, tenantId, mode, at: Date.now(), actor });
    return {
      snapshot: JSON.stringify(persist(dialerCampaignMachine, created.snapshot)),
      record: created.record,
      status: describeCampaignState(created.snapshot),
    };
  }

  async logCampaignCreated(manager: EntityManager, id: string, tenantId: string, record: TransitionRecord): Promise<void> {
    await this.log(manager, 'dialer_campaign', id, tenantId, record, 1);
  }

  async lockCampaign(manager: EntityManager, id: string, tenantId?: string): Promise<CampaignRow> {
    const [row] = (await manager.query(`SELECT * FROM dialer_campaigns WHERE id = $1 AND deleted_at IS NULL FOR UPDATE`, [
      id,
    ])) as CampaignRow[];
    if (!row || (tenantId !== undefined && row.tenant_id !== tenantId)) throw AppException.notFound();
    return row;
  }

  dispatchCampaign(id: string, input: CampaignEventInput, actor: Actor, tenantId?: string): Promise<CampaignRow> {
    return this.run((manager, w) => this.stepCampaign(manager, w, id, input, actor, tenantId));
  }

  async stepCampaign(
    manager: EntityManager,
    w: Work,
    id: string,
    input: CampaignEventInput,
    actor: Actor,
    tenantId?: string,
  ): Promise<CampaignRow> {
    const current = await this.lockCampaign(manager, id, tenantId);
    const snapshot = restore(dialerCampaignMachine, current.snapshot as never);
    const result = step(dialerCampaignMachine, snapshot, { ...input, at: Date.now(), actor } as DialerCampaignEvent);
    if (!result.changed || !result.record) throw illegal('the campaign', input.type, current.status);
    const [[row]] = (await manager.query(
      `UPDATE dialer_campaigns SET status = $3, snapshot = $4, version = version + 1, last_event = $5, updated_at = now()
       WHERE id = $1 AND version = $2 RETURNING *`,
      [
        id,
        current.version,
        describeCampaignState(result.snapshot),
        JSON.stringify(persist(dialerCampaignMachine, result.snapshot)),
        input.type,
      ],
    )) as [CampaignRow[], number];
    if (!row) throw new AppException('conflict', { message: 'The campaign changed meanwhile; try again' });
    await this.log(manager, 'dialer_campaign', id, row.tenant_id, result.record, row.version);
    for (const intent of result.intents as IntentOf<typeof dialerCampaignMachine>[]) {
      switch (intent.type) {
        case 'scheduleStart':
          w.timers.push({
            job: { kind: 'campaignStartTimer', campaignId: id, armedAt: intent.params.armedAt },
            delayMs: Math.max(0, intent.params.armedAt - Date.now()),
            jobId: `cst.${id}.${intent.params.armedAt}`,
          });
          break;
        case 'scheduleEnd':
          w.timers.push({
            job: { kind: 'campaignEndTimer', campaignId: id, armedAt: intent.params.armedAt },
            delayMs: Math.max(0, intent.params.armedAt - Date.now()),
            jobId: `cet.${id}.${intent.params.armedAt}`,
          });
          break;
        // The dialer paces every campaign whose row says `running`; nothing to start or stop here.
        default:
          break;
      }
    }
    w.boards.add(id);
    return row;
  }

  // ── calls ────────────────────────────────────────────────────────────────────────────────

  /**
   * The dialer reserved a contact and placed the call: create the machine (queued) and step it to
   * dialing. A reservation that no longer matches (the dialer restarted and failed it) is ignored.
   */
  async createCall(job: Extract<OutboundCallEventJob, { kind: 'create' }>): Promise<CallRow | null> {
    return this.run(async (manager, w) => {
      const [exists] = (await manager.query(`SELECT id FROM outbound_calls WHERE id = $1`, [job.callId])) as { id: string }[];
      if (exists) return null;
      const actor = SYSTEM;
      const created = initial(outboundCallMachine, {
        id: job.callId,
        tenantId: job.tenantId,
        campaignId: job.campaignId,
        contactId: job.contactId,
        phone: job.phone,
        attempt: job.attempt,
        abandonThresholdMs: job.abandonThresholdMs,
        at: job.at,
        actor,
      });
      const inserted = (await manager.query(
        `INSERT INTO outbound_calls (id, tenant_id, campaign_id, contact_id, phone, attempt, status, snapshot, version, last_event, created_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, 1, $9, $10) ON CONFLICT DO NOTHING RETURNING *`,
        [
          job.callId,
          job.tenantId,
          job.campaignId,
          job.contactId,
          job.phone,
          job.attempt,
          describeOutboundCallState(created.snapshot),
          JSON.stringify(persist(outboundCallMachine, created.snapshot)),
          created.record.event,
          new Date(job.at),
        ],
      )) as CallRow[];
      if (inserted.length === 0) {
        this.logger.warn(`call ${job.callId} refused: its number or attempt is already live`);
        await manager.query(
          `UPDATE outbound_contacts SET active_call_id = NULL, dialer_owner = NULL, preview_agent_id = NULL, preview_dial_at = NULL WHERE active_call_id = $1`,
          [job.callId],
        );
        await manager.query(`DELETE FROM outbound_live_numbers WHERE call_id = $1`, [job.callId]);
        return null;
      }
      await this.log(manager, 'outbound_call', job.callId, job.tenantId, created.record, 1);
      // A preview call that waited for a trunk line has one now: its agent's desk stops saying so.
      await this.pushPreviewLine(manager, w, job.callId);
      return this.stepCall(manager, w, job.callId, { type: 'call.dialed' }, actor, undefined, job.at);
    });
  }

  dispatchCall(id: string, input: CallEventInput, actor: Actor, tenantId?: string, at?: number): Promise<CallRow> {
    return this.run((manager, w) => this.stepCall(manager, w, id, input, actor, tenantId, at));
  }

  async lockCall(manager: EntityManager, id: string, tenantId?: string): Promise<CallRow> {
    const [row] = (await manager.query(`SELECT * FROM outbound_calls WHERE id = $1 FOR UPDATE`, [id])) as CallRow[];
    if (!row || (tenantId !== undefined && row.tenant_id !== tenantId)) throw AppException.notFound();
    return row;
  }

  async stepCall(
    manager: EntityManager,
    w: Work,
    id: string,
    input: CallEventInput,
    actor: Actor,
    tenantId?: string,
    at = Date.now(),
    /** The row as this transaction already locked it, to skip reading it again. */
    locked?: CallRow,
  ): Promise<CallRow> {
    const current = locked?.id === id ? locked : await this.lockCall(manager, id, tenantId);
    const snapshot = restore(outboundCallMachine, current.snapshot as never);
    const result = step(outboundCallMachine, snapshot, { ...input, at: Math.max(at, 0), actor } as OutboundCallEvent);
    if (!result.changed || !result.record) throw illegal('the call', input.type, current.status);
    const context = result.snapshot.context;
    const stamp = (value: number | null) => (value === null ? null : new Date(value));
    const [[row]] = (await manager.query(
      `UPDATE outbound_calls SET status = $3, snapshot = $4, version = version + 1, last_event = $5, outcome = $6, disposition = $7,
         agent_id = $8, end_reason = $9, answered_at = $10, connected_at = $11, hung_up_at = $12, finished_at = $13, updated_at = now()
       WHERE id = $1 AND version = $2 RETURNING *`,
      [
        id,
        current.version,
        describeOutboundCallState(result.snapshot),
        JSON.stringify(persist(outboundCallMachine, result.snapshot)),
        input.type,
        context.outcome,
        context.disposition,
        context.agentId,
        context.endReason,
        stamp(context.answeredAt),
        stamp(context.connectedAt),
        stamp(context.hungUpAt),
        stamp(context.finishedAt),
      ],
    )) as [CallRow[], number];
    if (!row) throw new AppException('conflict', { message: 'The call changed meanwhile; try again' });
    await this.log(manager, 'outbound_call', id, row.tenant_id, result.record, row.version);
    let latest = row;
    for (const intent of result.intents as IntentOf<typeof outboundCallMachine>[]) {
      switch (intent.type) {
        case 'requestAgent': {
          const agentId = await this.pickWaitingAgent(manager, row);
          if (agentId) {
            const booked = await this.host.dispatchAgent(manager, agentId, { type: 'agent.outboundCallConnected' }, SYSTEM);
            w.outbox.push(...booked.outboxIds);
            latest = await this.stepCall(manager, w, id, { type: 'call.agentConnected', agentId }, SYSTEM);
          }
          break;
        }
        case 'scheduleAbandonTimer':
          w.timers.push({
            job: { kind: 'abandonTimer', callId: id, armedAt: intent.params.armedAt },
            delayMs: intent.params.delayMs,
            jobId: `abd.${id}.${intent.params.armedAt}`,
          });
          break;
        case 'scheduleWrapUpEnd':
          w.timers.push({
            job: { kind: 'wrapUpTimer', callId: id, armedAt: intent.params.armedAt },
            delayMs: WRAP_UP_SECONDS * 1000,
            jobId: `wrp.${id}.${intent.params.armedAt}`,
          });
          break;
        case 'releaseAgent': {
          try {
            const released = await this.host.dispatchAgent(
              manager,
              intent.params.agentId,
              { type: 'agent.outboundCallEnded', ...(context.disposition ? { disposition: context.disposition } : {}) },
              actor,
            );
            w.outbox.push(...released.outboxIds);
          } catch (error) {
            if (!isIllegalTransition(error) && !(error instanceof AppException && error.code === 'not_found')) throw error;
          }
          break;
        }
        case 'reportOutcome':
          await this.recordOutcome(manager, w, row, intent.params.outcome, intent.params.at);
          break;
        // placeCall: the dialer placed the call before reporting it; hangUp: the dialer ends the
        // carrier leg of any call whose machine left the live states; bridgeAgent: pushed below.
        default:
          break;
      }
    }
    if (latest === row) await this.pushCall(manager, w, row, current.agent_id);
    w.boards.add(row.campaign_id);
    return latest;
  }

  /**
   * An agent just started waiting: hand them the oldest call answered by a person that is still
   * waiting for an agent (within its abandon threshold), in the caller's transaction.
   */
  async offerAnsweredCall(manager: EntityManager, w: Work, agentId: string, tenantId: string): Promise<CallRow | null> {
    const [call] = (await manager.query(
      `SELECT oc.id FROM outbound_calls oc JOIN dialer_campaigns c ON c.id = oc.campaign_id JOIN outbound_contacts ct ON ct.id = oc.contact_id
        WHERE oc.tenant_id = $1 AND oc.status = 'answeredByHuman'
          AND (cardinality(c.agent_ids) = 0 OR $2 = ANY(c.agent_ids)) AND (ct.preview_agent_id IS NULL OR ct.preview_agent_id = $2)
        ORDER BY oc.answered_at, oc.id LIMIT 1 FOR UPDATE OF oc SKIP LOCKED`,
      [tenantId, agentId],
    )) as { id: string }[];
    if (!call) return null;
    const booked = await this.host.dispatchAgent(manager, agentId, { type: 'agent.outboundCallConnected' }, SYSTEM);
    w.outbox.push(...booked.outboxIds);
    return this.stepCall(manager, w, call.id, { type: 'call.agentConnected', agentId }, SYSTEM);
  }

  private async pickWaitingAgent(manager: EntityManager, call: CallRow): Promise<string | null> {
    // A previewed record goes to the agent who dialled it, and to nobody else.
    const [contact] = (await manager.query(`SELECT preview_agent_id FROM outbound_contacts WHERE id = $1`, [call.contact_id])) as {
      preview_agent_id: string | null;
    }[];
    if (contact?.preview_agent_id) {
      const [own] = (await manager.query(
        `SELECT user_id FROM agent_presence WHERE user_id = $1 AND status = 'waitingOutboundCall' FOR UPDATE SKIP LOCKED`,
        [contact.preview_agent_id],
      )) as { user_id: string }[];
      return own?.user_id ?? null;
    }
    const [agent] = (await manager.query(
      `SELECT p.user_id FROM agent_presence p, dialer_campaigns c
        WHERE c.id = $2 AND p.tenant_id = $1 AND p.status = 'waitingOutboundCall'
          AND (cardinality(c.agent_ids) = 0 OR p.user_id = ANY(c.agent_ids))
          AND NOT EXISTS (SELECT 1 FROM outbound_contacts pc WHERE pc.preview_agent_id = p.user_id)
        ORDER BY p.state_since, p.user_id LIMIT 1 FOR UPDATE OF p SKIP LOCKED`,
      [call.tenant_id, call.campaign_id],
    )) as { user_id: string }[];
    return agent?.user_id ?? null;
  }

  /** The attempt is over: release the number, book the retry (or finish the contact), complete an exhausted campaign. */
  private async recordOutcome(manager: EntityManager, w: Work, call: CallRow, outcome: CallOutcome, at: number): Promise<void> {
    // The campaign row lock serialises the last outcomes: the one that commits last sees the others and completes the campaign.
    const [campaign] = (await manager.query(`SELECT * FROM dialer_campaigns WHERE id = $1 FOR UPDATE`, [
      call.campaign_id,
    ])) as CampaignRow[];
    const next = nextAttempt(outcome, call.attempt, retryPolicyOf(campaign), at);
    const [contact] = (await manager.query(`SELECT disposition FROM outbound_contacts WHERE id = $1`, [call.contact_id])) as {
      disposition: string | null;
    }[];
    const finished = next.retryAt === null || contact?.disposition === 'doNotCall';
    await manager.query(
      `UPDATE outbound_contacts SET active_call_id = NULL, dialer_owner = NULL, preview_agent_id = NULL, preview_dial_at = NULL, last_outcome = $2, finished = $3,
         next_attempt_at = COALESCE($4, next_attempt_at), updated_at = now()
       WHERE id = $1 AND active_call_id = $5`,
      [call.contact_id, outcome, finished, next.retryAt === null ? null : new Date(next.retryAt), call.id],
    );
    await manager.query(`DELETE FROM outbound_live_numbers WHERE call_id = $1`, [call.id]);
    await this.completeIfExhausted(manager, w, campaign);
  }

  /** Completes a live campaign that has no contact left to call and no callback pending. */
  private async completeIfExhausted(manager: EntityManager, w: Work, campaign: CampaignRow): Promise<void> {
    if (campaign.status === 'running' || campaign.status === 'paused') {
      const [{ open }] = (await manager.query(
        `SELECT count(*)::int AS open FROM outbound_contacts WHERE campaign_id = $1 AND finished = false`,
        [campaign.id],
      )) as { open: number }[];
      const [{ pending }] = (await manager.query(
        `SELECT count(*)::int AS pending FROM outbound_callbacks WHERE campaign_id = $1 AND status = 'pending'`,
        [campaign.id],
      )) as { pending: number }[];
      if (open === 0 && pending === 0) await this.stepCampaign(manager, w, campaign.id, { type: 'campaign.completed' }, SYSTEM);
    }
  }

  private async pushCall(manager: EntityManager, w: Work, row: CallRow, previousAgentId: string | null): Promise<void> {
    const [contact] = (await manager.query(`SELECT name FROM outbound_contacts WHERE id = $1`, [row.contact_id])) as {
      name: string | null;
    }[];
    const view = callView(row, contact?.name ?? null);
    const rooms = new Set([roomName({ kind: 'tenant', id: row.tenant_id })]);
    if (row.agent_id) rooms.add(roomName({ kind: 'agent', id: row.agent_id }));
    if (previousAgentId) rooms.add(roomName({ kind: 'agent', id: previousAgentId }));
    const effect: OutboxEffect = {
      topic: 'socket',
      payload: { emits: [{ namespace: 'staff', rooms: [...rooms], event: OUTBOUND_SOCKET_EVENTS.call, data: view }] },
    };
    w.outbox.push(...(await writeOutbox(manager, [effect])));
  }

  /**
   * Tells the agent of a preview call whether it waits for a free trunk line, as the contact row
   * says now (the dialer sets and clears it), whichever of the dialer's reports comes first.
   */
  private async pushPreviewLine(manager: EntityManager, w: Work, callId: string): Promise<void> {
    const [contact] = (await manager.query(
      `SELECT preview_agent_id, preview_line_wait_since FROM outbound_contacts WHERE active_call_id = $1 AND preview_agent_id IS NOT NULL`,
      [callId],
    )) as { preview_agent_id: string; preview_line_wait_since: Date | null }[];
    if (!contact) return;
    const view: OutboundPreviewLineView = {
      callId,
      waitingForLineSince: contact.preview_line_wait_since ? new Date(contact.preview_line_wait_since).toISOString() : null,
    };
    const effect: OutboxEffect = {
      topic: 'socket',
      payload: {
        emits: [
          {
            namespace: 'staff',
            rooms: [roomName({ kind: 'agent', id: contact.preview_agent_id })],
            event: OUTBOUND_SOCKET_EVENTS.preview,
            data: view,
          },
        ],
      },
    };
    w.outbox.push(...(await writeOutbox(manager, [effect])));
  }

  /**
   * Applies one job from the dialer (or one of this host's timers). Jobs are consumed concurrently
   * and by every API process, so a call's carrier events carry their order with them: the dialer
   * numbers them 1, 2, … per call (job id `<callId>.<seq>`) and `applyCarrierEvent` applies number n
   * only after n-1 (a re-delivered one is dropped). Waiting for a predecessor, a call not created yet,
   * a deadlock or a moved version are transient: retried here a few times, then by BullMQ's backoff.
   */
  async apply(job: OutboundCallEventJob, jobId?: string): Promise<void> {
    const seq = CARRIER_EVENTS.has(job.kind) ? carrierSequence(jobId) : null;
    for (let attempt = 1; ; attempt++) {
      try {
        return await this.applyOnce(job, seq);
      } catch (error) {
        if (attempt >= TRANSIENT_ATTEMPTS || !isTransient(error)) throw error;
        await new Promise((resolve) => setTimeout(resolve, 25 * attempt));
      }
    }
  }

  /**
   * A numbered carrier event, in order: applied when it is the call's next one, dropped when already
   * applied, retried when an earlier one is still on its way. A refused transition (the agent or a
   * timer moved the call first) still counts as applied, so the events after it are not held up; its
   * partial work is undone to a savepoint.
   */
  private async applyCarrierEvent(callId: string, seq: number, input: CallEventInput, at: number): Promise<void> {
    await this.run(async (manager, w) => {
      const call = await this.lockCall(manager, callId);
      const applied = Number(call.carrier_seq ?? 0);
      if (seq <= applied) return;
      if (seq > applied + 1) throw new CarrierEventEarly(callId, seq, applied);
      const mark = { outbox: w.outbox.length, timers: w.timers.length };
      await manager.query('SAVEPOINT carrier_event');
      try {
        await this.stepCall(manager, w, callId, input, SYSTEM, undefined, at, call);
      } catch (error) {
        if (!isIllegalTransition(error)) throw error;
        await manager.query('ROLLBACK TO SAVEPOINT carrier_event');
        w.outbox.length = mark.outbox;
        w.timers.length = mark.timers;
      }
      await manager.query('UPDATE outbound_calls SET carrier_seq = $2 WHERE id = $1', [callId, seq]);
    });
  }

  /** One try of `apply`; refused events are expected (races with the agent) and dropped. */
  private async applyOnce(job: OutboundCallEventJob, seq: number | null): Promise<void> {
    const carrier = (callId: string, input: CallEventInput, at: number) =>
      seq === null ? this.dispatchCall(callId, input, SYSTEM, undefined, at) : this.applyCarrierEvent(callId, seq, input, at);
    try {
      switch (job.kind) {
        case 'create':
          await this.createCall(job);
          return;
        case 'campaignStartTimer':
          await this.dispatchCampaign(job.campaignId, { type: 'campaign.startTimeReached', armedAt: job.armedAt }, SYSTEM);
          return;
        case 'campaignExhausted':
          await this.run(async (manager, w) => {
            const [campaign] = (await manager.query(`SELECT * FROM dialer_campaigns WHERE id = $1 FOR UPDATE`, [
              job.campaignId,
            ])) as CampaignRow[];
            if (campaign) await this.completeIfExhausted(manager, w, campaign);
          });
          return;
        case 'campaignEndTimer':
          await this.dispatchCampaign(job.campaignId, { type: 'campaign.endTimeReached', armedAt: job.armedAt }, SYSTEM);
          return;
        case 'previewAwaitingLine':
          await this.run((manager, w) => this.pushPreviewLine(manager, w, job.callId));
          return;
        case 'ringing':
          await carrier(job.callId, { type: 'call.ringing' }, job.at);
          return;
        case 'answered':
          await carrier(job.callId, { type: 'call.answered', by: job.by }, job.at);
          return;
        case 'busy':
          await carrier(job.callId, { type: 'call.busy' }, job.at);
          return;
        case 'noAnswer':
          await carrier(job.callId, { type: 'call.notAnswered' }, job.at);
          return;
        case 'failed':
          await carrier(job.callId, { type: 'call.failed', reason: job.reason }, job.at);
          return;
        case 'hungUp':
          await carrier(job.callId, { type: 'call.hungUp' }, job.at);
          return;
        case 'abandonTimer':
          await this.dispatchCall(job.callId, { type: 'call.abandonTimerExpired', armedAt: job.armedAt }, SYSTEM);
          return;
        case 'wrapUpTimer':
          await this.dispatchCall(job.callId, { type: 'call.wrapUpExpired', armedAt: job.armedAt }, SYSTEM);
          return;
      }
    } catch (error) {
      if (isIllegalTransition(error)) return;
      if (error instanceof AppException && error.code === 'not_found') {
        // A carrier event can precede its call's 'create' (another consumer holds it, or it failed
        // and waits for its retry): retry the event after it instead of losing it, which would
        // leave the call dialling forever.
        if (CARRIER_EVENTS.has(job.kind)) throw new CallNotCreatedYet((job as { callId: string }).callId);
        return;
      }
      throw error;
    }
  }
}

const TRANSIENT_ATTEMPTS = 8;

/** Failures that succeed when tried again: PostgreSQL deadlocks and serialization failures, a moved version. */
function isTransient(error: unknown): boolean {
  if (error instanceof CarrierEventEarly || error instanceof CallNotCreatedYet) return true;
  if (error instanceof AppException) return error.code === 'conflict';
  const e = error as { code?: string; driverError?: { code?: string } };
  const code = e?.driverError?.code ?? e?.code;
  return code === '40P01' || code === '40001';
}

/** A carrier event whose predecessor (by the dialer's numbering) is not applied yet. */
class CarrierEventEarly extends Error {
  constructor(callId: string, seq: number, applied: number) {
    super(`call ${callId}: carrier event ${seq} waits for event ${applied + 1}`);
  }
}

class CallNotCreatedYet extends Error {
  constructor(callId: string) {
    super(`call ${callId} is not created yet`);
  }
}

/**
 * The dialer's number for a carrier event, from the job id `<callId>.<seq>`; null for reports that are
 * not numbered (an originate failure, calls the dialer lost in a restart): those apply as they come.
 */
export function carrierSequence(jobId: string | undefined): number | null {
  const match = /\.(\d+)$/.exec(jobId ?? '');
  if (!match) return null;
  const seq = Number(match[1]);
  return Number.isSafeInteger(seq) && seq > 0 ? seq : null;
}

/** Events the dialer reports from the carrier, in order after the call's 'create'. */
const CARRIER_EVENTS = new Set<OutboundCallEventJob['kind']>(['ringing', 'answered', 'busy', 'noAnswer', 'failed', 'hungUp']);
