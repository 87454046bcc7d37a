import { PHONE_CHANNEL, QUEUES, outboxJob, type VoiceCommand } from '@centralita/contracts';
import { jobEffect } from '@centralita/contracts/server';
import { retryableAgents, type AgentCandidate } from '@centralita/domain';
import { Inject, Injectable, type OnModuleInit } from '@nestjs/common';
import { DataSource, type EntityManager } from 'typeorm';
import { AppException } from '../../common/app.exception';
import { APP_CONFIG, type AppConfig } from '../../config/app-config';
import { MachineHostService } from '../machine-host/machine-host.service';
import type { OutboxEffect } from '../machine-host/outbox';
import type { ConversationRow } from '../machine-host/views';
import { RoutingService, type ChannelOfferRule } from '../routing/routing.service';
import type { VoiceCallRow } from './voice-events.service';

/** An inbound call as the console and reports read it (GET /api/voice/conversations/:id/call). */
export interface VoiceCallView {
  callId: string;
  conversationId: string | null;
  trunkId: string | null;
  from: string | null;
  to: string | null;
  ivrId: string | null;
  attentionLineId: string | null;
  agentId: string | null;
  stage: VoiceCallRow['stage'];
  ivrPath: { nodeId: string; nodeName: string; digit: string | null }[];
  startedAt: string | null;
  queuedAt: string | null;
  connectedAt: string | null;
  endedAt: string | null;
  abandonStage: 'ivr' | 'queue' | null;
  endedBy: 'caller' | 'agent' | 'system' | null;
  endReason: string | null;
  /** Who monitors the call and how (voice-monitoring.service.ts): state 'ringing' until their softphone answers. */
  monitor: { supervisorId: string | null; mode: 'listen' | 'whisper' | 'barge' | null; state: 'ringing' | 'active' | null };
}

/**
 * How long an agent whose phone did not take a call (call.connectFailed) waits before that call is
 * offered to them again, when no other eligible agent has yet to be tried (see retryableAgents).
 */
export const CONNECT_RETRY_BACKOFF_MS = 30_000;

/** Characters a SIP URI's user part may carry unescaped (RFC 3261 `user`), as the worker's dialer escapes them. */
const SIP_USER_SAFE = /[A-Za-z0-9\-_.!~*'()&=+$,;?/]/;

/** `sip:<auth_user>@<domain>`: where the agent's softphone registers (apps/worker/src/dialer/dialing-route.ts agentSipUri). */
export function agentSipUri(authUser: string, domain: string): string {
  const user = [...authUser.trim()]
    .map((char) =>
      SIP_USER_SAFE.test(char)
        ? char
        : [...Buffer.from(char, 'utf8')].map((byte) => `%${byte.toString(16).toUpperCase().padStart(2, '0')}`).join(''),
    )
    .join('');
  return `sip:${user}@${domain.trim()}`;
}

/**
 * The live call behind a phone conversation, as routing and the machine host meet it:
 * - routing offers a waiting caller only when the voice server can bridge calls
 *   (VOICE_CONNECT_ENABLED) and only to an agent who can talk now: not on a call, holding chats only
 *   when the line allows it (routing applies the line's blended rules before asking here), with a
 *   softphone registration (account and the tenant's SIP domain); only the agent the IVR asked for
 *   when it did; an agent whose phone did not take this call only once no one else is left to try
 *   and CONNECT_RETRY_BACKOFF_MS has passed. The assignment sends the worker `connect` with the
 *   agent's SIP URI, in the assignment's transaction.
 * - a phone conversation closed while its call is live (an agent, a supervisor, a queue timeout)
 *   sends the worker `hangUp`; one transferred away from its connected agent sends `release`
 *   (the caller waits on hold music for the next agent's `connect`).
 */
@Injectable()
export class VoiceCallsService implements OnModuleInit, ChannelOfferRule {
  constructor(
    private readonly dataSource: DataSource,
    private readonly host: MachineHostService,
    private readonly routing: RoutingService,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  onModuleInit(): void {
    this.routing.registerChannelRule(PHONE_CHANNEL, this);
    this.host.onConversationClosed((manager, conversation) => this.hangUpIfLive(manager, conversation));
    this.host.onConversationReleased((manager, before, after) => this.releaseIfTransferred(manager, before, after));
  }

  offerable(): boolean {
    return this.config.voiceConnectEnabled;
  }

  async eligible(manager: EntityManager, conversation: ConversationRow, candidates: AgentCandidate[]): Promise<AgentCandidate[]> {
    if (!this.config.voiceConnectEnabled || candidates.length === 0) return [];
    const call = await this.liveCall(manager, conversation.id);
    if (!call) return [];
    const asked = call.requested_agent_id ? candidates.filter((candidate) => candidate.agentId === call.requested_agent_id) : candidates;
    const uris = await this.sipUris(
      manager,
      conversation.tenant_id,
      asked.map((candidate) => candidate.agentId),
    );
    const reachable = asked.filter((candidate) => uris.has(candidate.agentId));
    const offered = new Set(
      retryableAgents(
        reachable.map((candidate) => candidate.agentId),
        call.failed_agents ?? {},
        Date.now(),
        CONNECT_RETRY_BACKOFF_MS,
      ),
    );
    return reachable.filter((candidate) => offered.has(candidate.agentId));
  }

  async assigned(manager: EntityManager, conversation: ConversationRow, agentId: string): Promise<OutboxEffect[]> {
    const call = await this.liveCall(manager, conversation.id);
    const uri = (await this.sipUris(manager, conversation.tenant_id, [agentId])).get(agentId);
    if (!call || !uri) return [];
    return [
      command({
        type: 'connect',
        tenantId: conversation.tenant_id,
        callId: call.id,
        conversationId: conversation.id,
        agentId,
        agentSipUri: uri,
      }),
    ];
  }

  private async hangUpIfLive(manager: EntityManager, conversation: ConversationRow): Promise<OutboxEffect[]> {
    if (conversation.channel !== PHONE_CHANNEL) return [];
    const call = await this.liveCall(manager, conversation.id);
    if (!call) return [];
    const reason = (conversation.snapshot.context as { closeReason?: string | null }).closeReason ?? 'closed';
    return [command({ type: 'hangUp', tenantId: conversation.tenant_id, callId: call.id, reason })];
  }

  /**
   * The connected agent let go of a phone conversation that stays open (transferred to a line or to another agent, or
   * re-queued by their logout): the worker drops their leg and keeps the caller on hold music ('release'). Straight to
   * an agent, no routing follows, so the new agent's 'connect' goes with it (routing sends it for a line). A close is
   * the close hook's 'hangUp'.
   */
  private async releaseIfTransferred(manager: EntityManager, before: ConversationRow, after: ConversationRow): Promise<OutboxEffect[]> {
    if (before.channel !== PHONE_CHANNEL || !before.agent_id || (after.status !== 'Active' && after.status !== 'LiningUp')) return [];
    const call = await this.liveCall(manager, before.id);
    if (!call || call.stage !== 'connected' || (call.agent_id && call.agent_id !== before.agent_id)) return [];
    const effects = [
      command({ type: 'release', tenantId: before.tenant_id, callId: call.id, agentId: before.agent_id, reason: 'transferred' }),
    ];
    if (after.status === 'Active' && after.agent_id && after.agent_id !== before.agent_id)
      effects.push(...(await this.assigned(manager, after, after.agent_id)));
    return effects;
  }

  /** The call of a conversation that has not ended yet (the voice events write its end before they close the conversation). */
  private async liveCall(
    manager: EntityManager,
    conversationId: string,
  ): Promise<Pick<VoiceCallRow, 'id' | 'requested_agent_id' | 'failed_agents' | 'stage' | 'agent_id'> | null> {
    const [call] = (await manager.query(
      `SELECT id, requested_agent_id, failed_agents, stage, agent_id FROM voice_calls
        WHERE conversation_id = $1 AND ended_at IS NULL ORDER BY created_at DESC LIMIT 1`,
      [conversationId],
    )) as Pick<VoiceCallRow, 'id' | 'requested_agent_id' | 'failed_agents' | 'stage' | 'agent_id'>[];
    return call ?? null;
  }

  private async sipUris(manager: EntityManager, tenantId: string, agentIds: string[]): Promise<Map<string, string>> {
    const rows = (await manager.query(
      `SELECT a.user_id, a.auth_user, c.domain FROM softphone_accounts a JOIN softphone_configs c ON c.client_id = a.client_id
        WHERE a.client_id = $1 AND a.user_id = ANY($2::uuid[]) AND btrim(a.auth_user) <> '' AND btrim(c.domain) <> ''`,
      [tenantId, agentIds],
    )) as { user_id: string; auth_user: string; domain: string }[];
    return new Map(rows.map((row) => [row.user_id, agentSipUri(row.auth_user, row.domain)]));
  }

  /** The call behind one of the tenant's conversations (the latest, when the caller's contact had several). */
  async callOfConversation(tenantId: string, conversationId: string): Promise<VoiceCallView> {
    const [row] = (await this.dataSource.query(
      `SELECT v.* FROM voice_calls v WHERE v.conversation_id = $1 AND v.client_id = $2 ORDER BY v.created_at DESC LIMIT 1`,
      [conversationId, tenantId],
    )) as VoiceCallRow[];
    if (!row) throw AppException.notFound();
    return voiceCallView(row);
  }
}

function command(data: VoiceCommand): OutboxEffect {
  return jobEffect(outboxJob(QUEUES.voiceCommands, { name: data.type, data }));
}

/** voice_calls' monitoring columns (migration 1763706600000). */
interface MonitorColumns {
  monitor_supervisor_id?: string | null;
  monitor_mode?: VoiceCallView['monitor']['mode'];
  monitor_state?: VoiceCallView['monitor']['state'];
}

const iso = (value: Date | null) => (value ? new Date(value).toISOString() : null);

export function voiceCallView(row: VoiceCallRow & MonitorColumns): VoiceCallView {
  return {
    callId: row.id,
    conversationId: row.conversation_id,
    trunkId: row.trunk_id,
    from: row.from_number,
    to: row.to_number,
    ivrId: row.ivr_id,
    attentionLineId: row.attention_line_id,
    agentId: row.agent_id,
    stage: row.stage,
    ivrPath: row.ivr_path.filter((entry) => !entry.exit).map(({ nodeId, nodeName, digit }) => ({ nodeId, nodeName, digit })),
    startedAt: iso(row.started_at),
    queuedAt: iso(row.queued_at),
    connectedAt: iso(row.connected_at),
    endedAt: iso(row.ended_at),
    abandonStage: row.abandon_stage,
    endedBy: row.ended_by,
    endReason: row.end_reason,
    monitor: { supervisorId: row.monitor_supervisor_id ?? null, mode: row.monitor_mode ?? null, state: row.monitor_state ?? null },
  };
}
