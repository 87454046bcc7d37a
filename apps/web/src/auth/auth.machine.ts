import { assertEvent, assign, fromPromise, setup, type SnapshotFrom } from 'xstate';
import type { AuthResult, ErrorCode, SessionUser } from '@centralita/contracts';
import { isApiError, type ApiErrorKind } from '../api/api-error';
import type { TokenPair } from '../api/http-client';
import { isTokenUnexpired, refreshDelayMs } from './jwt';
import type { LocalUserStatus, StoredSession } from './session-store';

export interface Credentials {
  email: string;
  password: string;
}

/** A failure kept in the snapshot as plain data (snapshots must survive a JSON round trip). */
export interface AuthFailure {
  message: string;
  code?: ErrorCode;
  status?: number;
  kind?: ApiErrorKind;
  detail?: string;
}

export interface AuthContext {
  user: SessionUser | null;
  userId: string | null;
  accessToken: string | null;
  refreshToken: string | null;
  /** Set when the session ended on its own (token refused): sign-in shows a notice. */
  disconnected: boolean;
  /** Set by an explicit logout. */
  loggedOut: boolean;
  /** Set when that logout was the idle sign-out (platform settings): sign-in says why. */
  idleSignedOut: boolean;
  error: AuthFailure | null;
  userStatus: LocalUserStatus;
  showAllConversations: boolean;
}

export type AuthEvent =
  | ({ type: 'auth.login' } & Credentials)
  /** `reason: 'idle'`: the console signed out after the tenant's idle time, not the user. */
  | { type: 'auth.logout'; reason?: 'idle' }
  /** Without tokens: refresh now. With tokens: someone else already refreshed; adopt them. */
  | { type: 'auth.refresh'; tokens?: TokenPair }
  | { type: 'auth.expired' }
  /** Another tab of the console signed out (the shared session is gone from storage). */
  | { type: 'auth.signedOutElsewhere' }
  /**
   * A session started outside the login form (an external dialer's sign-in link): adopted exactly
   * like a login's answer. A session already open in this tab is signed out first.
   */
  | { type: 'auth.signedIn'; result: AuthResult };

export interface AuthInput {
  stored: StoredSession | null;
}

export interface UserInfoInput {
  userId: string;
  accessToken: string;
  /** The user kept from the last session, for when the user-info call fails. */
  fallbackUser: SessionUser | null;
}
export interface RefreshInput {
  userId: string | null;
  refreshToken: string | null;
}

export function toAuthFailure(error: unknown): AuthFailure {
  if (isApiError(error)) {
    return { message: error.message, code: error.code, status: error.status, kind: error.kind, detail: error.detail };
  }
  return { message: error instanceof Error ? error.message : String(error) };
}

function notProvided(name: string) {
  return () => Promise.reject(new Error(`auth machine: actor '${name}' was not provided`));
}

/**
 * Session lifecycle of spec §4. The machine only decides; talking to the API and to local
 * storage are actors and named actions the host supplies with `.provide()`.
 */
export const authMachine = setup({
  types: {
    context: {} as AuthContext,
    events: {} as AuthEvent,
    input: {} as AuthInput,
  },
  actors: {
    fetchUserInfo: fromPromise<SessionUser, UserInfoInput>(notProvided('fetchUserInfo')),
    login: fromPromise<AuthResult, Credentials>(notProvided('login')),
    refreshSession: fromPromise<TokenPair | false, RefreshInput>(notProvided('refreshSession')),
  },
  actions: {
    persistSession: (_, _params: { result: AuthResult; userStatus: LocalUserStatus; showAllConversations: boolean }) => {},
    persistUser: (_, _params: { user: SessionUser }) => {},
    persistTokens: (_, _params: TokenPair) => {},
    clearSession: () => {},
    notifyLogout: (_, _params: { userId: string | null; accessToken: string | null }) => {},
    forgetSession: assign({
      user: null,
      userId: null,
      accessToken: null,
      refreshToken: null,
      userStatus: 'OFFLINE' as LocalUserStatus,
      showAllConversations: false,
    }),
    markDisconnected: assign({ disconnected: true, loggedOut: false, idleSignedOut: false, error: null }),
    /** A login succeeded: the session starts afresh, notices gone (persistSession stores it). */
    startSession: assign((_, { result }: { result: AuthResult }) => ({
      user: result.user,
      userId: result.user.id,
      accessToken: result.accessToken,
      refreshToken: result.refreshToken,
      disconnected: false,
      loggedOut: false,
      idleSignedOut: false,
      error: null,
      userStatus: 'ONLINE' as LocalUserStatus,
      showAllConversations: false,
    })),
    adoptTokens: assign(({ event }) => {
      assertEvent(event, 'auth.refresh');
      return event.tokens ? { accessToken: event.tokens.accessToken, refreshToken: event.tokens.refreshToken } : {};
    }),
  },
  guards: {
    storedTokenIsUnexpired: ({ context }) => context.userId !== null && isTokenUnexpired(context.accessToken, Date.now()),
    hasStoredSession: ({ context }) => context.userId !== null && context.accessToken !== null,
    storedSessionCanRefresh: ({ context }) => context.userId !== null && context.accessToken !== null && !!context.refreshToken,
    eventCarriesTokens: ({ event }) => event.type === 'auth.refresh' && !!event.tokens?.accessToken,
  },
  delays: {
    refreshDelay: ({ context }) => refreshDelayMs(context.accessToken, Date.now()),
  },
}).createMachine({
  id: 'auth',
  context: ({ input }) => ({
    user: input.stored?.user ?? null,
    userId: input.stored?.userId ?? input.stored?.user?.id ?? null,
    accessToken: input.stored?.accessToken ?? null,
    refreshToken: input.stored?.refreshToken ?? null,
    disconnected: false,
    loggedOut: false,
    idleSignedOut: false,
    error: null,
    userStatus: 'OFFLINE',
    showAllConversations: false,
  }),
  initial: 'notInitialised',
  on: {
    // A refresh done by the API client (401 replay) while no timer runs: keep the new tokens.
    'auth.refresh': { guard: 'eventCarriesTokens', actions: 'adoptTokens' },
  },
  states: {
    notInitialised: {
      initial: 'checkingToken',
      states: {
        checkingToken: {
          always: [
            { guard: 'storedTokenIsUnexpired', target: 'loadingUser' },
            // The access token is short-lived: a tab reopened later renews it with the refresh token.
            { guard: 'storedSessionCanRefresh', target: 'renewingStoredToken' },
            // Spec §4: an expired token means the user was disconnected (sign-in shows the notice).
            { guard: 'hasStoredSession', target: '#auth.unauthenticated', actions: ['clearSession', 'forgetSession', 'markDisconnected'] },
            { target: '#auth.unauthenticated', actions: ['clearSession', 'forgetSession'] },
          ],
        },
        renewingStoredToken: {
          invoke: {
            src: 'refreshSession',
            input: ({ context }) => ({ userId: context.userId, refreshToken: context.refreshToken }),
            onDone: [
              {
                guard: ({ event }) => event.output !== false,
                target: 'loadingUser',
                actions: [
                  assign(({ event }) =>
                    event.output ? { accessToken: event.output.accessToken, refreshToken: event.output.refreshToken } : {},
                  ),
                  {
                    type: 'persistTokens',
                    params: ({ event }) => (event.output ? event.output : { accessToken: '', refreshToken: '' }),
                  },
                ],
              },
              { target: '#auth.unauthenticated', actions: ['clearSession', 'forgetSession', 'markDisconnected'] },
            ],
            onError: { target: '#auth.unauthenticated', actions: ['clearSession', 'forgetSession', 'markDisconnected'] },
          },
        },
        loadingUser: {
          invoke: {
            src: 'fetchUserInfo',
            input: ({ context }) => ({
              userId: context.userId ?? '',
              accessToken: context.accessToken ?? '',
              fallbackUser: context.user,
            }),
            onDone: {
              target: '#auth.authenticated',
              actions: [
                assign({ user: ({ event }) => event.output, userStatus: 'ONLINE' as LocalUserStatus }),
                { type: 'persistUser', params: ({ event }) => ({ user: event.output }) },
              ],
            },
            // Spec §4: an exception during initialisation means unauthenticated.
            onError: { target: '#auth.unauthenticated', actions: ['clearSession', 'forgetSession'] },
          },
        },
      },
    },

    unauthenticated: {
      initial: 'idle',
      states: {
        idle: {
          on: {
            'auth.login': { target: 'loggingIn', actions: assign({ error: null }) },
            'auth.signedIn': {
              target: '#auth.authenticated',
              actions: [
                {
                  type: 'startSession',
                  params: ({ event }) => ({ result: event.result }),
                },
                {
                  type: 'persistSession',
                  params: ({ event }) => ({ result: event.result, userStatus: 'ONLINE' as const, showAllConversations: false }),
                },
              ],
            },
          },
        },
        loggingIn: {
          invoke: {
            src: 'login',
            input: ({ event }) => {
              assertEvent(event, 'auth.login');
              return { email: event.email, password: event.password };
            },
            onDone: {
              target: '#auth.authenticated',
              actions: [
                { type: 'startSession', params: ({ event }) => ({ result: event.output }) },
                {
                  type: 'persistSession',
                  params: ({ event }) => ({ result: event.output, userStatus: 'ONLINE', showAllConversations: false }),
                },
              ],
            },
            onError: { target: 'idle', actions: assign({ error: ({ event }) => toAuthFailure(event.error) }) },
          },
        },
      },
    },

    authenticated: {
      initial: 'active',
      on: {
        'auth.logout': {
          target: 'unauthenticated',
          actions: [
            {
              type: 'notifyLogout',
              params: ({ context }) => ({ userId: context.userId, accessToken: context.accessToken }),
            },
            'clearSession',
            'forgetSession',
            assign(({ event }) => ({ loggedOut: true, idleSignedOut: event.reason === 'idle', disconnected: false, error: null })),
          ],
        },
        'auth.expired': { target: 'unauthenticated', actions: ['clearSession', 'forgetSession', 'markDisconnected'] },
        'auth.signedIn': {
          target: '#auth.authenticated',
          reenter: true,
          actions: [
            { type: 'notifyLogout', params: ({ context }) => ({ userId: context.userId, accessToken: context.accessToken }) },
            'clearSession',
            { type: 'startSession', params: ({ event }) => ({ result: event.result }) },
            {
              type: 'persistSession',
              params: ({ event }) => ({ result: event.result, userStatus: 'ONLINE' as const, showAllConversations: false }),
            },
          ],
        },
        // That tab told the server and cleared the storage: this one only forgets, as after its own logout.
        'auth.signedOutElsewhere': {
          target: 'unauthenticated',
          actions: ['forgetSession', assign({ loggedOut: true, idleSignedOut: false, disconnected: false, error: null })],
        },
        'auth.refresh': [
          { guard: 'eventCarriesTokens', target: '.active', reenter: true, actions: 'adoptTokens' },
          { target: '.refreshing' },
        ],
      },
      states: {
        active: {
          after: { refreshDelay: 'refreshing' },
        },
        refreshing: {
          invoke: {
            src: 'refreshSession',
            input: ({ context }) => ({ userId: context.userId, refreshToken: context.refreshToken }),
            onDone: [
              {
                guard: ({ event }) => event.output !== false,
                target: 'active',
                actions: [
                  assign(({ event }) =>
                    event.output ? { accessToken: event.output.accessToken, refreshToken: event.output.refreshToken } : {},
                  ),
                  {
                    type: 'persistTokens',
                    params: ({ event }) => (event.output ? event.output : { accessToken: '', refreshToken: '' }),
                  },
                ],
              },
              // Spec §7: a refused refresh returns false, which is the session-expiry path.
              { target: '#auth.unauthenticated', actions: ['clearSession', 'forgetSession', 'markDisconnected'] },
            ],
            onError: { target: '#auth.unauthenticated', actions: ['clearSession', 'forgetSession', 'markDisconnected'] },
          },
        },
      },
    },
  },
});

export type AuthMachine = typeof authMachine;
export type AuthSnapshot = SnapshotFrom<AuthMachine>;

export type AuthStatus = 'initialising' | 'authenticated' | 'unauthenticated';

export function authStatus(snapshot: AuthSnapshot): AuthStatus {
  if (snapshot.matches('authenticated')) return 'authenticated';
  if (snapshot.matches('unauthenticated')) return 'unauthenticated';
  return 'initialising';
}

export function isSubmitting(snapshot: AuthSnapshot): boolean {
  return snapshot.matches({ unauthenticated: 'loggingIn' });
}
