import type { ReportFilters, ReportRow, ReportType } from '@centralita/contracts';
import type { AgentStatus } from '../machines/agent-presence.machine';
import type { ConversationStatus } from '../machines/conversation.machine';
import type { ActorKind } from '../machines/machine-step';
import { agentOccupancy, agentStateTimes, pauseTimeByReason } from '../kpi/agent-kpis';
import { handledCalls, handledChats } from '../kpi/handle-time';
import { CALL_CHANNEL, type AgentLogRecord, type ConversationLogRecord, type TimeWindow } from '../kpi/kpi-log';
import { queueArrivals, queueEpisodes, queueKpis } from '../kpi/queue-kpis';

/**
 * Reports as SQL plus KPI functions. Nothing here opens a connection: callers (the API for pages,
 * the worker for exports) pass `run`, which executes one parameterised statement. Figures that
 * depend on time (waits, handle times, state times, service level) are computed by the KPI
 * library from transition-log rows, fetched only for the rows of the current page or batch, so an
 * export of any size holds one batch in memory.
 */
export type SqlRunner = (text: string, values: unknown[]) => Promise<Record<string, unknown>[]>;

export interface ReportScope {
  tenantId: string;
  filters: ReportFilters;
  /** Epoch ms the caller treats as "now" (open waits and stays end here). */
  now: number;
}

export interface ReportPageRequest {
  page: number;
  pageSize: number;
  sortField?: string;
  sortOrder?: 'asc' | 'desc';
}

/** Unknown sort field: the caller answers 400 naming `sortField`. */
export class ReportSortError extends Error {
  constructor(readonly field: string) {
    super(`sortField must be one of the sortable columns (got "${field}")`);
  }
}

class Params {
  readonly values: unknown[] = [];
  add(value: unknown): string {
    this.values.push(value);
    return `$${this.values.length}`;
  }
}

interface Definition {
  select: string;
  from: string;
  where(p: Params, scope: ReportScope): string[];
  /** Column key → SQL expression, for the page sort. */
  sort: Record<string, string>;
  defaultSort: { field: string; order: 'asc' | 'desc' };
  /** Unique row id (tie-break and keyset). */
  id: string;
  /** The export walks the report in (key, id) order with keyset batches. */
  key: { expr: string; type: 'timestamptz' | 'text' };
  enrich(run: SqlRunner, rows: Record<string, unknown>[], scope: ReportScope): Promise<ReportRow[]>;
}

const iso = (value: unknown): string | null => (value == null ? null : new Date(value as string | Date).toISOString());
const str = (value: unknown): string | null => (value == null ? null : String(value));
const seconds = (ms: number | null | undefined): number | null => (ms == null ? null : Math.round(ms / 1000));
const round = (value: number | null | undefined, digits = 4): number | null => (value == null ? null : Number(value.toFixed(digits)));

export function reportWindow(filters: ReportFilters): TimeWindow {
  return { from: Date.parse(filters.from), to: Date.parse(filters.to) };
}

/** A day: waits and handle times that end in the window are measured from the row that began them. */
const LOOKBACK_MS = 24 * 3600 * 1000;

interface LogRow {
  entity_id: string;
  from_state: string | null;
  to_state: string;
  event: string;
  actor_kind: string;
  actor_id: string | null;
  at_ms: string | number;
  channel?: string | null;
  attention_line_id?: string | null;
  agent_id?: string | null;
  /** The KPI data bag the host copies onto the row (kpi-log.ts); older rows have none. */
  data?: { channel?: string; attentionLineId?: string | null; agentId?: string | null; pauseReasonId?: string | null } | null;
}

function conversationRecord(row: LogRow, tenantId: string): ConversationLogRecord {
  return {
    entityId: row.entity_id,
    tenantId,
    from: row.from_state as ConversationStatus | null,
    to: row.to_state as ConversationStatus,
    event: row.event,
    at: Number(row.at_ms),
    actor: { kind: row.actor_kind as ActorKind, ...(row.actor_id ? { id: row.actor_id } : {}) },
    // Rows without the data bag fall back to the conversation's current line, channel and agent.
    data: {
      channel: row.data?.channel ?? row.channel ?? undefined,
      attentionLineId: row.data?.attentionLineId ?? row.attention_line_id ?? null,
      agentId: row.data?.agentId ?? row.agent_id ?? null,
    },
  };
}

function agentRecord(row: LogRow, tenantId: string): AgentLogRecord {
  return {
    entityId: row.entity_id,
    tenantId,
    from: row.from_state as AgentStatus | null,
    to: row.to_state as AgentStatus,
    event: row.event,
    at: Number(row.at_ms),
    actor: { kind: row.actor_kind as ActorKind, ...(row.actor_id ? { id: row.actor_id } : {}) },
    ...(row.data ? { data: row.data } : {}),
  };
}

const LOG_COLUMNS = `t.entity_id, t.from_state, t.to_state, t.event, t.actor_kind, t.actor_id, t.at_ms, t.data`;

/**
 * Conversation rows of the given conversations. The log rows carry states only, so line, channel
 * and agent are read from the conversation row (its current values).
 */
async function conversationLog(run: SqlRunner, tenantId: string, ids: string[]): Promise<ConversationLogRecord[]> {
  if (!ids.length) return [];
  const rows = (await run(
    `SELECT ${LOG_COLUMNS}, c.channel, c.attention_line_id, c.agent_id
       FROM transition_log t JOIN conversations c ON c.id = t.entity_id
      WHERE t.tenant_id = $1 AND t.entity_type = 'conversation' AND t.entity_id = ANY($2::uuid[])
      ORDER BY t.entity_id, t.version`,
    [tenantId, ids],
  )) as unknown as LogRow[];
  return rows.map((row) => conversationRecord(row, tenantId));
}

/** Conversation rows of a window (with lookback) for conversations matching `column = ANY(ids)`. */
async function conversationLogFor(
  run: SqlRunner,
  scope: ReportScope,
  column: 'agent_id' | 'attention_line_id',
  ids: string[],
): Promise<ConversationLogRecord[]> {
  if (!ids.length) return [];
  const window = reportWindow(scope.filters);
  const rows = (await run(
    `SELECT ${LOG_COLUMNS}, c.channel, c.attention_line_id, c.agent_id
       FROM transition_log t JOIN conversations c ON c.id = t.entity_id
      WHERE t.tenant_id = $1 AND t.entity_type = 'conversation' AND c.${column} = ANY($2::uuid[])
        AND t.at >= $3 AND t.at < $4
      ORDER BY t.entity_id, t.version`,
    [scope.tenantId, ids, new Date(window.from - LOOKBACK_MS), new Date(window.to)],
  )) as unknown as LogRow[];
  return rows.map((row) => conversationRecord(row, scope.tenantId));
}

/** Presence rows of the agents: the last one at or before `from` (the state at `from`) and those in the window. */
async function agentLog(run: SqlRunner, scope: ReportScope, ids: string[]): Promise<AgentLogRecord[]> {
  if (!ids.length) return [];
  const window = reportWindow(scope.filters);
  const rows = (await run(
    `(SELECT DISTINCT ON (t.entity_id) ${LOG_COLUMNS}, t.version FROM transition_log t
       WHERE t.tenant_id = $1 AND t.entity_type = 'agent' AND t.entity_id = ANY($2::uuid[]) AND t.at <= $3
       ORDER BY t.entity_id, t.at DESC, t.version DESC)
     UNION ALL
     (SELECT ${LOG_COLUMNS}, t.version FROM transition_log t
       WHERE t.tenant_id = $1 AND t.entity_type = 'agent' AND t.entity_id = ANY($2::uuid[]) AND t.at > $3 AND t.at < $4)
     ORDER BY entity_id, version`,
    [scope.tenantId, ids, new Date(window.from), new Date(window.to)],
  )) as unknown as LogRow[];
  return rows.map((row) => agentRecord(row, scope.tenantId));
}

/**
 * Presence rows around the calls of the given phone conversations (rows entering inCall carry the
 * conversation id): each call's agent from its first call of these conversations to a day after the
 * last, enough for the wrap-up that follows. Read within the rows' dates, on the (tenant, at) index.
 */
async function callPresence(run: SqlRunner, tenantId: string, rows: Record<string, unknown>[]): Promise<AgentLogRecord[]> {
  const calls = rows.filter((row) => row.channel === CALL_CHANNEL);
  if (!calls.length) return [];
  const started = calls.map((row) => new Date(row.created_at as string | Date).getTime());
  const records = (await run(
    `WITH calls AS (
       SELECT s.entity_id, min(s.at) AS first_at, max(s.at) AS last_at FROM transition_log s
        WHERE s.tenant_id = $1 AND s.entity_type = 'agent' AND s.to_state = 'inCall' AND s.at >= $3 AND s.at < $4
          AND s.data->>'conversationId' = ANY($2::text[])
        GROUP BY s.entity_id)
     SELECT ${LOG_COLUMNS} FROM transition_log t JOIN calls c ON c.entity_id = t.entity_id
      WHERE t.tenant_id = $1 AND t.entity_type = 'agent' AND t.at >= c.first_at AND t.at < c.last_at + interval '1 day'
      ORDER BY t.entity_id, t.version`,
    [tenantId, calls.map((row) => String(row.id)), new Date(Math.min(...started)), new Date(Math.max(...started) + 2 * LOOKBACK_MS)],
  )) as unknown as LogRow[];
  return records.map((row) => agentRecord(row, tenantId));
}

function agentWhere(p: Params, { tenantId, filters }: ReportScope): string[] {
  const where = [`u.client_id = ${p.add(tenantId)}`];
  if (filters.agentId) where.push(`u.id = ${p.add(filters.agentId)}`);
  if (filters.attentionLineId)
    where.push(
      `EXISTS (SELECT 1 FROM agent_attention_lines x WHERE x.user_id = u.id AND x.attention_line_id = ${p.add(filters.attentionLineId)})`,
    );
  if (filters.campaignId)
    where.push(`EXISTS (SELECT 1 FROM agent_campaigns x WHERE x.user_id = u.id AND x.campaign_id = ${p.add(filters.campaignId)})`);
  if (filters.channel)
    where.push(
      `EXISTS (SELECT 1 FROM agent_attention_lines x JOIN attention_lines l ON l.id = x.attention_line_id WHERE x.user_id = u.id AND lower(l.channel) = lower(${p.add(filters.channel)}))`,
    );
  return where;
}

/** The tenant's rows created inside the report window [from, to). */
function tenantWindow(
  p: Params,
  { tenantId, filters }: Pick<ReportScope, 'tenantId' | 'filters'>,
  tenantColumn: string,
  createdColumn: string,
): string[] {
  return [`${tenantColumn} = ${p.add(tenantId)}`, `${createdColumn} >= ${p.add(filters.from)}`, `${createdColumn} < ${p.add(filters.to)}`];
}

/** The optional filters on the conversation a row belongs to (joined as `c`): line, channel, agent, agent's campaign. */
function conversationFilters(p: Params, filters: ReportFilters): string[] {
  const where: string[] = [];
  if (filters.attentionLineId) where.push(`c.attention_line_id = ${p.add(filters.attentionLineId)}`);
  if (filters.channel) where.push(`c.channel = ${p.add(filters.channel)}`);
  if (filters.agentId) where.push(`c.agent_id = ${p.add(filters.agentId)}`);
  if (filters.campaignId)
    where.push(`EXISTS (SELECT 1 FROM agent_campaigns x WHERE x.user_id = c.agent_id AND x.campaign_id = ${p.add(filters.campaignId)})`);
  return where;
}

const AGENT_BASE = {
  select: `u.id, u.name AS agent, u.email`,
  from: `users u JOIN agent_presence ap ON ap.user_id = u.id`,
  where: agentWhere,
  sort: { agent: 'u.name', email: 'u.email' },
  defaultSort: { field: 'agent', order: 'asc' as const },
  id: 'u.id',
  key: { expr: 'u.name', type: 'text' as const },
};

const DEFINITIONS: Record<ReportType, Definition> = {
  conversations: {
    select: `c.id, c.created_at, c.channel, al.name AS line, u.name AS agent, c.customer_name, c.status, c.closed_at,
             (SELECT count(*) FROM messages m WHERE m.conversation_id = c.id)::int AS messages`,
    from: `conversations c LEFT JOIN attention_lines al ON al.id = c.attention_line_id LEFT JOIN users u ON u.id = c.agent_id`,
    where(p, scope) {
      const where = [...tenantWindow(p, scope, 'c.tenant_id', 'c.created_at'), ...conversationFilters(p, scope.filters)];
      // Voicemails are found by their recording (a line's staff review them from this list).
      if (scope.filters.voicemail)
        where.push(`EXISTS (SELECT 1 FROM voice_recordings vr WHERE vr.conversation_id = c.id AND vr.kind = 'voicemail')`);
      return where;
    },
    sort: {
      createdAt: 'c.created_at',
      channel: 'c.channel',
      line: 'al.name',
      agent: 'u.name',
      customer: 'c.customer_name',
      status: 'c.status',
      closedAt: 'c.closed_at',
    },
    defaultSort: { field: 'createdAt', order: 'desc' },
    id: 'c.id',
    key: { expr: 'c.created_at', type: 'timestamptz' },
    async enrich(run, rows, scope) {
      const records = await conversationLog(
        run,
        scope.tenantId,
        rows.map((row) => String(row.id)),
      );
      const all = { from: 0, to: scope.now };
      const waits = new Map<string, number>();
      for (const stay of queueArrivals(records, all))
        waits.set(stay.conversationId, (waits.get(stay.conversationId) ?? 0) + (stay.leftAt ?? scope.now) - stay.enteredAt);
      const handles = new Map<string, number>();
      for (const chat of handledChats(records, all)) handles.set(chat.entityId, (handles.get(chat.entityId) ?? 0) + chat.handleMs);
      // A call's handle time is its agents' talk and after-call work (presence), as the dashboards count it.
      for (const call of handledCalls(await callPresence(run, scope.tenantId, rows), all))
        if (call.conversationId) handles.set(call.conversationId, (handles.get(call.conversationId) ?? 0) + call.handleMs);
      return rows.map((row) => ({
        id: String(row.id),
        createdAt: iso(row.created_at),
        channel: str(row.channel),
        line: str(row.line),
        agent: str(row.agent),
        customer: str(row.customer_name),
        status: str(row.status),
        closedAt: iso(row.closed_at),
        waitSeconds: seconds(waits.get(String(row.id))),
        handleSeconds: seconds(handles.get(String(row.id))),
        messages: Number(row.messages ?? 0),
      }));
    },
  },
  'agent-activity': {
    ...AGENT_BASE,
    async enrich(run, rows, scope) {
      const ids = rows.map((row) => String(row.id));
      const window = reportWindow(scope.filters);
      const presence = await agentLog(run, scope, ids);
      const occupancy = new Map(agentOccupancy(presence, window).map((o) => [o.agentId, o]));
      const paused = new Map(agentStateTimes(presence, window).map((t) => [t.agentId, t.times.paused ?? 0]));
      const times = new Map<string, { count: number; ms: number }>();
      for (const chat of handledChats(await conversationLogFor(run, scope, 'agent_id', ids), window)) {
        if (!chat.agentId) continue;
        const sum = times.get(chat.agentId) ?? { count: 0, ms: 0 };
        times.set(chat.agentId, { count: sum.count + 1, ms: sum.ms + chat.handleMs });
      }
      return rows.map((row) => {
        const o = occupancy.get(String(row.id));
        const handled = times.get(String(row.id));
        return {
          agent: str(row.agent),
          email: str(row.email),
          staffedSeconds: seconds(o?.staffedMs ?? 0),
          availableSeconds: seconds(o ? o.staffedMs - o.handlingMs : 0),
          handlingSeconds: seconds(o?.handlingMs ?? 0),
          pausedSeconds: seconds(paused.get(String(row.id)) ?? 0),
          occupancy: round(o?.occupancy ?? null),
          chatsHandled: handled?.count ?? 0,
          averageHandleSeconds: handled ? seconds(handled.ms / handled.count) : null,
        };
      });
    },
  },
  pauses: {
    ...AGENT_BASE,
    async enrich(run, rows, scope) {
      const ids = rows.map((row) => String(row.id));
      const window = reportWindow(scope.filters);
      const records = await agentLog(run, scope, ids);
      const counts = new Map<string, number>();
      for (const r of records)
        if (r.to === 'paused' && r.from !== 'paused' && r.at >= window.from && r.at < window.to)
          counts.set(r.entityId, (counts.get(r.entityId) ?? 0) + 1);
      const byAgent = new Map<string, { reasonId: string; ms: number }[]>();
      for (const pause of pauseTimeByReason(records, window)) byAgent.set(pause.agentId, [...(byAgent.get(pause.agentId) ?? []), pause]);
      return rows.map((row) => {
        const pauses = byAgent.get(String(row.id)) ?? [];
        return {
          agent: str(row.agent),
          pauses: counts.get(String(row.id)) ?? 0,
          pausedSeconds: seconds(pauses.reduce((total, pause) => total + pause.ms, 0)),
          reasons: pauses.map((pause) => `${pause.reasonId}: ${seconds(pause.ms)}`).join('; ') || null,
        };
      });
    },
  },
  queue: {
    select: `al.id, al.name AS line, al.channel`,
    from: `attention_lines al`,
    where(p, { tenantId, filters }) {
      const where = [`al.client_id = ${p.add(tenantId)}`, `al.deleted_at IS NULL`];
      if (filters.attentionLineId) where.push(`al.id = ${p.add(filters.attentionLineId)}`);
      // Lines name channels in their own spelling (WebChat); conversations in theirs (webchat).
      if (filters.channel) where.push(`lower(al.channel) = lower(${p.add(filters.channel)})`);
      return where;
    },
    sort: { line: 'al.name', channel: 'al.channel' },
    defaultSort: { field: 'line', order: 'asc' },
    id: 'al.id',
    key: { expr: 'al.name', type: 'text' },
    async enrich(run, rows, scope) {
      const window = reportWindow(scope.filters);
      const ids = rows.map((row) => String(row.id));
      const stays = queueEpisodes(await conversationLogFor(run, scope, 'attention_line_id', ids), window);
      return rows.map((row) => {
        const mine = stays.filter((stay) => stay.attentionLineId === String(row.id));
        const kpis = queueKpis(mine, { thresholdSec: 20 });
        const longest = mine.reduce<number | null>(
          (max, stay) => Math.max(max ?? 0, (stay.leftAt ?? stay.enteredAt) - stay.enteredAt),
          null,
        );
        return {
          line: str(row.line),
          channel: str(row.channel),
          offered: kpis.offered,
          answered: kpis.answered,
          abandoned: kpis.abandoned,
          timedOut: kpis.timedOut,
          serviceLevel: round(kpis.serviceLevel),
          averageSpeedOfAnswerSeconds: seconds(kpis.averageSpeedOfAnswerMs),
          longestWaitSeconds: seconds(longest),
        };
      });
    },
  },
  'survey-answers': {
    select: `r.id, r.created_at, p.name AS poll, q.text AS question, r.value, r.conversation_id, u.name AS agent, al.name AS line, c.channel`,
    from: `poll_responses r JOIN polls p ON p.id = r.poll_id JOIN poll_questions q ON q.id = r.question_id
           LEFT JOIN conversations c ON c.id = r.conversation_id AND c.tenant_id = r.client_id
           LEFT JOIN users u ON u.id = c.agent_id LEFT JOIN attention_lines al ON al.id = c.attention_line_id`,
    where(p, scope) {
      return [...tenantWindow(p, scope, 'r.client_id', 'r.created_at'), ...conversationFilters(p, scope.filters)];
    },
    sort: {
      answeredAt: 'r.created_at',
      poll: 'p.name',
      question: 'q.text',
      value: 'r.value',
      agent: 'u.name',
      line: 'al.name',
      channel: 'c.channel',
    },
    defaultSort: { field: 'answeredAt', order: 'desc' },
    id: 'r.id',
    key: { expr: 'r.created_at', type: 'timestamptz' },
    async enrich(_run, rows) {
      return rows.map((row) => ({
        answeredAt: iso(row.created_at),
        poll: str(row.poll),
        question: str(row.question),
        value: str(row.value),
        conversationId: str(row.conversation_id),
        agent: str(row.agent),
        line: str(row.line),
        channel: str(row.channel),
      }));
    },
  },
  'outbound-results': {
    select: `oc.id, oc.created_at, dc.name AS campaign, oc.phone, oc.attempt, oc.outcome, oc.disposition, u.name AS agent,
             EXTRACT(EPOCH FROM (oc.hung_up_at - oc.connected_at))::float8 AS talk_seconds`,
    from: `outbound_calls oc JOIN dialer_campaigns dc ON dc.id = oc.campaign_id LEFT JOIN users u ON u.id = oc.agent_id`,
    where(p, { tenantId, filters }) {
      const where = tenantWindow(p, { tenantId, filters }, 'oc.tenant_id', 'oc.created_at');
      // The dialer's own campaigns: the campaign filter names a dialer campaign here.
      if (filters.campaignId) where.push(`oc.campaign_id = ${p.add(filters.campaignId)}`);
      if (filters.agentId) where.push(`oc.agent_id = ${p.add(filters.agentId)}`);
      return where;
    },
    sort: {
      startedAt: 'oc.created_at',
      campaign: 'dc.name',
      phone: 'oc.phone',
      attempt: 'oc.attempt',
      outcome: 'oc.outcome',
      disposition: 'oc.disposition',
      agent: 'u.name',
    },
    defaultSort: { field: 'startedAt', order: 'desc' },
    id: 'oc.id',
    key: { expr: 'oc.created_at', type: 'timestamptz' },
    async enrich(_run, rows) {
      return rows.map((row) => ({
        startedAt: iso(row.created_at),
        campaign: str(row.campaign),
        phone: str(row.phone),
        attempt: row.attempt == null ? null : Number(row.attempt),
        outcome: str(row.outcome),
        disposition: str(row.disposition),
        agent: str(row.agent),
        talkSeconds: row.talk_seconds == null ? null : Math.round(Number(row.talk_seconds)),
      }));
    },
  },
};

/** One page of a report, sorted on the server (null values last, id as tie-break). */
export async function reportPage(
  run: SqlRunner,
  type: ReportType,
  scope: ReportScope,
  request: ReportPageRequest,
): Promise<{ items: ReportRow[]; total: number }> {
  const def = DEFINITIONS[type];
  const field = request.sortField ?? def.defaultSort.field;
  // Own properties only: `constructor` or `toString` must not find Object.prototype's members.
  const sortExpr = Object.hasOwn(def.sort, field) ? def.sort[field] : undefined;
  if (typeof sortExpr !== 'string') throw new ReportSortError(field);
  const order = (request.sortOrder ?? (request.sortField ? 'asc' : def.defaultSort.order)) === 'desc' ? 'DESC' : 'ASC';
  const p = new Params();
  const where = def.where(p, scope).join(' AND ');
  const [{ total }] = (await run(`SELECT count(*)::int AS total FROM ${def.from} WHERE ${where}`, p.values)) as [{ total: number }];
  const limit = p.add(request.pageSize);
  const offset = p.add((request.page - 1) * request.pageSize);
  const rows = await run(
    `SELECT ${def.select} FROM ${def.from} WHERE ${where} ORDER BY ${sortExpr} ${order} NULLS LAST, ${def.id} ${order} LIMIT ${limit} OFFSET ${offset}`,
    p.values,
  );
  return { items: await def.enrich(run, rows, scope), total };
}

/** Rows a report has in total (the export's progress denominator). */
export async function reportCount(run: SqlRunner, type: ReportType, scope: ReportScope): Promise<number> {
  const def = DEFINITIONS[type];
  const p = new Params();
  const [{ total }] = (await run(
    `SELECT count(*)::int AS total FROM ${def.from} WHERE ${def.where(p, scope).join(' AND ')}`,
    p.values,
  )) as [{ total: number }];
  return total;
}

/**
 * Every row of a report, batch by batch, in (key, id) order with keyset paging: each batch is one
 * indexed range query, so memory holds one batch whatever the report's size.
 */
export async function* reportBatches(run: SqlRunner, type: ReportType, scope: ReportScope, batchSize = 1000): AsyncGenerator<ReportRow[]> {
  const def = DEFINITIONS[type];
  let after: { key: string; id: string } | null = null;
  for (;;) {
    const p = new Params();
    const where = def.where(p, scope);
    if (after) where.push(`(${def.key.expr}, ${def.id}) > (${p.add(after.key)}::${def.key.type}, ${p.add(after.id)}::uuid)`);
    const rows = await run(
      `SELECT ${def.select}, ${def.key.expr}::text AS _key, ${def.id} AS _id FROM ${def.from} WHERE ${where.join(' AND ')}
        ORDER BY ${def.key.expr}, ${def.id} LIMIT ${p.add(batchSize)}`,
      p.values,
    );
    if (!rows.length) return;
    const last = rows[rows.length - 1]!;
    after = { key: String(last._key), id: String(last._id) };
    yield await def.enrich(run, rows, scope);
    if (rows.length < batchSize) return;
  }
}

export function isSortable(type: ReportType, field: string): boolean {
  return Object.hasOwn(DEFINITIONS[type].sort, field);
}
