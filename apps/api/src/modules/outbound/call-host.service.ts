import { OUTBOUND_SOCKET_EVENTS, roomName, type OutboundCallEventJob, type OutboundPreviewLineView } from '@centralita/contracts';
import { planCreate, planStep, stepWrite } from '../machine-host/machine-runner';
import { nextAttempt, type Actor, type CallOutcome } from '@centralita/domain';
import { Inject, Injectable, Logger, Optional } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import { AppException } from '../../common/app.exception';
import { isIllegalTransition, MachineHostService } from '../machine-host/machine-host.service';
import { ofTenant } from '../machine-host/machine-rows';
import type { OutboxEffect } from '../machine-host/outbox';
import { CampaignHostService } from './campaign-host.service';
import { callView, outboundCallBinding, retryPolicyOf, SYSTEM, WRAP_UP_SECONDS, type CallEventInput, type CallRow } from './outbound-rows';
import { OutboundMachineRows, PgOutboundMachineRows } from './outbound-machine-rows';
import { OutboundTransactions, type Work } from './outbound-transaction.service';

/**
 * The host of the `outbound-call` machine: lock → step (the runner, outboundCallBinding) → row +
 * snapshot v+1 + transition_log + outbox in one transaction, with the agent's presence stepped
 * through MachineHostService.dispatchAgent in the same transaction. Its intents become effects
 * here: an agent booked, abandon and wrap-up timers, the outcome recorded on the contact (which may
 * complete the campaign), the call pushed. Its tables are reached through OutboundMachineRows only.
 */
@Injectable()
export class CallHostService {
  private readonly logger = new Logger(CallHostService.name);
  private readonly rows: OutboundMachineRows;

  constructor(
    private readonly tx: OutboundTransactions,
    private readonly host: MachineHostService,
    private readonly campaigns: CampaignHostService,
    // Nest injects the module's OutboundMachineRows; processes that build the host by hand get PostgreSQL's.
    @Optional() @Inject(OutboundMachineRows) rows?: OutboundMachineRows,
  ) {
    this.rows = rows ?? new PgOutboundMachineRows();
  }

  /**
   * The dialer reserved a contact and placed the call: create the machine (queued) and step it to
   * dialing. A reservation that no longer matches (the dialer restarted and failed it) is ignored.
   */
  async createCall(job: Extract<OutboundCallEventJob, { kind: 'create' }>): Promise<CallRow | null> {
    return this.tx.run(async (manager, w) => {
      if (await this.rows.callExists(manager, job.callId)) return null;
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
      const inserted = await this.rows.insertCall(manager, {
        id: job.callId,
        tenantId: job.tenantId,
        campaignId: job.campaignId,
        contactId: job.contactId,
        phone: job.phone,
        attempt: job.attempt,
        status: created.status,
        snapshotJson: created.snapshotJson,
        lastEvent: created.lastEvent,
        at: new Date(job.at),
      });
      if (!inserted) {
        this.logger.warn(`call ${job.callId} refused: its number or attempt is already live`);
        await this.rows.freeContactOfCall(manager, job.callId);
        await this.rows.releaseLiveNumber(manager, job.callId);
        return null;
      }
      await this.rows.appendLog(manager, {
        entity: 'outbound_call',
        id: job.callId,
        tenantId: job.tenantId,
        record: created.record,
        version: 1,
        data: created.logData,
      });
      // A preview call that waited for a trunk line has one now: its agent's desk stops saying so.
      await this.pushPreviewLine(manager, w, job.callId);
      return this.stepCall(manager, w, job.callId, { type: 'call.dialed' }, actor, undefined, job.at);
    });
  }

  dispatchCall(id: string, input: CallEventInput, actor: Actor, tenantId?: string, at?: number): Promise<CallRow> {
    return this.tx.run((manager, w) => this.stepCall(manager, w, id, input, actor, tenantId, at));
  }

  async lockCall(manager: EntityManager, id: string, tenantId?: string): Promise<CallRow> {
    return ofTenant(await this.rows.lockCall(manager, id), tenantId);
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
    const written = await this.rows.writeVersioned<CallRow>(manager, stepWrite(outboundCallBinding, plan, []));
    if (!written) throw new AppException('conflict', { message: 'The call changed meanwhile; try again' });
    const row = written.row;
    let latest = row;
    for (const intent of plan.intents) {
      switch (intent.type) {
        case 'requestAgent': {
          await this.rows.lockDialerMatching(manager, row.tenant_id);
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
    await this.rows.lockDialerMatching(manager, tenantId);
    const callId = await this.rows.lockAnsweredCallFor(manager, tenantId, agentId);
    if (!callId) return null;
    const booked = await this.host.dispatchAgent(manager, agentId, { type: 'agent.outboundCallConnected' }, SYSTEM);
    w.outbox.push(...booked.outboxIds);
    return this.stepCall(manager, w, callId, { type: 'call.agentConnected', agentId }, SYSTEM);
  }

  private async pickWaitingAgent(manager: EntityManager, call: CallRow): Promise<string | null> {
    // A previewed record goes to the agent who dialled it, and to nobody else.
    const previewAgentId = await this.rows.readPreviewAgentId(manager, call.contact_id);
    if (previewAgentId) return this.rows.lockWaitingAgent(manager, previewAgentId);
    return this.rows.lockWaitingCampaignAgent(manager, call.tenant_id, call.campaign_id);
  }

  /** The attempt is over: release the number, book the retry (or finish the contact), complete an exhausted campaign. */
  private async recordOutcome(manager: EntityManager, w: Work, call: CallRow, outcome: CallOutcome, at: number): Promise<void> {
    // The campaign row lock serialises the last outcomes: the one that commits last sees the others and completes the campaign.
    const campaign = await this.rows.lockCampaignOfCall(manager, call.campaign_id);
    const next = nextAttempt(outcome, call.attempt, retryPolicyOf(campaign), at);
    const disposition = await this.rows.readContactDisposition(manager, call.contact_id);
    const finished = next.retryAt === null || disposition === 'doNotCall';
    await this.rows.endAttempt(manager, {
      contactId: call.contact_id,
      callId: call.id,
      outcome,
      finished,
      retryAt: next.retryAt === null ? null : new Date(next.retryAt),
    });
    await this.rows.releaseLiveNumber(manager, call.id);
    await this.campaigns.completeIfExhausted(manager, w, campaign);
  }

  private async pushCall(manager: EntityManager, w: Work, row: CallRow, previousAgentId: string | null): Promise<void> {
    const view = callView(row, await this.rows.readContactName(manager, row.contact_id));
    const rooms = new Set([roomName({ kind: 'tenant', id: row.tenant_id })]);
    if (row.agent_id) rooms.add(roomName({ kind: 'agent', id: row.agent_id }));
    if (previousAgentId) rooms.add(roomName({ kind: 'agent', id: previousAgentId }));
    const effect: OutboxEffect = {
      topic: 'socket',
      payload: { emits: [{ namespace: 'staff', rooms: [...rooms], event: OUTBOUND_SOCKET_EVENTS.call, data: view }] },
    };
    w.outbox.push(...(await this.rows.writeOutbox(manager, [effect])));
  }

  /**
   * Tells the agent of a preview call whether it waits for a free trunk line, as the contact row
   * says now (the dialer sets and clears it), whichever of the dialer's reports comes first.
   */
  async pushPreviewLine(manager: EntityManager, w: Work, callId: string): Promise<void> {
    const contact = await this.rows.readPreviewLineWait(manager, callId);
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
    w.outbox.push(...(await this.rows.writeOutbox(manager, [effect])));
  }
}
