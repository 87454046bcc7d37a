import { describe, expect, it } from '@jest/globals';
import { crossTabSessionEvent } from './cross-tab';
import { createSessionStore, memoryStorage } from './session-store';

/** The shared storage as another tab left it. */
function sharedSession(values: Record<string, string>) {
  const storage = memoryStorage();
  for (const [key, value] of Object.entries(values)) storage.setItem(key, value);
  return createSessionStore(storage);
}

const signedIn = { accessToken: 'access-2', refreshToken: 'refresh-2', userId: 'u-1' };

describe(crossTabSessionEvent.name, () => {
  it("signs this tab out when another tab's logout removed the access token", () => {
    expect(crossTabSessionEvent({ key: 'accessToken', newValue: null }, sharedSession({}), 'u-1')).toEqual({
      type: 'auth.signedOutElsewhere',
    });
  });

  it('signs this tab out when another tab cleared the whole storage, and not when the session survived it', () => {
    expect(crossTabSessionEvent({ key: null, newValue: null }, sharedSession({}), 'u-1')).toEqual({ type: 'auth.signedOutElsewhere' });
    expect(crossTabSessionEvent({ key: null, newValue: null }, sharedSession(signedIn), 'u-1')).toEqual({
      type: 'auth.refresh',
      tokens: { accessToken: 'access-2', refreshToken: 'refresh-2' },
    });
  });

  it("adopts another tab's refreshed tokens for the same user", () => {
    expect(crossTabSessionEvent({ key: 'accessToken', newValue: 'access-2' }, sharedSession(signedIn), 'u-1')).toEqual({
      type: 'auth.refresh',
      tokens: { accessToken: 'access-2', refreshToken: 'refresh-2' },
    });
  });

  it("leaves this tab alone for another user's tokens, other keys, or when it is not signed in", () => {
    const otherUser = sharedSession({ ...signedIn, userId: 'u-2' });
    expect(crossTabSessionEvent({ key: 'accessToken', newValue: 'access-2' }, otherUser, 'u-1')).toBeNull();
    expect(crossTabSessionEvent({ key: 'lastActivityAt', newValue: '1' }, sharedSession(signedIn), 'u-1')).toBeNull();
    expect(crossTabSessionEvent({ key: 'language', newValue: null }, sharedSession({}), 'u-1')).toBeNull();
    expect(crossTabSessionEvent({ key: 'accessToken', newValue: null }, sharedSession({}), null)).toBeNull();
    expect(crossTabSessionEvent({ key: 'accessToken', newValue: 'access-2' }, sharedSession(signedIn), null)).toBeNull();
  });
});
