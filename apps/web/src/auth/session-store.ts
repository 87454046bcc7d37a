import type { AuthResult, SessionUser } from '@centralita/contracts';
import type { TokenPair, TokenSource } from '../api/http-client';

/** The subset of Web Storage the console uses; a Map-backed one stands in for tests. */
export type StorageLike = Pick<Storage, 'getItem' | 'setItem' | 'removeItem'>;

/**
 * The user's last activity (ms) in any tab: tabs share the session in localStorage, so they share
 * the idle sign-out too, and the `storage` event tells the others.
 */
export const LAST_ACTIVITY_KEY = 'lastActivityAt';

/**
 * Locally kept values of spec §3 plus the refresh token, the local agent flags and the last
 * activity. Logout removes all of them; the language (and layout preferences) survive a logout.
 */
export const SESSION_KEYS = [
  'accessToken',
  'refreshToken',
  'userId',
  'clientId',
  'role',
  'userAvatar',
  'userName',
  'clientName',
  'sessionTime',
  'authUser',
  'userStatus',
  'showAllConversations',
  LAST_ACTIVITY_KEY,
] as const;

export type LocalUserStatus = 'ONLINE' | 'OFFLINE';

export interface StoredSession {
  accessToken: string;
  refreshToken: string | null;
  userId: string | null;
  user: SessionUser | null;
}

export interface SessionStore extends TokenSource {
  read(): StoredSession | null;
  saveSession(result: AuthResult, flags: { userStatus: LocalUserStatus; showAllConversations: boolean }): void;
  saveUser(user: SessionUser): void;
  clear(): void;
}

export function memoryStorage(): StorageLike & { dump(): Record<string, string> } {
  const map = new Map<string, string>();
  return {
    getItem: (key) => map.get(key) ?? null,
    setItem: (key, value) => void map.set(key, String(value)),
    removeItem: (key) => void map.delete(key),
    dump: () => Object.fromEntries(map),
  };
}

/** localStorage when usable (it throws in some private modes), else an in-memory stand-in. */
export function browserStorage(): StorageLike {
  try {
    const probe = '__centralita_probe__';
    window.localStorage.setItem(probe, probe);
    window.localStorage.removeItem(probe);
    return window.localStorage;
  } catch {
    return memoryStorage();
  }
}

function parseUser(raw: string | null): SessionUser | null {
  if (!raw) return null;
  try {
    const value = JSON.parse(raw) as SessionUser;
    return value && typeof value === 'object' && typeof value.id === 'string' ? value : null;
  } catch {
    return null;
  }
}

export function createSessionStore(storage: StorageLike): SessionStore {
  const set = (key: string, value: string | number | null | undefined) => {
    if (value === null || value === undefined) storage.removeItem(key);
    else storage.setItem(key, String(value));
  };

  const writeUser = (user: SessionUser) => {
    set('userId', user.id);
    set('clientId', user.clientId);
    set('role', user.role);
    set('userAvatar', user.avatar);
    set('userName', user.name);
    set('clientName', user.clientName);
    set('sessionTime', user.sessionTime);
    set('authUser', JSON.stringify(user));
  };

  return {
    read() {
      const accessToken = storage.getItem('accessToken');
      if (!accessToken) return null;
      const user = parseUser(storage.getItem('authUser'));
      return {
        accessToken,
        refreshToken: storage.getItem('refreshToken'),
        userId: storage.getItem('userId') ?? user?.id ?? null,
        user,
      };
    },
    saveSession(result, flags) {
      set('accessToken', result.accessToken);
      set('refreshToken', result.refreshToken);
      writeUser(result.user);
      set('userStatus', flags.userStatus);
      set('showAllConversations', String(flags.showAllConversations));
    },
    saveUser: writeUser,
    saveTokens(tokens: TokenPair) {
      set('accessToken', tokens.accessToken);
      set('refreshToken', tokens.refreshToken);
    },
    clear() {
      for (const key of SESSION_KEYS) storage.removeItem(key);
    },
    getAccessToken: () => storage.getItem('accessToken'),
    getRefreshToken: () => storage.getItem('refreshToken'),
    getUserId: () => storage.getItem('userId'),
  };
}
