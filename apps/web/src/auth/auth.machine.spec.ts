import { afterEach, beforeEach, describe, expect, it, jest } from '@jest/globals';
import { createActor, fromPromise, waitFor } from 'xstate';
import type { AuthResult, SessionUser } from '@centralita/contracts';
import { ApiError } from '../api/api-error';
import type { TokenPair } from '../api/http-client';
import { authMachine, authStatus, type AuthInput, type Credentials, type RefreshInput, type UserInfoInput } from './auth.machine';

const NOW = Date.UTC(2025, 0, 15, 9, 0, 0);

function tokenExpiringAt(expMs: number): string {
  const encode = (value: object) => btoa(JSON.stringify(value)).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
  return `${encode({ alg: 'HS256', typ: 'JWT' })}.${encode({ sub: 'u-1', exp: Math.floor(expMs / 1000) })}.signature`;
}

const user: SessionUser = {
  id: 'u-1',
  avatar: null,
  email: 'ana@example.com',
  name: 'Ana Pérez',
  role: 'AGENT',
  clientId: 'c-1',
  clientName: 'Acme',
  level: 'tenant',
  sessionTime: 480,
  idleLogoutMinutes: 30,
  permissions: ['conversations.handle'],
};

const loginResult: AuthResult = {
  accessToken: tokenExpiringAt(NOW + 10 * 60_000),
  refreshToken: 'refresh-1',
  user,
};

function setupMachine(
  overrides: {
    input?: AuthInput;
    fetchUserInfo?: (input: UserInfoInput) => Promise<SessionUser>;
    login?: (input: Credentials) => Promise<AuthResult>;
    refreshSession?: (input: RefreshInput) => Promise<TokenPair | false>;
  } = {},
) {
  const effects = {
    fetchUserInfo: jest.fn(overrides.fetchUserInfo ?? (async () => user)),
    login: jest.fn(overrides.login ?? (async () => loginResult)),
    refreshSession: jest.fn(
      overrides.refreshSession ??
        (async (): Promise<TokenPair | false> => ({ accessToken: tokenExpiringAt(Date.now() + 10 * 60_000), refreshToken: 'refresh-2' })),
    ),
    persistSession: jest.fn(),
    persistUser: jest.fn(),
    persistTokens: jest.fn(),
    clearSession: jest.fn(),
    notifyLogout: jest.fn(),
  };
  const machine = authMachine.provide({
    actors: {
      fetchUserInfo: fromPromise(({ input }: { input: UserInfoInput }) => effects.fetchUserInfo(input)),
      login: fromPromise(({ input }: { input: Credentials }) => effects.login(input)),
      refreshSession: fromPromise(({ input }: { input: RefreshInput }) => effects.refreshSession(input)),
    },
    actions: {
      persistSession: (_, params) => effects.persistSession(params),
      persistUser: (_, params) => effects.persistUser(params),
      persistTokens: (_, params) => effects.persistTokens(params),
      clearSession: () => effects.clearSession(),
      notifyLogout: (_, params) => effects.notifyLogout(params),
    },
  });
  const actor = createActor(machine, { input: overrides.input ?? { stored: null } });
  return { actor, effects };
}

function storedSession(expMs: number): AuthInput {
  return { stored: { accessToken: tokenExpiringAt(expMs), refreshToken: 'refresh-1', userId: 'u-1', user } };
}

async function loggedIn(overrides: Parameters<typeof setupMachine>[0] = {}) {
  const ctx = setupMachine(overrides);
  ctx.actor.start();
  ctx.actor.send({ type: 'auth.login', email: 'ana@example.com', password: 'secret-pass' });
  await waitFor(ctx.actor, (s) => s.matches('authenticated'));
  // Start-up without a stored session already cleared stale keys once; count from here.
  ctx.effects.clearSession.mockClear();
  return ctx;
}

describe(authMachine.id, () => {
  beforeEach(() => {
    jest.useFakeTimers({ now: NOW });
  });
  afterEach(() => {
    jest.useRealTimers();
  });

  describe('initialisation', () => {
    it('settles unauthenticated when nothing is stored', () => {
      const { actor, effects } = setupMachine();
      actor.start();
      expect(authStatus(actor.getSnapshot())).toBe('unauthenticated');
      expect(effects.fetchUserInfo).not.toHaveBeenCalled();
    });

    it('restores an unexpired stored token through the user-info call', async () => {
      const { actor, effects } = setupMachine({ input: storedSession(NOW + 5 * 60_000) });
      actor.start();
      expect(actor.getSnapshot().matches({ notInitialised: 'loadingUser' })).toBe(true);
      const snapshot = await waitFor(actor, (s) => s.matches('authenticated'));
      expect(effects.fetchUserInfo).toHaveBeenCalledWith(expect.objectContaining({ userId: 'u-1', fallbackUser: user }));
      expect(snapshot.context.user).toEqual(user);
      expect(effects.persistUser).toHaveBeenCalledWith({ user });
    });

    it('renews an expired stored token with the refresh token, then loads the user', async () => {
      const { actor, effects } = setupMachine({ input: storedSession(NOW - 1_000) });
      actor.start();
      expect(actor.getSnapshot().matches({ notInitialised: 'renewingStoredToken' })).toBe(true);
      const snapshot = await waitFor(actor, (s) => s.matches('authenticated'));
      expect(effects.refreshSession).toHaveBeenCalledWith({ userId: 'u-1', refreshToken: 'refresh-1' });
      expect(effects.persistTokens).toHaveBeenCalledWith(expect.objectContaining({ refreshToken: 'refresh-2' }));
      expect(effects.fetchUserInfo).toHaveBeenCalledTimes(1);
      expect(snapshot.context.refreshToken).toBe('refresh-2');
    });

    it('marks the user disconnected when an expired stored token cannot be renewed', async () => {
      const { actor, effects } = setupMachine({ input: storedSession(NOW - 1_000), refreshSession: async () => false });
      actor.start();
      const snapshot = await waitFor(actor, (s) => s.matches('unauthenticated'));
      expect(snapshot.context.disconnected).toBe(true);
      expect(effects.fetchUserInfo).not.toHaveBeenCalled();
      expect(effects.clearSession).toHaveBeenCalledTimes(1);
    });

    it('marks the user disconnected when an expired stored token has no refresh token', () => {
      const { actor, effects } = setupMachine({
        input: { stored: { accessToken: tokenExpiringAt(NOW - 1_000), refreshToken: null, userId: 'u-1', user } },
      });
      actor.start();
      expect(authStatus(actor.getSnapshot())).toBe('unauthenticated');
      expect(actor.getSnapshot().context.disconnected).toBe(true);
      expect(effects.refreshSession).not.toHaveBeenCalled();
    });

    it('treats an unreadable stored token as unauthenticated', () => {
      const { actor } = setupMachine({
        input: { stored: { accessToken: 'not-a-jwt', refreshToken: null, userId: 'u-1', user } },
      });
      actor.start();
      expect(authStatus(actor.getSnapshot())).toBe('unauthenticated');
      expect(actor.getSnapshot().context.user).toBeNull();
    });

    it('ends unauthenticated when initialisation throws', async () => {
      const { actor, effects } = setupMachine({
        input: storedSession(NOW + 5 * 60_000),
        fetchUserInfo: async () => {
          throw new Error('storage exploded');
        },
      });
      actor.start();
      const snapshot = await waitFor(actor, (s) => s.matches('unauthenticated'));
      expect(snapshot.context.user).toBeNull();
      expect(snapshot.context.accessToken).toBeNull();
      expect(effects.clearSession).toHaveBeenCalledTimes(1);
    });
  });

  // Registration never signs in (issue 17): the sign-up page only asks for a confirmation mail.
  describe('login', () => {
    it('authenticates with the user answered by login', async () => {
      const { actor, effects } = await loggedIn();
      const { context } = actor.getSnapshot();
      expect(effects.login).toHaveBeenCalledWith({ email: 'ana@example.com', password: 'secret-pass' });
      expect(context.user).toEqual(user);
      expect(context.accessToken).toBe(loginResult.accessToken);
    });

    it('sets the local user status ONLINE and show-all-conversations false at login', async () => {
      const { actor, effects } = await loggedIn();
      expect(actor.getSnapshot().context).toMatchObject({ userStatus: 'ONLINE', showAllConversations: false });
      expect(effects.persistSession).toHaveBeenCalledWith({ result: loginResult, userStatus: 'ONLINE', showAllConversations: false });
    });

    it('passes through loggingIn while the login call is pending', () => {
      const { actor } = setupMachine({ login: () => new Promise<AuthResult>(() => {}) });
      actor.start();
      actor.send({ type: 'auth.login', email: 'a@b.co', password: 'x' });
      expect(actor.getSnapshot().matches({ unauthenticated: 'loggingIn' })).toBe(true);
    });

    it('stays unauthenticated with the error message when login fails', async () => {
      const { actor } = setupMachine({
        login: async () => {
          throw new ApiError('Invalid credentials', { status: 401, code: 'invalid_credentials', kind: 'http' });
        },
      });
      actor.start();
      actor.send({ type: 'auth.login', email: 'ana@example.com', password: 'wrong' });
      const snapshot = await waitFor(actor, (s) => s.matches({ unauthenticated: 'idle' }) && s.context.error !== null);
      expect(snapshot.context.error).toEqual(
        expect.objectContaining({ message: 'Invalid credentials', status: 401, code: 'invalid_credentials' }),
      );
    });

    it('clears the previous error when a new login starts', async () => {
      const { actor } = setupMachine({
        login: jest
          .fn<(input: Credentials) => Promise<AuthResult>>()
          .mockRejectedValueOnce(new Error('nope'))
          .mockResolvedValueOnce(loginResult),
      });
      actor.start();
      actor.send({ type: 'auth.login', email: 'ana@example.com', password: 'wrong' });
      await waitFor(actor, (s) => s.context.error !== null);
      actor.send({ type: 'auth.login', email: 'ana@example.com', password: 'right' });
      expect(actor.getSnapshot().context.error).toBeNull();
    });
  });

  describe('logout', () => {
    it('clears the stored session and marks the user logged out', async () => {
      const { actor, effects } = await loggedIn();
      actor.send({ type: 'auth.logout' });
      const { context } = actor.getSnapshot();
      expect(authStatus(actor.getSnapshot())).toBe('unauthenticated');
      expect(context).toMatchObject({ user: null, accessToken: null, loggedOut: true, idleSignedOut: false, disconnected: false });
      expect(effects.clearSession).toHaveBeenCalledTimes(1);
    });

    it('signs out the same way when the console was idle, remembering why until the next login', async () => {
      const { actor, effects } = await loggedIn();
      actor.send({ type: 'auth.logout', reason: 'idle' });
      expect(actor.getSnapshot().context).toMatchObject({ user: null, loggedOut: true, idleSignedOut: true });
      expect(effects.notifyLogout).toHaveBeenCalledWith({ userId: 'u-1', accessToken: loginResult.accessToken });
      expect(effects.clearSession).toHaveBeenCalledTimes(1);
      actor.send({ type: 'auth.login', email: 'ana@example.com', password: 'secret-pass' });
      const snapshot = await waitFor(actor, (s) => s.matches('authenticated'));
      expect(snapshot.context).toMatchObject({ loggedOut: false, idleSignedOut: false });
    });

    it('signs out when another tab did, without telling the server again or touching the shared storage', async () => {
      const { actor, effects } = await loggedIn();
      actor.send({ type: 'auth.signedOutElsewhere' });
      expect(authStatus(actor.getSnapshot())).toBe('unauthenticated');
      expect(actor.getSnapshot().context).toMatchObject({ user: null, accessToken: null, loggedOut: true, idleSignedOut: false });
      expect(effects.notifyLogout).not.toHaveBeenCalled();
      expect(effects.clearSession).not.toHaveBeenCalled();
    });

    it('ignores a sign-out elsewhere while signed out', () => {
      const { actor } = setupMachine();
      actor.start();
      actor.send({ type: 'auth.signedOutElsewhere' });
      expect(actor.getSnapshot().context.loggedOut).toBe(false);
    });

    it('tells the server with the token it is about to drop', async () => {
      const { actor, effects } = await loggedIn();
      actor.send({ type: 'auth.logout' });
      expect(effects.notifyLogout).toHaveBeenCalledWith({ userId: 'u-1', accessToken: loginResult.accessToken });
    });
  });

  describe('expiry', () => {
    it('goes unauthenticated with the disconnected flag on auth.expired', async () => {
      const { actor, effects } = await loggedIn();
      actor.send({ type: 'auth.expired' });
      const { context } = actor.getSnapshot();
      expect(authStatus(actor.getSnapshot())).toBe('unauthenticated');
      expect(context).toMatchObject({ disconnected: true, loggedOut: false, user: null });
      expect(effects.clearSession).toHaveBeenCalledTimes(1);
    });

    it('drops the disconnected flag after the next successful login', async () => {
      const { actor } = await loggedIn();
      actor.send({ type: 'auth.expired' });
      actor.send({ type: 'auth.login', email: 'ana@example.com', password: 'secret-pass' });
      const snapshot = await waitFor(actor, (s) => s.matches('authenticated'));
      expect(snapshot.context.disconnected).toBe(false);
    });
  });

  describe('refresh', () => {
    it('refreshes on its own a minute before the access token expires', async () => {
      const { actor, effects } = await loggedIn();
      await jest.advanceTimersByTimeAsync(8 * 60_000);
      expect(effects.refreshSession).not.toHaveBeenCalled();
      await jest.advanceTimersByTimeAsync(60_000 + 1);
      expect(effects.refreshSession).toHaveBeenCalledWith({ userId: 'u-1', refreshToken: 'refresh-1' });
      expect(actor.getSnapshot().matches({ authenticated: 'active' })).toBe(true);
    });

    it('refreshes at once on auth.refresh and keeps the rotated tokens', async () => {
      const { actor, effects } = await loggedIn();
      actor.send({ type: 'auth.refresh' });
      expect(actor.getSnapshot().matches({ authenticated: 'refreshing' })).toBe(true);
      const snapshot = await waitFor(actor, (s) => s.matches({ authenticated: 'active' }));
      expect(snapshot.context.refreshToken).toBe('refresh-2');
      expect(effects.persistTokens).toHaveBeenCalledWith(expect.objectContaining({ refreshToken: 'refresh-2' }));
    });

    it('adopts tokens refreshed elsewhere without calling the server again', async () => {
      const { actor, effects } = await loggedIn();
      const tokens = { accessToken: tokenExpiringAt(NOW + 20 * 60_000), refreshToken: 'refresh-9' };
      actor.send({ type: 'auth.refresh', tokens });
      expect(actor.getSnapshot().context).toMatchObject(tokens);
      expect(effects.refreshSession).not.toHaveBeenCalled();
    });

    it('reschedules the timer from the adopted token', async () => {
      const { actor, effects } = await loggedIn();
      actor.send({ type: 'auth.refresh', tokens: { accessToken: tokenExpiringAt(NOW + 60 * 60_000), refreshToken: 'r' } });
      await jest.advanceTimersByTimeAsync(10 * 60_000);
      expect(effects.refreshSession).not.toHaveBeenCalled();
    });

    it('expires the session with the disconnected flag when the refresh answers false', async () => {
      const { actor, effects } = await loggedIn({ refreshSession: async () => false });
      actor.send({ type: 'auth.refresh' });
      const snapshot = await waitFor(actor, (s) => s.matches('unauthenticated'));
      expect(snapshot.context.disconnected).toBe(true);
      expect(effects.clearSession).toHaveBeenCalledTimes(1);
    });

    it('expires the session with the disconnected flag when the refresh throws', async () => {
      const { actor } = await loggedIn({
        refreshSession: async () => {
          throw new Error('network down');
        },
      });
      actor.send({ type: 'auth.refresh' });
      const snapshot = await waitFor(actor, (s) => s.matches('unauthenticated'));
      expect(snapshot.context.disconnected).toBe(true);
    });
  });

  it('keeps its snapshot serialisable', async () => {
    const { actor } = await loggedIn();
    const persisted = actor.getPersistedSnapshot();
    expect(JSON.parse(JSON.stringify(persisted))).toEqual(persisted);
  });
});
