import { OUTBOUND_SOCKET_EVENTS, roomName, type OutboundCallEventJob, type OutboundPreviewLineView } from '@centralita/contracts';
import { appendTransitionLog } from '../machine-host/transition-log';
import { writeVersioned } from '../machine-host/versioned-write';
import { planCreate, planStep, stepWrite } from '../machine-host/machine-runner';
import { nextAttempt, type Actor, type CallOutcome } from '@centralita/domain';
import { Injectable, Logger } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import { AppException } from '../../common/app.exception';
import { isIllegalTransition, MachineHostService } from '../machine-host/machine-host.service';
import { writeOutbox, type OutboxEffect } from '../machine-host/outbox';
import { CampaignHostService } from './campaign-host.service';
import {
  callView,
  outboundCallBinding,
  retryPolicyOf,
  SYSTEM,
  WRAP_UP_SECONDS,
  type CallEventInput,
  type CallRow,
  type CampaignRow,
} from './outbound-rows';
import { OutboundTransactions, type Work } from './outbound-transaction.service';

/**
 * The host of the `outbound-call` machine: lock → step (the runner, outboundCallBinding) → row +
 * snapshot v+1 + transition_log + outbox in one transaction, with the agent's presence stepped
 * through MachineHostService.dispatchAgent in the same transaction. Its intents become effects
 * here: an agent booked, abandon and wrap-up timers, the outcome recorded on the contact (which may
 * complete the campaign), the call pushed.
 */
@Injectable()
export class CallHostService {
  private readonly logger = new Logger(CallHostService.name);

  constructor(
    private readonly tx: OutboundTransactions,
    private readonly host: MachineHostService,
    private readonly campaigns: CampaignHostService,
  ) {}

  /**
   * The dialer reserved a contact and placed the call: create the machine (queued) and step it to
   * dialing. A reservation that no longer matches (the dialer restarted and failed it) is ignored.
   */
  async createCall(job: Extract<OutboundCallEventJob, { kind: 'create' }>): Promise<CallRow | null> {
    return this.tx.run(async (manager, w) => {
      const [exists] = (await manager.query(`SELECT id FROM outbound_calls WHERE id = $1`, [job.callId])) as { id: string }[];
      if (exists) return null;
      const actor = SYSTEM;
      const created = planCreate(
        outboundCallBinding,
        {
          id: job.callId,
          tenantId: job.tenantId,
          campaignId: job.campaignId,
          contactId: job.contactId,
          phone: job.phone,
          attempt: job.attempt,
          abandonThresholdMs: job.abandonThresholdMs,
        },
        actor,
        job.at,
      );
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
          created.status,
          created.snapshotJson,
          created.lastEvent,
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
      await appendTransitionLog(manager, 'outbound_call', job.callId, job.tenantId, created.record, 1, created.logData);
      // A preview call that waited for a trunk line has one now: its agent's desk stops saying so.
      await this.pushPreviewLine(manager, w, job.callId);
      return this.stepCall(manager, w, job.callId, { type: 'call.dialed' }, actor, undefined, job.at);
    });
  }

  dispatchCall(id: string, input: CallEventInput, actor: Actor, tenantId?: string, at?: number): Promise<CallRow> {
    return this.tx.run((manager, w) => this.stepCall(manager, w, id, input, actor, tenantId, at));
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
    /** The carrier's time of the event; without it, the step is timed once the call's row is locked. */
    at?: number,
    /** The row as this transaction already locked it, to skip reading it again. */
    locked?: CallRow,
  ): Promise<CallRow> {
    const current = locked?.id === id ? locked : await this.lockCall(manager, id, tenantId);
    // Read after the lock: a step that waited for it is never dated before the one that held it.
    const stepAt = at ?? Date.now();
    const plan = planStep(outboundCallBinding, current, input, actor, Math.max(stepAt, 0));
    const { context } = plan;
    // Versioned UPDATE and its log row in one statement (writeVersioned, every machine's persist step).
    const written = await writeVersioned<CallRow>(manager, stepWrite(outboundCallBinding, plan, []));
    if (!written) throw new AppException('conflict', { message: 'The call changed meanwhile; try again' });
    const row = written.row;
    let latest = row;
    for (const intent of plan.intents) {
      switch (intent.type) {
        case 'requestAgent': {
          await lockDialerMatching(manager, row.tenant_id);
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
    await lockDialerMatching(manager, tenantId);
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
    await this.campaigns.completeIfExhausted(manager, w, campaign);
  }

  /** Completes a live campaign that has no contact left to call and no callback pending. */

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
  async pushPreviewLine(manager: EntityManager, w: Work, callId: string): Promise<void> {
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
async function lockDialerMatching(manager: EntityManager, tenantId: string): Promise<void> {
  await manager.query(`SELECT pg_advisory_xact_lock(hashtext('dialer-match:' || $1))`, [tenantId]);
}
