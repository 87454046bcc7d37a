import { DomainError } from '../domain-error';
import { timeZoneForPhone } from './phone';

export const CALLING_WEEKDAYS = ['sun', 'mon', 'tue', 'wed', 'thu', 'fri', 'sat'] as const;
export type CallingWeekday = (typeof CALLING_WEEKDAYS)[number];

/** Local wall-clock range 'HH:MM'–'HH:MM', start included, end excluded, within one day. */
export interface CallingTimeRange {
  from: string;
  to: string;
}

/** Allowed calling hours per weekday, in the contact's local time; a day without ranges is closed. */
export type CallingWindows = Partial<Record<CallingWeekday, readonly CallingTimeRange[]>>;

export interface ContactLocalTime {
  timeZone: string;
  weekday: CallingWeekday;
  /** Minutes since local midnight. */
  minuteOfDay: number;
}

const WEEKDAY_BY_SHORT_NAME: Record<string, CallingWeekday> = {
  Sun: 'sun',
  Mon: 'mon',
  Tue: 'tue',
  Wed: 'wed',
  Thu: 'thu',
  Fri: 'fri',
  Sat: 'sat',
};

// Building a DateTimeFormat is costly next to using one; a dialer asks for the same few zones all day.
const formatters = new Map<string, Intl.DateTimeFormat>();

function formatterFor(timeZone: string): Intl.DateTimeFormat {
  let formatter = formatters.get(timeZone);
  if (formatter === undefined) {
    formatter = new Intl.DateTimeFormat('en-US', { timeZone, weekday: 'short', hour: '2-digit', minute: '2-digit', hourCycle: 'h23' });
    formatters.set(timeZone, formatter);
  }
  return formatter;
}

/** Wall-clock weekday and minute in a zone at an instant (epoch ms), from the runtime's tz data. */
export function localTimeIn(timeZone: string, at: number): ContactLocalTime {
  if (!Number.isFinite(at)) throw new DomainError('machine.invalidInput', `A time must be epoch milliseconds, got ${at}`);
  const parts = formatterFor(timeZone).formatToParts(new Date(at));
  const part = (type: Intl.DateTimeFormatPartTypes) => parts.find((candidate) => candidate.type === type)?.value ?? '';
  const weekday = WEEKDAY_BY_SHORT_NAME[part('weekday')];
  if (weekday === undefined) throw new DomainError('machine.invalidInput', `Cannot read the weekday in ${timeZone}`);
  return { timeZone, weekday, minuteOfDay: Number(part('hour')) * 60 + Number(part('minute')) };
}

/** The contact's local time, or null when the number's country is not in the zone table. */
export function contactLocalTime(phoneE164: string, at: number): ContactLocalTime | null {
  const timeZone = timeZoneForPhone(phoneE164);
  return timeZone === null ? null : localTimeIn(timeZone, at);
}

function minutesOf(clock: string): number {
  const match = /^([01]\d|2[0-3]):([0-5]\d)$|^24:00$/.exec(clock);
  if (match === null) throw new DomainError('machine.invalidInput', `A calling window time must be HH:MM (00:00 to 24:00), got '${clock}'`);
  return match[1] === undefined ? 24 * 60 : Number(match[1]) * 60 + Number(match[2]);
}

/** Checks every range once, so a bad configuration is refused when saved rather than when dialing. */
export function validateCallingWindows(windows: CallingWindows): void {
  for (const [day, ranges] of Object.entries(windows)) {
    if (!(CALLING_WEEKDAYS as readonly string[]).includes(day)) throw new DomainError('machine.invalidInput', `Unknown weekday '${day}'`);
    for (const range of ranges ?? []) {
      if (minutesOf(range.from) >= minutesOf(range.to)) {
        throw new DomainError('machine.invalidInput', `Calling window ${range.from}–${range.to} on ${day} must end after it starts`);
      }
    }
  }
}

/**
 * Whether the contact may be called at `at`, judged in their local time with the zone derived
 * from the number. Numbers from countries outside the zone table are never within the window:
 * we cannot show the call is lawful, so we do not place it.
 */
export function isWithinCallingWindow(phoneE164: string, at: number, windowsByWeekday: CallingWindows): boolean {
  validateCallingWindows(windowsByWeekday);
  const local = contactLocalTime(phoneE164, at);
  if (local === null) return false;
  return (windowsByWeekday[local.weekday] ?? []).some(
    (range) => local.minuteOfDay >= minutesOf(range.from) && local.minuteOfDay < minutesOf(range.to),
  );
}

/**
 * When the contact may next be called (epoch ms, to the minute): `at` itself while within a window,
 * else the start of the next window in their local time within a week; null when the number's zone
 * is unknown or no weekday has a window. Read in the contact's zone, daylight-saving shifts included.
 */
export function nextCallingWindowStart(phoneE164: string, at: number, windowsByWeekday: CallingWindows): number | null {
  validateCallingWindows(windowsByWeekday);
  const local = contactLocalTime(phoneE164, at);
  if (local === null) return null;
  if (isWithinCallingWindow(phoneE164, at, windowsByWeekday)) return at;
  const today = CALLING_WEEKDAYS.indexOf(local.weekday);
  const minuteStart = at - (at % 60_000);
  for (let offset = 0; offset <= 7; offset++) {
    const weekday = CALLING_WEEKDAYS[(today + offset) % 7];
    const starts = (windowsByWeekday[weekday] ?? []).map((range) => minutesOf(range.from)).sort((a, b) => a - b);
    for (const start of starts) {
      const minutesAhead = offset * 24 * 60 + start - local.minuteOfDay;
      if (minutesAhead <= 0) continue;
      let candidate = minuteStart + minutesAhead * 60_000;
      // A daylight-saving change between now and then moves the wall clock: land on the window's start.
      const there = localTimeIn(local.timeZone, candidate);
      if (there.weekday === weekday && there.minuteOfDay !== start) candidate += (start - there.minuteOfDay) * 60_000;
      return candidate;
    }
  }
  return null;
}
