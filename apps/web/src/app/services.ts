import { createActor, fromPromise, type ActorRefFrom } from 'xstate';
import type { i18n as I18n } from 'i18next';
import { isApiError } from '../api/api-error';
import { createConsoleApi, type ConsoleApi } from '../api/console-api';
import { createApiClient, type ApiClient } from '../api/http-client';
import { authMachine } from '../auth/auth.machine';
import { crossTabSessionEvent } from '../auth/cross-tab';
import { setSessionRenewal } from '../auth/session-renewal';
import { browserStorage, createSessionStore, type SessionStore, type StorageLike } from '../auth/session-store';
import { currentLanguage, initI18n } from '../i18n/i18n';

export type AuthActor = ActorRefFrom<typeof authMachine>;

export interface AppServices {
  storage: StorageLike;
  session: SessionStore;
  api: ConsoleApi;
  /** The one HTTP client: feature modules (the desk) share its single-flight refresh, so a rotated refresh token is never spent twice. */
  client: ApiClient;
  auth: AuthActor;
  i18n: I18n;
}

/** Wires storage, the API client, i18n and the auth machine once, at start-up (main.tsx). */
export function createAppServices(): AppServices {
  const storage = browserStorage();
  const session = createSessionStore(storage);
  const i18n = initI18n(storage);
  let auth: AuthActor | null = null;

  const client = createApiClient({
    baseUrl: '',
    fetch: (input, init) => window.fetch(input, init),
    tokens: session,
    onSessionExpired: () => auth?.send({ type: 'auth.expired' }),
    onTokensRefreshed: (tokens) => auth?.send({ type: 'auth.refresh', tokens }),
    language: () => currentLanguage(i18n),
  });
  const api = createConsoleApi(client);
  // A staff socket refused for an expired access token renews through the same single-flight
  // refresh as HTTP; when that fails the session ends the way a refused HTTP call ends it.
  setSessionRenewal(async () => {
    const refreshed = await client.refreshSession();
    if (!refreshed) auth?.send({ type: 'auth.expired' });
    return refreshed !== false;
  });

  const machine = authMachine.provide({
    actors: {
      fetchUserInfo: fromPromise(async ({ input }) => {
        try {
          return await api.userInfo(input.userId);
        } catch (error) {
          // Spec §8: a failed user-info call is ignored; the user kept at login stands in,
          // unless the session itself is gone.
          if (isApiError(error) && error.kind === 'session') throw error;
          if (input.fallbackUser) return input.fallbackUser;
          throw error;
        }
      }),
      login: fromPromise(({ input }) => api.login(input)),
      refreshSession: fromPromise(() => client.refreshSession()),
    },
    actions: {
      persistSession: (_, { result, userStatus, showAllConversations }) =>
        session.saveSession(result, { userStatus, showAllConversations }),
      persistUser: (_, { user }) => session.saveUser(user),
      persistTokens: (_, tokens) => {
        if (tokens.accessToken) session.saveTokens(tokens);
      },
      clearSession: () => session.clear(),
      notifyLogout: (_, { userId, accessToken }) => {
        // Spec §8: a failed logout call is silently ignored; the local session ends regardless.
        if (userId && accessToken) api.logout(userId, accessToken).catch(() => undefined);
      },
    },
  });

  let stored = null;
  try {
    stored = session.read();
  } catch {
    stored = null;
  }
  auth = createActor(machine, { input: { stored } });
  const actor = auth;
  // Fired in the other tabs only (never in the tab that wrote): see crossTabSessionEvent.
  window.addEventListener('storage', (change) => {
    if (change.storageArea && change.storageArea !== window.localStorage) return;
    const snapshot = actor.getSnapshot();
    const event = crossTabSessionEvent(change, session, snapshot.matches('authenticated') ? snapshot.context.userId : null);
    if (event) actor.send(event);
  });
  return { storage, session, api, client, auth, i18n };
}
