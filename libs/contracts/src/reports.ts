/**
 * Reports (/reports/reports): report types, their columns, filters, exports and the export queue.
 * Every figure is read from the transition log (through the KPI library) or from the stored rows.
 */
export const REPORT_TYPES = ['conversations', 'agent-activity', 'pauses', 'queue', 'survey-answers', 'outbound-results'] as const;
export type ReportType = (typeof REPORT_TYPES)[number];

/** A report window is at most this long (the console offers day ranges inside it). */
export const REPORT_MAX_RANGE_DAYS = 366;
export const REPORT_MAX_PAGE_SIZE = 200;

/** Queue of export jobs; job id = export id. Renaming it strands queued jobs. */
export const REPORT_EXPORT_QUEUE = 'report-export';
export interface ReportExportJob {
  exportId: string;
}
export const REPORT_EXPORT_FORMATS = ['csv', 'xlsx'] as const;
export type ReportExportFormat = (typeof REPORT_EXPORT_FORMATS)[number];
export type ReportExportStatus = 'queued' | 'running' | 'done' | 'failed' | 'expired';

/** How a column's value is to be shown: `datetime` is ISO-8601, `seconds` a duration, `ratio` 0..1. */
export type ReportColumnKind = 'text' | 'datetime' | 'seconds' | 'number' | 'ratio';
export interface ReportColumn {
  key: string;
  kind: ReportColumnKind;
  /** English header of the exported file; the console translates `reports.columns.<key>`. */
  label: string;
  sortable?: boolean;
}

const col = (key: string, kind: ReportColumnKind, label: string, sortable = false): ReportColumn => ({ key, kind, label, sortable });

export const REPORT_COLUMNS: Record<ReportType, readonly ReportColumn[]> = {
  conversations: [
    col('id', 'text', 'Conversation'),
    col('createdAt', 'datetime', 'Started', true),
    col('channel', 'text', 'Channel', true),
    col('line', 'text', 'Line', true),
    col('agent', 'text', 'Agent', true),
    col('customer', 'text', 'Customer', true),
    col('status', 'text', 'Status', true),
    col('closedAt', 'datetime', 'Closed', true),
    col('waitSeconds', 'seconds', 'Wait (s)'),
    col('handleSeconds', 'seconds', 'Handle time (s)'),
    col('messages', 'number', 'Messages'),
  ],
  'agent-activity': [
    col('agent', 'text', 'Agent', true),
    col('email', 'text', 'Email', true),
    col('staffedSeconds', 'seconds', 'Logged in (s)'),
    col('availableSeconds', 'seconds', 'Available (s)'),
    col('handlingSeconds', 'seconds', 'Handling (s)'),
    col('pausedSeconds', 'seconds', 'Paused (s)'),
    col('occupancy', 'ratio', 'Occupancy'),
    col('chatsHandled', 'number', 'Chats handled'),
    col('averageHandleSeconds', 'seconds', 'Average handle time (s)'),
  ],
  pauses: [
    col('agent', 'text', 'Agent', true),
    col('pauses', 'number', 'Pauses'),
    col('pausedSeconds', 'seconds', 'Paused (s)'),
    col('reasons', 'text', 'Seconds by reason'),
  ],
  queue: [
    col('line', 'text', 'Line', true),
    col('channel', 'text', 'Channel', true),
    col('offered', 'number', 'Offered'),
    col('answered', 'number', 'Answered'),
    col('abandoned', 'number', 'Abandoned'),
    col('timedOut', 'number', 'Timed out'),
    col('serviceLevel', 'ratio', 'Service level'),
    col('averageSpeedOfAnswerSeconds', 'seconds', 'Average speed of answer (s)'),
    col('longestWaitSeconds', 'seconds', 'Longest wait (s)'),
  ],
  'survey-answers': [
    col('answeredAt', 'datetime', 'Answered', true),
    col('poll', 'text', 'Survey', true),
    col('question', 'text', 'Question', true),
    col('value', 'text', 'Answer', true),
    col('conversationId', 'text', 'Conversation'),
    col('agent', 'text', 'Agent', true),
    col('line', 'text', 'Line', true),
    col('channel', 'text', 'Channel', true),
  ],
  'outbound-results': [
    col('startedAt', 'datetime', 'Started', true),
    col('campaign', 'text', 'Campaign', true),
    col('phone', 'text', 'Phone', true),
    col('attempt', 'number', 'Attempt', true),
    col('outcome', 'text', 'Outcome', true),
    col('disposition', 'text', 'Disposition', true),
    col('agent', 'text', 'Agent', true),
    col('talkSeconds', 'seconds', 'Talk (s)'),
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
