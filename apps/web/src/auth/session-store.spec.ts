import { describe, expect, it } from '@jest/globals';
import type { AuthResult } from '@centralita/contracts';
import { createSessionStore, memoryStorage, SESSION_KEYS } from './session-store';

const result: AuthResult = {
  accessToken: 'access-1',
  refreshToken: 'refresh-1',
  user: {
    id: 'u-1',
    avatar: 'https://cdn.example.com/a.png',
    email: 'ana@example.com',
    name: 'Ana',
    role: 'AGENT',
    clientId: 'c-1',
    clientName: 'Acme',
    level: 'tenant',
    sessionTime: 480,
    idleLogoutMinutes: 30,
    permissions: [],
  },
};

function stored() {
  const storage = memoryStorage();
  const store = createSessionStore(storage);
  store.saveSession(result, { userStatus: 'ONLINE', showAllConversations: false });
  return { storage, store };
}

describe(createSessionStore.name, () => {
  it('keeps the locally kept values of the spec at login', () => {
    const { storage } = stored();
    expect(storage.dump()).toMatchObject({
      accessToken: 'access-1',
      refreshToken: 'refresh-1',
      userId: 'u-1',
      clientId: 'c-1',
      role: 'AGENT',
      userAvatar: 'https://cdn.example.com/a.png',
      userName: 'Ana',
      clientName: 'Acme',
      sessionTime: '480',
      userStatus: 'ONLINE',
      showAllConversations: 'false',
    });
  });

  it('reads back the stored session with its user', () => {
    const { store } = stored();
    expect(store.read()).toEqual({ accessToken: 'access-1', refreshToken: 'refresh-1', userId: 'u-1', user: result.user });
  });

  it('reads nothing without an access token', () => {
    expect(createSessionStore(memoryStorage()).read()).toBeNull();
  });

  it('survives a corrupt authUser value', () => {
    const { storage, store } = stored();
    storage.setItem('authUser', '{not json');
    expect(store.read()?.user).toBeNull();
  });

  it('clears every session key but keeps the language and layout preferences', () => {
    const { storage, store } = stored();
    storage.setItem('language', 'en');
    storage.setItem('theme', 'green');
    storage.setItem('lastActivityAt', '1736931600000');
    store.clear();
    expect(storage.dump()).toEqual({ language: 'en', theme: 'green' });
  });

  it('lists the spec keys among the ones it clears', () => {
    expect(SESSION_KEYS).toEqual(
      expect.arrayContaining([
        'accessToken',
        'userId',
        'clientId',
        'role',
        'userAvatar',
        'userName',
        'clientName',
        'sessionTime',
        'authUser',
        'refreshToken',
      ]),
    );
  });

  it('replaces both tokens after a refresh', () => {
    const { store } = stored();
    store.saveTokens({ accessToken: 'access-2', refreshToken: 'refresh-2' });
    expect([store.getAccessToken(), store.getRefreshToken()]).toEqual(['access-2', 'refresh-2']);
  });
});
