import { describe, expect, it } from '@jest/globals';
import { DomainError } from '../domain-error';
import { byChannel, byLine, byTimeBucket, groupBy, NO_GROUP, timeBucketKey, timeBuckets } from './group-by';

const HOUR_MS = 3_600_000;

describe(groupBy.name, () => {
  const items = [
    { id: 1, attentionLineId: 'B', channel: 'whatsapp' },
    { id: 2, attentionLineId: null, channel: 'webchat' },
    { id: 3, attentionLineId: 'A', channel: 'whatsapp' },
    { id: 4, attentionLineId: 'B', channel: 'webchat' },
  ];

  it('groups in first-seen order', () => {
    expect([...groupBy(items, byChannel)].map(([key, group]) => [key, group.map((item) => item.id)])).toEqual([
      ['whatsapp', [1, 3]],
      ['webchat', [2, 4]],
    ]);
  });

  it('puts items without a key under NO_GROUP', () => {
    expect(
      groupBy(items, byLine)
        .get(NO_GROUP)!
        .map((item) => item.id),
    ).toEqual([2]);
  });

  it('groups by local hour with byTimeBucket', () => {
    // Madrid is UTC+1 in January: 08:59 UTC is 09:59 local, 09:00 UTC is 10:00 local.
    const events = [{ at: Date.UTC(2026, 0, 15, 8, 59) }, { at: Date.UTC(2026, 0, 15, 9, 0) }, { at: Date.UTC(2026, 0, 15, 9, 30) }];
    const groups = groupBy(
      events,
      byTimeBucket('hour', 'Europe/Madrid', (event) => event.at),
    );
    expect([...groups].map(([key, group]) => [key, group.length])).toEqual([
      ['2026-01-15T09:00+01:00', 1],
      ['2026-01-15T10:00+01:00', 2],
    ]);
  });
});

describe(timeBucketKey.name, () => {
  it('names the local day, which may differ from the UTC day', () => {
    // 23:30 UTC on the 15th is 00:30 on the 16th in Madrid and 18:30 on the 15th in New York.
    const at = Date.UTC(2026, 0, 15, 23, 30);
    expect(timeBucketKey(at, 'day', 'Europe/Madrid')).toBe('2026-01-16');
    expect(timeBucketKey(at, 'day', 'America/New_York')).toBe('2026-01-15');
    expect(timeBucketKey(at, 'day', 'UTC')).toBe('2026-01-15');
  });

  it('names half-hour-offset hours with their offset', () => {
    // Kolkata is UTC+5:30: 09:45 UTC is 15:15 local.
    expect(timeBucketKey(Date.UTC(2026, 0, 15, 9, 45), 'hour', 'Asia/Kolkata')).toBe('2026-01-15T15:00+05:30');
  });

  it('refuses an unknown time zone', () => {
    expect(() => timeBucketKey(0, 'day', 'Mars/Olympus_Mons')).toThrow(DomainError);
  });
});

describe(timeBuckets.name, () => {
  it('cuts at local midnights and clips the first and last bucket to the window', () => {
    // Madrid (UTC+1): window 15th 12:00 → 17th 06:00 local = 15th 11:00 UTC → 17th 05:00 UTC.
    const buckets = timeBuckets({ from: Date.UTC(2026, 0, 15, 11), to: Date.UTC(2026, 0, 17, 5) }, 'day', 'Europe/Madrid');
    expect(buckets).toEqual([
      { key: '2026-01-15', from: Date.UTC(2026, 0, 15, 11), to: Date.UTC(2026, 0, 15, 23) },
      { key: '2026-01-16', from: Date.UTC(2026, 0, 15, 23), to: Date.UTC(2026, 0, 16, 23) },
      { key: '2026-01-17', from: Date.UTC(2026, 0, 16, 23), to: Date.UTC(2026, 0, 17, 5) },
    ]);
  });

  it('gives the spring-forward day 23 hours and skips the missing hour', () => {
    // Madrid, Sunday 29 March 2026: 02:00 CET (01:00 UTC) jumps to 03:00 CEST.
    // The day runs 28th 23:00 UTC → 29th 22:00 UTC = 23 h; its hours go 01:00+01:00 → 03:00+02:00.
    const day = { from: Date.UTC(2026, 2, 28, 23), to: Date.UTC(2026, 2, 29, 22) };
    expect(timeBuckets(day, 'day', 'Europe/Madrid')).toEqual([{ key: '2026-03-29', ...day }]);
    const hours = timeBuckets(day, 'hour', 'Europe/Madrid');
    expect(hours).toHaveLength(23);
    expect(hours.slice(1, 3).map((hour) => hour.key)).toEqual(['2026-03-29T01:00+01:00', '2026-03-29T03:00+02:00']);
    expect(hours.every((hour) => hour.to - hour.from === HOUR_MS)).toBe(true);
  });

  it('gives the fall-back day 25 hours, the repeated hour twice', () => {
    // Madrid, Sunday 25 October 2026: 03:00 CEST (01:00 UTC) goes back to 02:00 CET.
    // The day runs 24th 22:00 UTC → 25th 23:00 UTC = 25 h.
    const day = { from: Date.UTC(2026, 9, 24, 22), to: Date.UTC(2026, 9, 25, 23) };
    expect(timeBuckets(day, 'day', 'Europe/Madrid')).toEqual([{ key: '2026-10-25', ...day }]);
    const hours = timeBuckets(day, 'hour', 'Europe/Madrid');
    expect(hours).toHaveLength(25);
    expect(hours.slice(2, 4).map((hour) => hour.key)).toEqual(['2026-10-25T02:00+02:00', '2026-10-25T02:00+01:00']);
  });

  it('cuts hours at the local hour in a half-hour zone', () => {
    // Kolkata: 09:45 → 11:00 UTC is 15:15 → 16:30 local: buckets 15:15–16:00 and 16:00–16:30 local.
    const buckets = timeBuckets({ from: Date.UTC(2026, 0, 15, 9, 45), to: Date.UTC(2026, 0, 15, 11) }, 'hour', 'Asia/Kolkata');
    expect(buckets).toEqual([
      { key: '2026-01-15T15:00+05:30', from: Date.UTC(2026, 0, 15, 9, 45), to: Date.UTC(2026, 0, 15, 10, 30) },
      { key: '2026-01-15T16:00+05:30', from: Date.UTC(2026, 0, 15, 10, 30), to: Date.UTC(2026, 0, 15, 11) },
    ]);
  });

  it('gives no buckets for an empty window and refuses a reversed one', () => {
    expect(timeBuckets({ from: 5, to: 5 }, 'hour', 'UTC')).toEqual([]);
    expect(() => timeBuckets({ from: 5, to: 4 }, 'hour', 'UTC')).toThrow(DomainError);
  });
});
