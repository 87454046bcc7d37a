import { DomainError } from '../domain-error';
import type { TimeWindow } from './kpi-log';
import { requireWindow } from './kpi-internal';

/** The key of items whose grouping field is null or missing (a chat never assigned to a line…). */
export const NO_GROUP = '(none)';

/** Groups in first-seen order. */
export function groupBy<T>(items: readonly T[], keyOf: (item: T) => string | null | undefined): Map<string, T[]> {
  const groups = new Map<string, T[]>();
  for (const item of items) {
    const key = keyOf(item) ?? NO_GROUP;
    const group = groups.get(key);
    if (group) group.push(item);
    else groups.set(key, [item]);
  }
  return groups;
}

export const byLine = (item: { attentionLineId: string | null }): string | null => item.attentionLineId;
export const byAgent = (item: { agentId: string | null }): string | null => item.agentId;
export const byChannel = (item: { channel: string | null }): string | null => item.channel;

export type TimeBucketUnit = 'day' | 'hour';

const formatters = new Map<string, Intl.DateTimeFormat>();

function formatterFor(timeZone: string): Intl.DateTimeFormat {
  let formatter = formatters.get(timeZone);
  if (!formatter) {
    try {
      formatter = new Intl.DateTimeFormat('en-US', {
        timeZone,
        hourCycle: 'h23',
        year: 'numeric',
        month: '2-digit',
        day: '2-digit',
        hour: '2-digit',
        minute: '2-digit',
        second: '2-digit',
      });
    } catch {
      throw new DomainError('machine.invalidInput', `Unknown IANA time zone "${timeZone}"`);
    }
    formatters.set(timeZone, formatter);
  }
  return formatter;
}

const pad = (value: number) => String(value).padStart(2, '0');

/**
 * The local day ('2026-03-29') or local hour ('2026-03-29T02:00+01:00') an instant falls in. Hour
 * keys carry the UTC offset, so the hour repeated when clocks go back is two distinct buckets.
 */
export function timeBucketKey(at: number, unit: TimeBucketUnit, timeZone: string): string {
  const parts: Record<string, number> = {};
  for (const part of formatterFor(timeZone).formatToParts(at)) if (part.type !== 'literal') parts[part.type] = Number(part.value);
  const day = `${parts.year}-${pad(parts.month!)}-${pad(parts.day!)}`;
  if (unit === 'day') return day;
  const wall = Date.UTC(parts.year!, parts.month! - 1, parts.day!, parts.hour, parts.minute, parts.second);
  const offsetMinutes = Math.round((wall - (at - (((at % 1000) + 1000) % 1000))) / 60_000);
  const sign = offsetMinutes < 0 ? '-' : '+';
  const abs = Math.abs(offsetMinutes);
  return `${day}T${pad(parts.hour!)}:00${sign}${pad(Math.floor(abs / 60))}:${pad(abs % 60)}`;
}

/** A key function for `groupBy` that buckets items by the local day or hour of one of their times. */
export function byTimeBucket<T>(unit: TimeBucketUnit, timeZone: string, timeOf: (item: T) => number): (item: T) => string {
  formatterFor(timeZone);
  return (item) => timeBucketKey(timeOf(item), unit, timeZone);
}

export interface TimeBucket extends TimeWindow {
  key: string;
}

// Every UTC offset in use and every clock change falls on a quarter hour, so bucket boundaries
// lie on this grid and stepping along it finds them without date arithmetic in the zone.
const GRID_MS = 15 * 60_000;
// No local day is shorter than 22 h (a 1-hour DST change; a skipped calendar day still changes the key).
const SHORTEST_DAY_MS = 22 * 3_600_000;

function nextBoundary(at: number, unit: TimeBucketUnit, timeZone: string): number {
  const key = timeBucketKey(at, unit, timeZone);
  let candidate = Math.floor(at / GRID_MS) * GRID_MS + GRID_MS;
  if (unit === 'day') {
    const jumped = Math.floor((at + SHORTEST_DAY_MS) / GRID_MS) * GRID_MS;
    if (jumped > candidate && timeBucketKey(jumped, unit, timeZone) === key) candidate = jumped;
  }
  while (timeBucketKey(candidate, unit, timeZone) === key) candidate += GRID_MS;
  return candidate;
}

/**
 * The window cut at local midnights (or local hours) in an IANA time zone, the first and last
 * buckets clipped to the window. Duration KPIs (state times, pause time, occupancy) are computed
 * once per bucket, so a pause from 23:00 to 01:00 gives one hour to each day.
 */
export function timeBuckets(window: TimeWindow, unit: TimeBucketUnit, timeZone: string): TimeBucket[] {
  requireWindow(window);
  const buckets: TimeBucket[] = [];
  let start = window.from;
  while (start < window.to) {
    const end = Math.min(nextBoundary(start, unit, timeZone), window.to);
    buckets.push({ key: timeBucketKey(start, unit, timeZone), from: start, to: end });
    start = end;
  }
  return buckets;
}
