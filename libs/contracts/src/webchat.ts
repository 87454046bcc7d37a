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
 * widget title, and whether the line is open now by its business hours (when closed, when it opens again).
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
   * The line's weekly opening windows, by weekday and opening time ([] = always open): the widget
   * shows them under the off-hours message.
   */
  businessHours: BusinessHoursWindow[];
  /** While closed: when the line opens again, computed in `timeZone`; null while open or when no window ever opens. */
  nextOpening: LineOpening | null;
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
  /** Present (true) when the line's bot answers first: the widget shows the chat (and a handoff button) instead of the menu. */
  bot?: true;
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

/**
 * When a closed line opens again (WebchatLineView.nextOpening): the instant, and that instant's wall
 * clock in the line's zone, so the widget can say "we open again on Monday at 09:00".
 */
export interface LineOpening {
  /** The instant the line opens (ISO 8601, UTC). */
  at: string;
  /** Weekday of the opening in the line's zone (0 = Sunday … 6 = Saturday). */
  day: number;
  /** 'HH:MM' wall clock of the opening in the line's zone. */
  time: string;
  /** Calendar days from today in the line's zone: 0 later today, 1 tomorrow … 7 the same weekday next week (8 when the daylight-saving gap swallowed the one in between). */
  daysAhead: number;
}

const partsFormatters = new Map<string, Intl.DateTimeFormat>();
const MINUTE_MS = 60_000;

/** Calendar date, weekday and minute of the day in `timeZone` at `at` (epoch ms). */
function zonedParts(timeZone: string, at: number): { year: number; month: number; date: number; minute: number } {
  let formatter = partsFormatters.get(timeZone);
  if (!formatter) {
    formatter = new Intl.DateTimeFormat('en-US', {
      timeZone,
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: '2-digit',
      minute: '2-digit',
      hourCycle: 'h23',
    });
    partsFormatters.set(timeZone, formatter);
  }
  const parts = formatter.formatToParts(new Date(at));
  const part = (type: Intl.DateTimeFormatPartTypes) => Number(parts.find((candidate) => candidate.type === type)?.value ?? 0);
  return { year: part('year'), month: part('month'), date: part('day'), minute: (part('hour') % 24) * 60 + part('minute') };
}

/** How far `timeZone`'s wall clock is ahead of UTC at `at`, in ms (whole minutes). */
function offsetAt(timeZone: string, at: number): number {
  const wall = zonedParts(timeZone, at);
  const floored = at - (((at % MINUTE_MS) + MINUTE_MS) % MINUTE_MS);
  return Date.UTC(wall.year, wall.month - 1, wall.date) + wall.minute * MINUTE_MS - floored;
}

const clock = (minute: number) => `${String(Math.floor(minute / 60)).padStart(2, '0')}:${String(minute % 60).padStart(2, '0')}`;

/**
 * The first instant after `at` at which a line closed at `at` opens, read as wall clock in
 * `timeZone` (the rules of isLineOpenAt). Null when the line is open at `at`, has no business hours
 * (always open) or no well-formed window. A window that starts inside a daylight-saving gap opens
 * when the clock jumps (02:30 on the spring-forward night opens at 03:00); a start the clock shows
 * twice (autumn) opens at the first of the two.
 */
export function nextLineOpening(
  hours: readonly BusinessHoursWindow[] | null | undefined,
  at: number,
  timeZone: string,
): LineOpening | null {
  if (!hours || hours.length === 0 || isLineOpenAt(hours, at, timeZone)) return null;
  const zone = isKnownTimeZone(timeZone) ? timeZone : DEFAULT_BUSINESS_TIME_ZONE;
  const windows = hours.flatMap((window) => {
    const from = minutesOf(window?.from);
    const to = minutesOf(window?.to);
    const day = window?.day;
    return Number.isInteger(day) && day >= 0 && day <= 6 && from !== null && to !== null && from < to ? [{ day, from, to, window }] : [];
  });
  const today = zonedParts(zone, at);
  // Up to the same weekday next week (it may open earlier in the day than now), and one more day for
  // a window the spring-forward gap swallows tomorrow.
  for (let daysAhead = 0; daysAhead <= 8; daysAhead++) {
    const calendar = new Date(Date.UTC(today.year, today.month - 1, today.date + daysAhead));
    const starts = windows.filter((window) => window.day === calendar.getUTCDay()).sort((a, b) => a.from - b.from);
    for (const start of starts) {
      const opens = openingInstant(start.window, calendar.getTime() + start.from * MINUTE_MS, start.from, zone);
      if (opens === null || opens <= at) continue;
      return { at: new Date(opens).toISOString(), day: start.day, time: clock(zonedParts(zone, opens).minute), daysAhead };
    }
  }
  return null;
}

/**
 * The instant a window's start (`wall`: its date and minute written as if UTC) happens in `zone`:
 * the earlier of the two instants showing it when the clock goes back, the end of the gap when the
 * clock skips it, null when the whole window falls inside the gap.
 */
function openingInstant(window: BusinessHoursWindow, wall: number, fromMinute: number, zone: string): number | null {
  const before = offsetAt(zone, wall - 12 * 60 * MINUTE_MS);
  const after = offsetAt(zone, wall + 12 * 60 * MINUTE_MS);
  const exact = [wall - Math.max(before, after), wall - Math.min(before, after)].filter(
    (instant) => zonedParts(zone, instant).minute === fromMinute,
  );
  if (exact.length) return Math.min(...exact);
  // The clock skips the start: the window opens at the first minute the zone's clock shows inside it.
  let low = wall - Math.max(before, after);
  let high = wall - Math.min(before, after);
  if (!isLineOpenAt([window], high, zone)) return null;
  while (high - low > MINUTE_MS) {
    const middle = low + Math.floor((high - low) / 2 / MINUTE_MS) * MINUTE_MS;
    if (isLineOpenAt([window], middle, zone)) high = middle;
    else low = middle;
  }
  return high;
}
