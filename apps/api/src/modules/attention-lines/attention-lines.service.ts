import {
  validateAttentionLine,
  type AttentionLineInput,
  type RoutingPolicyName,
  type AttentionLineSummary,
  type BusinessHoursWindow,
  type OptionItem,
  type Page,
  type PagedQuery,
  type RuleIssue,
} from '@centralita/contracts';
import { Injectable } from '@nestjs/common';
import { InjectDataSource, InjectRepository } from '@nestjs/typeorm';
import type { DataSource, EntityManager, Repository } from 'typeorm';
import { AppException } from '../../common/app.exception';
import { AuditService } from '../admin/audit.service';
import { paginate } from '../admin/paginate';
import { assertRules, isUniqueViolation } from '../admin/rule-check';
import type { Principal } from '../auth/principal';
import { AttentionLine } from './attention-line.entity';

/** A line's routing settings (table attention_line_routing, read by routing and the machine host). */
export type LineRouting = Pick<
  AttentionLineInput,
  'routingPolicy' | 'priority' | 'queueTimeoutSeconds' | 'chatsDuringCall' | 'offerCallsWithChats'
>;

/** What a line without a routing row gets: the longest-idle agent, priority 0, the account's maximum queue wait. */
export const DEFAULT_LINE_ROUTING: LineRouting = {
  routingPolicy: 'longest-idle',
  priority: 0,
  queueTimeoutSeconds: null,
  chatsDuringCall: 0,
  offerCallsWithChats: false,
};

export function toAttentionLineSummary(l: AttentionLine, routing: LineRouting = DEFAULT_LINE_ROUTING): AttentionLineSummary {
  return {
    id: l.id,
    name: l.name,
    type: l.type,
    channel: l.channel,
    businessUnit: l.businessUnit,
    originType: l.originType,
    originLine: l.originLine,
    serviceType: l.serviceType,
    internal: l.internal,
    businessHours: l.businessHours ?? [],
    pollId: l.pollId,
    campaignId: l.campaignId,
    routingPolicy: routing.routingPolicy,
    priority: routing.priority,
    queueTimeoutSeconds: routing.queueTimeoutSeconds,
    chatsDuringCall: routing.chatsDuringCall,
    offerCallsWithChats: routing.offerCallsWithChats,
    createdAt: l.createdAt.toISOString(),
    updatedAt: l.updatedAt.toISOString(),
  };
}

const AUDIT_TYPE = 'attention-line';
const blank = (value: string | null | undefined) => (value && value.trim() ? value.trim() : null);

@Injectable()
export class AttentionLinesService {
  constructor(
    @InjectRepository(AttentionLine) private readonly lines: Repository<AttentionLine>,
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly audit: AuditService,
  ) {}

  async list(clientId: string, query: PagedQuery): Promise<Page<AttentionLineSummary>> {
    const qb = this.lines.createQueryBuilder('l').where('l.client_id = :clientId', { clientId });
    const page = await paginate(
      qb,
      query,
      {
        sortable: {
          name: 'l.name',
          type: 'l.type',
          channel: 'l.channel',
          businessUnit: 'l.business_unit',
          serviceType: 'l.service_type',
          internal: 'l.internal',
        },
        searchable: ['l.name', 'l.channel', 'l.business_unit', 'l.origin_line', 'l.service_type'],
        defaultSort: { field: 'name', order: 'asc' },
      },
      (line) => line,
    );
    const routing = await this.routingOf(
      this.dataSource.manager,
      page.items.map((line) => line.id),
    );
    return { ...page, items: page.items.map((line) => toAttentionLineSummary(line, routing.get(line.id))) };
  }

  async options(clientId: string): Promise<OptionItem[]> {
    const rows = await this.lines.find({ where: { clientId }, order: { name: 'ASC' }, select: { id: true, name: true } });
    return rows.map(({ id, name }) => ({ id, name }));
  }

  async get(clientId: string, id: string): Promise<AttentionLineSummary> {
    const line = await this.find(clientId, id);
    return toAttentionLineSummary(line, (await this.routingOf(this.dataSource.manager, [id])).get(id));
  }

  /** The routing settings of the given lines that have them (the others use DEFAULT_LINE_ROUTING). */
  private async routingOf(manager: EntityManager, ids: string[]): Promise<Map<string, LineRouting>> {
    if (ids.length === 0) return new Map();
    const rows: {
      attention_line_id: string;
      routing_policy: RoutingPolicyName;
      priority: number;
      queue_timeout_seconds: number | null;
      chats_during_call: number;
      offer_calls_with_chats: boolean;
    }[] = await manager.query(
      `SELECT attention_line_id, routing_policy, priority, queue_timeout_seconds, chats_during_call, offer_calls_with_chats
         FROM attention_line_routing WHERE attention_line_id = ANY($1::uuid[])`,
      [ids],
    );
    return new Map(
      rows.map((row) => [
        row.attention_line_id,
        {
          routingPolicy: row.routing_policy,
          priority: row.priority,
          queueTimeoutSeconds: row.queue_timeout_seconds,
          chatsDuringCall: row.chats_during_call,
          offerCallsWithChats: row.offer_calls_with_chats,
        },
      ]),
    );
  }

  async create(principal: Principal, body: Partial<AttentionLineInput>): Promise<AttentionLineSummary> {
    const input = this.checked(body);
    await this.checkReferences(principal.clientId, input);
    return this.save(principal, null, input);
  }

  async update(principal: Principal, id: string, body: Partial<AttentionLineInput>): Promise<AttentionLineSummary> {
    const current = await this.find(principal.clientId, id);
    const input = this.checked(body);
    await this.checkReferences(principal.clientId, input);
    return this.save(principal, current, input);
  }

  /** The poll and the campaign must be the tenant's own (another tenant's id reads as unknown). */
  private async checkReferences(clientId: string, input: AttentionLineInput): Promise<void> {
    const exists = async (table: 'polls' | 'campaigns', id: string) =>
      (await this.dataSource.query(`SELECT 1 FROM ${table} WHERE id = $1 AND client_id = $2 AND deleted_at IS NULL`, [id, clientId]))
        .length > 0;
    const issues: RuleIssue[] = [];
    if (input.pollId && !(await exists('polls', input.pollId)))
      issues.push({ field: 'pollId', key: 'unknown', values: { values: input.pollId } });
    if (input.campaignId && !(await exists('campaigns', input.campaignId))) {
      issues.push({ field: 'campaignId', key: 'unknown', values: { values: input.campaignId } });
    }
    assertRules(issues);
  }

  /** Soft delete: conversations and reports keep naming the line; agents stop serving it. */
  async remove(principal: Principal, id: string): Promise<{ deleted: true }> {
    const current = await this.find(principal.clientId, id);
    await this.dataSource.transaction(async (manager) => {
      await manager.softDelete(AttentionLine, { id, clientId: principal.clientId });
      await manager.query(`DELETE FROM agent_attention_lines WHERE attention_line_id = $1 AND tenant_id = $2`, [id, principal.clientId]);
      const routing = (await this.routingOf(manager, [id])).get(id);
      await this.audit.record(
        principal,
        { entityType: AUDIT_TYPE, entityId: id, action: 'delete', before: toAttentionLineSummary(current, routing), after: null },
        manager,
      );
    });
    return { deleted: true };
  }

  private checked(body: Partial<AttentionLineInput>): AttentionLineInput {
    const input: AttentionLineInput = {
      name: (body.name ?? '').trim(),
      type: body.type ?? '',
      channel: body.channel ?? '',
      businessUnit: blank(body.businessUnit),
      originType: blank(body.originType),
      originLine: blank(body.originLine),
      serviceType: blank(body.serviceType),
      internal: body.internal ?? false,
      businessHours: (body.businessHours ?? []).map((w: BusinessHoursWindow) => ({ day: w.day, from: w.from, to: w.to })),
      pollId: body.pollId || null,
      campaignId: body.campaignId || null,
      routingPolicy: body.routingPolicy ?? DEFAULT_LINE_ROUTING.routingPolicy,
      priority: body.priority ?? DEFAULT_LINE_ROUTING.priority,
      queueTimeoutSeconds: body.queueTimeoutSeconds ?? null,
      chatsDuringCall: body.chatsDuringCall ?? DEFAULT_LINE_ROUTING.chatsDuringCall,
      offerCallsWithChats: body.offerCallsWithChats ?? DEFAULT_LINE_ROUTING.offerCallsWithChats,
    };
    assertRules(validateAttentionLine(input));
    return input;
  }

  private async save(principal: Principal, current: AttentionLine | null, input: AttentionLineInput): Promise<AttentionLineSummary> {
    try {
      return await this.dataSource.transaction(async (manager) => {
        const repo = manager.getRepository(AttentionLine);
        const before = current ? toAttentionLineSummary(current, (await this.routingOf(manager, [current.id])).get(current.id)) : null;
        const { routingPolicy, priority, queueTimeoutSeconds, chatsDuringCall, offerCallsWithChats, ...columns } = input;
        const row = await repo.save(current ? repo.merge(current, columns) : repo.create({ ...columns, clientId: principal.clientId }));
        await manager.query(
          `INSERT INTO attention_line_routing
             (attention_line_id, tenant_id, routing_policy, priority, queue_timeout_seconds, chats_during_call, offer_calls_with_chats)
           VALUES ($1, $2, $3, $4, $5, $6, $7)
           ON CONFLICT (attention_line_id) DO UPDATE
             SET routing_policy = EXCLUDED.routing_policy, priority = EXCLUDED.priority, queue_timeout_seconds = EXCLUDED.queue_timeout_seconds,
                 chats_during_call = EXCLUDED.chats_during_call, offer_calls_with_chats = EXCLUDED.offer_calls_with_chats`,
          [row.id, principal.clientId, routingPolicy, priority, queueTimeoutSeconds, chatsDuringCall, offerCallsWithChats],
        );
        const after = toAttentionLineSummary(await repo.findOneByOrFail({ id: row.id }), {
          routingPolicy,
          priority,
          queueTimeoutSeconds,
          chatsDuringCall,
          offerCallsWithChats,
        });
        await this.audit.record(
          principal,
          { entityType: AUDIT_TYPE, entityId: row.id, action: current ? 'update' : 'create', before, after },
          manager,
        );
        return after;
      });
    } catch (error) {
      if (isUniqueViolation(error, 'uq_attention_lines_client_name')) {
        throw new AppException('conflict', {
          message: 'name is already used by another attention line',
          messageKey: 'attentionLineNameTaken',
          data: { fields: { name: ['name is already used by another attention line'] } },
        });
      }
      throw error;
    }
  }

  private async find(clientId: string, id: string): Promise<AttentionLine> {
    const row = await this.lines.findOne({ where: { id, clientId } });
    if (!row) throw AppException.notFound();
    return row;
  }
}
