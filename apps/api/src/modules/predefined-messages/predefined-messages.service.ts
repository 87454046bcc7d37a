import {
  normalizePredefinedShortcut,
  validatePredefinedMessage,
  type Page,
  type PagedQuery,
  type PredefinedMessageInput,
  type PredefinedMessageScope,
  type PredefinedMessageSummary,
} from '@centralita/contracts';
import { Injectable } from '@nestjs/common';
import { InjectDataSource, InjectRepository } from '@nestjs/typeorm';
import type { DataSource, Repository } from 'typeorm';
import { AppException } from '../../common/app.exception';
import { AuditService } from '../admin/audit.service';
import { paginate } from '../admin/paginate';
import { assertRules } from '../admin/rule-check';
import { AttentionLine } from '../attention-lines/attention-line.entity';
import type { Principal } from '../auth/principal';
import type { PredefinedMessageInputDto } from './dto/predefined-messages.dto';
import { PredefinedMessage } from './predefined-message.entity';

export function toPredefinedMessageSummary(m: PredefinedMessage): PredefinedMessageSummary {
  return {
    id: m.id,
    message: m.message,
    shortcut: m.shortcut,
    scope: m.scope as PredefinedMessageScope,
    attentionLineId: m.attentionLineId,
    attentionLineName: m.attentionLine?.name ?? null,
    ownerUserId: m.ownerUserId,
    createdAt: m.createdAt.toISOString(),
    updatedAt: m.updatedAt.toISOString(),
  };
}

const AUDIT_TYPE = 'predefined-message';

/**
 * Tenant and line templates are shared; a personal one is visible to, and changed by, its owner
 * only (an administrator's own personal templates included).
 */
@Injectable()
export class PredefinedMessagesService {
  constructor(
    @InjectRepository(PredefinedMessage) private readonly messages: Repository<PredefinedMessage>,
    @InjectRepository(AttentionLine) private readonly lines: Repository<AttentionLine>,
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly audit: AuditService,
  ) {}

  list(principal: Principal, query: PagedQuery): Promise<Page<PredefinedMessageSummary>> {
    const qb = this.messages
      .createQueryBuilder('m')
      .leftJoinAndSelect('m.attentionLine', 'line')
      .where('m.client_id = :clientId', { clientId: principal.clientId })
      .andWhere("(m.scope <> 'personal' OR m.owner_user_id = :userId)", { userId: principal.userId });
    return paginate(
      qb,
      query,
      {
        sortable: { shortcut: 'm.shortcut', message: 'm.message', scope: 'm.scope', updatedAt: 'm.updated_at' },
        searchable: ['m.shortcut', 'm.message'],
        defaultSort: { field: 'shortcut', order: 'asc' },
      },
      toPredefinedMessageSummary,
    );
  }

  /**
   * The templates an agent may insert while chatting: the tenant's, those of the lines they serve,
   * and their own personal ones. Soft-deleted rows are left out by TypeORM's DeleteDateColumn.
   */
  usable(principal: Principal): Promise<PredefinedMessageSummary[]> {
    return this.messages
      .createQueryBuilder('m')
      .leftJoinAndSelect('m.attentionLine', 'line')
      .where('m.client_id = :clientId', { clientId: principal.clientId })
      .andWhere(
        `(m.scope = 'tenant'
          OR (m.scope = 'personal' AND m.owner_user_id = :userId)
          OR (m.scope = 'line' AND m.attention_line_id IN (
                SELECT attention_line_id FROM agent_attention_lines WHERE user_id = :userId AND tenant_id = :clientId)))`,
        { userId: principal.userId },
      )
      .orderBy('m.shortcut', 'ASC')
      .limit(1000)
      .getMany()
      .then((rows) => rows.map(toPredefinedMessageSummary));
  }

  async get(principal: Principal, id: string): Promise<PredefinedMessageSummary> {
    return toPredefinedMessageSummary(await this.find(principal, id));
  }

  async create(principal: Principal, body: PredefinedMessageInputDto): Promise<PredefinedMessageSummary> {
    const input = await this.checked(principal, body);
    return this.save(principal, null, input);
  }

  async update(principal: Principal, id: string, body: PredefinedMessageInputDto): Promise<PredefinedMessageSummary> {
    const current = await this.find(principal, id);
    return this.save(principal, current, await this.checked(principal, body));
  }

  async remove(principal: Principal, id: string): Promise<{ deleted: true }> {
    const current = await this.find(principal, id);
    await this.dataSource.transaction(async (manager) => {
      await manager.softDelete(PredefinedMessage, { id, clientId: principal.clientId });
      await this.audit.record(
        principal,
        { entityType: AUDIT_TYPE, entityId: id, action: 'delete', before: toPredefinedMessageSummary(current), after: null },
        manager,
      );
    });
    return { deleted: true };
  }

  private async checked(principal: Principal, body: PredefinedMessageInputDto): Promise<PredefinedMessageInput> {
    const input: PredefinedMessageInput = {
      message: body.message ?? '',
      // Stored without the leading '/' (the desk adds it): "/hello" is saved as "hello".
      shortcut: normalizePredefinedShortcut(body.shortcut),
      scope: (body.scope ?? '') as PredefinedMessageScope,
      attentionLineId: body.scope === 'line' ? (body.attentionLineId ?? null) : null,
    };
    assertRules(validatePredefinedMessage(input));
    if (input.attentionLineId && !(await this.lines.exists({ where: { id: input.attentionLineId, clientId: principal.clientId } }))) {
      throw AppException.notFound();
    }
    return input;
  }

  private async save(
    principal: Principal,
    current: PredefinedMessage | null,
    input: PredefinedMessageInput,
  ): Promise<PredefinedMessageSummary> {
    return this.dataSource.transaction(async (manager) => {
      const repo = manager.getRepository(PredefinedMessage);
      const ownerUserId = input.scope === 'personal' ? (current?.ownerUserId ?? principal.userId) : null;
      const before = current ? toPredefinedMessageSummary(current) : null;
      const entity = current
        ? repo.merge(current, { ...input, ownerUserId, attentionLine: undefined })
        : repo.create({ ...input, ownerUserId, clientId: principal.clientId });
      const row = await repo.save(entity);
      const after = toPredefinedMessageSummary(await repo.findOneOrFail({ where: { id: row.id }, relations: { attentionLine: true } }));
      await this.audit.record(
        principal,
        { entityType: AUDIT_TYPE, entityId: row.id, action: current ? 'update' : 'create', before, after },
        manager,
      );
      return after;
    });
  }

  private async find(principal: Principal, id: string): Promise<PredefinedMessage> {
    const row = await this.messages.findOne({ where: { id, clientId: principal.clientId }, relations: { attentionLine: true } });
    if (!row || (row.scope === 'personal' && row.ownerUserId !== principal.userId)) throw AppException.notFound();
    return row;
  }
}
