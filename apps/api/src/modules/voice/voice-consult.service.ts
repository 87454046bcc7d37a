import { PHONE_CHANNEL, QUEUES, outboxJob, type VoiceCallEvent, type VoiceCommand, type VoiceConsultView } from '@centralita/contracts';
import { jobEffect } from '@centralita/contracts/server';
import { agentPresenceMachine, inCallCandidate, READY_AGENT_STATUSES, restore, sqlStatusList } from '@centralita/domain';
import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import { AppException } from '../../common/app.exception';
import type { Principal } from '../auth/principal';
import { isIllegalTransition, MachineHostService } from '../machine-host/machine-host.service';
import { writeOutbox } from '../machine-host/outbox';
import { agentSipUri } from './voice-calls.service';
import type { VoiceCallRow } from './voice-events.service';
import type { VoiceHistoryKey } from './voice-history';

type ConsultRow = Pick<VoiceCallRow, 'id' | 'client_id' | 'stage' | 'ended_at' | 'agent_id' | 'conversation_id' | 'attention_line_id'> & {
  consult_agent_id: string | null;
  consult_state: VoiceConsultView['state'];
};

/**
 * How long a consultation may stay `completing` / `cancelling` without the worker's answer (a worker restarted meanwhile):
 * past it, any read of the consultation (the desk's status poll, a command) puts it back to the last state the worker
 * reported (`active` once the colleague answered, else `ringing`), so the desk can complete or cancel again.
 */
export const CONSULT_PENDING_SECONDS = 15;

/** Whom to consult: one colleague, or the next free agent of a line. */
export interface ConsultTarget {
  agentId?: string;
  attentionLineId?: string;
}

/**
 * Attended (consultative) transfer of a live phone conversation (issue 22 item 2). The connected agent asks to consult
 * a colleague (or a line's next free agent): the API checks and records it and sends the worker `consult` in the same
 * transaction; the worker puts the caller on hold music and rings the colleague's softphone, then reports
 * call.consultRinging / consultConnected / consultFailed / consultCancelled / consultCompleted, which
 * applyConsultEvent applies (the record, presence, the conversation's transfer and its history). Tenant-scoped:
 * another tenant's conversation is 404; a call not connected to the signed-in agent, a second consultation, a complete
 * before the colleague answered are 409.
 */
@Injectable()
export class VoiceConsultService {
  constructor(private readonly host: MachineHostService) {}

  /** The latest call's consultation (a call with none answers nulls); 404 for another tenant's conversation. */
  async status(principal: Principal, conversationId: string): Promise<VoiceConsultView> {
    return this.host.transaction(async (manager) => {
      await settleStuck(manager, principal.clientId, conversationId);
      const [call] = (await manager.query(
        `SELECT v.id, v.consult_agent_id, v.consult_state, u.name FROM voice_calls v LEFT JOIN users u ON u.id = v.consult_agent_id
          WHERE v.conversation_id = $1 AND v.client_id = $2 ORDER BY v.created_at DESC LIMIT 1`,
        [conversationId, principal.clientId],
      )) as { id: string; consult_agent_id: string | null; consult_state: VoiceConsultView['state']; name: string | null }[];
      if (!call) throw AppException.notFound();
      return { callId: call.id, agentId: call.consult_agent_id, agentName: call.name, state: call.consult_state };
    });
  }

  start(principal: Principal, conversationId: string, target: ConsultTarget): Promise<VoiceConsultView> {
    if (Boolean(target.agentId) === Boolean(target.attentionLineId))
      throw new AppException('validation', { message: 'Give exactly one of attentionLineId or agentId' });
    return this.host.transaction(async (manager, outbox) => {
      await this.host.lockConversation(manager, conversationId, principal.clientId);
      const call = await this.connectedCall(manager, principal, conversationId);
      if (call.consult_agent_id)
        throw new AppException('conflict', { message: 'This call is already in a consultation.', messageKey: 'consultInProgress' });
      const agent = target.agentId
        ? await this.agentTarget(manager, principal, target.agentId)
        : await this.lineTarget(manager, principal, target.attentionLineId!);
      // Held for the consultation from the ring, as a routed call's agent is by its conversation: in a call for presence
      // (routing offers them no call, and chats only as the line allows during calls), released by the consultation's end.
      try {
        const held = await this.host.dispatchAgent(
          manager,
          agent.id,
          { type: 'agent.callStarted', attentionLineId: call.attention_line_id, channel: PHONE_CHANNEL },
          { kind: 'system' },
          principal.clientId,
        );
        outbox.push(...held.outboxIds);
      } catch (error) {
        if (isIllegalTransition(error)) throw unavailable();
        throw error;
      }
      await manager.query(
        `UPDATE voice_calls SET consult_agent_id = $2, consult_state = 'ringing', consult_connected_at = NULL, updated_at = now() WHERE id = $1`,
        [call.id, agent.id],
      );
      outbox.push(
        ...(await writeOutbox(manager, [
          command({
            type: 'consult',
            tenantId: principal.clientId,
            callId: call.id,
            conversationId,
            fromAgentId: principal.userId,
            agentId: agent.id,
            agentSipUri: agent.uri,
          }),
        ])),
      );
      return { callId: call.id, agentId: agent.id, agentName: agent.name, state: 'ringing' };
    }, RETRY);
  }

  /** The caller goes to the consulted agent (only once they answered); the worker's call.consultCompleted moves the conversation. */
  complete(principal: Principal, conversationId: string): Promise<VoiceConsultView> {
    return this.host.transaction(async (manager, outbox) => {
      await this.host.lockConversation(manager, conversationId, principal.clientId);
      const call = await this.connectedCall(manager, principal, conversationId);
      if (!call.consult_agent_id || call.consult_state !== 'active')
        throw new AppException('conflict', {
          message: 'There is no answered consultation to complete on this call.',
          messageKey: 'consultNotActive',
        });
      // The conversation follows the call: refused before any command when the colleague has no room for it (capacity
      // full, "do not assign", disconnected), so the caller never reaches them without their conversation.
      const [presence] = (await this.host.lockAgents(manager, [call.consult_agent_id], principal.clientId)).values();
      if (!presence || !inCallCandidate(restore(agentPresenceMachine, presence.snapshot as never)))
        throw new AppException('conflict', {
          message: 'The consulted agent has no room for this conversation now: cancel, or try again once they do.',
          messageKey: 'consultTargetFull',
        });
      await manager.query(`UPDATE voice_calls SET consult_state = 'completing', updated_at = now() WHERE id = $1`, [call.id]);
      outbox.push(
        ...(await writeOutbox(manager, [
          command({ type: 'consult.complete', tenantId: principal.clientId, callId: call.id, agentId: call.consult_agent_id }),
        ])),
      );
      return {
        callId: call.id,
        agentId: call.consult_agent_id,
        agentName: await userName(manager, call.consult_agent_id),
        state: 'completing',
      };
    }, RETRY);
  }

  /** Ends a ringing or answered consultation: the caller talks with the signed-in agent again. */
  cancel(principal: Principal, conversationId: string): Promise<VoiceConsultView> {
    return this.host.transaction(async (manager, outbox) => {
      const call = await this.connectedCall(manager, principal, conversationId);
      if (!call.consult_agent_id || (call.consult_state !== 'ringing' && call.consult_state !== 'active'))
        throw new AppException('conflict', { message: 'There is no consultation to cancel on this call.', messageKey: 'consultNotActive' });
      await manager.query(`UPDATE voice_calls SET consult_state = 'cancelling', updated_at = now() WHERE id = $1`, [call.id]);
      outbox.push(
        ...(await writeOutbox(manager, [
          command({ type: 'consult.cancel', tenantId: principal.clientId, callId: call.id, agentId: call.consult_agent_id }),
        ])),
      );
      return {
        callId: call.id,
        agentId: call.consult_agent_id,
        agentName: await userName(manager, call.consult_agent_id),
        state: 'cancelling',
      };
    });
  }

  /** The latest call of one of the tenant's conversations, locked: 404 when none, 409 unless it is connected to the signed-in agent. */
  private async connectedCall(manager: EntityManager, principal: Principal, conversationId: string): Promise<ConsultRow> {
    await settleStuck(manager, principal.clientId, conversationId);
    const [call] = (await manager.query(
      `SELECT id, client_id, stage, ended_at, agent_id, conversation_id, attention_line_id, consult_agent_id, consult_state FROM voice_calls
        WHERE conversation_id = $1 AND client_id = $2 ORDER BY created_at DESC LIMIT 1 FOR NO KEY UPDATE`,
      [conversationId, principal.clientId],
    )) as ConsultRow[];
    if (!call) throw AppException.notFound();
    if (call.ended_at || call.stage !== 'connected' || call.agent_id !== principal.userId)
      throw new AppException('conflict', {
        message: 'The call is not connected to you: only the agent on the call can consult and transfer it.',
        messageKey: 'consultNotConnected',
      });
    return call;
  }

  /** A colleague of the tenant, ready (not on a call, not paused) and with a softphone. */
  private async agentTarget(manager: EntityManager, principal: Principal, agentId: string) {
    const [user] = (await manager.query(`SELECT id FROM users WHERE id = $1 AND client_id = $2`, [agentId, principal.clientId])) as {
      id: string;
    }[];
    if (!user) throw new AppException('not_found', { message: 'No agent found' });
    if (agentId === principal.userId) throw new AppException('validation', { message: 'agentId: you cannot consult yourself' });
    const [ready] = await this.readyAgents(manager, principal, [agentId], false);
    if (!ready) throw unavailable();
    if (!ready.uri) throw noSoftphone();
    return ready as { id: string; name: string; uri: string };
  }

  /** The line's longest-ready agent with a softphone (not the signed-in one). */
  private async lineTarget(manager: EntityManager, principal: Principal, lineId: string) {
    const [line] = (await manager.query(`SELECT id FROM attention_lines WHERE id = $1 AND client_id = $2 AND deleted_at IS NULL`, [
      lineId,
      principal.clientId,
    ])) as { id: string }[];
    if (!line) throw new AppException('not_found', { message: 'No attention line found' });
    const members = (await manager.query(`SELECT user_id FROM agent_attention_lines WHERE attention_line_id = $1 AND user_id <> $2`, [
      lineId,
      principal.userId,
    ])) as { user_id: string }[];
    const [ready] = await this.readyAgents(
      manager,
      principal,
      members.map((member) => member.user_id),
      true,
    );
    if (!ready) throw unavailable();
    return ready as { id: string; name: string; uri: string };
  }

  private async readyAgents(manager: EntityManager, principal: Principal, ids: string[], softphoneOnly: boolean) {
    if (ids.length === 0) return [];
    const rows = (await manager.query(
      `SELECT p.user_id AS id, u.name, a.auth_user, c.domain
         FROM agent_presence p JOIN users u ON u.id = p.user_id
         LEFT JOIN softphone_accounts a ON a.user_id = p.user_id AND a.client_id = p.tenant_id AND btrim(a.auth_user) <> ''
         LEFT JOIN softphone_configs c ON c.client_id = p.tenant_id AND btrim(c.domain) <> ''
        WHERE p.tenant_id = $1 AND p.user_id = ANY($2::uuid[]) AND p.status IN ${sqlStatusList(READY_AGENT_STATUSES)}
        ORDER BY p.state_since, p.user_id`,
      [principal.clientId, ids],
    )) as { id: string; name: string; auth_user: string | null; domain: string | null }[];
    return rows
      .map((row) => ({ id: row.id, name: row.name, uri: row.auth_user && row.domain ? agentSipUri(row.auth_user, row.domain) : null }))
      .filter((row) => !softphoneOnly || row.uri);
  }
}

const unavailable = () =>
  new AppException('conflict', {
    message: 'Nobody can take the consultation now: the agent must be ready, not on a call or paused.',
    messageKey: 'consultTargetUnavailable',
  });
const noSoftphone = () =>
  new AppException('conflict', { message: 'That agent has no softphone to take the consultation.', messageKey: 'consultNoSoftphone' });

/** Conversation before call here, call before conversation in the call's events: a deadlock victim runs again. */
const RETRY = { retry: true };

/** A `completing` / `cancelling` consultation the worker left unanswered past CONSULT_PENDING_SECONDS goes back to its last known state. */
async function settleStuck(manager: EntityManager, tenantId: string, conversationId: string): Promise<void> {
  await manager.query(
    `UPDATE voice_calls SET consult_state = CASE WHEN consult_state = 'completing' OR consult_connected_at IS NOT NULL THEN 'active' ELSE 'ringing' END,
            updated_at = now()
      WHERE conversation_id = $1 AND client_id = $2 AND ended_at IS NULL AND consult_state IN ('completing', 'cancelling')
        AND updated_at < now() - make_interval(secs => $3)`,
    [conversationId, tenantId, CONSULT_PENDING_SECONDS],
  );
}

function command(data: VoiceCommand) {
  return jobEffect(outboxJob(QUEUES.voiceCommands, { name: data.type, data }));
}

async function userName(manager: EntityManager, userId: string): Promise<string | null> {
  const [row] = (await manager.query(`SELECT name FROM users WHERE id = $1`, [userId])) as { name: string }[];
  return row?.name ?? null;
}

type ConsultEvent = Extract<
  VoiceCallEvent,
  { type: 'call.consultRinging' | 'call.consultConnected' | 'call.consultFailed' | 'call.consultCancelled' | 'call.consultCompleted' }
>;

/** What applyConsultEvent needs of the call's event transaction (voice-events.service.ts CallStep). */
export interface ConsultStep {
  manager: EntityManager;
  call: VoiceCallRow;
  update(fields: Partial<Omit<VoiceCallRow, 'id' | 'client_id'>>): Promise<void>;
  history(key: VoiceHistoryKey, values: Record<string, string>): Promise<void>;
  agent(
    agentId: string,
    input:
      | { type: 'agent.callStarted'; attentionLineId?: string | null; channel?: string }
      | { type: 'agent.callEnded' }
      | { type: 'agent.afterCallWorkEnded' }
      | { type: 'agent.conversationAssigned'; conversationId: string; duringCall?: boolean },
  ): Promise<void>;
  dispatch(
    input: { type: 'conversation.transferred'; to: { kind: 'agent'; agentId: string } },
    actor: { kind: 'agent'; id: string },
  ): Promise<void>;
}

/**
 * The call ended with a consultation still recorded (the worker never had it: the call was gone when `consult` came, so
 * no call.consultCancelled came first): the consulted agent, held since the ring, is released as a cancel would.
 */
export async function endConsultWithCall(step: ConsultStep): Promise<void> {
  const agentId = step.call.consult_agent_id;
  if (!agentId) return;
  const talked = step.call.consult_connected_at !== null;
  await step.update({ consult_agent_id: null, consult_state: null, consult_connected_at: null });
  await step.agent(agentId, { type: 'agent.callEnded' });
  if (!talked) await step.agent(agentId, { type: 'agent.afterCallWorkEnded' });
}

/**
 * The worker's consultation events, in the call's event transaction. Presence: the consulted agent is in a call from
 * the ring (agent.callStarted, written by `start`) until the consultation ends without a transfer (agent.callEnded:
 * after-call work once they talked, straight back to ready when they never answered); on completion their slot is
 * booked for the conversation (agent.conversationAssigned during the call), the conversation is transferred to them by
 * the machine's transfer event (acted by the first agent, the history's line), the call's agent becomes theirs, and the
 * first agent's call ends (after-call work). The same completion comes when the first agent hangs up during an answered
 * consultation (the worker hands the caller over). Events about another agent than the recorded consultation's (an
 * earlier one) only add their history line.
 */
export async function applyConsultEvent(step: ConsultStep, event: ConsultEvent, channel: string): Promise<void> {
  const { call, manager } = step;
  const user = async (id: string) => {
    const [row] = (await manager.query(`SELECT id, name FROM users WHERE id::text = $1 AND client_id = $2`, [id, call.client_id])) as {
      id: string;
      name: string;
    }[];
    return row ?? null;
  };
  const consulted = await user(event.agentId);
  const first = await user(event.fromAgentId);
  const names = { agent: consulted?.name ?? event.agentId.slice(0, 80), from: first?.name ?? event.fromAgentId.slice(0, 80) };
  const current = consulted !== null && call.consult_agent_id === consulted.id;
  const clear = { consult_agent_id: null, consult_state: null, consult_connected_at: null };
  switch (event.type) {
    case 'call.consultRinging':
      return step.history('consultRinging', names);
    case 'call.consultConnected':
      if (current) {
        await step.update({
          consult_state: call.consult_state === 'ringing' ? 'active' : call.consult_state,
          consult_connected_at: new Date(event.at),
        });
        // In a call since the ring (start); this only covers a consultation recorded before that was so.
        await step.agent(consulted.id, { type: 'agent.callStarted', attentionLineId: call.attention_line_id, channel });
      }
      return step.history('consultConnected', names);
    case 'call.consultFailed':
    case 'call.consultCancelled': {
      const talked = call.consult_connected_at !== null;
      if (current) {
        await step.update(clear);
        // Held since the ring: released, to after-call work once they talked, else straight back to ready.
        await step.agent(consulted.id, { type: 'agent.callEnded' });
        if (!talked) await step.agent(consulted.id, { type: 'agent.afterCallWorkEnded' });
      }
      // The call ended with it: call.ended's own line follows ("the call stays with…" would not be true).
      if (event.type === 'call.consultCancelled' && event.reason === 'callEnded') return;
      return step.history(event.type === 'call.consultFailed' ? 'consultFailed' : 'consultCancelled', {
        ...names,
        reason: event.reason.slice(0, 60),
      });
    }
    case 'call.consultCompleted': {
      if (!consulted) return;
      // The call's agent first: the transfer's release hook then sees the call is no longer the first agent's (no 'release').
      await step.update({ ...clear, agent_id: consulted.id });
      await step.history('consultCompleted', names);
      // Booked during their call (complete checked their room; a hand-over on the first agent's hang-up is not refused).
      await step.agent(consulted.id, { type: 'agent.conversationAssigned', conversationId: call.conversation_id ?? '', duringCall: true });
      if (first) {
        await step.dispatch(
          { type: 'conversation.transferred', to: { kind: 'agent', agentId: consulted.id } },
          { kind: 'agent', id: first.id },
        );
        await step.agent(first.id, { type: 'agent.callEnded' });
      }
      return;
    }
  }
}
