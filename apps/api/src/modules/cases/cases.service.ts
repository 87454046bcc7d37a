import {
  CASE_ACTIVITY_KINDS,
  CASE_LIMITS,
  CASE_STATUSES,
  caseCode,
  caseNumberOf,
  validateCase,
  type CaseActivity,
  type CaseActivityKind,
  type CaseDetail,
  type CaseHistoryEntry,
  type CaseInput,
  type CaseOptions,
  type CaseStatus,
  type CaseSummary,
  type CaseTranscript,
  type ConversationCase,
  QUEUES,
  type GeoArea,
  type GeoImportJob,
  type GeoImportState,
  type GeoLevel,
  type Page,
  type RuleIssue,
} from '@centralita/contracts';
import { InjectQueue } from '@nestjs/bullmq';
import { Injectable } from '@nestjs/common';
import type { Queue } from 'bullmq';
import type { EntityManager } from 'typeorm';
import { VideoService } from '../video/video.service';
import { VoiceRecordingsService } from '../voice/voice-recordings.service';
import { AppException } from '../../common/app.exception';
import { escapeLike, pageOf, sortColumn } from '../admin/paginate';
import { assertRules } from '../admin/rule-check';
import type { Principal } from '../auth/principal';
import { CASE_COLUMNS, CasesRepository, type CaseField, type CaseRow, type HistoryInsert } from './cases.repository';

export interface CaseListQuery {
  page?: number;
  pageSize?: number;
  sortField?: string;
  sortOrder?: 'asc' | 'desc';
  q?: string;
  status?: string;
  typeId?: string;
  ownerId?: string;
  assigneeId?: string;
  from?: string;
  to?: string;
}

const SORTABLE = {
  code: 'c.number',
  subject: 'c.subject',
  status: 'c.status',
  createdAt: 'c.created_at',
  updatedAt: 'c.updated_at',
  contactName: 'c.contact_name',
};

const iso = (value: Date | string | null): string | null => (value == null ? null : new Date(value).toISOString());
const blankToNull = (value: unknown): string | null => (typeof value === 'string' && value.trim() !== '' ? value.trim() : null);
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

type SummaryRow = CaseRow & { type_name: string | null; owner_name: string | null };

function toSummary(row: SummaryRow): CaseSummary {
  return {
    id: row.id,
    code: caseCode(row.number),
    number: row.number,
    subject: row.subject,
    status: row.status as CaseStatus,
    typeId: row.type_id,
    typeName: row.type_name,
    ownerId: row.owner_id,
    ownerName: row.owner_name,
    contactName: row.contact_name,
    contactEmail: row.contact_email,
    contactPhone: row.contact_phone,
    createdAt: iso(row.created_at)!,
    updatedAt: iso(row.updated_at)!,
  };
}

const GEO_IMPORT_COLUMNS = 'id, file_name, status, total_rows, imported_areas, errors, failure, failure_code, created_at';
interface GeoImportRow {
  id: string;
  file_name: string;
  status: GeoImportState['status'];
  total_rows: number;
  imported_areas: number;
  errors: GeoImportState['errors'];
  failure: string | null;
  failure_code: string | null;
  created_at: Date;
}
const toGeoImport = (row: GeoImportRow): GeoImportState => ({
  id: row.id,
  fileName: row.file_name,
  status: row.status,
  totalRows: row.total_rows,
  importedAreas: row.imported_areas,
  errors: row.errors,
  failure: row.failure,
  failureCode: row.failure_code,
  createdAt: iso(row.created_at)!,
});

/** The case registry: rules, tenant scope and history; SQL lives in CasesRepository. */
@Injectable()
export class CasesService {
  constructor(
    private readonly repo: CasesRepository,
    @InjectQueue(QUEUES.geoImport) private readonly geoQueue: Queue<GeoImportJob>,
    private readonly video: VideoService,
    private readonly voiceRecordings: VoiceRecordingsService,
  ) {}

  /** Stores a spreadsheet of provinces, cantons and districts and queues its import (the worker reads it). */
  async startGeoImport(principal: Principal, fileName: string, file: Buffer): Promise<GeoImportState> {
    if (file.length === 0) assertRules([{ field: 'file', key: 'required' }]);
    await this.repo.ensureCatalogues(principal.clientId);
    const [row]: GeoImportRow[] = await this.repo.dataSource.query(
      `INSERT INTO geo_imports (tenant_id, created_by, file_name, file) VALUES ($1, $2, $3, $4) RETURNING ${GEO_IMPORT_COLUMNS}`,
      [principal.clientId, principal.userId, fileName.slice(0, 255) || 'upload', file],
    );
    await this.geoQueue.add(
      'import',
      { importId: row.id },
      { jobId: row.id, attempts: 3, backoff: { type: 'exponential', delay: 2000 }, removeOnComplete: 1000 },
    );
    return toGeoImport(row);
  }

  async geoImport(tenantId: string, id: string): Promise<GeoImportState> {
    const [row]: GeoImportRow[] = await this.repo.dataSource.query(
      `SELECT ${GEO_IMPORT_COLUMNS} FROM geo_imports WHERE id = $1 AND tenant_id = $2`,
      [id, tenantId],
    );
    if (!row) throw AppException.notFound();
    return toGeoImport(row);
  }

  async options(tenantId: string): Promise<CaseOptions> {
    await this.repo.ensureCatalogues(tenantId);
    const db = this.repo.dataSource;
    const [types, identificationTypes, provinces, users] = await Promise.all([
      db.query(`SELECT id, code, name FROM case_types WHERE tenant_id = $1 AND active ORDER BY position, name`, [tenantId]),
      db.query(`SELECT id, code, name, pattern FROM identification_types WHERE tenant_id = $1 AND active ORDER BY position, name`, [
        tenantId,
      ]),
      this.geo(tenantId, 'province', null),
      db.query(`SELECT id, name FROM users WHERE client_id = $1 AND active ORDER BY name`, [tenantId]),
    ]);
    return { types, identificationTypes, provinces, users };
  }

  async geo(tenantId: string, level: GeoLevel, parentId: string | null): Promise<GeoArea[]> {
    await this.repo.ensureCatalogues(tenantId);
    const rows: { id: string; level: GeoLevel; parent_id: string | null; code: string; name: string }[] = await this.repo.dataSource.query(
      `SELECT id, level, parent_id, code, name FROM geo_areas
       WHERE tenant_id = $1 AND level = $2 AND ($3::uuid IS NULL OR parent_id = $3) ORDER BY code`,
      [tenantId, level, parentId],
    );
    return rows.map((row) => ({ id: row.id, level: row.level, parentId: row.parent_id, code: row.code, name: row.name }));
  }

  /** The WHERE of a list or an export: tenant first, then every filter given. */
  private where(tenantId: string, query: CaseListQuery): { sql: string; params: unknown[] } {
    const params: unknown[] = [tenantId];
    const parts = ['c.tenant_id = $1'];
    const add = (sql: string, value: unknown) => {
      params.push(value);
      parts.push(sql.replace('?', `$${params.length}`));
    };
    const problems: RuleIssue[] = [];
    if (query.status) {
      if (!(CASE_STATUSES as readonly string[]).includes(query.status))
        problems.push({ field: 'status', key: 'oneOf', values: { options: CASE_STATUSES.join(', ') } });
      else add('c.status = ?', query.status);
    }
    for (const [field, sql] of [
      ['typeId', 'c.type_id = ?'],
      ['ownerId', 'c.owner_id = ?'],
      ['assigneeId', 'EXISTS (SELECT 1 FROM case_assignees a WHERE a.case_id = c.id AND a.user_id = ?)'],
    ] as const) {
      const value = query[field];
      if (!value) continue;
      if (!UUID.test(value)) problems.push({ field, key: 'pattern' });
      else add(sql, value);
    }
    for (const [field, sql] of [
      ['from', 'c.created_at >= ?'],
      ['to', 'c.created_at < ?'],
    ] as const) {
      const value = query[field];
      if (!value) continue;
      if (!/^\d{4}-\d{2}-\d{2}([T ][\d:.]+(Z|[+-]\d{2}:?\d{2})?)?$/.test(value) || Number.isNaN(Date.parse(value)))
        problems.push({ field, key: 'date' });
      else add(sql, new Date(value));
    }
    if (query.from && query.to && !problems.length && Date.parse(query.from) >= Date.parse(query.to))
      problems.push({ field: 'to', key: 'dateOrder' });
    assertRules(problems);
    if (query.q) {
      const like = `%${escapeLike(query.q)}%`;
      const number = caseNumberOf(query.q);
      params.push(like);
      const p = `$${params.length}`;
      const byNumber = number === null ? '' : ` OR c.number = ${Number(number)}`;
      parts.push(
        `(c.subject ILIKE ${p} OR c.description ILIKE ${p} OR c.contact_name ILIKE ${p} OR c.contact_email ILIKE ${p} OR c.contact_phone ILIKE ${p} OR c.identification_number ILIKE ${p}${byNumber})`,
      );
    }
    return { sql: parts.join(' AND '), params };
  }

  private readonly summarySelect = `SELECT c.*, t.name AS type_name, o.name AS owner_name FROM cases c
    LEFT JOIN case_types t ON t.id = c.type_id LEFT JOIN users o ON o.id = c.owner_id`;

  async list(tenantId: string, query: CaseListQuery): Promise<Page<CaseSummary>> {
    const spec = { sortable: SORTABLE, defaultSort: { field: 'createdAt', order: 'desc' as const } };
    const { page, pageSize } = pageOf(query, {});
    const column = sortColumn(query, spec);
    const order = (query.sortOrder ?? (query.sortField ? 'asc' : 'desc')).toUpperCase();
    const { sql, params } = this.where(tenantId, query);
    const [rows, [{ total }]] = await Promise.all([
      this.repo.dataSource.query(
        `${this.summarySelect} WHERE ${sql} ORDER BY ${column} ${order}, c.id LIMIT ${pageSize} OFFSET ${(page - 1) * pageSize}`,
        params,
      ) as Promise<SummaryRow[]>,
      this.repo.dataSource.query(`SELECT count(*)::int AS total FROM cases c WHERE ${sql}`, params) as Promise<{ total: number }[]>,
    ]);
    return { items: rows.map(toSummary), total, page, pageSize };
  }

  /** Rows of an export, in the list's order, at most exportMaxRows (a 400 says to narrow the filters beyond). */
  async exportRows(tenantId: string, query: CaseListQuery): Promise<(CaseSummary & { description: string; assignees: string })[]> {
    const { sql, params } = this.where(tenantId, query);
    const [{ total }]: { total: number }[] = await this.repo.dataSource.query(
      `SELECT count(*)::int AS total FROM cases c WHERE ${sql}`,
      params,
    );
    if (total > CASE_LIMITS.exportMaxRows)
      throw new AppException('validation', {
        message: `The export would have ${total} cases; narrow the filters to at most ${CASE_LIMITS.exportMaxRows}`,
        data: { fields: { from: ['too many cases for one export'] } },
      });
    const rows: (SummaryRow & { assignees: string | null })[] = await this.repo.dataSource.query(
      `SELECT c.*, t.name AS type_name, o.name AS owner_name,
         (SELECT string_agg(u.name, ', ' ORDER BY u.name) FROM case_assignees a JOIN users u ON u.id = a.user_id WHERE a.case_id = c.id) AS assignees
       FROM cases c LEFT JOIN case_types t ON t.id = c.type_id LEFT JOIN users o ON o.id = c.owner_id
       WHERE ${sql} ORDER BY c.number`,
      params,
    );
    return rows.map((row) => ({ ...toSummary(row), description: row.description, assignees: row.assignees ?? '' }));
  }

  /** Checks references (type, owner, geography, identification) belong to the tenant and fit together. */
  private async checkInput(
    tenantId: string,
    input: Partial<Record<CaseField, unknown>>,
    current: CaseRow | null,
  ): Promise<Record<string, unknown>> {
    const given = (field: string): boolean => (input as Record<string, unknown>)[field] !== undefined;
    const merged = (field: CaseField): unknown =>
      given(field) ? input[field] : current ? current[CASE_COLUMNS[field] as keyof CaseRow] : undefined;
    const issues: RuleIssue[] = [];
    const idRef = async (field: CaseField, check: (id: string) => Promise<boolean>) => {
      const value = input[field];
      if (value === undefined || value === null || value === '') return;
      if (typeof value !== 'string' || !UUID.test(value) || !(await check(value)))
        issues.push({ field, key: 'unknown', values: { values: String(value).slice(0, 60) } });
    };
    await idRef('typeId', async (id) => !!(await this.repo.catalogueRow('case_types', tenantId, id)));
    await idRef('ownerId', async (id) => (await this.repo.tenantUsers(tenantId, [id])).has(id));
    await idRef('identificationTypeId', async (id) => !!(await this.repo.catalogueRow('identification_types', tenantId, id)));
    const geo = async (field: 'provinceId' | 'cantonId' | 'districtId', level: GeoLevel, parentField: 'provinceId' | 'cantonId' | null) =>
      idRef(field, async (id) => {
        const area = await this.repo.geoArea(tenantId, id);
        if (!area || area.level !== level) return false;
        return parentField === null || area.parent_id === merged(parentField);
      });
    await geo('provinceId', 'province', null);
    await geo('cantonId', 'canton', 'provinceId');
    await geo('districtId', 'district', 'cantonId');
    const idTypeId = merged('identificationTypeId');
    const idType =
      typeof idTypeId === 'string' && UUID.test(idTypeId) ? await this.repo.catalogueRow('identification_types', tenantId, idTypeId) : null;
    const whole = Object.fromEntries((Object.keys(CASE_COLUMNS) as CaseField[]).map((field) => [field, merged(field)]));
    const ruleIssues = validateCase(whole, idType?.pattern ?? null).filter(
      (issue) => current === null || given(issue.field) || (issue.field === 'identificationNumber' && given('identificationTypeId')),
    );
    assertRules([...ruleIssues, ...issues]);
    const values: Record<string, unknown> = {};
    for (const field of Object.keys(input) as CaseField[]) {
      if (!(field in CASE_COLUMNS) || input[field] === undefined) continue;
      values[CASE_COLUMNS[field]] =
        field === 'subject' || field === 'description' ? String(input[field]).trim() : blankToNull(input[field]);
    }
    return values;
  }

  async create(principal: Principal, input: Partial<CaseInput> & { conversationId?: string }): Promise<CaseDetail> {
    const tenantId = principal.clientId;
    await this.repo.ensureCatalogues(tenantId);
    const { conversationId, ...fields } = input;
    const values = await this.checkInput(tenantId, fields, null);
    if (conversationId !== undefined && (typeof conversationId !== 'string' || !UUID.test(conversationId)))
      assertRules([{ field: 'conversationId', key: 'pattern' }]);
    const id = await this.repo.transaction(async (m) => {
      if (conversationId) await this.assertLinkable(m, tenantId, conversationId);
      const number = await this.repo.nextNumber(m, tenantId);
      const row = await this.repo.insertCase(m, tenantId, number, values, principal.userId);
      const history: HistoryInsert[] = [{ action: 'created', newValue: caseCode(number) }];
      if (conversationId) {
        await m.query(`INSERT INTO case_conversations (conversation_id, case_id, tenant_id, linked_by) VALUES ($1, $2, $3, $4)`, [
          conversationId,
          row.id,
          tenantId,
          principal.userId,
        ]);
        history.push({ action: 'linked', newValue: conversationId });
      }
      await this.repo.history(m, tenantId, row.id, principal.userId, history);
      return row.id;
    });
    return this.detail(tenantId, id);
  }

  async update(principal: Principal, id: string, input: Partial<CaseInput>): Promise<CaseDetail> {
    const tenantId = principal.clientId;
    await this.repo.transaction(async (m) => {
      const current = await this.repo.findCase(m, tenantId, id, true);
      if (!current) throw AppException.notFound();
      const values = await this.checkInput(tenantId, input, current);
      const changes: HistoryInsert[] = [];
      for (const [column, value] of Object.entries(values)) {
        const before = current[column as keyof CaseRow] as unknown;
        if ((before ?? null) === (value ?? null)) {
          delete values[column];
          continue;
        }
        const field = (Object.keys(CASE_COLUMNS) as CaseField[]).find((key) => CASE_COLUMNS[key] === column)!;
        changes.push({
          action: 'changed',
          field,
          oldValue: await this.readable(m, field, before),
          newValue: await this.readable(m, field, value),
        });
      }
      if ('status' in values) values.closed_at = values.status === 'closed' || values.status === 'resolved' ? new Date() : null;
      await this.repo.updateCase(m, tenantId, id, values);
      await this.repo.history(m, tenantId, id, principal.userId, changes);
    });
    return this.detail(tenantId, id);
  }

  /** A value as the history shows it: references by their name, not their id. */
  private async readable(m: EntityManager, field: CaseField, value: unknown): Promise<string | null> {
    if (value == null) return null;
    const table = {
      typeId: 'case_types',
      ownerId: 'users',
      provinceId: 'geo_areas',
      cantonId: 'geo_areas',
      districtId: 'geo_areas',
      identificationTypeId: 'identification_types',
    }[field as string];
    if (!table) return String(value);
    const [row]: { name: string }[] = await m.query(`SELECT name FROM ${table} WHERE id = $1`, [value]);
    return row?.name ?? String(value);
  }

  private async assertLinkable(m: EntityManager, tenantId: string, conversationId: string): Promise<void> {
    const conversation = await this.repo.conversation(m, tenantId, conversationId);
    if (!conversation) throw new AppException('not_found', { data: { field: 'conversationId' } });
    const [linked]: { case_id: string; number: number }[] = await m.query(
      `SELECT l.case_id, c.number FROM case_conversations l JOIN cases c ON c.id = l.case_id WHERE l.conversation_id = $1`,
      [conversationId],
    );
    if (linked)
      throw new AppException('conflict', {
        message: `This conversation is already linked to case ${caseCode(linked.number)}`,
        data: { caseId: linked.case_id, caseCode: caseCode(linked.number) },
      });
  }

  async link(principal: Principal, id: string, conversationId: string): Promise<CaseDetail> {
    const tenantId = principal.clientId;
    await this.repo.transaction(async (m) => {
      if (!(await this.repo.findCase(m, tenantId, id, true))) throw AppException.notFound();
      await this.assertLinkable(m, tenantId, conversationId);
      try {
        await m.query(`INSERT INTO case_conversations (conversation_id, case_id, tenant_id, linked_by) VALUES ($1, $2, $3, $4)`, [
          conversationId,
          id,
          tenantId,
          principal.userId,
        ]);
      } catch (error) {
        if ((error as { driverError?: { code?: string }; code?: string }).driverError?.code === '23505')
          throw new AppException('conflict', { message: 'This conversation is already linked to a case' });
        throw error;
      }
      await this.repo.touch(m, id);
      await this.repo.history(m, tenantId, id, principal.userId, [{ action: 'linked', newValue: conversationId }]);
    });
    return this.detail(tenantId, id);
  }

  async unlink(principal: Principal, id: string, conversationId: string): Promise<CaseDetail> {
    const tenantId = principal.clientId;
    await this.repo.transaction(async (m) => {
      if (!(await this.repo.findCase(m, tenantId, id, true))) throw AppException.notFound();
      const removed: unknown[] = await m.query(
        `DELETE FROM case_conversations WHERE conversation_id = $1 AND case_id = $2 AND tenant_id = $3 RETURNING conversation_id`,
        [conversationId, id, tenantId],
      );
      if (removed.length === 0) throw AppException.notFound();
      await this.repo.touch(m, id);
      await this.repo.history(m, tenantId, id, principal.userId, [{ action: 'unlinked', oldValue: conversationId }]);
    });
    return this.detail(tenantId, id);
  }

  async addNote(principal: Principal, id: string, text: unknown, mentions: unknown): Promise<CaseDetail> {
    const tenantId = principal.clientId;
    const body = typeof text === 'string' ? text.trim() : '';
    const issues: RuleIssue[] = [];
    if (!body) issues.push({ field: 'text', key: 'required' });
    else if (body.length > CASE_LIMITS.noteMax) issues.push({ field: 'text', key: 'maxLength', values: { count: CASE_LIMITS.noteMax } });
    const ids = mentions == null ? [] : Array.isArray(mentions) ? [...new Set(mentions)] : null;
    if (ids === null || ids.some((value) => typeof value !== 'string' || !UUID.test(value)))
      issues.push({ field: 'mentions', key: 'pattern' });
    else if (ids.length > CASE_LIMITS.mentionsMax)
      issues.push({ field: 'mentions', key: 'range', values: { min: 0, max: CASE_LIMITS.mentionsMax } });
    assertRules(issues);
    const known = await this.repo.tenantUsers(tenantId, ids as string[]);
    const unknown = (ids as string[]).filter((value) => !known.has(value));
    if (unknown.length) assertRules([{ field: 'mentions', key: 'unknown', values: { values: unknown.join(', ') } }]);
    await this.repo.transaction(async (m) => {
      if (!(await this.repo.findCase(m, tenantId, id, true))) throw AppException.notFound();
      await m.query(`INSERT INTO case_notes (case_id, tenant_id, author_id, text, mentions) VALUES ($1, $2, $3, $4, $5::uuid[])`, [
        id,
        tenantId,
        principal.userId,
        body,
        ids,
      ]);
      await this.repo.touch(m, id);
      await this.repo.history(m, tenantId, id, principal.userId, [{ action: 'note_added', newValue: body.slice(0, 200) }]);
    });
    return this.detail(tenantId, id);
  }

  async addActivity(
    principal: Principal,
    id: string,
    input: { kind?: unknown; title?: unknown; dueAt?: unknown; assigneeId?: unknown },
  ): Promise<CaseDetail> {
    const tenantId = principal.clientId;
    const issues: RuleIssue[] = [];
    const title = typeof input.title === 'string' ? input.title.trim() : '';
    if (!(CASE_ACTIVITY_KINDS as readonly unknown[]).includes(input.kind))
      issues.push({ field: 'kind', key: 'oneOf', values: { options: CASE_ACTIVITY_KINDS.join(', ') } });
    if (!title) issues.push({ field: 'title', key: 'required' });
    else if (title.length > CASE_LIMITS.activityTitleMax)
      issues.push({ field: 'title', key: 'maxLength', values: { count: CASE_LIMITS.activityTitleMax } });
    let dueAt: Date | null = null;
    if (input.dueAt != null && input.dueAt !== '') {
      dueAt = typeof input.dueAt === 'string' && /^\d{4}-\d{2}-\d{2}/.test(input.dueAt) ? new Date(input.dueAt) : null;
      if (!dueAt || Number.isNaN(dueAt.getTime())) issues.push({ field: 'dueAt', key: 'date' });
    }
    const assigneeId = input.assigneeId == null || input.assigneeId === '' ? null : input.assigneeId;
    if (
      assigneeId !== null &&
      (typeof assigneeId !== 'string' || !UUID.test(assigneeId) || !(await this.repo.tenantUsers(tenantId, [assigneeId])).has(assigneeId))
    )
      issues.push({ field: 'assigneeId', key: 'unknown', values: { values: String(assigneeId).slice(0, 60) } });
    assertRules(issues);
    await this.repo.transaction(async (m) => {
      if (!(await this.repo.findCase(m, tenantId, id, true))) throw AppException.notFound();
      await m.query(
        `INSERT INTO case_activities (case_id, tenant_id, kind, title, due_at, assignee_id, created_by) VALUES ($1, $2, $3, $4, $5, $6, $7)`,
        [id, tenantId, input.kind as CaseActivityKind, title, dueAt, assigneeId, principal.userId],
      );
      await this.repo.touch(m, id);
      await this.repo.history(m, tenantId, id, principal.userId, [
        { action: 'activity_added', field: input.kind as string, newValue: title },
      ]);
    });
    return this.detail(tenantId, id);
  }

  async setActivityDone(principal: Principal, id: string, activityId: string, done: boolean): Promise<CaseDetail> {
    const tenantId = principal.clientId;
    await this.repo.transaction(async (m) => {
      if (!(await this.repo.findCase(m, tenantId, id, true))) throw AppException.notFound();
      const [activity]: { title: string; done_at: Date | null }[] = await m.query(
        `SELECT title, done_at FROM case_activities WHERE id = $1 AND case_id = $2 AND tenant_id = $3`,
        [activityId, id, tenantId],
      );
      if (!activity) throw AppException.notFound();
      if ((activity.done_at !== null) === done) return;
      await m.query(`UPDATE case_activities SET done_at = $2 WHERE id = $1`, [activityId, done ? new Date() : null]);
      await this.repo.touch(m, id);
      await this.repo.history(m, tenantId, id, principal.userId, [
        { action: done ? 'activity_done' : 'activity_reopened', newValue: activity.title },
      ]);
    });
    return this.detail(tenantId, id);
  }

  async assign(principal: Principal, id: string, userId: string): Promise<CaseDetail> {
    const tenantId = principal.clientId;
    const users = await this.repo.tenantUsers(tenantId, [userId]);
    if (!users.has(userId)) assertRules([{ field: 'userId', key: 'unknown', values: { values: userId } }]);
    await this.repo.transaction(async (m) => {
      if (!(await this.repo.findCase(m, tenantId, id, true))) throw AppException.notFound();
      const added: unknown[] = await m.query(
        `INSERT INTO case_assignees (case_id, user_id, tenant_id, assigned_by) VALUES ($1, $2, $3, $4) ON CONFLICT DO NOTHING RETURNING user_id`,
        [id, userId, tenantId, principal.userId],
      );
      if (added.length === 0) return;
      await this.repo.touch(m, id);
      await this.repo.history(m, tenantId, id, principal.userId, [{ action: 'assigned', newValue: users.get(userId)! }]);
    });
    return this.detail(tenantId, id);
  }

  async unassign(principal: Principal, id: string, userId: string): Promise<CaseDetail> {
    const tenantId = principal.clientId;
    await this.repo.transaction(async (m) => {
      if (!(await this.repo.findCase(m, tenantId, id, true))) throw AppException.notFound();
      const [removed]: { name: string }[] = await m.query(
        `DELETE FROM case_assignees a USING users u WHERE a.case_id = $1 AND a.user_id = $2 AND a.tenant_id = $3 AND u.id = a.user_id RETURNING u.name`,
        [id, userId, tenantId],
      );
      if (!removed) throw AppException.notFound();
      await this.repo.touch(m, id);
      await this.repo.history(m, tenantId, id, principal.userId, [{ action: 'unassigned', oldValue: removed.name }]);
    });
    return this.detail(tenantId, id);
  }

  async detail(tenantId: string, id: string): Promise<CaseDetail> {
    const db = this.repo.dataSource;
    const [row]: (SummaryRow & {
      province_name: string | null;
      canton_name: string | null;
      district_name: string | null;
      id_type_name: string | null;
    })[] = await db.query(
      `SELECT c.*, t.name AS type_name, o.name AS owner_name, p.name AS province_name, k.name AS canton_name, d.name AS district_name,
         i.name AS id_type_name
       FROM cases c LEFT JOIN case_types t ON t.id = c.type_id LEFT JOIN users o ON o.id = c.owner_id
       LEFT JOIN geo_areas p ON p.id = c.province_id LEFT JOIN geo_areas k ON k.id = c.canton_id LEFT JOIN geo_areas d ON d.id = c.district_id
       LEFT JOIN identification_types i ON i.id = c.identification_type_id
       WHERE c.id = $1 AND c.tenant_id = $2`,
      [id, tenantId],
    );
    if (!row) throw AppException.notFound();
    const [assignees, notes, activities, conversations, history] = await Promise.all([
      db.query(
        `SELECT u.id, u.name FROM case_assignees a JOIN users u ON u.id = a.user_id WHERE a.case_id = $1 ORDER BY a.assigned_at, u.name`,
        [id],
      ),
      db.query(
        `SELECT n.id, n.author_id, u.name AS author_name, n.text, n.created_at,
           COALESCE((SELECT json_agg(json_build_object('id', m.id, 'name', m.name) ORDER BY m.name) FROM users m WHERE m.id = ANY(n.mentions)), '[]') AS mentions
         FROM case_notes n LEFT JOIN users u ON u.id = n.author_id WHERE n.case_id = $1 ORDER BY n.created_at, n.id`,
        [id],
      ),
      db.query(
        `SELECT a.*, u.name AS assignee_name FROM case_activities a LEFT JOIN users u ON u.id = a.assignee_id
         WHERE a.case_id = $1 ORDER BY a.done_at IS NOT NULL, a.due_at NULLS LAST, a.created_at`,
        [id],
      ),
      db.query(
        `SELECT v.id, v.channel, v.customer_name, v.status, v.created_at, l.linked_at FROM case_conversations l
         JOIN conversations v ON v.id = l.conversation_id WHERE l.case_id = $1 ORDER BY v.created_at`,
        [id],
      ),
      db.query(
        `SELECT h.*, u.name AS actor_name FROM case_history h LEFT JOIN users u ON u.id = h.actor_id WHERE h.case_id = $1 ORDER BY h.id`,
        [id],
      ),
    ]);
    return {
      ...toSummary(row),
      description: row.description,
      provinceId: row.province_id,
      cantonId: row.canton_id,
      districtId: row.district_id,
      identificationTypeId: row.identification_type_id,
      identificationNumber: row.identification_number,
      provinceName: row.province_name,
      cantonName: row.canton_name,
      districtName: row.district_name,
      identificationTypeName: row.id_type_name,
      createdBy: row.created_by,
      closedAt: iso(row.closed_at),
      assignees,
      notes: notes.map(
        (n: {
          id: string;
          author_id: string;
          author_name: string | null;
          text: string;
          created_at: Date;
          mentions: { id: string; name: string }[];
        }) => ({
          id: n.id,
          authorId: n.author_id,
          authorName: n.author_name ?? '',
          text: n.text,
          mentions: n.mentions,
          createdAt: iso(n.created_at)!,
        }),
      ),
      activities: activities.map(
        (a: {
          id: string;
          kind: CaseActivityKind;
          title: string;
          due_at: Date | null;
          done_at: Date | null;
          assignee_id: string | null;
          assignee_name: string | null;
          created_at: Date;
        }): CaseActivity => ({
          id: a.id,
          kind: a.kind,
          title: a.title,
          dueAt: iso(a.due_at),
          doneAt: iso(a.done_at),
          assigneeId: a.assignee_id,
          assigneeName: a.assignee_name,
          createdAt: iso(a.created_at)!,
        }),
      ),
      conversations: conversations.map(
        (v: { id: string; channel: string; customer_name: string; status: string; created_at: Date; linked_at: Date }) => ({
          conversationId: v.id,
          channel: v.channel,
          customerName: v.customer_name,
          status: v.status,
          createdAt: iso(v.created_at)!,
          linkedAt: iso(v.linked_at)!,
        }),
      ),
      history: history.map(
        (h: {
          id: string;
          action: CaseHistoryEntry['action'];
          actor_id: string | null;
          actor_name: string | null;
          field: string | null;
          old_value: string | null;
          new_value: string | null;
          at: Date;
        }): CaseHistoryEntry => ({
          id: String(h.id),
          action: h.action,
          actorId: h.actor_id,
          actorName: h.actor_name,
          field: h.field,
          oldValue: h.old_value,
          newValue: h.new_value,
          at: iso(h.at)!,
        }),
      ),
    };
  }

  /** The case a conversation is linked to, or what a new case for it starts with (from the contact). */
  async byConversation(tenantId: string, conversationId: string): Promise<ConversationCase> {
    const conversation = await this.repo.conversation(null, tenantId, conversationId);
    if (!conversation) throw AppException.notFound();
    const [linked]: { case_id: string; number: number }[] = await this.repo.dataSource.query(
      `SELECT l.case_id, c.number FROM case_conversations l JOIN cases c ON c.id = l.case_id WHERE l.conversation_id = $1 AND l.tenant_id = $2`,
      [conversationId, tenantId],
    );
    const [contact]: { name: string; email: string | null; external_id: string; channel: string }[] = conversation.contact_id
      ? await this.repo.dataSource.query(`SELECT name, email, external_id, channel FROM contacts WHERE id = $1 AND tenant_id = $2`, [
          conversation.contact_id,
          tenantId,
        ])
      : [];
    // WhatsApp identifies a customer by their phone number; other channels' ids are not phones.
    const phone =
      contact && contact.channel.toLowerCase() === 'whatsapp' && /^\+?\d{8,15}$/.test(contact.external_id)
        ? `+${contact.external_id.replace(/^\+/, '')}`
        : null;
    return {
      conversationId,
      channel: conversation.channel,
      caseId: linked?.case_id ?? null,
      caseCode: linked ? caseCode(linked.number) : null,
      prefill: {
        contactName: contact?.name ?? conversation.customer_name ?? null,
        contactEmail: contact?.email ?? conversation.customer_email ?? null,
        contactPhone: phone,
      },
    };
  }

  /** A linked conversation's messages in order, with its finished video recordings (signed URLs a <video> plays). */
  async transcript(tenantId: string, id: string, conversationId: string): Promise<CaseTranscript> {
    const [link] = await this.repo.dataSource.query(
      `SELECT v.id, v.channel, v.customer_name FROM case_conversations l JOIN conversations v ON v.id = l.conversation_id
       JOIN cases c ON c.id = l.case_id WHERE l.case_id = $1 AND l.conversation_id = $2 AND c.tenant_id = $3`,
      [id, conversationId, tenantId],
    );
    if (!link) throw AppException.notFound();
    const messages: { id: string; sequence: number; sender_kind: string; sender_name: string | null; text: string; created_at: Date }[] =
      await this.repo.dataSource.query(
        `SELECT m.id, m.sequence, m.sender_kind, u.name AS sender_name, m.text, m.created_at FROM messages m
         LEFT JOIN users u ON m.sender_kind = 'agent' AND u.id::text = m.sender_id
         WHERE m.conversation_id = $1 AND m.tenant_id = $2 ORDER BY m.sequence`,
        [conversationId, tenantId],
      );
    return {
      conversationId,
      channel: link.channel,
      customerName: link.customer_name,
      messages: messages.map((m) => ({
        id: m.id,
        sequence: m.sequence,
        senderKind: m.sender_kind,
        senderName: m.sender_kind === 'customer' ? link.customer_name : m.sender_name,
        text: m.text,
        createdAt: iso(m.created_at)!,
      })),
      recordings: [
        ...(await this.voiceRecordings.recordingsOf(tenantId, conversationId)).map((recording) => ({
          id: recording.id,
          kind: 'audio' as const,
          url: recording.url,
          createdAt: recording.createdAt,
          ...(recording.kind === 'voicemail' ? { voicemail: true } : {}),
        })),
        ...(await this.video.recordingsOf(tenantId, conversationId))
          .filter((recording) => recording.status === 'ready' && recording.url)
          .map((recording) => ({ id: recording.id, kind: 'video' as const, url: recording.url!, createdAt: recording.createdAt })),
      ],
    };
  }
}
