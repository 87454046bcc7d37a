/**
 * Outbound dialing (/OutboundCampaign/*, the agent desk's outbound panel): campaign input and rules,
 * the views the API answers and pushes, and the queues between the dialer worker and the API.
 */
import type { RuleIssue } from './admin';
import type { RenderedScript } from './outbound-templates';
import { QUEUES } from './queues';

export const DIALER_MODES = ['preview', 'progressive', 'predictive'] as const;
export type DialerMode = (typeof DIALER_MODES)[number];

export const DIALER_CAMPAIGN_STATUSES = ['draft', 'scheduled', 'running', 'paused', 'completed', 'cancelled'] as const;
export type DialerCampaignStatus = (typeof DIALER_CAMPAIGN_STATUSES)[number];

export const CALLING_DAYS = ['sun', 'mon', 'tue', 'wed', 'thu', 'fri', 'sat'] as const;
export type CallingDay = (typeof CALLING_DAYS)[number];
export type CallingWindowsInput = Partial<Record<CallingDay, { from: string; to: string }[]>>;

/** Outcomes a retry delay can be set for (done and cancelled are never retried). */
export const RETRY_OUTCOMES = ['busy', 'noAnswer', 'answeringMachine', 'failed', 'abandoned'] as const;
export type RetryOutcome = (typeof RETRY_OUTCOMES)[number];

/** Dispositions an agent picks after an outbound call (UpdDISPO). */
export const OUTBOUND_DISPOSITIONS = ['sale', 'interested', 'callback', 'notInterested', 'wrongNumber', 'doNotCall'] as const;
export type OutboundDisposition = (typeof OUTBOUND_DISPOSITIONS)[number];

export const OUTBOUND_LIMITS = {
  nameMax: 120,
  /** Abandonment cap in percent of human-answered calls. */
  abandonCapMin: 0.1,
  abandonCapMax: 10,
  abandonCapDefault: 3,
  abandonThresholdMsMin: 500,
  abandonThresholdMsMax: 10_000,
  abandonThresholdMsDefault: 2000,
  maxAttemptsMin: 1,
  maxAttemptsMax: 10,
  maxAttemptsDefault: 3,
  retryDelaySecMax: 7 * 24 * 3600,
} as const;

export const DEFAULT_RETRY_DELAYS: Record<RetryOutcome, number> = {
  busy: 300,
  noAnswer: 3600,
  answeringMachine: 4 * 3600,
  failed: 900,
  abandoned: 72 * 3600,
};

/** Monday to Friday 09:00–21:00, Saturday 10:00–14:00 (contact's local time). */
export const DEFAULT_CALLING_WINDOWS: CallingWindowsInput = {
  mon: [{ from: '09:00', to: '21:00' }],
  tue: [{ from: '09:00', to: '21:00' }],
  wed: [{ from: '09:00', to: '21:00' }],
  thu: [{ from: '09:00', to: '21:00' }],
  fri: [{ from: '09:00', to: '21:00' }],
  sat: [{ from: '10:00', to: '14:00' }],
};

export interface DialerCampaignInput {
  name: string;
  phoneListId: string;
  mode: DialerMode;
  abandonCapPercent: number;
  abandonThresholdMs: number;
  maxAttempts: number;
  retryDelays: Partial<Record<RetryOutcome, number>>;
  callingWindows: CallingWindowsInput;
  scheduleFrom: string | null;
  scheduleTo: string | null;
  trunkId: string | null;
  callerId: string | null;
  agentIds: string[];
  /** Outbound template whose script the agents see rendered for each contact; null = none. */
  templateId?: string | null;
}

export interface DialerCampaignView extends DialerCampaignInput {
  id: string;
  status: DialerCampaignStatus;
  version: number;
  phoneListName: string | null;
  createdAt: string;
  updatedAt: string;
}

/** The supervisor's live board for one campaign. */
export interface OutboundBoardView {
  campaignId: string;
  tenantId: string;
  status: DialerCampaignStatus;
  mode: DialerMode;
  /** Calls in flight per waiting agent (predictive look-ahead); 0 when no agent waits. */
  dialLevel: number;
  callsInProgress: number;
  dialed: number;
  answered: number;
  abandoned: number;
  /** Abandoned ÷ answered by a human, in percent; null before anyone answered. */
  abandonRatePercent: number | null;
  abandonCapPercent: number;
  remainingRecords: number;
  agentsByState: Record<string, number>;
  agents: { agentId: string; name: string; status: string }[];
  recentCalls: OutboundCallView[];
  /**
   * Why the running campaign placed no call on the dialer's last round, since when, and until when
   * it expects that to last where it can tell (ISO); null while it dials or when not running.
   */
  idle: { reason: CampaignIdleReason; since: string; until: string | null } | null;
  at: string;
}

/**
 * Why a running campaign dials nobody (written by the dialer): every contact due is outside its
 * calling window, no agent of the campaign waits for a call, every line of the trunk is in use, no
 * contact is due yet (retries later), the abandon cap holds the pacer back, or the campaign cannot
 * dial at all (no trunk, the trunk unusable, no caller id).
 */
export const CAMPAIGN_IDLE_REASONS = [
  'outsideCallingWindow',
  'noAgentWaiting',
  'trunkBusy',
  'noContactDue',
  'abandonCap',
  'noTrunk',
  'trunkUnusable',
  'noCallerId',
] as const;
export type CampaignIdleReason = (typeof CAMPAIGN_IDLE_REASONS)[number];

export interface OutboundCallView {
  id: string;
  tenantId: string;
  campaignId: string;
  campaignName?: string;
  contactId: string;
  phone: string;
  contactName: string | null;
  attempt: number;
  status: string;
  outcome: string | null;
  disposition: string | null;
  agentId: string | null;
  version: number;
  createdAt: string;
  answeredAt: string | null;
  connectedAt: string | null;
  finishedAt: string | null;
  /** The campaign template's script rendered for this contact (the agent's screen pop); null = no template. */
  script?: RenderedScript | null;
}

/** A contact reserved for one agent in a preview campaign (POST /api/outbound/agent/preview). */
export interface PreviewRecord {
  callId: string;
  contactId: string;
  campaignId: string;
  campaignName: string;
  phone: string;
  name: string | null;
  attempt: number;
  dialRequested: boolean;
  /** Dialled, but every line of the campaign's trunk is in use: waiting since then (ISO); null otherwise. */
  waitingForLineSince: string | null;
  /** The campaign template's script rendered for this contact; null when the campaign has none. */
  script?: RenderedScript | null;
}

export interface DoNotCallEntry {
  id: string;
  phone: string;
  /** null = every campaign of the tenant. */
  campaignId: string | null;
  campaignName?: string | null;
  reason: string | null;
  createdAt: string;
  createdBy?: string | null;
  createdByName?: string | null;
}

export const CALLBACK_STATUSES = ['pending', 'dialed', 'cancelled'] as const;
export type CallbackStatus = (typeof CALLBACK_STATUSES)[number];
/** Callback list filter on the due time of pending callbacks. */
export const CALLBACK_DUE_FILTERS = ['overdue', 'upcoming'] as const;
export type CallbackDueFilter = (typeof CALLBACK_DUE_FILTERS)[number];

export interface OutboundCallback {
  id: string;
  campaignId: string;
  campaignName?: string;
  contactId: string;
  contactName?: string | null;
  phone: string;
  dueAt: string;
  agentId: string | null;
  agentName?: string | null;
  status: CallbackStatus;
  createdAt?: string;
}

/** What the campaign form picks from (GET /api/outbound/form-options). */
export interface OutboundFormOptions {
  /** The tenant's phone lists (a supervisor may lack phone-lists.manage, so the form cannot read /api/phone-lists). */
  phoneLists: { id: string; name: string; entryCount: number }[];
  trunks: { id: string; name: string; callerId: string | null; active: boolean }[];
  /** Users whose role handles conversations; inactive ones only so an edit can still name them. */
  agents: { id: string; name: string; email: string; active: boolean }[];
}

/** Server → client socket events on `/staff` (tenant room for the board, agent room for the screen pop). */
export const OUTBOUND_SOCKET_EVENTS = {
  board: 'outbound.board',
  call: 'outbound.call',
  /** To the agent of a preview call they asked to dial: whether it waits for a free trunk line (OutboundPreviewLineView). */
  preview: 'outbound.preview',
} as const;

/**
 * A preview call the agent dialled waits for a free line on its campaign's trunk (since when), or
 * no longer does (null: the dialer placed it).
 */
export interface OutboundPreviewLineView {
  callId: string;
  waitingForLineSince: string | null;
}

/** The queues between the dialer worker (telephony) and the API, as named in the registry (QUEUES). */
export const OUTBOUND_QUEUES = {
  callEvents: QUEUES.outboundCallEvents,
  dialerTicks: QUEUES.dialerTicks,
} as const;

export type OutboundCallEventJob =
  | {
      kind: 'create';
      callId: string;
      tenantId: string;
      campaignId: string;
      contactId: string;
      phone: string;
      attempt: number;
      abandonThresholdMs: number;
      at: number;
    }
  | { kind: 'ringing'; callId: string; at: number }
  | { kind: 'answered'; callId: string; by: 'human' | 'machine'; at: number }
  | { kind: 'busy'; callId: string; at: number }
  | { kind: 'noAnswer'; callId: string; at: number }
  | { kind: 'failed'; callId: string; reason: string; at: number }
  | { kind: 'hungUp'; callId: string; at: number }
  | { kind: 'abandonTimer'; callId: string; armedAt: number }
  | { kind: 'wrapUpTimer'; callId: string; armedAt: number }
  | { kind: 'campaignStartTimer'; campaignId: string; armedAt: number }
  | { kind: 'campaignEndTimer'; campaignId: string; armedAt: number }
  /** The dialer found nothing left to dial: the API completes the campaign if that is still true. */
  | { kind: 'campaignExhausted'; campaignId: string }
  /** The dialer recorded a new reason (or none) for the campaign not dialling: the API pushes its board. */
  | { kind: 'campaignIdle'; campaignId: string }
  /** A preview call the agent dialled waits for a free line on its trunk: the API tells the agent. */
  | { kind: 'previewAwaitingLine'; callId: string; at: number };

const TIME = /^([01]\d|2[0-3]):[0-5]\d$/;

/** Shared by the API and the console (same messages, same fields). */
export function validateDialerCampaign(input: Partial<Record<keyof DialerCampaignInput, unknown>>): RuleIssue[] {
  const issues: RuleIssue[] = [];
  const name = typeof input.name === 'string' ? input.name.trim() : '';
  if (!name) issues.push({ field: 'name', key: 'required' });
  else if (name.length > OUTBOUND_LIMITS.nameMax)
    issues.push({ field: 'name', key: 'maxLength', values: { max: OUTBOUND_LIMITS.nameMax } });
  if (typeof input.phoneListId !== 'string' || !input.phoneListId) issues.push({ field: 'phoneListId', key: 'required' });
  if (!DIALER_MODES.includes(input.mode as DialerMode))
    issues.push({ field: 'mode', key: 'oneOf', values: { options: DIALER_MODES.join(', ') } });
  const between = (field: keyof DialerCampaignInput, min: number, max: number, integer: boolean) => {
    const value = input[field];
    if (value === undefined || value === null) return;
    if (typeof value !== 'number' || !Number.isFinite(value) || (integer && !Number.isInteger(value)) || value < min || value > max) {
      issues.push({ field, key: 'range', values: { min, max } });
    }
  };
  between('abandonCapPercent', OUTBOUND_LIMITS.abandonCapMin, OUTBOUND_LIMITS.abandonCapMax, false);
  between('abandonThresholdMs', OUTBOUND_LIMITS.abandonThresholdMsMin, OUTBOUND_LIMITS.abandonThresholdMsMax, true);
  between('maxAttempts', OUTBOUND_LIMITS.maxAttemptsMin, OUTBOUND_LIMITS.maxAttemptsMax, true);
  if (input.retryDelays !== undefined && input.retryDelays !== null) {
    const delays = input.retryDelays as Record<string, unknown>;
    for (const [outcome, value] of Object.entries(delays)) {
      if (!RETRY_OUTCOMES.includes(outcome as RetryOutcome)) issues.push({ field: 'retryDelays', key: 'unknown' });
      else if (typeof value !== 'number' || !Number.isInteger(value) || value < 0 || value > OUTBOUND_LIMITS.retryDelaySecMax)
        issues.push({ field: 'retryDelays', key: 'range', values: { min: 0, max: OUTBOUND_LIMITS.retryDelaySecMax } });
    }
  }
  if (input.callingWindows !== undefined && input.callingWindows !== null) {
    const windows = input.callingWindows as Record<string, unknown>;
    for (const [day, ranges] of Object.entries(windows)) {
      const ok =
        CALLING_DAYS.includes(day as CallingDay) &&
        Array.isArray(ranges) &&
        ranges.every(
          (range: { from?: unknown; to?: unknown }) =>
            typeof range?.from === 'string' &&
            typeof range?.to === 'string' &&
            TIME.test(range.from) &&
            TIME.test(range.to) &&
            range.from < range.to,
        );
      if (!ok) {
        issues.push({ field: 'callingWindows', key: 'pattern' });
        break;
      }
    }
  }
  const from = typeof input.scheduleFrom === 'string' ? Date.parse(input.scheduleFrom) : null;
  const to = typeof input.scheduleTo === 'string' ? Date.parse(input.scheduleTo) : null;
  if (from !== null && Number.isNaN(from)) issues.push({ field: 'scheduleFrom', key: 'date' });
  if (to !== null && Number.isNaN(to)) issues.push({ field: 'scheduleTo', key: 'date' });
  if (from !== null && to !== null && !Number.isNaN(from) && !Number.isNaN(to) && to <= from)
    issues.push({ field: 'scheduleTo', key: 'dateOrder' });
  return issues;
}

/** Spreadsheet-safe CSV cell: formulas neutralised, quotes doubled. */
export function csvCell(value: unknown): string {
  let text = value === null || value === undefined ? '' : String(value);
  if (/^[=+\-@\t\r]/.test(text)) text = `'${text}`;
  return /[",\n\r;]/.test(text) || text.startsWith("'") ? `"${text.replace(/"/g, '""')}"` : text;
}
