import {
  PERMISSIONS,
  type AgentView,
  type ConversationContext,
  type ConversationView,
  type MessageView,
  type TransferTargets,
} from '@centralita/contracts';
import { READY_AGENT_STATUSES, sqlStatusList, timeInStates, type Actor, type TransitionRecord } from '@centralita/domain';
import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { AppException } from '../../common/app.exception';
import type { Principal } from '../auth/principal';
import { isIllegalTransition, MachineHostService } from '../machine-host/machine-host.service';
import { agentView, conversationView, type AgentRow, type ConversationRow } from '../machine-host/views';
import type { SendMessageDto, TransferDto } from './conversations.dto';
import { MessagesService, type NewAttachment, type StoredTemplate } from './messages.service';
import { OutboundRulesService } from './outbound-rules.service';

/** The event that makes an agent in `status` available again (POST /api/agent/presence/available). */
function availableEvent(status: string): 'agent.resumed' | 'agent.afterCallWorkEnded' | 'agent.madeAvailable' {
  return status === 'paused' ? 'agent.resumed' : status === 'afterCallWork' ? 'agent.afterCallWorkEnded' : 'agent.madeAvailable';
}

/** Offered when a tenant has configured none. */
export const DEFAULT_PAUSE_REASONS = [
  { code: 'break', label: 'Break' },
  { code: 'lunch', label: 'Lunch' },
  { code: 'training', label: 'Training' },
  { code: 'meeting', label: 'Meeting' },
];

export interface PauseReason {
  code: string;
  label: string;
}

export interface TransitionEntry {
  from: string | null;
  to: string;
  event: string;
  at: string;
  atMs: number;
  actor: Actor;
  version: number;
  /** What the row carries besides the step (a conversation's line and agent; the conversation an agent's assignment or release is about). */
  data: Record<string, unknown> | null;
}

/** What agents and supervisors do to conversations and presence; every change goes through the host. */
@Injectable()
export class DeskService {
  constructor(
    private readonly dataSource: DataSource,
    private readonly host: MachineHostService,
    private readonly messages: MessagesService,
    private readonly rules: OutboundRulesService,
  ) {}

  actorOf(principal: Principal, asSupervisor = false): Actor {
    return { kind: asSupervisor ? 'supervisor' : 'agent', id: principal.userId };
  }

  /**
   * The pause reasons the user may take: the ones an administrator allowed them (user form), or
   * every reason of the tenant when none were chosen (supervisors see the whole list).
   */
  async pauseReasons(tenantId: string, userId?: string): Promise<PauseReason[]> {
    const rows: PauseReason[] = await this.dataSource.query(
      `SELECT r.code, r.label FROM pause_reasons r
       WHERE r.tenant_id = $1
         AND (NOT EXISTS (SELECT 1 FROM user_pause_reasons u WHERE u.user_id = $2)
              OR EXISTS (SELECT 1 FROM user_pause_reasons u WHERE u.user_id = $2 AND u.pause_reason_code = r.code))
       ORDER BY r.position, r.code`,
      [tenantId, userId ?? null],
    );
    return rows.length > 0 ? rows : DEFAULT_PAUSE_REASONS;
  }

  /**
   * The campaign an agent logs into: the one asked for, which must be live and, when the user
   * serves campaigns (user form), one of them; by default the first campaign they serve, or the
   * tenant's first when they serve none.
   */
  async loginCampaigns(principal: Principal): Promise<{ id: string; name: string }[]> {
    return (await this.dataSource.query(
      `SELECT c.id, c.name FROM campaigns c
       WHERE c.client_id = $1 AND c.deleted_at IS NULL
         AND (NOT EXISTS (SELECT 1 FROM agent_campaigns a WHERE a.user_id = $2)
              OR EXISTS (SELECT 1 FROM agent_campaigns a WHERE a.user_id = $2 AND a.campaign_id = c.id))
       ORDER BY c.created_at, c.id`,
      [principal.clientId, principal.userId],
    )) as { id: string; name: string }[];
  }

  private async loginCampaign(principal: Principal, campaignId: string | undefined) {
    const [campaign] = (await this.dataSource.query(
      `SELECT c.id, c.allowed_chats_per_agent FROM campaigns c
       WHERE c.client_id = $1 AND c.deleted_at IS NULL AND ($3::uuid IS NULL OR c.id = $3)
         AND (NOT EXISTS (SELECT 1 FROM agent_campaigns a WHERE a.user_id = $2)
              OR EXISTS (SELECT 1 FROM agent_campaigns a WHERE a.user_id = $2 AND a.campaign_id = c.id))
       ORDER BY c.created_at, c.id LIMIT 1`,
      [principal.clientId, principal.userId, campaignId ?? null],
    )) as { id: string; allowed_chats_per_agent: number }[];
    if (campaignId && !campaign) throw AppException.notFound();
    return campaign ?? null;
  }

  /**
   * Lines and logged-in colleagues of the caller's tenant. Agents need this to transfer, and it
   * reveals no more than the desk already shows (names and load), unlike the supervisor board.
   */
  async transferTargets(principal: Principal): Promise<TransferTargets> {
    const [lines, agents] = await Promise.all([
      // Counted as the routing counts them (RoutingService.lineQueue): agents of the line with room, customers queued.
      this.dataSource.query(
        `SELECT l.id, l.name,
           (SELECT count(*)::int FROM agent_presence p JOIN agent_attention_lines a ON a.user_id = p.user_id
              WHERE a.attention_line_id = l.id AND p.status IN ${sqlStatusList(READY_AGENT_STATUSES)} AND p.active_count < p.capacity) AS "agentsAvailable",
           (SELECT count(*)::int FROM conversations c WHERE c.attention_line_id = l.id AND c.status = 'LiningUp') AS waiting
         FROM attention_lines l WHERE l.client_id = $1 AND l.deleted_at IS NULL ORDER BY l.name`,
        [principal.clientId],
      ) as Promise<TransferTargets['lines']>,
      this.dataSource.query(
        `SELECT p.user_id AS id, u.name, p.status, p.active_count AS "activeCount", p.capacity
           FROM agent_presence p JOIN users u ON u.id = p.user_id
          WHERE p.tenant_id = $1 AND p.user_id <> $2 AND p.status <> 'loggedOut'
          ORDER BY u.name`,
        [principal.clientId, principal.userId],
      ) as Promise<TransferTargets['agents']>,
    ]);
    return { lines, agents };
  }

  /**
   * Beside the chat: the line by name, the web-chat menu choice (kept in the machine's context) and
   * the customer's other conversations in the tenant, matched by e-mail or by the same visitor.
   */
  async context(principal: Principal, id: string): Promise<ConversationContext> {
    const row = await this.visible(principal, id);
    const [lines, earlier] = await Promise.all([
      this.dataSource.query(`SELECT id, name FROM attention_lines WHERE client_id = $1 AND id = ANY($2::uuid[])`, [
        principal.clientId,
        [row.attention_line_id, row.entry_line_id].filter((value): value is string => Boolean(value)),
      ]) as Promise<{ id: string; name: string }[]>,
      row.customer_email || row.visitor_id
        ? (this.dataSource.query(
            `SELECT c.id, c.channel, c.status, l.name AS "lineName", c.snapshot->'context'->>'disposition' AS disposition,
                    c.created_at AS "createdAt", c.closed_at AS "closedAt"
               FROM conversations c LEFT JOIN attention_lines l ON l.id = COALESCE(c.attention_line_id, c.entry_line_id)
              WHERE c.tenant_id = $1 AND c.id <> $2
                AND ((c.customer_email IS NOT NULL AND lower(c.customer_email) = lower($3)) OR (c.visitor_id IS NOT NULL AND c.visitor_id = $4))
              ORDER BY c.created_at DESC LIMIT 10`,
            [principal.clientId, id, row.customer_email, row.visitor_id],
          ) as Promise<
            (Omit<ConversationContext['earlier'][number], 'createdAt' | 'closedAt'> & { createdAt: Date; closedAt: Date | null })[]
          >)
        : Promise.resolve([]),
    ]);
    const nameOf = (lineId: string | null) => lines.find((line) => line.id === lineId)?.name ?? null;
    const context = row.snapshot.context as { queryTypeId?: string | null; submenuId?: string | null };
    return {
      conversationId: row.id,
      lineName: nameOf(row.attention_line_id),
      entryLineName: nameOf(row.entry_line_id),
      queryTypeId: context.queryTypeId ?? null,
      submenuId: context.submenuId ?? null,
      earlier: earlier.map((entry) => ({
        ...entry,
        createdAt: new Date(entry.createdAt).toISOString(),
        closedAt: entry.closedAt ? new Date(entry.closedAt).toISOString() : null,
      })),
    };
  }

  async presence(principal: Principal, userId = principal.userId): Promise<AgentView> {
    const [row] = (await this.dataSource.query(
      `SELECT p.*, u.name FROM agent_presence p JOIN users u ON u.id = p.user_id WHERE p.user_id = $1 AND p.tenant_id = $2`,
      [userId, principal.clientId],
    )) as AgentRow[];
    if (!row) throw new AppException('not_found', { message: 'You have not logged in a campaign' });
    return agentView(row);
  }

  /**
   * The caller's own presence for the desk: someone who never started a shift (an administrator or
   * a supervisor opening the desk, a new agent) is logged out, version 0, not a missing resource.
   */
  async ownPresence(principal: Principal): Promise<AgentView> {
    const [row] = (await this.dataSource.query(
      `SELECT u.name, p.user_id FROM users u LEFT JOIN agent_presence p ON p.user_id = u.id AND p.tenant_id = u.client_id
        WHERE u.id = $1 AND u.client_id = $2`,
      [principal.userId, principal.clientId],
    )) as { name: string; user_id: string | null }[];
    if (row?.user_id) return this.presence(principal);
    return {
      agentId: principal.userId,
      version: 0,
      tenantId: principal.clientId,
      name: row?.name ?? '',
      status: 'loggedOut',
      pauseReasonId: null,
      capacity: 1,
      activeCount: 0,
      stateSince: new Date().toISOString(),
      lastEvent: 'xstate.init',
    };
  }

  async login(principal: Principal, campaignId: string | undefined): Promise<AgentView> {
    const campaign = await this.loginCampaign(principal, campaignId);
    const capacity = campaign?.allowed_chats_per_agent ?? 1;
    const reasons = (await this.pauseReasons(principal.clientId, principal.userId)).map((reason) => reason.code);
    const row = await this.host.transaction(async (manager, outbox) => {
      await this.host.ensureAgent(manager, principal.userId, principal.clientId, capacity, reasons);
      const result = await this.host.dispatchAgent(
        manager,
        principal.userId,
        { type: 'agent.loggedIn', capacity, pauseReasons: reasons },
        this.actorOf(principal),
        principal.clientId,
      );
      // The campaign the agent works today: its live queue counts them among the available agents.
      await manager.query(`UPDATE agent_presence SET campaign_id = $2 WHERE user_id = $1`, [principal.userId, campaign?.id ?? null]);
      outbox.push(...result.outboxIds);
      return result.row;
    });
    return agentView(row);
  }

  /**
   * Back to work: the event depends on the state (a pause ends, wrap-up ends, or the agent stops
   * waiting for an outbound call). The host reads the row anyway, so the common case, a pause
   * ending, is sent straight away (two round trips instead of three on every resume); when the host
   * refuses it for the state it found, having written nothing, the state's own event follows, as
   * it always did. No presence row answers the desk's own not-found message.
   */
  async available(principal: Principal): Promise<AgentView> {
    const send = (status: string) =>
      this.host.dispatch('agent', principal.userId, { type: availableEvent(status) } as never, this.actorOf(principal), principal.clientId);
    try {
      return agentView(await send('paused'));
    } catch (error) {
      if (!(error instanceof AppException)) throw error;
      if (error.code === 'not_found') return agentView(await send((await this.presence(principal)).status));
      const found = isIllegalTransition(error) ? (error.data as { state?: unknown } | null)?.state : undefined;
      if (typeof found !== 'string' || found === 'paused') throw error;
      return agentView(await send(found));
    }
  }

  async pause(principal: Principal, reasonId: string, agentId = principal.userId, forced = false): Promise<AgentView> {
    const row = await this.host.dispatch(
      'agent',
      agentId,
      { type: forced ? 'agent.forcePaused' : 'agent.paused', reasonId },
      this.actorOf(principal, forced),
      principal.clientId,
    );
    return agentView(row);
  }

  async logout(principal: Principal, agentId = principal.userId, forced = false): Promise<AgentView> {
    const row = await this.host.dispatch(
      'agent',
      agentId,
      { type: forced ? 'agent.forceLoggedOut' : 'agent.loggedOut' },
      this.actorOf(principal, forced),
      principal.clientId,
    );
    return agentView(row);
  }

  async myConversations(principal: Principal): Promise<ConversationView[]> {
    const rows: ConversationRow[] = await this.dataSource.query(
      `SELECT * FROM conversations WHERE tenant_id = $1 AND agent_id = $2 AND status = 'Active' ORDER BY updated_at`,
      [principal.clientId, principal.userId],
    );
    return rows.map(conversationView);
  }

  /** A conversation the caller may see: their own, or any of the tenant's with conversations.supervise. */
  async visible(principal: Principal, id: string): Promise<ConversationRow> {
    const [row] = (await this.dataSource.query(`SELECT * FROM conversations WHERE id = $1 AND tenant_id = $2`, [
      id,
      principal.clientId,
    ])) as ConversationRow[];
    if (!row) throw AppException.notFound();
    if (row.agent_id !== principal.userId && !principal.permissions.includes(PERMISSIONS.conversationsSupervise))
      throw AppException.notFound();
    return row;
  }

  async listMessages(principal: Principal, id: string, after: number | undefined): Promise<MessageView[]> {
    await this.visible(principal, id);
    return this.messages.list(id, after ?? 0, 'staff');
  }

  /**
   * An agent's message. On a messaging channel it is stored `pending` with the worker's send job
   * (MessagesService), unless the customer opted out or the reply window closed: then nothing is
   * stored (OutboundRulesService). Attachments and templates come through the same path
   * (AttachmentsService, ChannelMessagesController).
   */
  async send(
    principal: Principal,
    id: string,
    input: SendMessageDto & { attachments?: NewAttachment[]; template?: StoredTemplate },
  ): Promise<MessageView> {
    const { message } = await this.messages.send(
      {
        conversationId: id,
        tenantId: principal.clientId,
        sender: { kind: 'agent', id: principal.userId },
        text: input.text,
        clientMessageId: input.clientMessageId,
        attachments: input.attachments,
        template: input.template,
        beforeStore: (manager, row) => this.rules.assertCanSend(manager, row, input.template ? 'template' : 'text'),
      },
      (row) => DeskService.requireHandler(principal, row),
    );
    return message;
  }

  /** Only the agent handling an Active conversation writes to it. */
  static requireHandler(principal: Principal, row: ConversationRow): void {
    if (row.status !== 'Active' || row.agent_id !== principal.userId) {
      throw new AppException('illegal_transition', {
        message: `Only the agent handling an Active conversation may write to it (it is ${row.status})`,
        data: { event: 'message.send', state: row.status },
      });
    }
  }

  async read(principal: Principal, id: string, upToSequence: number): Promise<{ read: number }> {
    await this.visible(principal, id);
    return this.messages.markRead(id, 'agent', upToSequence);
  }

  typing(principal: Principal, id: string, typing: boolean): Promise<{ typing: boolean }> {
    return this.visible(principal, id).then(() => {
      this.messages.pushTyping(id, 'agent', typing);
      return { typing };
    });
  }

  /** To a line (back to its queue) or straight to an agent, whose slot is booked in the same transaction. */
  async transfer(principal: Principal, id: string, target: TransferDto, asSupervisor = false): Promise<ConversationView> {
    if (Boolean(target.attentionLineId) === Boolean(target.agentId)) {
      throw new AppException('validation', { message: 'Give exactly one of attentionLineId or agentId' });
    }
    const actor = this.actorOf(principal, asSupervisor);
    const row = await this.host.transaction(
      async (manager, outbox) => {
        const conversation = await this.host.lockConversation(manager, id, principal.clientId);
        if (target.attentionLineId) {
          const [line] = (await manager.query(
            `SELECT l.id, l.poll_id FROM attention_lines l WHERE l.id = $1 AND l.client_id = $2 AND l.deleted_at IS NULL`,
            [target.attentionLineId, principal.clientId],
          )) as { id: string; poll_id: string | null }[];
          if (!line) throw new AppException('not_found', { message: 'No attention line found' });
          const result = await this.host.dispatchConversation(
            manager,
            id,
            { type: 'conversation.transferred', to: { kind: 'line', attentionLineId: line.id, pollId: line.poll_id } },
            actor,
            principal.clientId,
            conversation,
          );
          outbox.push(...result.outboxIds);
          return result.row;
        }
        const agentId = target.agentId!;
        // The conversation, then both agents at once in id order (the host's lock order): locking
        // the receiver and then the giver deadlocked two agents transferring to each other.
        const agents = await this.host.lockAgents(manager, [agentId, conversation.agent_id], principal.clientId);
        if (!agents.has(agentId)) throw AppException.notFound();
        const booked = await this.host.dispatchAgent(
          manager,
          agentId,
          { type: 'agent.conversationAssigned', conversationId: id },
          actor,
          principal.clientId,
          agents.get(agentId),
        );
        const result = await this.host.dispatchConversation(
          manager,
          id,
          { type: 'conversation.transferred', to: { kind: 'agent', agentId } },
          actor,
          principal.clientId,
          conversation,
        );
        outbox.push(...booked.outboxIds, ...result.outboxIds);
        return result.row;
      },
      { retry: true },
    );
    return conversationView(row);
  }

  async close(principal: Principal, id: string, disposition: string, reason = 'resolved', asSupervisor = false): Promise<ConversationView> {
    const row = await this.host.dispatch(
      'conversation',
      id,
      { type: 'conversation.closed', reason, disposition },
      this.actorOf(principal, asSupervisor),
      principal.clientId,
    );
    return conversationView(row);
  }

  async transitions(tenantId: string, entity: 'conversation' | 'agent', id: string): Promise<TransitionEntry[]> {
    const rows: {
      from_state: string | null;
      to_state: string;
      event: string;
      at: Date;
      at_ms: string;
      actor_kind: Actor['kind'];
      actor_id: string | null;
      version: number;
      data: Record<string, unknown> | null;
    }[] = await this.dataSource.query(
      `SELECT from_state, to_state, event, at, at_ms, actor_kind, actor_id, version, data FROM transition_log
       WHERE tenant_id = $1 AND entity_type = $2 AND entity_id = $3 ORDER BY version`,
      [tenantId, entity, id],
    );
    if (rows.length === 0) throw AppException.notFound();
    return rows.map((row) => ({
      from: row.from_state,
      to: row.to_state,
      event: row.event,
      at: new Date(row.at).toISOString(),
      atMs: Number(row.at_ms),
      actor: row.actor_id ? { kind: row.actor_kind, id: row.actor_id } : { kind: row.actor_kind },
      version: row.version,
      data: row.data,
    }));
  }

  /** Milliseconds in each state from the log, up to now (or the last transition for a closed conversation). */
  async timeInStates(
    tenantId: string,
    entity: 'conversation' | 'agent',
    id: string,
  ): Promise<{ transitions: TransitionEntry[]; msInState: Record<string, number> }> {
    const transitions = await this.transitions(tenantId, entity, id);
    const records: TransitionRecord[] = transitions.map((entry) => ({
      from: entry.from,
      to: entry.to,
      event: entry.event,
      at: entry.atMs,
      actor: entry.actor,
    }));
    const last = records[records.length - 1];
    const end = last.to === 'Closed' ? last.at : Math.max(Date.now(), last.at);
    return { transitions, msInState: timeInStates(records, records[0].at, end) as Record<string, number> };
  }
}
