import type { BusinessHoursWindow } from './admin';
import type { MessageView } from './realtime';

/**
 * The answer to a customer's message (POST /api/webchat/conversation/messages): the message as
 * stored (a resent `clientMessageId` answers the one stored before) and `conversationVersion`, the
 * conversation's version once it was stored (for a resend: when it was found). Held against the
 * `conversation.updated` pushes by the rule of VIEW_VERSIONS: keep the highest.
 */
export interface SentMessageView extends MessageView {
  conversationVersion: number;
}

/**
 * What the public web-chat page needs before the customer starts (GET /api/webchat/lines/:id):
 * the tenant's welcome and off-hours messages (platform settings), the WebChat channel card's
 * widget title, and whether the line is open now by its business hours.
 */
export interface WebchatLineView {
  attentionLineId: string;
  /** False outside the line's business hours: the widget shows `offHoursMessage` and no form. */
  open: boolean;
  welcomeMessage: string;
  offHoursMessage: string;
  /** '' when the channel card leaves it empty: the widget then shows its own translated title. */
  widgetTitle: string;
  /** IANA zone the business hours are read in. */
  timeZone: string;
  /**
   * Expected wait in seconds for a chat started now (the position behind those waiting, or Erlang C
   * from the line's staffing when nobody waits); null with nothing to base it on or when closed.
   */
  estimatedWaitSeconds: number | null;
  /**
   * True while the line is open but no agent of the line is available or busy (all paused, away or
   * signed out): the widget says so instead of an estimate it cannot make.
   */
  nobodyServing: boolean;
}

/** The zone business hours are read in when the tenant configured none (or an unknown one). */
export const DEFAULT_BUSINESS_TIME_ZONE = 'UTC';

const weekdayFormatters = new Map<string, Intl.DateTimeFormat>();
const WEEKDAY_INDEX: Record<string, number> = { Sun: 0, Mon: 1, Tue: 2, Wed: 3, Thu: 4, Fri: 5, Sat: 6 };

/** True when `zone` is an IANA time zone this runtime knows. */
export function isKnownTimeZone(zone: unknown): zone is string {
  if (typeof zone !== 'string' || zone === '') return false;
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: zone });
    return true;
  } catch {
    return false;
  }
}

/** Wall-clock weekday (0 = Sunday) and minute of the day in `timeZone` at the instant `at` (epoch ms). */
export function wallClockIn(timeZone: string, at: number): { day: number; minute: number } {
  let formatter = weekdayFormatters.get(timeZone);
  if (!formatter) {
    formatter = new Intl.DateTimeFormat('en-US', { timeZone, weekday: 'short', hour: '2-digit', minute: '2-digit', hourCycle: 'h23' });
    weekdayFormatters.set(timeZone, formatter);
  }
  const parts = formatter.formatToParts(new Date(at));
  const part = (type: Intl.DateTimeFormatPartTypes) => parts.find((candidate) => candidate.type === type)?.value ?? '';
  return { day: WEEKDAY_INDEX[part('weekday')] ?? 0, minute: Number(part('hour')) * 60 + Number(part('minute')) };
}

/** 'HH:MM' (00:00..23:59, or 24:00 for the end of the day) as minutes; null when malformed. */
function minutesOf(clock: unknown): number | null {
  if (typeof clock !== 'string') return null;
  if (clock === '24:00') return 24 * 60;
  const match = /^([01]\d|2[0-3]):([0-5]\d)$/.exec(clock);
  return match ? Number(match[1]) * 60 + Number(match[2]) : null;
}

/**
 * Whether a line with these business hours is open at the instant `at` (epoch ms), read as wall
 * clock in `timeZone`. Each window is one weekday (0 = Sunday … 6 = Saturday), `from` included and
 * `to` excluded, within that day. No windows at all means always open; a malformed window never
 * opens. Daylight-saving changes follow the zone's wall clock (09:00 stays 09:00 local).
 */
export function isLineOpenAt(hours: readonly BusinessHoursWindow[] | null | undefined, at: number, timeZone: string): boolean {
  if (!hours || hours.length === 0) return true;
  const zone = isKnownTimeZone(timeZone) ? timeZone : DEFAULT_BUSINESS_TIME_ZONE;
  const now = wallClockIn(zone, at);
  return hours.some((window) => {
    const from = minutesOf(window?.from);
    const to = minutesOf(window?.to);
    return window?.day === now.day && from !== null && to !== null && from < to && now.minute >= from && now.minute < to;
  });
}
