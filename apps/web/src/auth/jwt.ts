/** Reads `exp` (seconds since the epoch) from a JWT without verifying it; null when unreadable. */
export function readTokenExpiry(token: string | null | undefined): number | null {
  if (!token) return null;
  const parts = token.split('.');
  if (parts.length !== 3) return null;
  try {
    const base64 = parts[1].replace(/-/g, '+').replace(/_/g, '/');
    const padded = base64 + '='.repeat((4 - (base64.length % 4)) % 4);
    const payload: unknown = JSON.parse(atob(padded));
    const exp = (payload as { exp?: unknown } | null)?.exp;
    return typeof exp === 'number' && Number.isFinite(exp) ? exp : null;
  } catch {
    return null;
  }
}

/** True when the token carries an expiry that is still in the future. */
export function isTokenUnexpired(token: string | null | undefined, nowMs: number): boolean {
  const exp = readTokenExpiry(token);
  return exp !== null && exp * 1000 > nowMs;
}

/** setTimeout cannot wait longer than this (about 24.8 days). */
export const MAX_TIMER_MS = 2_147_483_647;
const REFRESH_LEAD_MS = 60_000;
const MIN_REFRESH_DELAY_MS = 1_000;

/**
 * How long to wait before refreshing: a minute before expiry, or halfway there for very short
 * tokens, never less than a second. Without a readable expiry there is nothing to schedule.
 */
export function refreshDelayMs(token: string | null | undefined, nowMs: number): number {
  const exp = readTokenExpiry(token);
  if (exp === null) return MAX_TIMER_MS;
  const remaining = exp * 1000 - nowMs;
  const delay = remaining > 2 * REFRESH_LEAD_MS ? remaining - REFRESH_LEAD_MS : remaining / 2;
  return Math.min(MAX_TIMER_MS, Math.max(MIN_REFRESH_DELAY_MS, Math.floor(delay)));
}
