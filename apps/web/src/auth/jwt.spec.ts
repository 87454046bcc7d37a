import { describe, expect, it } from '@jest/globals';
import { isTokenUnexpired, MAX_TIMER_MS, readTokenExpiry, refreshDelayMs } from './jwt';

const NOW = Date.UTC(2025, 0, 1, 12, 0, 0);
function token(payload: object): string {
  const encode = (value: object) => btoa(JSON.stringify(value)).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
  return `${encode({ alg: 'HS256' })}.${encode(payload)}.sig`;
}
const expiringIn = (ms: number) => token({ exp: Math.floor((NOW + ms) / 1000) });

describe(readTokenExpiry.name, () => {
  it('reads exp from the payload', () => {
    expect(readTokenExpiry(token({ exp: 1_700_000_000 }))).toBe(1_700_000_000);
  });

  it.each([null, '', 'abc', 'a.b', 'a.%%%.c'])('answers null for %p', (value) => {
    expect(readTokenExpiry(value)).toBeNull();
  });

  it('answers null when exp is missing', () => {
    expect(readTokenExpiry(token({ sub: 'x' }))).toBeNull();
  });
});

describe(isTokenUnexpired.name, () => {
  it('accepts a token that expires later', () => {
    expect(isTokenUnexpired(expiringIn(60_000), NOW)).toBe(true);
  });

  it('refuses a token that has expired', () => {
    expect(isTokenUnexpired(expiringIn(-1_000), NOW)).toBe(false);
  });
});

describe(refreshDelayMs.name, () => {
  it('refreshes a minute before a ten-minute token expires', () => {
    expect(refreshDelayMs(expiringIn(10 * 60_000), NOW)).toBe(9 * 60_000);
  });

  it('refreshes halfway through a very short token', () => {
    expect(refreshDelayMs(expiringIn(60_000), NOW)).toBe(30_000);
  });

  it('waits at least a second', () => {
    expect(refreshDelayMs(expiringIn(-5_000), NOW)).toBe(1_000);
  });

  it('schedules nothing it can read for a token without exp', () => {
    expect(refreshDelayMs('opaque', NOW)).toBe(MAX_TIMER_MS);
  });
});
