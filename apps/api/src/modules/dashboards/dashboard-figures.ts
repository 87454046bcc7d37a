import type { DashboardSettings, HandledBreakdown, QueueFigures, ScheduleEntry, SentimentGroup } from '@centralita/contracts';
import {
  agentOccupancy,
  averageHandleTimeMs,
  handledCalls,
  handledChats,
  queueEpisodes,
  queueKpis,
  timeBucketKey,
  type AgentLogRecord,
  type ConversationLogRecord,
  type HandledContact,
  type QueueEpisode,
  type QueueKpiSettings,
  type ScheduledShift,
  type TimeWindow,
} from '@centralita/domain';

/**
 * Pure glue between stored transition-log rows and the KPI library: row mapping, filters and the
 * settings translation. No formula lives here; every figure comes from libs/domain/src/kpi.
 */

export interface StoredLogRow {
  /** 'conversation' and 'agent' are read; the log holds other machines too (dialer campaigns, calls). */
  entity_type: string;
  entity_id: string;
  tenant_id: string;
  from_state: string | null;
  to_state: string;
  event: string;
  actor_kind: string;
  actor_id: string | null;
  at_ms: string | number;
  data: Record<string, unknown> | null;
}

export interface LogRecords {
  conversations: ConversationLogRecord[];
  agents: AgentLogRecord[];
}

/** Rows as the KPI functions take them, split by entity (rows must come in log order). */
export function toLogRecords(rows: readonly StoredLogRow[]): LogRecords {
  const result: LogRecords = { conversations: [], agents: [] };
  for (const row of rows) {
    const record = {
      entityId: row.entity_id,
      tenantId: row.tenant_id,
      from: row.from_state,
      to: row.to_state,
      event: row.event,
      at: Number(row.at_ms),
      actor: { kind: row.actor_kind, ...(row.actor_id ? { id: row.actor_id } : {}) },
      ...(row.data ? { data: row.data } : {}),
    };
    // The log also holds other machines' rows (dialer campaigns, outbound calls): they are neither.
    if (row.entity_type === 'conversation') result.conversations.push(record as ConversationLogRecord);
    else if (row.entity_type === 'agent') result.agents.push(record as AgentLogRecord);
  }
  return result;
}

/**
 * What the filter bar narrows to, resolved by the service. `agentIds` (the agent picker) applies to
 * every figure; `staffIds` (a campaign's agents) only to the agents' own figures (state times,
 * occupancy, pauses, compliance), so a campaign's queue figures still count its abandons.
 */
export interface FigureFilter {
  lineIds?: ReadonlySet<string>;
  channel?: string;
  agentIds?: ReadonlySet<string>;
  staffIds?: ReadonlySet<string>;
}

/** The agents whose presence figures count: both agent sets intersected; undefined = everyone. */
export function agentScope(filter: FigureFilter): ReadonlySet<string> | undefined {
  if (filter.agentIds && filter.staffIds) return new Set([...filter.agentIds].filter((id) => filter.staffIds!.has(id)));
  return filter.agentIds ?? filter.staffIds;
}

type Filterable = { attentionLineId: string | null; channel: string | null; agentId?: string | null };

/**
 * Keeps the items the filter selects. The agent filter keeps what an agent answered or handled;
 * queue stays that no agent took (abandons, waits) have no agent, so they pass only without it.
 */
export function matches(item: Filterable, filter: FigureFilter): boolean {
  if (filter.lineIds && !(item.attentionLineId && filter.lineIds.has(item.attentionLineId))) return false;
  if (filter.channel && item.channel !== filter.channel) return false;
  if (filter.agentIds && !(item.agentId && filter.agentIds.has(item.agentId))) return false;
  return true;
}

export function queueSettings(settings: DashboardSettings): QueueKpiSettings {
  return {
    thresholdSec: settings.serviceLevelThresholdSec,
    ...(settings.shortAbandonMode === 'count'
      ? {}
      : { shortAbandon: { underSec: settings.shortAbandonSec, treatment: settings.shortAbandonMode } }),
  };
}

export function queueFigures(episodes: readonly QueueEpisode[], settings: DashboardSettings): QueueFigures {
  return queueKpis(episodes, queueSettings(settings));
}

/** Finished queue stays and handled contacts of the window, filtered. */
export function windowFacts(
  records: LogRecords,
  window: TimeWindow,
  filter: FigureFilter,
): { episodes: QueueEpisode[]; handled: HandledContact[] } {
  return {
    episodes: queueEpisodes(records.conversations, window).filter((episode) => matches(episode, filter)),
    handled: [...handledChats(records.conversations, window), ...handledCalls(records.agents, window)].filter((contact) =>
      matches(contact, filter),
    ),
  };
}

/** The part of a window that has happened by `now`: [from, min(to, now)], empty when it starts later. */
export function elapsedPart(window: TimeWindow, now: number): TimeWindow {
  return { from: window.from, to: Math.max(window.from, Math.min(window.to, now)) };
}

const TRANSFERRED = 'conversation.transferred';

/**
 * Why handled can exceed offered: a chat passed from one agent to another is one offer and a handled
 * contact for each agent, and outbound (dialer) calls are handled without being offered to a queue.
 * A transfer to another line is offered to that line again, so it stays in `fromQueue`; so does an
 * inbound call, offered through its phone line's queue.
 */
export function handledBreakdown(records: LogRecords, handled: readonly HandledContact[]): HandledBreakdown {
  const transferStarts = new Set(
    records.conversations
      .filter((record) => record.event === TRANSFERRED && record.from === 'Active' && record.to === 'Active')
      .map((record) => `${record.entityId}@${record.at}`),
  );
  const breakdown: HandledBreakdown = { fromQueue: 0, fromTransfer: 0, calls: 0 };
  for (const contact of handled) {
    if (contact.kind === 'outboundCall') breakdown.calls++;
    else if (contact.kind === 'inboundCall') breakdown.fromQueue++;
    else if (transferStarts.has(`${contact.entityId}@${contact.startedAt}`)) breakdown.fromTransfer++;
    else breakdown.fromQueue++;
  }
  return breakdown;
}

export function handledFigures(handled: readonly HandledContact[]): { handled: number; averageHandleTimeMs: number | null } {
  return { handled: handled.length, averageHandleTimeMs: averageHandleTimeMs(handled) };
}

/** Occupancy rows of the agents the filter keeps (all agents without an agent filter). */
export function occupancyOf(records: LogRecords, window: TimeWindow, agentIds?: ReadonlySet<string>) {
  return agentOccupancy(agentIds ? records.agents.filter((record) => agentIds.has(record.entityId)) : records.agents, window);
}

const MINUTES = (hhmm: string) => Number(hhmm.slice(0, 2)) * 60 + Number(hhmm.slice(3, 5));

/** The UTC offset (ms) of a zone at an instant, read from the same formatter the buckets use. */
function offsetAt(at: number, timeZone: string): number {
  const key = timeBucketKey(at, 'hour', timeZone); // 2026-01-15T09:00+01:00
  const sign = key.at(-6) === '-' ? -1 : 1;
  return sign * (Number(key.slice(-5, -3)) * 60 + Number(key.slice(-2))) * 60_000;
}

/**
 * The client's weekly schedule laid out as shifts of each agent inside the window, in the client's
 * time zone (each local day in the window whose weekday has entries).
 */
export function scheduledShifts(
  schedule: readonly ScheduleEntry[],
  agentIds: readonly string[],
  window: TimeWindow,
  timeZone: string,
): ScheduledShift[] {
  const shifts: ScheduledShift[] = [];
  const days = new Set<string>();
  for (let at = window.from - 86_400_000; at < window.to + 86_400_000; at += 3_600_000) days.add(timeBucketKey(at, 'day', timeZone));
  for (const day of days) {
    const [year, month, date] = day.split('-').map(Number) as [number, number, number];
    const weekday = new Date(Date.UTC(year, month - 1, date)).getUTCDay();
    for (const entry of schedule.filter((candidate) => candidate.day === weekday)) {
      const wall = (hhmm: string) => Date.UTC(year, month - 1, date) + MINUTES(hhmm) * 60_000;
      const start = wall(entry.from) - offsetAt(wall(entry.from), timeZone);
      const end = wall(entry.to) - offsetAt(wall(entry.to), timeZone);
      if (end <= window.from || start >= window.to) continue;
      for (const agentId of agentIds) shifts.push({ agentId, start, end });
    }
  }
  return shifts;
}

export interface ScoredMessage {
  score: number;
  label: string;
  key: string;
  name: string;
}

/** Sentiment groups in first-seen order: count per label and the mean score. */
export function sentimentGroups(messages: readonly ScoredMessage[]): SentimentGroup[] {
  const groups = new Map<string, SentimentGroup & { total: number }>();
  for (const message of messages) {
    let group = groups.get(message.key);
    if (!group) {
      group = { key: message.key, name: message.name, messages: 0, average: null, positive: 0, neutral: 0, negative: 0, total: 0 };
      groups.set(message.key, group);
    }
    group.messages++;
    group.total += message.score;
    if (message.label === 'positive') group.positive++;
    else if (message.label === 'negative') group.negative++;
    else group.neutral++;
  }
  return [...groups.values()].map(({ total, ...group }) => ({ ...group, average: group.messages > 0 ? total / group.messages : null }));
}
