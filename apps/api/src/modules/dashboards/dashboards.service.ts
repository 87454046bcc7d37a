import {
  DEFAULT_DASHBOARD_SETTINGS,
  PERMISSIONS,
  validateDashboardSettings,
  type ActiveByAgentRow,
  type AgentServiceRow,
  type ComplianceRow,
  type DashboardOptions,
  type DashboardSettings,
  type DashboardSummary,
  type QueuePositionRow,
  type NegativeConversation,
  type PauseDetailRow,
  type QueueGrouping,
  type QueueStatusRow,
  type SentimentReport,
  type StaffingRow,
  type TrendPoint,
} from '@centralita/contracts';
import {
  NO_GROUP,
  agentStateTimes,
  orderQueue,
  groupBy,
  pauseTimeByReason,
  queueArrivals,
  queueStatusAt,
  staffCompliance,
  staffingRecommendation,
  summarizeWaiting,
  teamOccupancy,
  timeBucketKey,
  timeBuckets,
  type TimeBucketUnit,
  type TimeWindow,
} from '@centralita/domain';
import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { AppException } from '../../common/app.exception';
import { AuditService } from '../admin/audit.service';
import { assertRules } from '../admin/rule-check';
import type { Principal } from '../auth/principal';
import {
  agentScope,
  elapsedPart,
  handledBreakdown,
  handledFigures,
  matches,
  occupancyOf,
  queueFigures,
  scheduledShifts,
  sentimentGroups,
  toLogRecords,
  windowFacts,
  type FigureFilter,
  type LogRecords,
  type StoredLogRow,
} from './dashboard-figures';

export interface DashboardQuery {
  from: number;
  to: number;
  attentionLineId?: string;
  campaignId?: string;
  channel?: string;
  agentId?: string;
}

/** A wait or a handle time ending in the window is measured from the row that started it (kpi-log.ts). */
const LOOKBACK_MS = 86_400_000;
const MAX_WINDOW_MS = 93 * 86_400_000;
const MAX_HOUR_BUCKETS = 24 * 8;

type Names = Map<string, string>;

/**
 * Every dashboard figure: rows of the tenant's transition log for the window are loaded with SQL
 * and handed to the KPI library; this service only filters, groups and names.
 */
@Injectable()
export class DashboardsService {
  constructor(
    private readonly dataSource: DataSource,
    private readonly audit: AuditService,
  ) {}

  // ---- settings ----------------------------------------------------------------------------

  async settings(tenantId: string): Promise<DashboardSettings> {
    const [row] = (await this.dataSource.query(`SELECT settings FROM dashboard_settings WHERE client_id = $1`, [tenantId])) as {
      settings: Partial<DashboardSettings>;
    }[];
    return { ...DEFAULT_DASHBOARD_SETTINGS, ...(row?.settings ?? {}) };
  }

  async saveSettings(principal: Principal, body: Partial<DashboardSettings>): Promise<DashboardSettings> {
    const before = await this.settings(principal.clientId);
    // The DTO instance carries absent fields as undefined: a partial body keeps the stored values.
    const given = Object.fromEntries(Object.entries(body).filter(([, value]) => value !== undefined));
    const input = { ...before, ...given } as DashboardSettings;
    assertRules(validateDashboardSettings(input));
    const clean: DashboardSettings = {
      serviceLevelThresholdSec: input.serviceLevelThresholdSec,
      targetServiceLevelPct: input.targetServiceLevelPct,
      shortAbandonSec: input.shortAbandonSec,
      shortAbandonMode: input.shortAbandonMode,
      timeZone: input.timeZone,
      visibleWidgets: [...new Set(input.visibleWidgets)],
      refreshSeconds: input.refreshSeconds,
      negativeThreshold: input.negativeThreshold,
      schedule: input.schedule.map(({ day, from, to }) => ({ day, from, to })),
    };
    await this.dataSource.transaction(async (manager) => {
      await manager.query(
        `INSERT INTO dashboard_settings (client_id, settings, updated_at) VALUES ($1, $2, now())
         ON CONFLICT (client_id) DO UPDATE SET settings = EXCLUDED.settings, updated_at = now()`,
        [principal.clientId, JSON.stringify(clean)],
      );
      await this.audit.record(
        principal,
        { entityType: 'dashboard_settings', entityId: principal.clientId, action: 'update', before, after: clean },
        manager,
      );
    });
    return clean;
  }

  // ---- loading -----------------------------------------------------------------------------

  private checkWindow({ from, to }: TimeWindow): void {
    if (!(to > from))
      throw new AppException('validation', { message: 'to must be after from', data: { fields: { to: ['to must be after from'] } } });
    if (to - from > MAX_WINDOW_MS)
      throw new AppException('validation', {
        message: 'the range must be at most 93 days',
        data: { fields: { to: ['the range must be at most 93 days'] } },
      });
  }

  /**
   * Rows for [from, to): every row of the lookback and the window, plus the last earlier row of
   * each agent and of each conversation still open then (its state at the start). The earlier rows
   * are found per entity through the (entity_type, entity_id, version) key, never by scanning the
   * tenant's history.
   */
  private async records(tenantId: string, { from, to }: TimeWindow): Promise<LogRecords> {
    const columns = `entity_type, entity_id, tenant_id, from_state, to_state, event, actor_kind, actor_id, at_ms, data, version`;
    const last = (entity: string, id: string) =>
      `SELECT ${columns} FROM transition_log t WHERE t.entity_type = '${entity}' AND t.entity_id = ${id} AND t.at < $2 ORDER BY t.version DESC LIMIT 1`;
    const start = new Date(from - LOOKBACK_MS);
    const rows = (await this.dataSource.query(
      `SELECT * FROM (
         SELECT l.* FROM agent_presence p CROSS JOIN LATERAL (${last('agent', 'p.user_id')}) l WHERE p.tenant_id = $1
         UNION ALL
         SELECT l.* FROM conversations c CROSS JOIN LATERAL (${last('conversation', 'c.id')}) l
          WHERE c.tenant_id = $1 AND c.created_at < $2 AND (c.closed_at IS NULL OR c.closed_at >= $2) AND l.to_state <> 'Closed'
         UNION ALL
         SELECT ${columns} FROM transition_log
          WHERE tenant_id = $1 AND at >= $2 AND at < $3 AND entity_type IN ('agent', 'conversation')
       ) rows ORDER BY entity_type, entity_id, version`,
      [tenantId, start, new Date(to)],
    )) as StoredLogRow[];
    return toLogRecords(rows);
  }

  private async names(tenantId: string, table: 'attention_lines' | 'users' | 'campaigns'): Promise<Names> {
    const rows = (await this.dataSource.query(`SELECT id, name FROM ${table} WHERE client_id = $1`, [tenantId])) as {
      id: string;
      name: string;
    }[];
    return new Map(rows.map((row) => [row.id, row.name]));
  }

  /** Filter ids must belong to the caller's tenant (another tenant's id answers 404); a campaign narrows to its agents and their lines. */
  private async filter(tenantId: string, query: DashboardQuery): Promise<FigureFilter> {
    const filter: { lineIds?: Set<string>; channel?: string; agentIds?: Set<string>; staffIds?: Set<string> } = {};
    const exists = async (sql: string, id: string) => {
      const rows = (await this.dataSource.query(sql, [tenantId, id])) as unknown[];
      if (rows.length === 0) throw AppException.notFound();
    };
    if (query.attentionLineId) {
      await exists(`SELECT 1 FROM attention_lines WHERE client_id = $1 AND id = $2`, query.attentionLineId);
      filter.lineIds = new Set([query.attentionLineId]);
    }
    if (query.agentId) {
      await exists(`SELECT 1 FROM users WHERE client_id = $1 AND id = $2`, query.agentId);
      filter.agentIds = new Set([query.agentId]);
    }
    if (query.campaignId) {
      await exists(`SELECT 1 FROM campaigns WHERE client_id = $1 AND id = $2`, query.campaignId);
      const { agents, lines } = await this.campaignScope(tenantId, query.campaignId);
      filter.staffIds = agents;
      filter.lineIds = filter.lineIds ? new Set([...filter.lineIds].filter((id) => lines.has(id))) : lines;
    }
    if (query.channel) filter.channel = query.channel;
    return filter;
  }

  /** A campaign's agents (agent_campaigns) and its lines (attention_lines.campaign_id, as the live campaign queues use). */
  private async campaignScope(tenantId: string, campaignId: string): Promise<{ agents: Set<string>; lines: Set<string> }> {
    const [agents, lines] = (await Promise.all([
      this.dataSource.query(
        `SELECT ac.user_id AS id FROM agent_campaigns ac JOIN users u ON u.id = ac.user_id AND u.client_id = $1 WHERE ac.campaign_id = $2`,
        [tenantId, campaignId],
      ),
      this.dataSource.query(`SELECT id FROM attention_lines WHERE client_id = $1 AND campaign_id = $2`, [tenantId, campaignId]),
    ])) as [{ id: string }[], { id: string }[]];
    return { agents: new Set(agents.map((row) => row.id)), lines: new Set(lines.map((row) => row.id)) };
  }

  /**
   * The requested range and the part of it that has happened: every figure is measured up to now,
   * never to a `to` in the future (an agent paused two minutes ago has two minutes of pause, not the
   * time left until the end of the day the filter shows).
   */
  private async prepare(tenantId: string, query: DashboardQuery) {
    const requested = { from: query.from, to: query.to };
    this.checkWindow(requested);
    const window = elapsedPart(requested, Date.now());
    const [filter, settings] = await Promise.all([this.filter(tenantId, query), this.settings(tenantId)]);
    const records = await this.records(tenantId, window);
    return { requested, window, filter, settings, records };
  }

  // ---- figures -----------------------------------------------------------------------------

  async summary(tenantId: string, query: DashboardQuery): Promise<DashboardSummary> {
    const { window, filter, settings, records } = await this.prepare(tenantId, query);
    const { episodes, handled } = windowFacts(records, window, filter);
    const waiting = queueStatusAt(records.conversations, window.to).waiting.filter((contact) =>
      matches(contact, { ...filter, agentIds: undefined }),
    );
    const status = summarizeWaiting(waiting);
    return {
      window,
      ...queueFigures(episodes, settings),
      ...handledFigures(handled),
      handledBreakdown: handledBreakdown(records, handled),
      occupancy: teamOccupancy(occupancyOf(records, window, agentScope(filter))),
      waitingNow: status.length,
      longestWaitNowMs: status.longestWaitMs,
    };
  }

  async trend(tenantId: string, query: DashboardQuery, unit: TimeBucketUnit): Promise<TrendPoint[]> {
    const { requested, window, filter, settings, records } = await this.prepare(tenantId, query);
    // The axis covers the whole range asked for; buckets after now are empty, not projected.
    const buckets = timeBuckets(requested, unit, settings.timeZone);
    if (buckets.length > MAX_HOUR_BUCKETS && unit === 'hour')
      throw new AppException('validation', {
        message: 'hourly trends cover at most 8 days',
        data: { fields: { unit: ['hourly trends cover at most 8 days'] } },
      });
    return buckets.map((bucket) => {
      const { episodes, handled } = windowFacts(records, elapsedPart(bucket, window.to), filter);
      return { key: bucket.key, from: bucket.from, to: bucket.to, ...queueFigures(episodes, settings), ...handledFigures(handled) };
    });
  }

  async queues(tenantId: string, query: DashboardQuery, by: QueueGrouping): Promise<QueueStatusRow[]> {
    const { window, filter, settings, records } = await this.prepare(tenantId, query);
    const { episodes } = windowFacts(records, window, filter);
    const waiting = queueStatusAt(records.conversations, window.to).waiting.filter((contact) =>
      matches(contact, { ...filter, agentIds: undefined }),
    );
    if (by === 'channel') {
      // Every channel with traffic in the window or waiting now (webchat always): the key is the
      // channel code, the name too (the console shows its label in the user's language).
      const keys = new Set(['webchat', ...[...episodes, ...waiting].map((item) => item.channel ?? NO_GROUP)]);
      // The channel filtered on has its row even without traffic (zeros, and the phone row's calls outside queues).
      if (filter.channel) {
        keys.add(filter.channel);
        for (const key of keys) if (key !== filter.channel) keys.delete(key);
      }
      const episodesBy = groupBy(episodes, (episode) => episode.channel);
      const waitingBy = groupBy(waiting, (contact) => contact.channel);
      const callEnds = await this.callsOutsideQueues(tenantId, window, filter, keys);
      return [...keys].map((key) => {
        const status = summarizeWaiting(waitingBy.get(key) ?? []);
        return {
          key,
          name: key,
          ...queueFigures(episodesBy.get(key) ?? [], settings),
          waitingNow: status.length,
          longestWaitNowMs: status.longestWaitMs,
          ...(key === 'phone' && callEnds !== null ? callEnds : {}),
        };
      });
    }
    const lineNames = await this.names(tenantId, 'attention_lines');
    if (by === 'line') {
      const keys = new Set([...lineNames.keys()].filter((id) => !filter.lineIds || filter.lineIds.has(id)));
      for (const item of [...episodes, ...waiting]) keys.add(item.attentionLineId ?? NO_GROUP);
      const episodesBy = groupBy(episodes, (episode) => episode.attentionLineId);
      const waitingBy = groupBy(waiting, (contact) => contact.attentionLineId);
      return [...keys].map((key) => {
        const status = summarizeWaiting(waitingBy.get(key) ?? []);
        return {
          key,
          name: lineNames.get(key) ?? key,
          ...queueFigures(episodesBy.get(key) ?? [], settings),
          waitingNow: status.length,
          longestWaitNowMs: status.longestWaitMs,
        };
      });
    }
    const campaigns = await this.names(tenantId, 'campaigns');
    const rows: QueueStatusRow[] = [];
    for (const [campaignId, name] of campaigns) {
      if (query.campaignId && query.campaignId !== campaignId) continue;
      const scope = await this.campaignScope(tenantId, campaignId);
      const inScope = (item: { attentionLineId: string | null }) => item.attentionLineId !== null && scope.lines.has(item.attentionLineId);
      const status = summarizeWaiting(waiting.filter(inScope));
      rows.push({
        key: campaignId,
        name,
        ...queueFigures(episodes.filter(inScope), settings),
        waitingNow: status.length,
        longestWaitNowMs: status.longestWaitMs,
      });
    }
    return rows;
  }

  /**
   * Inbound calls that ended in the window without reaching a queue (voice_calls, issue 22), so the
   * log's queue episodes do not hold them: the caller hung up in the IVR, the IVR sent them to a
   * closed line (call.ended reason 'lineClosed', whoever hung up during the message), or they left a
   * voicemail (reason 'voicemail'). Null when the phone row is not shown or a line, campaign or agent
   * filter is set (these calls have no agent, and no line the queue figures would agree with).
   */
  private async callsOutsideQueues(
    tenantId: string,
    window: { from: number; to: number },
    filter: FigureFilter,
    keys: Set<string>,
  ): Promise<Pick<QueueStatusRow, 'abandonedInIvr' | 'closedLine' | 'voicemail'> | null> {
    if (!keys.has('phone') || filter.lineIds || filter.agentIds || filter.staffIds) return null;
    const [row] = (await this.dataSource.query(
      `SELECT count(*) FILTER (WHERE abandon_stage = 'ivr')::int AS ivr,
              count(*) FILTER (WHERE abandon_stage IS NULL AND end_reason = 'lineClosed')::int AS closed,
              count(*) FILTER (WHERE abandon_stage IS NULL AND end_reason = 'voicemail')::int AS voicemail
         FROM voice_calls
        WHERE client_id = $1 AND ended_at >= to_timestamp($2::bigint / 1000.0) AND ended_at < to_timestamp($3::bigint / 1000.0)`,
      [tenantId, window.from, window.to],
    )) as { ivr: number; closed: number; voicemail: number }[];
    return { abandonedInIvr: row.ivr, closedLine: row.closed, voicemail: row.voicemail };
  }

  async agents(tenantId: string, query: DashboardQuery): Promise<AgentServiceRow[]> {
    const { window, filter, records } = await this.prepare(tenantId, query);
    const { handled } = windowFacts(records, window, { ...filter, lineIds: filter.lineIds });
    const handledBy = groupBy(handled, (contact) => contact.agentId);
    const scope = agentScope(filter);
    const occupancy = new Map(occupancyOf(records, window, scope).map((row) => [row.agentId, row]));
    const times = new Map(agentStateTimes(records.agents, window).map((row) => [row.agentId, row.times]));
    const users = await this.names(tenantId, 'users');
    const live = new Map((await this.presence(tenantId)).map((row) => [row.agentId, row]));
    const agentIds = new Set([...occupancy.keys(), ...[...handledBy.keys()].filter((id) => id !== NO_GROUP)]);
    return [...agentIds]
      .filter((id) => !scope || scope.has(id))
      .map((agentId) => {
        const own = handledBy.get(agentId) ?? [];
        const row = occupancy.get(agentId);
        return {
          agentId,
          name: users.get(agentId) ?? agentId,
          ...handledFigures(own),
          handlingMs: row?.handlingMs ?? 0,
          staffedMs: row?.staffedMs ?? 0,
          occupancy: row?.occupancy ?? null,
          times: (times.get(agentId) ?? {}) as Record<string, number>,
          activeNow: live.get(agentId)?.active ?? 0,
          statusNow: live.get(agentId)?.status ?? null,
        };
      })
      .sort((a, b) => a.name.localeCompare(b.name));
  }

  async pauses(tenantId: string, query: DashboardQuery): Promise<PauseDetailRow[]> {
    const { window, filter, records } = await this.prepare(tenantId, query);
    const users = await this.names(tenantId, 'users');
    const scope = agentScope(filter);
    return pauseTimeByReason(records.agents, window)
      .filter((row) => !scope || scope.has(row.agentId))
      .map((row) => ({ agentId: row.agentId, name: users.get(row.agentId) ?? row.agentId, reasonId: row.reasonId, ms: row.ms }))
      .sort((a, b) => a.name.localeCompare(b.name) || a.reasonId.localeCompare(b.reasonId));
  }

  async compliance(tenantId: string, query: DashboardQuery): Promise<ComplianceRow[]> {
    const { window, filter, settings, records } = await this.prepare(tenantId, query);
    const users = await this.names(tenantId, 'users');
    const scope = agentScope(filter);
    const agentIds = [...new Set(records.agents.map((record) => record.entityId))].filter((id) => !scope || scope.has(id));
    const shifts = scheduledShifts(settings.schedule, agentIds, window, settings.timeZone);
    const agentRecords = records.agents.filter((record) => agentIds.includes(record.entityId));
    return staffCompliance(agentRecords, shifts, window)
      .map((row) => ({ ...row, name: users.get(row.agentId) ?? row.agentId }))
      .sort((a, b) => a.name.localeCompare(b.name));
  }

  async staffing(tenantId: string, query: DashboardQuery): Promise<StaffingRow[]> {
    const { window, filter, settings, records } = await this.prepare(tenantId, query);
    const lineNames = await this.names(tenantId, 'attention_lines');
    const members = (await this.dataSource.query(`SELECT user_id, attention_line_id FROM agent_attention_lines WHERE tenant_id = $1`, [
      tenantId,
    ])) as { user_id: string; attention_line_id: string }[];
    const arrivals = queueArrivals(records.conversations, window).filter((episode) => matches(episode, { ...filter, agentIds: undefined }));
    const { handled } = windowFacts(records, window, { ...filter, agentIds: undefined });
    return [...lineNames]
      .filter(([id]) => !filter.lineIds || filter.lineIds.has(id))
      .map(([lineId, name]) => {
        const agents = new Set(members.filter((member) => member.attention_line_id === lineId).map((member) => member.user_id));
        const advice = staffingRecommendation({
          window,
          arrivals: arrivals.filter((episode) => episode.attentionLineId === lineId),
          handled: handled.filter((contact) => contact.attentionLineId === lineId),
          agentRecords: records.agents.filter((record) => agents.has(record.entityId)),
          settings: { targetServiceLevel: settings.targetServiceLevelPct / 100, thresholdSec: settings.serviceLevelThresholdSec },
        });
        return {
          attentionLineId: lineId,
          name,
          arrivals: advice.arrivals,
          arrivalRatePerHour: advice.arrivalRatePerSec * 3600,
          ahtSec: advice.ahtSec,
          recommendedAgents: advice.recommendedAgents,
          actualAgents: advice.actualAgents,
        };
      })
      .sort((a, b) => a.name.localeCompare(b.name));
  }

  private async presence(tenantId: string): Promise<ActiveByAgentRow[]> {
    const rows = (await this.dataSource.query(
      `SELECT p.user_id, u.name, p.status, p.active_count, p.capacity FROM agent_presence p JOIN users u ON u.id = p.user_id
        WHERE p.tenant_id = $1 AND p.status <> 'loggedOut' AND u.active ORDER BY u.name, p.user_id`,
      [tenantId],
    )) as { user_id: string; name: string; status: string; active_count: number; capacity: number }[];
    return rows.map((row) => ({
      agentId: row.user_id,
      name: row.name,
      status: row.status,
      active: row.active_count,
      capacity: row.capacity,
    }));
  }

  /** Live: conversations each logged-in agent holds now (the board's socket pushes keep it current in the console). */
  async activeByAgent(tenantId: string, agentId?: string): Promise<ActiveByAgentRow[]> {
    if (agentId) {
      const rows = (await this.dataSource.query(`SELECT 1 FROM users WHERE client_id = $1 AND id = $2`, [tenantId, agentId])) as unknown[];
      if (rows.length === 0) throw AppException.notFound();
    }
    return (await this.presence(tenantId)).filter((row) => !agentId || row.agentId === agentId);
  }

  async sentiment(tenantId: string, query: DashboardQuery): Promise<SentimentReport> {
    const window = { from: query.from, to: query.to };
    this.checkWindow(window);
    const [filter, settings] = await Promise.all([this.filter(tenantId, query), this.settings(tenantId)]);
    const rows = (await this.dataSource.query(
      `SELECT m.sentiment_score AS score, m.sentiment_label AS label, m.created_at, c.attention_line_id, c.agent_id, c.channel
         FROM messages m JOIN conversations c ON c.id = m.conversation_id
        WHERE m.tenant_id = $1 AND m.sender_kind = 'customer' AND m.sentiment_score IS NOT NULL AND m.created_at >= $2 AND m.created_at < $3
        ORDER BY m.created_at, m.id`,
      [tenantId, new Date(window.from), new Date(window.to)],
    )) as { score: number; label: string; created_at: Date; attention_line_id: string | null; agent_id: string | null; channel: string }[];
    const kept = rows
      .map((row) => ({ ...row, attentionLineId: row.attention_line_id, agentId: row.agent_id }))
      .filter((row) => matches(row, filter));
    const [lines, users] = await Promise.all([this.names(tenantId, 'attention_lines'), this.names(tenantId, 'users')]);
    const unit: TimeBucketUnit = window.to - window.from <= 2 * 86_400_000 ? 'hour' : 'day';
    const scored = (key: (row: (typeof kept)[number]) => string | null, names: Names | null) =>
      sentimentGroups(
        kept.map((row) => {
          const id = key(row) ?? NO_GROUP;
          return { score: row.score, label: row.label, key: id, name: names?.get(id) ?? id };
        }),
      );
    const turning = await this.turningNegative(tenantId, settings.negativeThreshold);
    return {
      overall: scored(() => 'all', null)[0] ?? {
        key: 'all',
        name: 'all',
        messages: 0,
        average: null,
        positive: 0,
        neutral: 0,
        negative: 0,
      },
      byLine: scored((row) => row.attentionLineId, lines),
      byAgent: scored((row) => row.agentId, users),
      overTime: scored((row) => timeBucketKey(row.created_at.getTime(), unit, settings.timeZone), null),
      turningNegative: turning.filter((row) => matches({ ...row, channel: null }, { ...filter, channel: undefined })),
    };
  }

  /** Open conversations whose last three scored customer messages average at or below the threshold, worst first. */
  async turningNegative(tenantId: string, threshold: number): Promise<NegativeConversation[]> {
    const rows = (await this.dataSource.query(
      `SELECT c.id, c.customer_name, c.attention_line_id, c.agent_id, c.status, avg(s.score)::float8 AS rolling, max(s.created_at) AS last_at
         FROM conversations c
         JOIN LATERAL (SELECT sentiment_score AS score, created_at FROM messages
                        WHERE conversation_id = c.id AND sender_kind = 'customer' AND sentiment_score IS NOT NULL
                        ORDER BY sequence DESC LIMIT 3) s ON true
        WHERE c.tenant_id = $1 AND c.status <> 'Closed'
        GROUP BY c.id HAVING avg(s.score) <= $2 ORDER BY rolling, c.id LIMIT 50`,
      [tenantId, threshold],
    )) as {
      id: string;
      customer_name: string;
      attention_line_id: string | null;
      agent_id: string | null;
      status: string;
      rolling: number;
      last_at: Date;
    }[];
    return rows.map((row) => ({
      conversationId: row.id,
      customerName: row.customer_name,
      attentionLineId: row.attention_line_id,
      agentId: row.agent_id,
      status: row.status,
      rolling: row.rolling,
      lastMessageAt: new Date(row.last_at).getTime(),
    }));
  }

  /** The filter bar's choices: the tenant's lines, campaigns, staff with a presence, and the channels seen. */
  async options(principal: Principal): Promise<DashboardOptions> {
    const tenantId = principal.clientId;
    // Without supervision the agent filter is fixed to the caller (see the controller): offer only them.
    const self = principal.permissions.includes(PERMISSIONS.dashboardSupervise) ? null : principal.userId;
    const [lines, campaigns, agents, channels] = await Promise.all([
      this.dataSource.query(`SELECT id, name FROM attention_lines WHERE client_id = $1 AND deleted_at IS NULL ORDER BY name, id`, [
        tenantId,
      ]),
      this.dataSource.query(`SELECT id, name FROM campaigns WHERE client_id = $1 AND deleted_at IS NULL ORDER BY name, id`, [tenantId]),
      this.dataSource.query(
        `SELECT u.id, u.name FROM users u JOIN agent_presence p ON p.user_id = u.id
          WHERE u.client_id = $1 AND ($2::uuid IS NULL OR u.id = $2) ORDER BY u.name, u.id`,
        [tenantId, self],
      ),
      // A tenant with a phone line can filter by phone before its first call.
      this.dataSource.query(
        `SELECT channel FROM (SELECT DISTINCT channel FROM conversations WHERE tenant_id = $1
           UNION SELECT 'phone' FROM attention_lines WHERE client_id = $1 AND deleted_at IS NULL AND lower(channel) = 'phone') c
          ORDER BY channel`,
        [tenantId],
      ),
    ]);
    const seen = (channels as { channel: string }[]).map((row) => row.channel);
    return { lines, campaigns, agents, channels: [...new Set(['webchat', ...seen])] };
  }

  /** Live: every conversation queued now, numbered in serving order per line (the routing's own `orderQueue`). */
  async positions(tenantId: string, attentionLineId?: string): Promise<QueuePositionRow[]> {
    const rows = (await this.dataSource.query(
      `SELECT c.id, c.customer_name, c.channel, c.attention_line_id, l.name AS line_name, c.priority, c.queued_at
         FROM conversations c JOIN attention_lines l ON l.id = c.attention_line_id
        WHERE c.tenant_id = $1 AND c.status = 'LiningUp' AND ($2::uuid IS NULL OR c.attention_line_id = $2)`,
      [tenantId, attentionLineId ?? null],
    )) as {
      id: string;
      customer_name: string;
      channel: string;
      attention_line_id: string;
      line_name: string;
      priority: number;
      queued_at: Date;
    }[];
    const result: QueuePositionRow[] = [];
    for (const [lineId, waiting] of groupBy(rows, (row) => row.attention_line_id)) {
      const ordered = orderQueue(waiting.map((row) => ({ ...row, conversationId: row.id, queuedAt: new Date(row.queued_at).getTime() })));
      ordered.forEach((row, index) =>
        result.push({
          conversationId: row.id,
          customerName: row.customer_name,
          channel: row.channel,
          attentionLineId: lineId,
          lineName: row.line_name,
          position: index + 1,
          priority: row.priority,
          queuedAt: row.queuedAt,
        }),
      );
    }
    return result.sort((a, b) => a.lineName.localeCompare(b.lineName) || a.position - b.position);
  }
}
