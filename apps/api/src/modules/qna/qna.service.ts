import { validateQna, type Page, type PagedQuery, type QnaHit, type QnaInput, type QnaSummary } from '@centralita/contracts';
import { Injectable } from '@nestjs/common';
import { InjectDataSource, InjectRepository } from '@nestjs/typeorm';
import type { DataSource, Repository } from 'typeorm';
import { AppException } from '../../common/app.exception';
import { AuditService } from '../admin/audit.service';
import { escapeLike, paginate } from '../admin/paginate';
import { assertRules } from '../admin/rule-check';
import type { Principal } from '../auth/principal';
import { QnaEntry } from './qna-entry.entity';

export function toQnaSummary(e: QnaEntry): QnaSummary {
  return {
    id: e.id,
    question: e.question,
    answer: e.answer,
    category: e.category,
    active: e.active,
    createdAt: e.createdAt.toISOString(),
    updatedAt: e.updatedAt.toISOString(),
  };
}

const AUDIT_TYPE = 'qna';

@Injectable()
export class QnaService {
  constructor(
    @InjectRepository(QnaEntry) private readonly entries: Repository<QnaEntry>,
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly audit: AuditService,
  ) {}

  list(clientId: string, query: PagedQuery): Promise<Page<QnaSummary>> {
    const qb = this.entries.createQueryBuilder('e').where('e.client_id = :clientId', { clientId });
    return paginate(
      qb,
      query,
      {
        sortable: { question: 'e.question', category: 'e.category', active: 'e.active', updatedAt: 'e.updated_at' },
        searchable: ['e.question', 'e.answer', 'e.category'],
        defaultSort: { field: 'question', order: 'asc' },
      },
      toQnaSummary,
    );
  }

  /**
   * Full-text search over active entries ('simple' configuration: no language stemming, so it
   * behaves the same in all seven languages), falling back to a contains match for short words.
   */
  async search(clientId: string, q: string, limit = 10): Promise<QnaHit[]> {
    const rows: { id: string; question: string; answer: string; category: string | null; rank: string }[] = await this.dataSource.query(
      `SELECT id, question, answer, category,
              ts_rank(to_tsvector('simple', question || ' ' || answer), plainto_tsquery('simple', $2)) AS rank
         FROM qna_entries
        WHERE client_id = $1 AND active AND deleted_at IS NULL
          AND (to_tsvector('simple', question || ' ' || answer) @@ plainto_tsquery('simple', $2)
               OR question ILIKE $3 OR answer ILIKE $3)
        ORDER BY rank DESC, question ASC
        LIMIT $4`,
      [clientId, q, `%${escapeLike(q)}%`, limit],
    );
    return rows.map((row) => ({ ...row, rank: Number(row.rank) }));
  }

  async get(clientId: string, id: string): Promise<QnaSummary> {
    return toQnaSummary(await this.find(clientId, id));
  }

  create(principal: Principal, body: Partial<QnaInput>): Promise<QnaSummary> {
    return this.save(principal, null, this.checked(body));
  }

  async update(principal: Principal, id: string, body: Partial<QnaInput>): Promise<QnaSummary> {
    const current = await this.find(principal.clientId, id);
    return this.save(principal, current, this.checked(body));
  }

  async remove(principal: Principal, id: string): Promise<{ deleted: true }> {
    const current = await this.find(principal.clientId, id);
    await this.dataSource.transaction(async (manager) => {
      await manager.softDelete(QnaEntry, { id, clientId: principal.clientId });
      await this.audit.record(
        principal,
        { entityType: AUDIT_TYPE, entityId: id, action: 'delete', before: toQnaSummary(current), after: null },
        manager,
      );
    });
    return { deleted: true };
  }

  private checked(body: Partial<QnaInput>): QnaInput {
    const input: QnaInput = {
      question: (body.question ?? '').trim(),
      answer: (body.answer ?? '').trim(),
      category: body.category?.trim() || null,
      active: body.active ?? true,
    };
    assertRules(validateQna(input));
    return input;
  }

  private save(principal: Principal, current: QnaEntry | null, input: QnaInput): Promise<QnaSummary> {
    return this.dataSource.transaction(async (manager) => {
      const repo = manager.getRepository(QnaEntry);
      const before = current ? toQnaSummary(current) : null;
      const row = await repo.save(current ? repo.merge(current, input) : repo.create({ ...input, clientId: principal.clientId }));
      const after = toQnaSummary(await repo.findOneByOrFail({ id: row.id }));
      await this.audit.record(
        principal,
        { entityType: AUDIT_TYPE, entityId: row.id, action: current ? 'update' : 'create', before, after },
        manager,
      );
      return after;
    });
  }

  private async find(clientId: string, id: string): Promise<QnaEntry> {
    const row = await this.entries.findOne({ where: { id, clientId } });
    if (!row) throw AppException.notFound();
    return row;
  }
}
