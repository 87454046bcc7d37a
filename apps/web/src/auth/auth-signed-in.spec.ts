import { describe, expect, it, jest } from '@jest/globals';
import { createActor, fromPromise } from 'xstate';
import type { AuthResult, SessionUser } from '@centralita/contracts';
import type { TokenPair } from '../api/http-client';
import { authMachine, authStatus, type Credentials, type RefreshInput, type UserInfoInput } from './auth.machine';

const agent = (id: string): SessionUser => ({
  id,
  avatar: null,
  email: `${id}@example.com`,
  name: id,
  role: 'AGENT',
  clientId: 'c-1',
  clientName: 'Acme',
  level: 'tenant',
  sessionTime: 480,
  idleLogoutMinutes: 30,
  permissions: ['conversations.handle'],
});

// Far-future expiry: the refresh timer never fires during the test.
const token = (sub: string) => `e30.${btoa(JSON.stringify({ sub, exp: 4_102_444_800 })).replace(/=+$/, '')}.sig`;
const result = (id: string): AuthResult => ({ accessToken: token(id), refreshToken: `refresh-${id}`, user: agent(id) });

function start(stored: AuthResult | null) {
  const effects = { persistSession: jest.fn(), clearSession: jest.fn(), notifyLogout: jest.fn() };
  const machine = authMachine.provide({
    actors: {
      fetchUserInfo: fromPromise<SessionUser, UserInfoInput>(async () => stored!.user),
      login: fromPromise<AuthResult, Credentials>(async () => Promise.reject(new Error('no password sign-in here'))),
      refreshSession: fromPromise<TokenPair | false, RefreshInput>(async () => false),
    },
    actions: {
      persistSession: (_, params) => effects.persistSession(params),
      persistUser: () => {},
      persistTokens: () => {},
      clearSession: () => effects.clearSession(),
      notifyLogout: (_, params) => effects.notifyLogout(params),
    },
  });
  const input = stored
    ? { stored: { accessToken: stored.accessToken, refreshToken: stored.refreshToken, userId: stored.user.id, user: stored.user } }
    : { stored: null };
  const actor = createActor(machine, { input }).start();
  return { actor, effects };
}

describe('auth.signedIn (a session started by an external dialer link)', () => {
  it('adopts the answer like a login: authenticated, persisted, ONLINE', () => {
    const { actor, effects } = start(null);
    expect(authStatus(actor.getSnapshot())).toBe('unauthenticated');
    actor.send({ type: 'auth.signedIn', result: result('agent-1') });
    const snapshot = actor.getSnapshot();
    expect(authStatus(snapshot)).toBe('authenticated');
    expect(snapshot.context).toMatchObject({
      userId: 'agent-1',
      refreshToken: 'refresh-agent-1',
      userStatus: 'ONLINE',
      disconnected: false,
    });
    expect(effects.persistSession).toHaveBeenCalledWith(expect.objectContaining({ result: result('agent-1'), userStatus: 'ONLINE' }));
    actor.stop();
  });

  it('signs out the session already open in the tab before adopting the new one', async () => {
    const { actor, effects } = start(result('someone-else'));
    await new Promise((resolve) => setTimeout(resolve, 0));
    expect(authStatus(actor.getSnapshot())).toBe('authenticated');
    actor.send({ type: 'auth.signedIn', result: result('agent-2') });
    expect(effects.notifyLogout).toHaveBeenCalledWith({ userId: 'someone-else', accessToken: token('someone-else') });
    expect(actor.getSnapshot().context.userId).toBe('agent-2');
    expect(authStatus(actor.getSnapshot())).toBe('authenticated');
    actor.stop();
  });
});
