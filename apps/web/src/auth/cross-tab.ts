import type { AuthEvent } from './auth.machine';
import type { SessionStore } from './session-store';

/** The part of a `storage` event that matters here (another tab changed localStorage). */
export interface StorageChange {
  /** Null when the other tab cleared the whole storage. */
  key: string | null;
  newValue: string | null;
}

/**
 * What another tab's change to the shared session means for this tab, or null: tabs share one
 * session in localStorage. Its sign-out signs this tab out too (not only at this tab's next call);
 * its token refresh hands this tab the new tokens, so this tab's own refresh is scheduled from them
 * rather than from a token another tab has already replaced. `signedInAs`: this tab's user, or
 * null when it is not signed in (a sign-in elsewhere is left alone: that tab may be someone else's).
 */
export function crossTabSessionEvent(
  change: StorageChange,
  session: Pick<SessionStore, 'getAccessToken' | 'getRefreshToken' | 'getUserId'>,
  signedInAs: string | null,
): AuthEvent | null {
  if (!signedInAs) return null;
  if (change.key !== null && change.key !== 'accessToken') return null;
  const accessToken = change.key === null ? session.getAccessToken() : change.newValue;
  if (!accessToken) return { type: 'auth.signedOutElsewhere' };
  const refreshToken = session.getRefreshToken();
  if (!refreshToken || session.getUserId() !== signedInAs) return null;
  return { type: 'auth.refresh', tokens: { accessToken, refreshToken } };
}
