import {
  roomName,
  VOICE_ABANDON_STAGES,
  VOICE_MONITOR_MODES,
  VOICE_RECORDING_KINDS,
  PHONE_CHANNEL,
  VOICEMAIL_CLOSE_REASON,
  type VoiceCallEvent,
} from '@centralita/contracts';
import { isOpenConversationStatus } from '@centralita/domain';
import { Injectable, Logger } from '@nestjs/common';
import { DataSource, type EntityManager } from 'typeorm';
import { AppException } from '../../common/app.exception';
import { ConversationIntakeService } from '../intake/conversation-intake.service';
import {
  isIllegalTransition,
  MachineHostService,
  type AgentEventInput,
  type ConversationEventInput,
} from '../machine-host/machine-host.service';
import { writeOutbox } from '../machine-host/outbox';
import { messageView, type ConversationRow, type MessageRow } from '../machine-host/views';
import { connectFailureKey, voiceHistoryLine, type VoiceHistoryKey } from './voice-history';
import { applyConsultEvent, endConsultWithCall } from './voice-consult.service';
import { applyMonitorEvent, monitorBarPush } from './voice-monitoring.service';
import { admitEvent, type AdmitOutcome } from './voice-sequence';

/**
 * The channel account of every phone contact of a tenant: the public telephone network. A caller is
 * one contact per tenant whatever number or trunk they call, so their calls share one timeline.
 */
export const PHONE_ACCOUNT = 'pstn';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const EVENT_TYPES = new Set<VoiceCallEvent['type']>([
  'call.started',
  'ivr.step',
  'call.queued',
  'call.toAgent',
  'call.connected',
  'call.connectFailed',
  'call.released',
  'call.consultRinging',
  'call.consultConnected',
  'call.consultFailed',
  'call.consultCancelled',
  'call.consultCompleted',
  'call.abandoned',
  'call.ended',
  'call.monitor',
  'call.recorded',
  'call.voicemail',
]);
const SYSTEM = { kind: 'system' } as const;

/** A voice_calls row as PostgreSQL returns it. */
export interface VoiceCallRow {
  id: string;
  client_id: string;
  trunk_id: string | null;
  from_number: string | null;
  to_number: string | null;
  ivr_id: string | null;
  conversation_id: string | null;
  attention_line_id: string | null;
  agent_id: string | null;
  /** The agent the IVR's agent destination asked for: only they are offered the call. */
  requested_agent_id: string | null;
  /** Agents whose phone did not take the call (call.connectFailed): agent id → epoch ms of the failure. */
  failed_agents: Record<string, number>;
  last_seq: number;
  pending_events: VoiceCallEvent[];
  stage: 'new' | 'ivr' | 'queue' | 'agent' | 'connected' | 'voicemail' | 'ended';
  /** Nodes entered, then (`exit`) the option whose key left the IVR for a line or an agent: nodeName is its label or ''. */
  ivr_path: { ivrId: string; nodeId: string; nodeName: string; digit: string | null; at: number; exit?: 'line' | 'agent' }[];
  started_at: Date | null;
  queued_at: Date | null;
  connected_at: Date | null;
  ended_at: Date | null;
  abandon_stage: 'ivr' | 'queue' | null;
  ended_by: 'caller' | 'agent' | 'system' | null;
  end_reason: string | null;
  /** An attended transfer's consultation (migration 1763706800000, voice-consult.service.ts). */
  consult_agent_id?: string | null;
  consult_state?: 'ringing' | 'active' | 'completing' | 'cancelling' | null;
  consult_connected_at?: Date | null;
}

/** What became of one event: applied (with any it unblocked), a repeat, held for a gap, or refused. */
export type VoiceEventOutcome = AdmitOutcome | 'refused';

/**
 * Applies the worker's call events (QUEUES.voiceCallEvents) to the caller's conversation on the
 * phone channel. One call's events are applied in the worker's numbering under the call row's lock,
 * whoever consumes them: a repeat is dropped, one ahead of a gap is held on the row
 * (`pending_events`) and applied when the gap fills. Every conversation change is a machine step
 * through the host; nothing edits a conversation's state directly.
 */
@Injectable()
export class VoiceEventsService {
  private readonly logger = new Logger(VoiceEventsService.name);

  constructor(
    private readonly dataSource: DataSource,
    private readonly host: MachineHostService,
    private readonly intake: ConversationIntakeService,
  ) {}

  async apply(event: VoiceCallEvent): Promise<VoiceEventOutcome> {
    const problem = malformed(event);
    if (problem) {
      this.logger.warn(`voice event refused: ${problem}`);
      return 'refused';
    }
    const [tenant] = (await this.dataSource.query(`SELECT language FROM clients WHERE id = $1 AND kind = 'tenant'`, [event.tenantId])) as {
      language: string | null;
    }[];
    if (!tenant) {
      this.logger.warn(`voice event ${event.callId}.${event.seq} refused: tenant ${event.tenantId} not found`);
      return 'refused';
    }
    return this.host.transaction(
      async (manager, outbox) => {
        await manager.query(`INSERT INTO voice_calls (id, client_id) VALUES ($1, $2) ON CONFLICT (id) DO NOTHING`, [
          event.callId,
          event.tenantId,
        ]);
        const [call] = (await manager.query(`SELECT * FROM voice_calls WHERE id = $1 FOR NO KEY UPDATE`, [event.callId])) as VoiceCallRow[];
        // Another tenant's call id: nothing of that call is touched or told.
        if (call.client_id !== event.tenantId) {
          this.logger.warn(`voice event ${event.callId}.${event.seq} refused: the call belongs to another tenant`);
          return 'refused' as const;
        }
        const admitted = admitEvent(call.last_seq, call.pending_events ?? [], event);
        if (admitted.outcome === 'invalid') this.logger.warn(`voice event ${event.callId}.${event.seq} refused: sequence out of range`);
        if (admitted.outcome === 'duplicate' || admitted.outcome === 'invalid') return admitted.outcome;
        const step = new CallStep(this.host, manager, outbox, call, tenant.language ?? 'es');
        for (const ready of admitted.ready) await this.applyOne(step, ready);
        // The supervision console's monitoring bar follows the call by this push, not by polling.
        outbox.push(...(await monitorBarPush(manager, call, admitted.ready)));
        await manager.query(`UPDATE voice_calls SET last_seq = $2, pending_events = $3::jsonb, updated_at = now() WHERE id = $1`, [
          call.id,
          admitted.lastSeq,
          JSON.stringify(admitted.pending),
        ]);
        return admitted.outcome;
      },
      { retry: true },
    );
  }

  private async applyOne(step: CallStep, event: VoiceCallEvent): Promise<void> {
    const { call } = step;
    switch (event.type) {
      case 'call.started': {
        await step.update({
          trunk_id: await this.tenantRow(step.manager, 'trunks', event.trunkId, call.client_id),
          from_number: clip(event.from, 64),
          to_number: clip(event.to, 64),
          ivr_id: event.ivrId ? await this.tenantRow(step.manager, 'ivrs', event.ivrId, call.client_id) : null,
          stage: event.ivrId ? 'ivr' : call.stage,
          started_at: new Date(event.at),
        });
        const lineId = await this.entryLine(call.client_id, event.to);
        if (lineId) await this.openConversation(step, lineId);
        await step.history('incoming', { from: event.from || '—', to: event.to || '—' });
        return;
      }
      case 'ivr.step': {
        const node = { ivrId: event.ivrId, nodeId: event.nodeId, nodeName: clip(event.nodeName, 160), digit: event.digit, at: event.at };
        await step.update({ stage: 'ivr', ivr_path: [...call.ivr_path, node] });
        if (event.digit) await step.history('ivrKey', { node: node.nodeName, digit: event.digit });
        else await step.history('ivrNode', { node: node.nodeName });
        return;
      }
      case 'call.queued': {
        const lineId = await this.tenantRow(step.manager, 'attention_lines', event.attentionLineId, call.client_id, true);
        if (!lineId) {
          this.logger.warn(`call ${call.id}: queued on a line that is not its tenant's live line (${event.attentionLineId})`);
          return;
        }
        const path = withIvrExit(call.ivr_path, event, 'line');
        const exit = path === call.ivr_path ? null : path.at(-1);
        await step.update({ stage: 'queue', attention_line_id: lineId, queued_at: new Date(event.at), ivr_path: path });
        const conversation = call.conversation_id ? null : await this.openConversation(step, lineId);
        // The key that left the IVR for the line, as the history shows the keys that led to each node.
        if (exit)
          await step.history('ivrKey', { node: exit.nodeName || (await this.lineName(step.manager, lineId)), digit: exit.digit ?? '' });
        await this.queue(step, lineId, event.path, conversation);
        return;
      }
      case 'call.toAgent': {
        // The IVR's agent destination: the caller waits in a line that agent serves, offered to that agent only
        // (VoiceCallsService.eligible), so routing sends 'connect' to them as soon as they can talk (blended rules included).
        const agentId = await this.tenantUser(step.manager, event.agentId, call.client_id);
        const lineId = agentId ? await this.agentLine(step.manager, agentId, call.client_id, call.conversation_id) : null;
        if (!agentId || !lineId) {
          this.logger.warn(`call ${call.id}: the IVR's agent ${event.agentId} is not an agent serving a live line of the tenant`);
          await step.update({ stage: 'agent', agent_id: agentId });
          return;
        }
        await step.update({
          stage: 'agent',
          requested_agent_id: agentId,
          attention_line_id: lineId,
          queued_at: new Date(event.at),
          ivr_path: withIvrExit(call.ivr_path, event, 'agent'),
        });
        const conversation = call.conversation_id ? null : await this.openConversation(step, lineId);
        await this.queue(step, lineId, event.path, conversation);
        return;
      }
      case 'call.connected': {
        const agentId = (await this.tenantUser(step.manager, event.agentId, call.client_id)) ?? call.agent_id;
        await step.update({ stage: 'connected', connected_at: new Date(event.at), agent_id: agentId });
        // The queue stay ends at the answer, not at the assignment that rang the phone (speed of answer, kpi/queue-kpis.ts).
        if ((await step.conversation())?.status === 'Active') await step.dispatch({ type: 'conversation.callAnswered' }, SYSTEM);
        // One presence for voice and chat: the agent is in a call, booked on the call's line and channel (call AHT), and
        // the conversation it belongs to (the conversations report adds the call's handle time to its row).
        if (agentId)
          await step.agent(agentId, {
            type: 'agent.callStarted',
            attentionLineId: call.attention_line_id,
            channel: PHONE_CHANNEL,
            ...(call.conversation_id ? { conversationId: call.conversation_id } : {}),
          });
        return;
      }
      case 'call.connectFailed': {
        // The agent's softphone did not take the call (the caller is back on hold): the conversation goes back to its
        // line's queue the way a logged-out agent's conversations do (conversation.transferred to the same line).
        // The agent is remembered so the call is offered to the others first (VoiceCallsService.eligible).
        this.logger.log(`call ${call.id}: agent ${event.agentId} did not take the call (${clip(event.reason, 60)}); back to the queue`);
        const agentId = await this.tenantUser(step.manager, event.agentId, call.client_id);
        await step.update({
          stage: 'queue',
          failed_agents: agentId ? { ...(call.failed_agents ?? {}), [agentId]: Date.now() } : call.failed_agents,
        });
        await step.history(connectFailureKey(event.reason), {
          agent: agentId ? await this.userName(step.manager, agentId) : clip(event.agentId, 80),
          reason: clip(event.reason, 60),
        });
        const current = await step.conversation();
        if (!current || current.status !== 'Active' || !current.attention_line_id) return;
        const pollId = (current.snapshot.context as { pollId?: string | null }).pollId ?? null;
        await step.dispatch(
          { type: 'conversation.transferred', to: { kind: 'line', attentionLineId: current.attention_line_id, pollId } },
          SYSTEM,
        );
        return;
      }
      case 'call.released': {
        // The conversation was transferred away from the connected agent (VoiceCallsService's release hook): their leg is
        // gone, the caller waits on hold music for the agent routing gives the conversation next. The first agent's call
        // ends for presence (after-call work); the next one's starts with its call.connected.
        const agentId = (await this.tenantUser(step.manager, event.agentId, call.client_id)) ?? call.agent_id;
        await step.update({ stage: 'queue', agent_id: null });
        if (agentId) await step.agent(agentId, { type: 'agent.callEnded' });
        return;
      }
      case 'call.abandoned': {
        // The call's end is written before the conversation's step, so the close hook sees no live call to hang up.
        const stage = event.stage;
        await step.update({
          stage: 'ended',
          abandon_stage: stage,
          ended_at: new Date(event.at),
          ended_by: 'caller',
          end_reason: 'abandoned',
        });
        await step.history(stage === 'ivr' ? 'abandonedIvr' : 'abandonedQueue');
        const current = await step.conversation();
        if (!current) return;
        if (current.status === 'Active') await step.dispatch({ type: 'conversation.closed', reason: 'abandoned' }, SYSTEM);
        else await step.dispatch({ type: 'conversation.abandoned' }, step.customer(current));
        return;
      }
      case 'call.voicemail': {
        // The caller leaves a message for the line: the conversation belongs to that line (its staff find it) but is
        // never queued; it closes with the 'voicemail' reason on call.ended.
        const lineId = await this.tenantRow(step.manager, 'attention_lines', event.attentionLineId, call.client_id, true);
        if (!lineId) this.logger.warn(`call ${call.id}: voicemail of a line that is not its tenant's live line (${event.attentionLineId})`);
        await step.update({ stage: 'voicemail', attention_line_id: lineId ?? call.attention_line_id });
        if (lineId && !call.conversation_id) await this.openConversation(step, lineId);
        return;
      }
      case 'call.consultRinging':
      case 'call.consultConnected':
      case 'call.consultFailed':
      case 'call.consultCancelled':
      case 'call.consultCompleted':
        // An attended transfer (voice-consult.service.ts): the consultation's record, presence, the conversation's transfer.
        return applyConsultEvent(step, event, PHONE_CHANNEL);
      case 'call.monitor':
        // A supervisor's listen / whisper / barge (voice-monitoring.service.ts): the call's record and a staff note.
        return step.monitor(event);
      case 'call.recorded': {
        // Only a complete call-recording file of the call's own tenant is linked (the worker wrote it before this event).
        const kind = event.kind ?? 'call';
        const [file] = (await step.manager.query(
          `SELECT id FROM stored_files WHERE id = $1 AND tenant_id = $2 AND kind = 'call-recording' AND completed_at IS NOT NULL`,
          [event.fileId, call.client_id],
        )) as { id: string }[];
        if (!file) {
          this.logger.warn(`call ${call.id}: recording ${event.fileId} is not a stored call recording of its tenant`);
          return;
        }
        await step.manager.query(
          `INSERT INTO voice_recordings (client_id, call_id, conversation_id, agent_id, file_id, duration_ms, created_at, kind)
           VALUES ($1, $2, $3, $4, $5, $6, $7, $8) ON CONFLICT (file_id) DO NOTHING`,
          [
            call.client_id,
            call.id,
            call.conversation_id,
            (event.agentId ? await this.tenantUser(step.manager, event.agentId, call.client_id) : null) ?? call.agent_id,
            file.id,
            event.durationMs,
            new Date(event.at),
            kind,
          ],
        );
        if (kind === 'voicemail')
          await step.history('voicemailLeft', { seconds: String(Math.max(1, Math.round(event.durationMs / 1000))) });
        return;
      }
      case 'call.ended': {
        const reason = clip(event.reason, 200) || event.by;
        const talked = call.connected_at !== null && call.agent_id !== null;
        await step.update({ stage: 'ended', ended_at: new Date(event.at), ended_by: event.by, end_reason: reason });
        const voicemail = reason === VOICEMAIL_CLOSE_REASON && call.attention_line_id !== null;
        // A voicemail's history line comes with its recording (call.recorded, with the message's length).
        if (!voicemail) await step.history('ended', { reason });
        const current = await step.conversation();
        if (current && voicemail)
          await step.dispatch(
            { type: 'conversation.closed', reason: VOICEMAIL_CLOSE_REASON, attentionLineId: call.attention_line_id! },
            SYSTEM,
          );
        else if (current) await step.dispatch({ type: 'conversation.closed', reason: clip(reason, 60) }, SYSTEM);
        // After-call work follows the call (the host's AFTER_CALL_WORK_SECONDS timer brings the agent back).
        if (talked) await step.agent(call.agent_id!, { type: 'agent.callEnded' });
        await endConsultWithCall(step); // a consultation the worker never had: its agent was held since the ring
        return;
      }
    }
  }

  /** The caller's contact (by their number) and their open conversation, opened (Transitory) on `lineId` when there is none. */
  private async openConversation(step: CallStep, lineId: string): Promise<ConversationRow | null> {
    const { call } = step;
    if (call.conversation_id) return null;
    const number = callerNumber(call.from_number);
    // A carrier gives no name: a caller the tenant named (CRM, desk) keeps their name (the intake writes the profile given).
    const [known] = number
      ? ((await step.manager.query(
          `SELECT name FROM contacts WHERE tenant_id = $1 AND channel = $2 AND channel_account_id = $3 AND external_id = $4`,
          [call.client_id, PHONE_CHANNEL, PHONE_ACCOUNT, number],
        )) as { name: string }[])
      : [];
    try {
      const { conversation } = await this.intake.openOrFind({
        tenantId: call.client_id,
        channel: PHONE_CHANNEL,
        channelAccountId: PHONE_ACCOUNT,
        // Withheld numbers are one contact per call: never one open conversation for every anonymous caller.
        contact: { externalId: number ?? `anonymous:${call.id}`, name: known?.name || number || 'Anonymous' },
        lineId,
      });
      await step.update({ conversation_id: conversation.id });
      return conversation;
    } catch (error) {
      if (error instanceof AppException && error.code === 'not_found') return null;
      throw error;
    }
  }

  /** The conversation enters the line's queue exactly as a chat's menu choice does (conversation.menuCompleted). */
  private async queue(step: CallStep, lineId: string, path: string[], opened: ConversationRow | null): Promise<void> {
    const current = opened ?? (await step.conversation());
    if (!current || current.status !== 'Transitory') return;
    const [line] = (await step.manager.query(
      `SELECT l.poll_id, COALESCE(r.priority, 0) AS priority FROM attention_lines l
       LEFT JOIN attention_line_routing r ON r.attention_line_id = l.id WHERE l.id = $1`,
      [lineId],
    )) as { poll_id: string | null; priority: number }[];
    const walked = path.filter((name) => typeof name === 'string' && name.trim());
    await step.dispatch(
      {
        type: 'conversation.menuCompleted',
        queryTypeId: walked.length > 0 ? 'ivr' : PHONE_CHANNEL,
        submenuId: clip(walked.at(-1) ?? 'direct', 160),
        attentionLineId: lineId,
        pollId: line?.poll_id ?? null,
        priority: line?.priority ?? 0,
      },
      step.customer(current),
    );
  }

  /**
   * The line a new phone conversation enters by (entry_line_id): the one the called number goes
   * straight to; for a number that runs an IVR, the tenant's first live phone line, else its first
   * live line (the IVR's choice moves it on call.queued). None: the conversation opens on call.queued.
   */
  private async entryLine(tenantId: string, calledNumber: string): Promise<string | null> {
    const digits = (calledNumber ?? '').replace(/\D/g, '');
    const [row] = (await this.dataSource.query(
      `SELECT id FROM (
         SELECT n.attention_line_id AS id, 0 AS rank, n.created_at FROM trunk_inbound_numbers n
           JOIN attention_lines l ON l.id = n.attention_line_id AND l.deleted_at IS NULL
          WHERE n.client_id = $1 AND $2 <> '' AND regexp_replace(n.number, '\\D', '', 'g') = $2
         UNION ALL
         SELECT l.id, CASE WHEN l.channel = 'Phone' THEN 1 ELSE 2 END, l.created_at FROM attention_lines l
          WHERE l.client_id = $1 AND l.deleted_at IS NULL
       ) c ORDER BY rank, created_at, id LIMIT 1`,
      [tenantId, digits],
    )) as { id: string }[];
    return row?.id ?? null;
  }

  /** The id when it names a row of the tenant (a live one when `live`), else null: another tenant's ids are never linked. */
  private async tenantRow(
    manager: EntityManager,
    table: 'trunks' | 'ivrs' | 'attention_lines',
    id: string,
    tenantId: string,
    live = false,
  ) {
    if (!UUID.test(id ?? '')) return null;
    const [row] = (await manager.query(`SELECT id FROM ${table} WHERE id = $1 AND client_id = $2${live ? ' AND deleted_at IS NULL' : ''}`, [
      id,
      tenantId,
    ])) as { id: string }[];
    return row?.id ?? null;
  }

  /**
   * The line a call sent to an agent waits in: the one its conversation is on when the agent serves
   * it, else the agent's first live line (by name), so routing, which offers a line's callers to its
   * agents, can offer it to them.
   */
  private async agentLine(
    manager: EntityManager,
    agentId: string,
    tenantId: string,
    conversationId: string | null,
  ): Promise<string | null> {
    const [row] = (await manager.query(
      `SELECT l.id FROM agent_attention_lines a JOIN attention_lines l ON l.id = a.attention_line_id AND l.deleted_at IS NULL
        WHERE a.user_id = $1 AND l.client_id = $2
        ORDER BY (l.id = (SELECT c.attention_line_id FROM conversations c WHERE c.id = $3::uuid)) IS TRUE DESC, l.name, l.id LIMIT 1`,
      [agentId, tenantId, conversationId],
    )) as { id: string }[];
    return row?.id ?? null;
  }

  private async lineName(manager: EntityManager, lineId: string): Promise<string> {
    const [row] = (await manager.query(`SELECT name FROM attention_lines WHERE id = $1`, [lineId])) as { name: string }[];
    return clip(row?.name ?? '', 160);
  }

  private async userName(manager: EntityManager, userId: string): Promise<string> {
    const [row] = (await manager.query(`SELECT name FROM users WHERE id = $1`, [userId])) as { name: string }[];
    return clip(row?.name ?? userId, 120);
  }

  private async tenantUser(manager: EntityManager, id: string, tenantId: string): Promise<string | null> {
    if (!UUID.test(id ?? '')) return null;
    const [row] = (await manager.query(`SELECT id FROM users WHERE id = $1 AND client_id = $2`, [id, tenantId])) as { id: string }[];
    return row?.id ?? null;
  }
}

/** One call's events applied in one transaction: the row as it stands, its writes, history lines and machine steps. */
class CallStep {
  constructor(
    private readonly host: MachineHostService,
    readonly manager: EntityManager,
    private readonly outbox: string[],
    readonly call: VoiceCallRow,
    private readonly language: string,
  ) {}

  async update(fields: Partial<Omit<VoiceCallRow, 'id' | 'client_id'>>): Promise<void> {
    const entries = Object.entries(fields);
    if (entries.length === 0) return;
    const json = new Set(['ivr_path', 'pending_events', 'failed_agents']);
    const sets = entries.map(([column], index) => `${column} = $${index + 2}${json.has(column) ? '::jsonb' : ''}`);
    await this.manager.query(`UPDATE voice_calls SET ${sets.join(', ')}, updated_at = now() WHERE id = $1`, [
      this.call.id,
      ...entries.map(([column, value]) => (json.has(column) ? JSON.stringify(value) : value)),
    ]);
    Object.assign(this.call, fields);
  }

  async conversation(): Promise<ConversationRow | null> {
    if (!this.call.conversation_id) return null;
    const [row] = (await this.manager.query(`SELECT * FROM conversations WHERE id = $1 AND tenant_id = $2`, [
      this.call.conversation_id,
      this.call.client_id,
    ])) as ConversationRow[];
    return row && isOpenConversationStatus(row.status) ? row : null;
  }

  customer(conversation: ConversationRow) {
    return { kind: 'customer' as const, id: conversation.contact_id ?? undefined };
  }

  /** One machine step of the caller's conversation through the host; a step the machine refuses (already moved) is dropped. */
  async dispatch(input: ConversationEventInput, actor: Parameters<MachineHostService['dispatchConversation']>[3]): Promise<void> {
    if (!this.call.conversation_id) return;
    try {
      await this.manager.query('SAVEPOINT voice_step');
      const { outboxIds } = await this.host.dispatchConversation(
        this.manager,
        this.call.conversation_id,
        input,
        actor,
        this.call.client_id,
      );
      this.outbox.push(...outboxIds);
      await this.manager.query('RELEASE SAVEPOINT voice_step');
    } catch (error) {
      if (!isIllegalTransition(error)) throw error;
      await this.manager.query('ROLLBACK TO SAVEPOINT voice_step');
    }
  }

  /**
   * One presence step of the call's agent, in the call's transaction; a step the machine refuses
   * (the agent's softphone already reported it, the agent logged out meanwhile) is dropped. The
   * conversation is locked first: the host's lock order is conversations, then agents.
   */
  async agent(agentId: string, input: AgentEventInput): Promise<void> {
    if (this.call.conversation_id)
      await this.manager.query(`SELECT id FROM conversations WHERE id = $1 FOR NO KEY UPDATE`, [this.call.conversation_id]);
    try {
      const { outboxIds } = await this.host.dispatchAgent(this.manager, agentId, input, SYSTEM, this.call.client_id);
      this.outbox.push(...outboxIds);
    } catch (error) {
      if (!isIllegalTransition(error) && !(error instanceof AppException && error.code === 'not_found')) throw error;
    }
  }

  monitor(event: Extract<VoiceCallEvent, { type: 'call.monitor' }>): Promise<void> {
    return applyMonitorEvent(this.manager, this.outbox, this.call, event, this.language);
  }

  /** A system line in the conversation's history, pushed to the staff watching it. */
  async history(key: VoiceHistoryKey, values: Record<string, string> = {}): Promise<void> {
    if (!this.call.conversation_id) return;
    const text = clip(voiceHistoryLine(key, this.language, values), 500);
    const [row] = (await this.manager.query(
      `INSERT INTO messages (conversation_id, tenant_id, sequence, sender_kind, sender_id, text)
       VALUES ($1, $2, (SELECT COALESCE(max(sequence), 0) + 1 FROM messages WHERE conversation_id = $1), 'system', NULL, $3)
       RETURNING *`,
      [this.call.conversation_id, this.call.client_id, text],
    )) as MessageRow[];
    row.attachments = [];
    const room = roomName({ kind: 'conversation', id: this.call.conversation_id });
    this.outbox.push(
      ...(await writeOutbox(this.manager, [
        {
          topic: 'socket',
          payload: { emits: [{ namespace: 'staff', rooms: [room], event: 'message.created', data: messageView(row) }] },
        },
      ])),
    );
  }
}

/** Why an event read from the queue cannot be applied, or null. */
function malformed(event: VoiceCallEvent): string | null {
  if (!event || typeof event !== 'object') return 'not an object';
  if (!EVENT_TYPES.has(event.type)) return `unknown type ${String((event as { type?: unknown }).type)}`;
  if (!UUID.test(event.callId ?? '')) return 'callId must be a UUID';
  if (!UUID.test(event.tenantId ?? '')) return 'tenantId must be a UUID';
  if (typeof event.seq !== 'number') return 'seq must be a number';
  if (typeof event.at !== 'number' || !Number.isFinite(event.at)) return 'at must be epoch ms';
  if (event.type === 'call.abandoned' && !(VOICE_ABANDON_STAGES as readonly string[]).includes(event.stage))
    return 'stage must be ivr or queue';
  if (event.type === 'call.queued' && !Array.isArray(event.path)) return 'path must be a list';
  if (event.type === 'call.recorded' && (!UUID.test(event.fileId ?? '') || !(Number.isInteger(event.durationMs) && event.durationMs >= 0)))
    return 'a recording needs a file id (UUID) and a duration in ms';
  if (event.type === 'call.recorded' && event.kind !== undefined && !(VOICE_RECORDING_KINDS as readonly string[]).includes(event.kind))
    return 'kind must be call or voicemail';
  if (event.type === 'call.voicemail' && (typeof event.attentionLineId !== 'string' || !Array.isArray(event.path)))
    return 'a voicemail needs its line id and path';
  if (event.type === 'call.monitor' && !(VOICE_MONITOR_MODES as readonly string[]).includes(event.mode))
    return 'mode must be listen, whisper or barge';
  return null;
}

/**
 * The IVR path with the option that left it (call.queued / call.toAgent `exit`: the key pressed at the last node and
 * its label) appended once, for the screen pop's "Menu › 1 Sales"; unchanged without one.
 */
export function withIvrExit(
  path: VoiceCallRow['ivr_path'],
  event: { exit?: { digit: string; label: string | null } | null; at: number },
  kind: 'line' | 'agent',
): VoiceCallRow['ivr_path'] {
  const last = path.at(-1);
  const digit = String(event.exit?.digit ?? '');
  if (!last || last.exit || !/^[0-9*#A-D]$/.test(digit)) return path;
  return [...path, { ivrId: last.ivrId, nodeId: last.nodeId, nodeName: clip(event.exit?.label, 160), digit, at: event.at, exit: kind }];
}

/** The caller's number as a contact id: '+' and digits when it has at least three digits, else null (withheld). */
export function callerNumber(raw: string | null): string | null {
  const text = (raw ?? '').trim();
  const digits = text.replace(/\D/g, '');
  if (digits.length < 3 || /anonymous|unknown|restricted|private/i.test(text)) return null;
  return `${text.startsWith('+') ? '+' : ''}${digits}`;
}

function clip(value: string | null | undefined, length: number): string {
  return Array.from(String(value ?? '').trim())
    .slice(0, length)
    .join('');
}
