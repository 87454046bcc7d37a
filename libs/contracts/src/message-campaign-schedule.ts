/**
 * A message campaign's schedule, sending windows, live board and the WhatsApp number-quality
 * pause (issue 21). The windows are the dialer's calling windows (CallingWindowsInput: weekday →
 * HH:MM ranges in the recipient's local time, the zone taken from the number).
 */
import type { CallingWindowsInput } from './outbound';
import type { RecipientStatus } from './message-campaigns';

/** Why a campaign paused itself (besides `manual`, the daily limit, the account and the template). */
export const MESSAGE_CAMPAIGN_QUALITY_REASONS = ['quality_flagged', 'quality_downgrade'] as const;

/** Why a running campaign sends nothing now (the board says it with `idleUntil`). */
export const MESSAGE_CAMPAIGN_IDLE_REASONS = ['outside_sending_window'] as const;
export type MessageCampaignIdleReason = (typeof MESSAGE_CAMPAIGN_IDLE_REASONS)[number];

/** Skip reason of the recipients still unsent when the campaign's end time came. */
export const CAMPAIGN_ENDED_SKIP_REASON = 'campaign_ended';

export const MESSAGE_CAMPAIGN_SOCKET_EVENTS = { board: 'messageCampaign.board' } as const;

/** A campaign's board as pushed to the tenant room (staff namespace) whenever its counters or state change. */
export interface MessageCampaignBoardPush {
  id: string;
  status: 'draft' | 'scheduled' | 'running' | 'paused' | 'stopped' | 'finished';
  pausedReason: string | null;
  pausedDetail: string | null;
  idleReason: MessageCampaignIdleReason | null;
  idleUntil: string | null;
  startsAt: string | null;
  endsAt: string | null;
  startedAt: string | null;
  finishedAt: string | null;
  counts: Record<RecipientStatus, number> & { total: number; replied: number };
  skipped: Record<string, number>;
  /** When the board was read (epoch ms): a client keeps the newest and drops an older push. */
  at: number;
}

export interface MessageCampaignScheduleInput {
  /** ISO date-time; absent or null = when started. */
  startsAt?: string | null;
  /** ISO date-time; absent or null = no end. */
  endsAt?: string | null;
  /** The dialer's calling windows; absent or null = any hour. */
  callingWindows?: CallingWindowsInput | null;
}

const DAYS = ['sun', 'mon', 'tue', 'wed', 'thu', 'fri', 'sat'];
const CLOCK = /^(([01]\d|2[0-3]):[0-5]\d|24:00)$/;
const minutes = (clock: string) => (clock === '24:00' ? 1440 : Number(clock.slice(0, 2)) * 60 + Number(clock.slice(3)));

/** The first problem of a schedule (naming the field), or null. `now` (epoch ms) judges an end already past. */
export function scheduleProblem(input: MessageCampaignScheduleInput, now: number): string | null {
  const when = (field: 'startsAt' | 'endsAt'): number | null | string => {
    const value = input[field];
    if (value === undefined || value === null) return null;
    if (typeof value !== 'string' || Number.isNaN(Date.parse(value))) return `${field} must be an ISO date-time`;
    return Date.parse(value);
  };
  const starts = when('startsAt');
  if (typeof starts === 'string') return starts;
  const ends = when('endsAt');
  if (typeof ends === 'string') return ends;
  if (ends !== null && ends <= Math.max(now, starts ?? now)) return 'endsAt must be after startsAt and in the future';
  const windows = input.callingWindows;
  if (windows !== undefined && windows !== null) {
    if (typeof windows !== 'object' || Array.isArray(windows)) return 'callingWindows must map weekdays to time ranges';
    if (!Object.values(windows).some((ranges) => Array.isArray(ranges) && ranges.length > 0)) {
      return 'callingWindows must open at least once a week (or be null for any hour)';
    }
    for (const [day, ranges] of Object.entries(windows as Record<string, unknown>)) {
      if (!DAYS.includes(day)) return `callingWindows: unknown weekday ${day} (sun … sat)`;
      if (!Array.isArray(ranges)) return `callingWindows.${day} must be a list of {from, to}`;
      for (const range of ranges as { from?: unknown; to?: unknown }[]) {
        if (!range || typeof range.from !== 'string' || typeof range.to !== 'string' || !CLOCK.test(range.from) || !CLOCK.test(range.to)) {
          return `callingWindows.${day}: from and to must be HH:MM`;
        }
        if (minutes(range.from) >= minutes(range.to)) return `callingWindows.${day}: ${range.from}–${range.to} must end after it starts`;
      }
    }
  }
  return null;
}

/**
 * Meta's messaging-limit tiers (phone_number_quality_update `current_limit`) as the number of
 * business-initiated messages a rolling 24 h allows; null = no limit to pace by (unlimited, or not
 * set yet: the number has not sent, and Meta applies its starting limit itself).
 */
export function tierDailyLimit(tier: string | undefined | null): number | null {
  switch (tier) {
    case 'TIER_50':
      return 50;
    case 'TIER_250':
      return 250;
    case 'TIER_1K':
      return 1000;
    case 'TIER_2K':
      return 2000;
    case 'TIER_10K':
      return 10_000;
    case 'TIER_100K':
      return 100_000;
    default:
      return tier && /^[1-9]\d{0,8}$/.test(tier) ? Number(tier) : null;
  }
}
