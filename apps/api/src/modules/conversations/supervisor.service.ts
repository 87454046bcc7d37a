import type { AgentView, CampaignQueueView, ConversationView, LineQueueView } from '@centralita/contracts';
import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { agentView, conversationView, type AgentRow, type ConversationRow } from '../machine-host/views';
import { RoutingService } from '../routing/routing.service';
import type { SupervisorConversationsQueryDto } from './conversations.dto';

export interface BoardAgent extends AgentView {
  /** Milliseconds since the agent entered the current state. */
  timeInStateMs: number;
}

export interface Board {
  agents: BoardAgent[];
  queues: LineQueueView[];
  campaignQueues: CampaignQueueView[];
  conversations: ConversationView[];
}

/** Read side for supervisors: always scoped by the caller's tenant. */
@Injectable()
export class SupervisorService {
  constructor(
    private readonly dataSource: DataSource,
    private readonly routing: RoutingService,
  ) {}

  async conversations(tenantId: string, filter: SupervisorConversationsQueryDto): Promise<ConversationView[]> {
    const where = ['tenant_id = $1'];
    const params: unknown[] = [tenantId];
    const add = (clause: string, value: unknown) => {
      params.push(value);
      where.push(clause.replace('?', `$${params.length}`));
    };
    if (filter.status) add('status = ?', filter.status);
    else if (!filter.showAll) where.push(`status <> 'Closed'`);
    if (filter.attentionLineId) add('attention_line_id = ?', filter.attentionLineId);
    if (filter.agentId) add('agent_id = ?', filter.agentId);
    if (filter.channel) add('lower(channel) = lower(?)', filter.channel);
    const rows: ConversationRow[] = await this.dataSource.query(
      `SELECT * FROM conversations WHERE ${where.join(' AND ')} ORDER BY created_at DESC LIMIT 500`,
      params,
    );
    return rows.map(conversationView);
  }

  async queues(tenantId: string): Promise<LineQueueView[]> {
    const lines: { id: string }[] = await this.dataSource.query(
      `SELECT id FROM attention_lines WHERE client_id = $1 AND deleted_at IS NULL ORDER BY name`,
      [tenantId],
    );
    const views = await Promise.all(lines.map((line) => this.routing.lineQueue(line.id)));
    return views.map(({ tenantId: _tenant, campaignId: _campaign, ...view }) => view);
  }

  async agents(tenantId: string): Promise<BoardAgent[]> {
    const rows: AgentRow[] = await this.dataSource.query(
      // Deactivated users are not on the board: they can no longer log in or take work.
      `SELECT p.*, u.name FROM agent_presence p JOIN users u ON u.id = p.user_id WHERE p.tenant_id = $1 AND u.active ORDER BY u.name`,
      [tenantId],
    );
    const now = Date.now();
    return rows.map((row) => ({ ...agentView(row), timeInStateMs: Math.max(0, now - new Date(row.state_since).getTime()) }));
  }

  async board(tenantId: string): Promise<Board> {
    const [agents, queues, campaignQueues, conversations] = await Promise.all([
      this.agents(tenantId),
      this.queues(tenantId),
      this.routing.campaignQueues(tenantId),
      this.conversations(tenantId, {}),
    ]);
    return { agents, queues, campaignQueues, conversations };
  }
}
