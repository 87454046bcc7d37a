import {
  type ApiMessageKey,
  DEFAULT_LANGUAGE,
  DOWNLOAD_LABELS,
  QUEUES,
  REPORT_MAX_RANGE_DAYS,
  csvLine,
  neutraliseCell,
  valueLabel,
  type ConversationDetail,
  type Language,
  type ReportExportJob,
  type ReportExportState,
  type ReportFilters,
  type ReportOptions,
  type ReportPage,
  type ReportType,
} from '@centralita/contracts';
import { ReportSortError, reportPage, type SqlRunner } from '@centralita/domain';
import { InjectQueue } from '@nestjs/bullmq';
import { Inject, Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { FileStore } from '@centralita/contracts/server';
import type { Queue } from 'bullmq';
import type { Readable } from 'node:stream';
import type { DataSource } from 'typeorm';
import { AppException } from '../../common/app.exception';
import type { Principal } from '../auth/principal';
import { FILE_STORE } from '../files/files.module';
import type { ReportFiltersDto, ReportPageQueryDto, StartExportDto } from './reports.dto';

const DAY_MS = 24 * 3600 * 1000;

function validationError(field: string, message: string, messageKey?: ApiMessageKey, params?: Record<string, number>): AppException {
  return new AppException('validation', { message, messageKey, params, data: { fields: { [field]: [message] } } });
}

/** from < to, and the window at most REPORT_MAX_RANGE_DAYS long; the filters the engine reads. */
export function checkWindow(dto: ReportFiltersDto): ReportFilters {
  const from = Date.parse(dto.from);
  const to = Date.parse(dto.to);
  if (!(from < to)) throw validationError('to', 'to must be after from', 'rangeEndBeforeStart');
  if (to - from > REPORT_MAX_RANGE_DAYS * DAY_MS)
    throw validationError('to', `to must be at most ${REPORT_MAX_RANGE_DAYS} days after from`, 'rangeTooLong', {
      count: REPORT_MAX_RANGE_DAYS,
    });
  const filters: ReportFilters = { from: new Date(from).toISOString(), to: new Date(to).toISOString() };
  if (dto.attentionLineId) filters.attentionLineId = dto.attentionLineId;
  if (dto.campaignId) filters.campaignId = dto.campaignId;
  if (dto.agentId) filters.agentId = dto.agentId;
  if (dto.channel) filters.channel = dto.channel;
  if (dto.voicemail === 'true') filters.voicemail = true;
  return filters;
}

interface ExportRow {
  id: string;
  report_type: ReportType;
  format: 'csv' | 'xlsx';
  status: ReportExportState['status'];
  progress: number;
  row_count: number;
  total_rows: number | null;
  file_name: string;
  failure: string | null;
  file_id: string | null;
  created_at: Date;
  finished_at: Date | null;
}

function toState(row: ExportRow): ReportExportState {
  return {
    id: row.id,
    type: row.report_type,
    format: row.format,
    status: row.status,
    progress: row.progress,
    rowCount: row.row_count,
    totalRows: row.total_rows,
    fileName: row.file_name,
    failure: row.failure,
    createdAt: row.created_at.toISOString(),
    finishedAt: row.finished_at?.toISOString() ?? null,
  };
}

const iso = (value: Date | string | null): string | null => (value == null ? null : new Date(value).toISOString());

@Injectable()
export class ReportsService {
  private readonly run: SqlRunner;

  constructor(
    @InjectDataSource() private readonly db: DataSource,
    @InjectQueue(QUEUES.reportExport) private readonly queue: Queue<ReportExportJob>,
    @Inject(FILE_STORE) private readonly files: FileStore,
  ) {
    this.run = (text, values) => this.db.query(text, values);
  }

  async page(principal: Principal, type: ReportType, query: ReportPageQueryDto): Promise<ReportPage> {
    const filters = checkWindow(query);
    const page = query.page ?? 1;
    const pageSize = query.pageSize ?? 25;
    try {
      const result = await reportPage(
        this.run,
        type,
        { tenantId: principal.clientId, filters, now: Date.now() },
        { page, pageSize, sortField: query.sortField, sortOrder: query.sortOrder },
      );
      return { type, page, pageSize, ...result };
    } catch (error) {
      if (error instanceof ReportSortError) throw validationError('sortField', error.message);
      throw error;
    }
  }

  /** `language`: the requester's, for the file's column headers (the worker writes the file later). */
  async startExport(principal: Principal, type: ReportType, body: StartExportDto, language: Language): Promise<ReportExportState> {
    const filters = checkWindow(body);
    const fileName = `${type}-${filters.from.slice(0, 10)}-${filters.to.slice(0, 10)}.${body.format}`;
    const [row] = (await this.db.query(
      `INSERT INTO report_exports (tenant_id, user_id, report_type, format, filters, file_name, language)
       VALUES ($1, $2, $3, $4, $5::jsonb, $6, $7) RETURNING *`,
      [principal.clientId, principal.userId, type, body.format, JSON.stringify(filters), fileName, language],
    )) as ExportRow[];
    // Job id = export id, so a re-sent job is the same job; retries start the file over.
    await this.queue.add('export', { exportId: row!.id }, { jobId: row!.id, attempts: 3, backoff: { type: 'exponential', delay: 2000 } });
    return toState(row!);
  }

  async exportState(tenantId: string, id: string): Promise<ReportExportState> {
    return toState(await this.findExport(tenantId, id));
  }

  /** The file from the shared store, whichever process wrote it; streamed in chunks. */
  async download(tenantId: string, id: string): Promise<{ stream: Readable; byteSize: number; fileName: string; format: 'csv' | 'xlsx' }> {
    const row = await this.findExport(tenantId, id);
    const file = row.status === 'done' && row.file_id ? await this.files.open(tenantId, row.file_id) : null;
    if (!file)
      throw new AppException(
        'conflict',
        row.status === 'expired' || row.status === 'done'
          ? { message: 'The export has expired', messageKey: 'exportExpired' }
          : { message: 'The export is not ready yet', messageKey: 'exportNotReady' },
      );
    return { stream: file.stream, byteSize: file.byteSize, fileName: row.file_name, format: row.format };
  }

  private async findExport(tenantId: string, id: string): Promise<ExportRow> {
    const [row] = (await this.db.query(`SELECT * FROM report_exports WHERE id = $1 AND tenant_id = $2`, [id, tenantId])) as ExportRow[];
    if (!row) throw AppException.notFound();
    return row;
  }

  async conversationDetail(tenantId: string, id: string): Promise<ConversationDetail> {
    const [c] = (await this.db.query(
      `SELECT c.*, al.name AS line, u.name AS agent FROM conversations c
         LEFT JOIN attention_lines al ON al.id = c.attention_line_id LEFT JOIN users u ON u.id = c.agent_id
        WHERE c.id = $1 AND c.tenant_id = $2`,
      [id, tenantId],
    )) as Record<string, unknown>[];
    if (!c) throw AppException.notFound();
    const messages = (await this.db.query(
      `SELECT m.created_at, m.sender_kind, m.sender_id, m.text, u.name AS user_name FROM messages m
         LEFT JOIN users u ON m.sender_kind = 'agent' AND u.id::text = m.sender_id AND u.client_id = m.tenant_id
        WHERE m.conversation_id = $1 AND m.tenant_id = $2 ORDER BY m.sequence`,
      [id, tenantId],
    )) as { created_at: Date; sender_kind: string; sender_id: string | null; text: string; user_name: string | null }[];
    const transitions = (await this.db.query(
      `SELECT t.at, t.from_state, t.to_state, t.event, t.actor_kind, t.actor_id, u.name AS user_name FROM transition_log t
         LEFT JOIN users u ON t.actor_kind IN ('agent', 'supervisor') AND u.id::text = t.actor_id AND u.client_id = t.tenant_id
        WHERE t.entity_type = 'conversation' AND t.entity_id = $1 AND t.tenant_id = $2 ORDER BY t.version`,
      [id, tenantId],
    )) as {
      at: Date;
      from_state: string | null;
      to_state: string;
      event: string;
      actor_kind: string;
      actor_id: string | null;
      user_name: string | null;
    }[];
    const answers = (await this.db.query(
      `SELECT r.created_at, p.name AS poll, q.text AS question, r.value FROM poll_responses r
         JOIN polls p ON p.id = r.poll_id JOIN poll_questions q ON q.id = r.question_id
        WHERE r.conversation_id = $1 AND r.client_id = $2 ORDER BY r.created_at, q.position`,
      [id, tenantId],
    )) as { created_at: Date; poll: string; question: string; value: string }[];
    const customer = String(c.customer_name);
    const agents: string[] = [];
    const addAgent = (name: string | null) => name && !agents.includes(name) && agents.push(name);
    for (const t of transitions) if (t.actor_kind === 'agent') addAgent(t.user_name);
    for (const m of messages) if (m.sender_kind === 'agent') addAgent(m.user_name);
    addAgent((c.agent as string | null) ?? null);
    const senderName = (m: (typeof messages)[number]) =>
      m.sender_kind === 'customer'
        ? customer
        : (m.user_name ?? (m.sender_kind === 'system' ? 'System' : m.sender_kind === 'bot' ? 'Bot' : (m.sender_id ?? m.sender_kind)));
    return {
      id,
      channel: String(c.channel),
      line: (c.line as string | null) ?? null,
      customer,
      status: String(c.status),
      createdAt: iso(c.created_at as Date)!,
      closedAt: iso(c.closed_at as Date | null),
      agents,
      messages: messages.map((m) => ({ at: iso(m.created_at)!, senderKind: m.sender_kind, sender: senderName(m), text: m.text })),
      transitions: transitions.map((t) => ({
        at: iso(t.at)!,
        from: t.from_state,
        to: t.to_state,
        event: t.event,
        actorKind: t.actor_kind,
        actor: t.user_name ?? t.actor_id,
      })),
      surveyAnswers: answers.map((a) => ({ at: iso(a.created_at)!, poll: a.poll, question: a.question, value: a.value })),
    };
  }

  /**
   * The detail as a plain-text transcript or a CSV of its events (cells neutralised), labelled in
   * `language`, the requester's: headings, states, events, channel and roles in words (DOWNLOAD_LABELS);
   * names and text as written, times ISO-8601.
   */
  async conversationDetailFile(
    tenantId: string,
    id: string,
    format: 'txt' | 'csv',
    language: Language = DEFAULT_LANGUAGE,
  ): Promise<{ body: string; fileName: string }> {
    const d = await this.conversationDetail(tenantId, id);
    const fileName = `conversation-${id}.${format}`;
    const state = (code: string | null) => (code === null ? '-' : valueLabel('conversationStatus', code, language));
    const change = (t: ConversationDetail['transitions'][number]) =>
      `${state(t.from)} -> ${state(t.to)} (${valueLabel('conversationEvent', t.event, language)})`;
    // Agents and supervisors by name; the customer (a visitor id) and the system by their role.
    const actor = (t: ConversationDetail['transitions'][number]) =>
      (t.actorKind === 'agent' || t.actorKind === 'supervisor') && t.actor ? t.actor : valueLabel('actor', t.actorKind, language);
    const sender = (m: ConversationDetail['messages'][number]) =>
      m.senderKind === 'system' || m.senderKind === 'bot' ? valueLabel('actor', m.senderKind, language) : m.sender;
    if (format === 'csv') {
      const labels = DOWNLOAD_LABELS[language].detailCsv;
      const rows: string[][] = [[labels.time, labels.kind, labels.who, labels.text]];
      const events = [
        ...d.messages.map((m) => [m.at, labels.message, sender(m), m.text]),
        ...d.transitions.map((t) => [t.at, labels.status, actor(t), change(t)]),
        ...d.surveyAnswers.map((a) => [a.at, labels.survey, d.customer, `${a.question}: ${a.value}`]),
      ].sort((a, b) => a[0]!.localeCompare(b[0]!));
      rows.push(...events);
      return { body: rows.map((row) => csvLine(row.map(neutraliseCell))).join(''), fileName };
    }
    const labels = DOWNLOAD_LABELS[language].transcript;
    const lines = [
      `${labels.conversation} ${d.id}`,
      `${labels.channel}: ${valueLabel('channel', d.channel, language)}`,
      `${labels.line}: ${d.line ?? labels.none}`,
      `${labels.customer}: ${d.customer}`,
      `${labels.agents}: ${d.agents.join(', ') || labels.none}`,
      `${labels.status}: ${valueLabel('conversationStatus', d.status, language)}`,
      `${labels.started}: ${d.createdAt}`,
      `${labels.closed}: ${d.closedAt ?? labels.none}`,
      '',
      labels.messages,
      ...d.messages.map((m) => `[${m.at}] ${sender(m)}: ${m.text}`),
      '',
      labels.statusChanges,
      ...d.transitions.map(
        (t) => `[${t.at}] ${state(t.from)} -> ${state(t.to)} (${valueLabel('conversationEvent', t.event, language)}, ${actor(t)})`,
      ),
    ];
    if (d.surveyAnswers.length) lines.push('', labels.survey, ...d.surveyAnswers.map((a) => `[${a.at}] ${a.question}: ${a.value}`));
    return { body: `${lines.join('\n')}\n`, fileName };
  }

  async options(tenantId: string): Promise<ReportOptions> {
    const [lines, campaigns, dialerCampaigns, agents, channels] = await Promise.all([
      this.db.query(`SELECT id, name FROM attention_lines WHERE client_id = $1 AND deleted_at IS NULL ORDER BY name`, [tenantId]),
      this.db.query(`SELECT id, name FROM campaigns WHERE client_id = $1 AND deleted_at IS NULL ORDER BY name`, [tenantId]),
      this.db.query(`SELECT id, name FROM dialer_campaigns WHERE tenant_id = $1 AND deleted_at IS NULL ORDER BY name`, [tenantId]),
      this.db.query(`SELECT u.id, u.name FROM users u JOIN agent_presence ap ON ap.user_id = u.id WHERE u.client_id = $1 ORDER BY u.name`, [
        tenantId,
      ]),
      this.db.query(`SELECT DISTINCT channel FROM conversations WHERE tenant_id = $1 ORDER BY channel`, [tenantId]),
    ]);
    return {
      lines,
      campaigns,
      dialerCampaigns,
      agents,
      channels: (channels as { channel: string }[]).map((row) => row.channel),
    };
  }
}
