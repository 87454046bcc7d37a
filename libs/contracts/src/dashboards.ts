import type { RuleIssue } from './admin';

/**
 * Dashboards: the per-client settings, the figures the API answers and the sentiment job. Every
 * figure is computed by the KPI library (libs/domain/src/kpi) from the transition log over a
 * half-open window [from, to); `null` means "no traffic", which the console shows as "—".
 */

export const DASHBOARD_WIDGETS = [
  'summary',
  'trend',
  'percentages',
  'queueStatus',
  'agentService',
  'pauses',
  'activeByAgent',
  'compliance',
  'staffing',
  'sentiment',
  'positions',
] as const;
export type DashboardWidget = (typeof DASHBOARD_WIDGETS)[number];

export const SHORT_ABANDON_MODES = ['count', 'exclude', 'outOfThreshold'] as const;
export type ShortAbandonMode = (typeof SHORT_ABANDON_MODES)[number];

/** A planned working interval applied to every agent of the client, in its time zone ("09:00"–"17:00"). */
export interface ScheduleEntry {
  /** 0 = Sunday … 6 = Saturday. */
  day: number;
  from: string;
  to: string;
}

export interface DashboardSettings {
  /** Answered within this many seconds meets the service level. */
  serviceLevelThresholdSec: number;
  /** Target service level in percent (Erlang C staffing aims at it). */
  targetServiceLevelPct: number;
  /** Abandons after a wait shorter than this are "short". */
  shortAbandonSec: number;
  /** `count`: every abandon counts; `exclude`: short abandons leave offered; `outOfThreshold`: they count as answered late. */
  shortAbandonMode: ShortAbandonMode;
  /** IANA time zone of the hour/day buckets and of the schedule. */
  timeZone: string;
  visibleWidgets: DashboardWidget[];
  /** How often the historical parts reload while open (live parts are pushed). */
  refreshSeconds: number;
  /** Rolling customer sentiment at or below this (-1..0) marks a conversation as turning negative. */
  negativeThreshold: number;
  /** Staff compliance schedule. */
  schedule: ScheduleEntry[];
}

export const DEFAULT_DASHBOARD_SETTINGS: DashboardSettings = {
  serviceLevelThresholdSec: 20,
  targetServiceLevelPct: 80,
  shortAbandonSec: 5,
  shortAbandonMode: 'count',
  timeZone: 'UTC',
  visibleWidgets: [...DASHBOARD_WIDGETS],
  refreshSeconds: 60,
  negativeThreshold: -0.25,
  schedule: [1, 2, 3, 4, 5].map((day) => ({ day, from: '09:00', to: '17:00' })),
};

const HHMM = /^([01]\d|2[0-3]):[0-5]\d$/;

function isTimeZone(value: string): boolean {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: value });
    return true;
  } catch {
    return false;
  }
}

function intIn(issues: RuleIssue[], input: Record<string, unknown>, field: string, min: number, max: number): void {
  const value = input[field];
  if (value === undefined || value === null || value === '') issues.push({ field, key: 'required' });
  else if (typeof value !== 'number' || !Number.isInteger(value)) issues.push({ field, key: 'integer' });
  else if (value < min || value > max) issues.push({ field, key: 'range', values: { min, max } });
}

/** The rules of the settings form, shared by the console and the API. */
export function validateDashboardSettings(input: Partial<Record<keyof DashboardSettings, unknown>>): RuleIssue[] {
  const issues: RuleIssue[] = [];
  const bag = input as Record<string, unknown>;
  intIn(issues, bag, 'serviceLevelThresholdSec', 1, 3600);
  intIn(issues, bag, 'targetServiceLevelPct', 1, 99);
  intIn(issues, bag, 'shortAbandonSec', 0, 600);
  intIn(issues, bag, 'refreshSeconds', 10, 3600);
  if (!SHORT_ABANDON_MODES.includes(input.shortAbandonMode as ShortAbandonMode))
    issues.push({ field: 'shortAbandonMode', key: 'oneOf', values: { options: SHORT_ABANDON_MODES.join(', ') } });
  if (typeof input.timeZone !== 'string' || input.timeZone === '') issues.push({ field: 'timeZone', key: 'required' });
  else if (!isTimeZone(input.timeZone)) issues.push({ field: 'timeZone', key: 'pattern' });
  const threshold = input.negativeThreshold;
  if (typeof threshold !== 'number' || !Number.isFinite(threshold) || threshold < -1 || threshold > 0)
    issues.push({ field: 'negativeThreshold', key: 'range', values: { min: -1, max: 0 } });
  const widgets = input.visibleWidgets;
  if (!Array.isArray(widgets) || widgets.some((widget) => !DASHBOARD_WIDGETS.includes(widget as DashboardWidget)))
    issues.push({ field: 'visibleWidgets', key: 'oneOf', values: { options: DASHBOARD_WIDGETS.join(', ') } });
  const schedule = input.schedule;
  if (
    !Array.isArray(schedule) ||
    schedule.length > 21 ||
    schedule.some(
      (entry: Partial<ScheduleEntry>) =>
        !entry ||
        !Number.isInteger(entry.day) ||
        entry.day! < 0 ||
        entry.day! > 6 ||
        !HHMM.test(String(entry.from)) ||
        !HHMM.test(String(entry.to)) ||
        String(entry.from) >= String(entry.to),
    )
  )
    issues.push({ field: 'schedule', key: 'pattern' });
  return issues;
}

/** How the queue-status widget splits its rows (GET /api/dashboards/queues?by=…). */
export const QUEUE_GROUPINGS = ['line', 'campaign', 'channel'] as const;
export type QueueGrouping = (typeof QUEUE_GROUPINGS)[number];

/** Filters every historical endpoint takes besides `from`/`to` (epoch ms or ISO-8601). */
export interface DashboardFilters {
  from: number;
  to: number;
  attentionLineId?: string;
  campaignId?: string;
  channel?: string;
  agentId?: string;
}

export interface QueueFigures {
  offered: number;
  answered: number;
  answeredWithinThreshold: number;
  abandoned: number;
  shortAbandons: number;
  timedOut: number;
  serviceLevel: number | null;
  abandonmentRate: number | null;
  averageSpeedOfAnswerMs: number | null;
  longestAnswerWaitMs: number | null;
}

/** How `handled` splits: offered contacts answered, chats passed on by another agent, outbound calls. */
export interface HandledBreakdown {
  /** Chats and inbound calls answered from a line's queue. */
  fromQueue: number;
  /** Agent-to-agent transfers: one offer, a handled contact for each agent. */
  fromTransfer: number;
  /** Outbound (dialer) calls: handled without being offered to a queue. */
  calls: number;
}

export interface DashboardSummary extends QueueFigures {
  /** The part of the requested range that has happened: `to` is never later than now. */
  window: { from: number; to: number };
  /** Chats (and calls) whose handling ended in the window. */
  handled: number;
  handledBreakdown: HandledBreakdown;
  averageHandleTimeMs: number | null;
  /** Team occupancy: handling time ÷ staffed time. */
  occupancy: number | null;
  /** Queued now (at `to`, or now when `to` is in the future). */
  waitingNow: number;
  longestWaitNowMs: number | null;
}

export interface TrendPoint extends QueueFigures {
  key: string;
  from: number;
  to: number;
  handled: number;
  averageHandleTimeMs: number | null;
}

export interface QueueStatusRow extends QueueFigures {
  /** Attention line or campaign id; `(none)` when not known. */
  key: string;
  name: string;
  waitingNow: number;
  longestWaitNowMs: number | null;
  /**
   * Channel grouping, phone row only (issue 22): calls that ended in the IVR, the caller hanging up
   * before reaching any queue, in the window (queue abandons are in `abandoned`). Absent when a line,
   * campaign or agent filter is set: an IVR abandon belongs to no line.
   */
  abandonedInIvr?: number;
  /**
   * Phone row only, absent under the same filters as `abandonedInIvr`: calls the IVR sent to a line
   * that was closed (out of its hours; the caller heard the closed-line message), in the window.
   * Neither offered nor abandoned: the line never queued them.
   */
  closedLine?: number;
  /** Phone row only, likewise: calls that ended leaving a message on a line's voicemail, in the window. */
  voicemail?: number;
}

export interface AgentServiceRow {
  agentId: string;
  name: string;
  handled: number;
  averageHandleTimeMs: number | null;
  handlingMs: number;
  staffedMs: number;
  occupancy: number | null;
  /** ms per presence status in the window. */
  times: Record<string, number>;
  /** Conversations the agent holds now. */
  activeNow: number;
  statusNow: string | null;
}

export interface PauseDetailRow {
  agentId: string;
  name: string;
  reasonId: string;
  ms: number;
}

export interface ComplianceRow {
  agentId: string;
  name: string;
  scheduledMs: number;
  loggedInMs: number;
  loggedInWhileScheduledMs: number;
  staffedWhileScheduledMs: number;
  compliance: number | null;
}

export interface StaffingRow {
  attentionLineId: string;
  name: string;
  arrivals: number;
  arrivalRatePerHour: number;
  ahtSec: number | null;
  recommendedAgents: number | null;
  actualAgents: number | null;
}

export interface ActiveByAgentRow {
  agentId: string;
  name: string;
  status: string;
  active: number;
  capacity: number;
}

export type SentimentLabel = 'positive' | 'neutral' | 'negative';

export interface SentimentGroup {
  key: string;
  name: string;
  messages: number;
  /** Mean normalised score (-1..1); null without scored messages. */
  average: number | null;
  positive: number;
  neutral: number;
  negative: number;
}

export interface NegativeConversation {
  conversationId: string;
  customerName: string;
  attentionLineId: string | null;
  agentId: string | null;
  status: string;
  /** Mean of the last three scored customer messages. */
  rolling: number;
  lastMessageAt: number;
}

export interface SentimentReport {
  overall: SentimentGroup;
  byLine: SentimentGroup[];
  byAgent: SentimentGroup[];
  overTime: SentimentGroup[];
  turningNegative: NegativeConversation[];
}

/** Pushed on the staff namespace (tenant room) when a conversation's rolling sentiment turns negative. */
export interface SentimentAlertView extends NegativeConversation {
  tenantId: string;
}

/** A job of QUEUES.sentiment: one per stored customer message, written to the outbox with the message; job id `sentiment.<messageId>`. */
export interface SentimentJob {
  messageId: string;
  tenantId: string;
  conversationId: string;
}

/** Label of a normalised score: ±0.05 around 0 is neutral (the VADER convention). */
export function sentimentLabel(score: number): SentimentLabel {
  if (score >= 0.05) return 'positive';
  if (score <= -0.05) return 'negative';
  return 'neutral';
}

/** Live position board: who waits on each line, in serving order (priority, then first come). */
export interface QueuePositionRow {
  conversationId: string;
  customerName: string;
  channel: string;
  attentionLineId: string;
  lineName: string;
  position: number;
  priority: number;
  queuedAt: number;
}

export interface DashboardOption {
  id: string;
  name: string;
}

/** What the filter bar offers. */
export interface DashboardOptions {
  lines: DashboardOption[];
  campaigns: DashboardOption[];
  agents: DashboardOption[];
  channels: string[];
}
