import { describe, expect, it } from '@jest/globals';
import { elapsedSince, formatDuration, offsetFrom, roundedWait } from './time';

describe('time formatting', () => {
  it('formats durations as hh:mm:ss', () => {
    expect(formatDuration(0)).toBe('00:00:00');
    expect(formatDuration(61_000)).toBe('00:01:01');
    expect(formatDuration(3_600_000 + 2_000)).toBe('01:00:02');
  });

  it('lets hours pass 24 and clamps negatives to zero', () => {
    expect(formatDuration(25 * 3_600_000)).toBe('25:00:00');
    expect(formatDuration(-5_000)).toBe('00:00:00');
    expect(formatDuration(Number.NaN)).toBe('00:00:00');
  });

  it('measures elapsed time on the server clock', () => {
    const start = '2026-01-01T00:00:00.000Z';
    const localNow = Date.parse(start) + 10_000;
    expect(elapsedSince(start, localNow, 0)).toBe(10_000);
    expect(elapsedSince(start, localNow, 5_000)).toBe(15_000);
    expect(elapsedSince(start, localNow, -20_000)).toBe(0);
    expect(elapsedSince(null, localNow, 0)).toBe(0);
  });

  it('rounds the estimated wait to seconds or minutes', () => {
    expect(roundedWait(null)).toBeNull();
    expect(roundedWait(20)).toEqual({ unit: 's', value: 20 });
    expect(roundedWait(150)).toEqual({ unit: 'min', value: 3 });
  });

  it('estimates the clock offset from one round trip', () => {
    expect(offsetFrom({ serverTime: 1_500, clientTime: 1_000 }, 1_200)).toBe(400);
  });
});
