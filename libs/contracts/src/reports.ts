import type { ReportColumnKey } from './report-export-headers';

/**
 * Reports (/reports/reports): report types, their columns, filters, exports and the export queue.
 * Every figure is read from the transition log (through the KPI library) or from the stored rows.
 */
export const REPORT_TYPES = ['conversations', 'agent-activity', 'pauses', 'queue', 'survey-answers', 'outbound-results'] as const;
export type ReportType = (typeof REPORT_TYPES)[number];

/** A report window is at most this long (the console offers day ranges inside it). */
export const REPORT_MAX_RANGE_DAYS = 366;
export const REPORT_MAX_PAGE_SIZE = 200;

/** A job of QUEUES.reportExport; job id = export id. */
export interface ReportExportJob {
  exportId: string;
}
export const REPORT_EXPORT_FORMATS = ['csv', 'xlsx'] as const;
export type ReportExportFormat = (typeof REPORT_EXPORT_FORMATS)[number];
export type ReportExportStatus = 'queued' | 'running' | 'done' | 'failed' | 'expired';

/** How a column's value is to be shown: `datetime` is ISO-8601, `seconds` a duration, `ratio` 0..1. */
export type ReportColumnKind = 'text' | 'datetime' | 'seconds' | 'number' | 'ratio';
export interface ReportColumn {
  /** Exported files head it with REPORT_EXPORT_HEADERS; the console translates `reports.columns.<key>`. */
  key: ReportColumnKey;
  kind: ReportColumnKind;
  sortable?: boolean;
}

const col = (key: ReportColumnKey, kind: ReportColumnKind, sortable = false): ReportColumn => ({ key, kind, sortable });

export const REPORT_COLUMNS: Record<ReportType, readonly ReportColumn[]> = {
  conversations: [
    col('id', 'text'),
    col('createdAt', 'datetime', true),
    col('channel', 'text', true),
    col('line', 'text', true),
    col('agent', 'text', true),
    col('customer', 'text', true),
    col('status', 'text', true),
    col('closedAt', 'datetime', true),
    col('waitSeconds', 'seconds'),
    col('handleSeconds', 'seconds'),
    col('messages', 'number'),
  ],
  'agent-activity': [
    col('agent', 'text', true),
    col('email', 'text', true),
    col('staffedSeconds', 'seconds'),
    col('availableSeconds', 'seconds'),
    col('handlingSeconds', 'seconds'),
    col('pausedSeconds', 'seconds'),
    col('occupancy', 'ratio'),
    col('chatsHandled', 'number'),
    col('averageHandleSeconds', 'seconds'),
  ],
  pauses: [col('agent', 'text', true), col('pauses', 'number'), col('pausedSeconds', 'seconds'), col('reasons', 'text')],
  queue: [
    col('line', 'text', true),
    col('channel', 'text', true),
    col('offered', 'number'),
    col('answered', 'number'),
    col('abandoned', 'number'),
    col('timedOut', 'number'),
    col('serviceLevel', 'ratio'),
    col('averageSpeedOfAnswerSeconds', 'seconds'),
    col('longestWaitSeconds', 'seconds'),
  ],
  'survey-answers': [
    col('answeredAt', 'datetime', true),
    col('poll', 'text', true),
    col('question', 'text', true),
    col('value', 'text', true),
    col('conversationId', 'text'),
    col('agent', 'text', true),
    col('line', 'text', true),
    col('channel', 'text', true),
  ],
  'outbound-results': [
    col('startedAt', 'datetime', true),
    col('campaign', 'text', true),
    col('phone', 'text', true),
    col('attempt', 'number', true),
    col('outcome', 'text', true),
    col('disposition', 'text', true),
    col('agent', 'text', true),
    col('talkSeconds', 'seconds'),
  ],
};

/** The service-level threshold of the queue report (answered within it meets the level). */
export const REPORT_SERVICE_LEVEL_SECONDS = 20;

export type ReportCell = string | number | null;
export type ReportRow = Record<string, ReportCell>;

export interface ReportFilters {
  /** ISO-8601; the window is [from, to). */
  from: string;
  to: string;
  attentionLineId?: string;
  campaignId?: string;
  channel?: string;
  agentId?: string;
  /** Conversations report only: just the phone conversations that left a voicemail (voice_recordings kind 'voicemail'). */
  voicemail?: boolean;
}

export interface ReportPage {
  type: ReportType;
  items: ReportRow[];
  total: number;
  page: number;
  pageSize: number;
}

export interface ReportExportState {
  id: string;
  type: ReportType;
  format: ReportExportFormat;
  status: ReportExportStatus;
  /** 0..100 */
  progress: number;
  rowCount: number;
  totalRows: number | null;
  fileName: string;
  failure: string | null;
  createdAt: string;
  finishedAt: string | null;
}

/** GET /api/reports/options: the filter pickers (readable with reports.view alone). */
export interface ReportOptions {
  lines: { id: string; name: string }[];
  campaigns: { id: string; name: string }[];
  /** Campaigns of the outbound dialer: the campaign filter of the outbound-results report. */
  dialerCampaigns: { id: string; name: string }[];
  agents: { id: string; name: string }[];
  channels: string[];
}

/** GET /api/reports/conversations/:id/detail */
export interface ConversationDetail {
  id: string;
  channel: string;
  line: string | null;
  customer: string;
  status: string;
  createdAt: string;
  closedAt: string | null;
  /** Every agent who held or wrote in the conversation, in order of first appearance. */
  agents: string[];
  messages: { at: string; senderKind: string; sender: string; text: string }[];
  transitions: { at: string; from: string | null; to: string; event: string; actorKind: string; actor: string | null }[];
  surveyAnswers: { at: string; poll: string; question: string; value: string }[];
}

/** A cell as it is written to an exported file (numbers stay numbers; ratios as 0..1). */
export function reportCellText(value: ReportCell): string {
  return value === null || value === undefined ? '' : String(value);
}

/** One CSV line (RFC 4180, every field quoted). Pass cells already neutralised. */
export function csvLine(cells: readonly string[]): string {
  return `${cells.map((cell) => `"${cell.replace(/"/g, '""')}"`).join(',')}\r\n`;
}
