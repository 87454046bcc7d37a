import {
  validateAttentionLine,
  type AttentionLineInput,
  type AttentionLineSummary,
  type BusinessHoursWindow,
  type OptionItem,
  type Page,
  type PagedQuery,
  type RuleIssue,
} from '@centralita/contracts';
import { Injectable } from '@nestjs/common';
import { InjectDataSource, InjectRepository } from '@nestjs/typeorm';
import type { DataSource, Repository } from 'typeorm';
import { AppException } from '../../common/app.exception';
import { AuditService } from '../admin/audit.service';
import { paginate } from '../admin/paginate';
import { assertRules, isUniqueViolation } from '../admin/rule-check';
import type { Principal } from '../auth/principal';
import { AttentionLine } from './attention-line.entity';

export function toAttentionLineSummary(l: AttentionLine): AttentionLineSummary {
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

  list(clientId: string, query: PagedQuery): Promise<Page<AttentionLineSummary>> {
    const qb = this.lines.createQueryBuilder('l').where('l.client_id = :clientId', { clientId });
    return paginate(
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
      toAttentionLineSummary,
    );
  }

  async options(clientId: string): Promise<OptionItem[]> {
    const rows = await this.lines.find({ where: { clientId }, order: { name: 'ASC' }, select: { id: true, name: true } });
    return rows.map(({ id, name }) => ({ id, name }));
  }

  async get(clientId: string, id: string): Promise<AttentionLineSummary> {
    return toAttentionLineSummary(await this.find(clientId, id));
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
      await this.audit.record(
        principal,
        { entityType: AUDIT_TYPE, entityId: id, action: 'delete', before: toAttentionLineSummary(current), after: null },
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
    };
    assertRules(validateAttentionLine(input));
    return input;
  }

  private async save(principal: Principal, current: AttentionLine | null, input: AttentionLineInput): Promise<AttentionLineSummary> {
    try {
      return await this.dataSource.transaction(async (manager) => {
        const repo = manager.getRepository(AttentionLine);
        const before = current ? toAttentionLineSummary(current) : null;
        const row = await repo.save(current ? repo.merge(current, input) : repo.create({ ...input, clientId: principal.clientId }));
        const after = toAttentionLineSummary(await repo.findOneByOrFail({ id: row.id }));
        await this.audit.record(
          principal,
          { entityType: AUDIT_TYPE, entityId: row.id, action: current ? 'update' : 'create', before, after },
          manager,
        );
        return after;
      });
    } catch (error) {
      if (isUniqueViolation(error, 'uq_attention_lines_client_name')) {
        throw new AppException('conflict', { message: 'name is already used by another attention line' });
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
