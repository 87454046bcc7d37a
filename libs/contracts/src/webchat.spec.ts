import { describe, expect, it } from '@jest/globals';
import { isKnownTimeZone, isLineOpenAt, nextLineOpening, wallClockIn } from './webchat';

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

describe('nextLineOpening', () => {
  it('is null while the line is open, and for a line without business hours (always open)', () => {
    expect(nextLineOpening(weekdays, at('2026-01-05T10:00:00Z'), 'UTC')).toBeNull();
    expect(nextLineOpening([], at('2026-01-04T03:00:00Z'), 'UTC')).toBeNull();
    expect(nextLineOpening(null, at('2026-01-04T03:00:00Z'), 'UTC')).toBeNull();
  });

  it('opens later today before the first window of the day', () => {
    // Monday 2026-01-05 07:00: opens at 09:00 the same day.
    expect(nextLineOpening(weekdays, at('2026-01-05T07:00:00Z'), 'UTC')).toEqual({
      at: '2026-01-05T09:00:00.000Z',
      day: 1,
      time: '09:00',
      daysAhead: 0,
    });
  });

  it('opens tomorrow after the day’s last window has closed (`to` excluded)', () => {
    expect(nextLineOpening(weekdays, at('2026-01-05T17:00:00Z'), 'UTC')).toEqual({
      at: '2026-01-06T09:00:00.000Z',
      day: 2,
      time: '09:00',
      daysAhead: 1,
    });
  });

  it('skips the weekend: Friday evening opens on Monday', () => {
    // Friday 2026-01-09 18:00 → Monday 2026-01-12 09:00, three days ahead.
    expect(nextLineOpening(weekdays, at('2026-01-09T18:00:00Z'), 'UTC')).toMatchObject({
      at: '2026-01-12T09:00:00.000Z',
      day: 1,
      daysAhead: 3,
    });
  });

  it('takes the next window of the same day when a day has several', () => {
    const split = [
      { day: 1, from: '15:00', to: '18:00' },
      { day: 1, from: '09:00', to: '13:00' },
    ];
    expect(nextLineOpening(split, at('2026-01-05T13:30:00Z'), 'UTC')).toMatchObject({ at: '2026-01-05T15:00:00.000Z', time: '15:00' });
  });

  it('comes round to the same weekday next week when its only window has passed', () => {
    const mondayMorning = [{ day: 1, from: '09:00', to: '10:00' }];
    expect(nextLineOpening(mondayMorning, at('2026-01-05T11:00:00Z'), 'UTC')).toMatchObject({
      at: '2026-01-12T09:00:00.000Z',
      daysAhead: 7,
    });
  });

  it('reads day and time in the line’s zone, whatever the day in UTC', () => {
    // Saturday 2026-01-10 23:30 UTC is Sunday 00:30 in Madrid, and still Saturday 18:30 in Bogotá.
    const lateSaturday = at('2026-01-10T23:30:00Z');
    expect(nextLineOpening(weekdays, lateSaturday, 'Europe/Madrid')).toEqual({
      at: '2026-01-12T08:00:00.000Z',
      day: 1,
      time: '09:00',
      daysAhead: 1,
    });
    expect(nextLineOpening(weekdays, lateSaturday, 'America/Bogota')).toEqual({
      at: '2026-01-12T14:00:00.000Z',
      day: 1,
      time: '09:00',
      daysAhead: 2,
    });
  });

  it('follows daylight saving: 09:00 local before and after the change', () => {
    // Friday 2026-03-27 in Madrid (UTC+1); the clocks go forward on Sunday the 29th; Monday is UTC+2.
    expect(nextLineOpening(weekdays, at('2026-03-27T18:00:00Z'), 'Europe/Madrid')).toMatchObject({
      at: '2026-03-30T07:00:00.000Z',
      time: '09:00',
    });
  });

  it('opens when the clock jumps for a start the clock skips, and at the first of a start it shows twice', () => {
    // 2026-03-29 (Sunday), Madrid: 02:00 jumps to 03:00 at 01:00 UTC. A 02:30 start opens at 03:00 local.
    expect(nextLineOpening([{ day: 0, from: '02:30', to: '04:00' }], at('2026-03-28T20:00:00Z'), 'Europe/Madrid')).toMatchObject({
      at: '2026-03-29T01:00:00.000Z',
      time: '03:00',
    });
    // A window wholly inside the gap never opens that day: the next Sunday's does (eight days ahead).
    expect(nextLineOpening([{ day: 0, from: '02:10', to: '02:50' }], at('2026-03-28T20:00:00Z'), 'Europe/Madrid')).toMatchObject({
      at: '2026-04-05T00:10:00.000Z',
      daysAhead: 8,
    });
    // 2026-10-25 (Sunday), Madrid: 03:00 goes back to 02:00 at 01:00 UTC; 02:30 first happens at 00:30 UTC.
    expect(nextLineOpening([{ day: 0, from: '02:30', to: '04:00' }], at('2026-10-24T20:00:00Z'), 'Europe/Madrid')).toMatchObject({
      at: '2026-10-25T00:30:00.000Z',
      time: '02:30',
    });
  });

  it('ignores malformed windows, is null when none is well formed, and reads an unknown zone as UTC', () => {
    const sunday = at('2026-01-04T12:00:00Z');
    expect(
      nextLineOpening(
        [
          { day: 1, from: '13:00', to: '11:00' },
          { day: 9, from: '08:00', to: '09:00' },
        ],
        sunday,
        'UTC',
      ),
    ).toBeNull();
    expect(nextLineOpening([{ day: 1, from: '9:00', to: '17:00' }, ...weekdays], sunday, 'Mars/Olympus')).toMatchObject({
      at: '2026-01-05T09:00:00.000Z',
    });
  });
});
