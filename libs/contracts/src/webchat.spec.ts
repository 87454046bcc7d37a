import { describe, expect, it } from '@jest/globals';
import { isKnownTimeZone, isLineOpenAt, wallClockIn } from './webchat';

const at = (iso: string) => Date.parse(iso);
// Monday to Friday 09:00–17:00.
const weekdays = [1, 2, 3, 4, 5].map((day) => ({ day, from: '09:00', to: '17:00' }));

describe('isLineOpenAt', () => {
  it('is always open without business hours', () => {
    expect(isLineOpenAt([], at('2026-01-04T03:00:00Z'), 'UTC')).toBe(true);
    expect(isLineOpenAt(null, at('2026-01-04T03:00:00Z'), 'Europe/Madrid')).toBe(true);
  });

  it('opens at `from` (included) and closes at `to` (excluded)', () => {
    // 2026-01-05 is a Monday.
    expect(isLineOpenAt(weekdays, at('2026-01-05T08:59:59Z'), 'UTC')).toBe(false);
    expect(isLineOpenAt(weekdays, at('2026-01-05T09:00:00Z'), 'UTC')).toBe(true);
    expect(isLineOpenAt(weekdays, at('2026-01-05T16:59:59Z'), 'UTC')).toBe(true);
    expect(isLineOpenAt(weekdays, at('2026-01-05T17:00:00Z'), 'UTC')).toBe(false);
  });

  it('is closed on a weekday without windows (Sunday = 0, Saturday = 6)', () => {
    expect(isLineOpenAt(weekdays, at('2026-01-04T12:00:00Z'), 'UTC')).toBe(false);
    expect(isLineOpenAt(weekdays, at('2026-01-10T12:00:00Z'), 'UTC')).toBe(false);
    expect(isLineOpenAt([{ day: 0, from: '10:00', to: '12:00' }], at('2026-01-04T11:00:00Z'), 'UTC')).toBe(true);
    expect(isLineOpenAt([{ day: 6, from: '10:00', to: '12:00' }], at('2026-01-10T11:00:00Z'), 'UTC')).toBe(true);
  });

  it('reads the weekday in the zone, not in UTC (day boundaries)', () => {
    // Monday 23:30 UTC is already Tuesday 00:30 in Madrid (UTC+1 in winter).
    const lateMonday = at('2026-01-05T23:30:00Z');
    expect(isLineOpenAt([{ day: 1, from: '23:00', to: '24:00' }], lateMonday, 'UTC')).toBe(true);
    expect(isLineOpenAt([{ day: 1, from: '23:00', to: '24:00' }], lateMonday, 'Europe/Madrid')).toBe(false);
    expect(isLineOpenAt([{ day: 2, from: '00:00', to: '01:00' }], lateMonday, 'Europe/Madrid')).toBe(true);
    // Tuesday 03:00 UTC is still Monday 22:00 in Bogotá (UTC-5).
    expect(isLineOpenAt([{ day: 1, from: '21:00', to: '23:00' }], at('2026-01-06T03:00:00Z'), 'America/Bogota')).toBe(true);
  });

  it('follows daylight saving: 09:00 local stays 09:00 local', () => {
    const madridMorning = [{ day: 1, from: '09:00', to: '10:00' }];
    // Winter (UTC+1): 09:30 local is 08:30 UTC. Summer (UTC+2): 09:30 local is 07:30 UTC.
    expect(isLineOpenAt(madridMorning, at('2026-01-05T08:30:00Z'), 'Europe/Madrid')).toBe(true);
    expect(isLineOpenAt(madridMorning, at('2026-07-06T07:30:00Z'), 'Europe/Madrid')).toBe(true);
    expect(isLineOpenAt(madridMorning, at('2026-07-06T08:30:00Z'), 'Europe/Madrid')).toBe(false);
    // Sunday 2026-03-29 the clocks jump from 02:00 to 03:00 in Madrid: 01:30 UTC is 03:30 local.
    expect(isLineOpenAt([{ day: 0, from: '03:00', to: '04:00' }], at('2026-03-29T01:30:00Z'), 'Europe/Madrid')).toBe(true);
    expect(isLineOpenAt([{ day: 0, from: '02:00', to: '03:00' }], at('2026-03-29T01:30:00Z'), 'Europe/Madrid')).toBe(false);
  });

  it('never opens on a malformed window, and reads an unknown zone as UTC', () => {
    const monday = at('2026-01-05T12:00:00Z');
    expect(isLineOpenAt([{ day: 1, from: '13:00', to: '11:00' }], monday, 'UTC')).toBe(false);
    expect(isLineOpenAt([{ day: 1, from: '9:00', to: '17:00' }], monday, 'UTC')).toBe(false);
    expect(isLineOpenAt([{ day: 8, from: '00:00', to: '24:00' }], monday, 'UTC')).toBe(false);
    expect(isLineOpenAt([{ day: 1, from: '12:00', to: '12:30' }], monday, 'Mars/Olympus')).toBe(true);
  });
});

describe('wallClockIn / isKnownTimeZone', () => {
  it('gives the weekday and minute in the zone', () => {
    expect(wallClockIn('UTC', at('2026-01-05T09:15:00Z'))).toEqual({ day: 1, minute: 9 * 60 + 15 });
    expect(wallClockIn('Asia/Tokyo', at('2026-01-05T20:00:00Z'))).toEqual({ day: 2, minute: 5 * 60 });
  });

  it('knows IANA zones only', () => {
    expect(isKnownTimeZone('Europe/Madrid')).toBe(true);
    expect(isKnownTimeZone('Mars/Olympus')).toBe(false);
    expect(isKnownTimeZone('')).toBe(false);
    expect(isKnownTimeZone(undefined)).toBe(false);
  });
});
