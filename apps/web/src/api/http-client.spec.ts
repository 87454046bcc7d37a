import { describe, expect, it, jest } from '@jest/globals';
import { CATALOGUE_MESSAGES } from '@centralita/contracts';
import { ApiError } from './api-error';
import { createApiClient, type TokenPair, type TokenSource } from './http-client';

type FetchArgs = [string, RequestInit];

function json(status: number, body: unknown): Response {
  return new Response(JSON.stringify(body), { status, headers: { 'Content-Type': 'application/json' } });
}
const ok = (data: unknown) => json(200, { statusCode: 200, data, errorMessage: null });
const fail = (status: number, errorMessage: string, errorCode?: string) =>
  json(status, { statusCode: status, data: null, errorMessage, errorCode });

function tokenSource(initial: Partial<TokenPair> & { userId?: string } = {}): TokenSource & { state: Record<string, string | null> } {
  const state: Record<string, string | null> = {
    accessToken: initial.accessToken ?? 'access-1',
    refreshToken: initial.refreshToken ?? 'refresh-1',
    userId: initial.userId ?? 'u-1',
  };
  return {
    state,
    getAccessToken: () => state.accessToken,
    getRefreshToken: () => state.refreshToken,
    getUserId: () => state.userId,
    saveTokens: (t) => {
      state.accessToken = t.accessToken;
      state.refreshToken = t.refreshToken;
    },
  };
}

function client(responder: (url: string, init: RequestInit) => Promise<Response>, tokens = tokenSource()) {
  const fetchMock = jest.fn((url: string, init: RequestInit) => responder(url, init));
  const onSessionExpired = jest.fn();
  const onTokensRefreshed = jest.fn();
  const api = createApiClient({
    baseUrl: '',
    fetch: fetchMock as unknown as typeof fetch,
    tokens,
    onSessionExpired,
    onTokensRefreshed,
  });
  return { api, fetchMock, onSessionExpired, onTokensRefreshed, tokens };
}

const headersOf = (call: unknown[]) => (call as FetchArgs)[1].headers as Record<string, string>;

describe(createApiClient.name, () => {
  it('sends JSON headers and the stored bearer token', async () => {
    const { api, fetchMock } = client(async () => ok({ a: 1 }));
    await api.get('/api/menu');
    expect(headersOf(fetchMock.mock.calls[0])).toMatchObject({
      Accept: 'application/json',
      'Content-Type': 'application/json',
      Authorization: 'Bearer access-1',
    });
  });

  it("sends the console's language as Accept-Language when it has one", async () => {
    let language = 'de';
    const fetchMock = jest.fn(async (_url: string, _init: RequestInit) => ok(null));
    const api = createApiClient({
      baseUrl: '',
      fetch: fetchMock as unknown as typeof fetch,
      tokens: tokenSource(),
      language: () => language,
    });
    await api.post('/api/reports/queue/exports', {});
    // Read at every call: switching the language in the top bar applies to the next request.
    language = 'ru';
    await api.get('/api/menu');
    // Downloads too: transcripts and results CSVs are labelled in it.
    language = 'el';
    await api.download('/api/outbound/campaigns/c1/results.csv');
    expect(fetchMock.mock.calls.map((call) => headersOf(call)['Accept-Language'])).toEqual(['de', 'ru', 'el']);
    const { api: without, fetchMock: plain } = client(async () => ok(null));
    await without.get('/api/menu');
    expect(headersOf(plain.mock.calls[0])['Accept-Language']).toBeUndefined();
  });

  it('leaves the bearer out of public calls', async () => {
    const { api, fetchMock } = client(async () => ok(null));
    await api.post('/api/auth/login', { email: 'a@b.co' }, { auth: false });
    expect(headersOf(fetchMock.mock.calls[0]).Authorization).toBeUndefined();
  });

  it('resolves with the envelope data on statusCode 200', async () => {
    const { api } = client(async () => ok({ logoUrl: 'x' }));
    await expect(api.get('/api/general/branding')).resolves.toEqual({ logoUrl: 'x' });
  });

  it('encodes query parameters', async () => {
    const { api, fetchMock } = client(async () => ok(null));
    await api.get('/api/auth/user-info', { query: { UserId: 'a b', skip: undefined } });
    expect(fetchMock.mock.calls[0][0]).toBe('/api/auth/user-info?UserId=a+b');
  });

  it('rejects with the errorMessage of an error envelope', async () => {
    const { api } = client(async () => fail(409, 'User already exists!', 'user_exists'));
    await expect(api.post('/api/auth/register', {}, { auth: false })).rejects.toMatchObject({
      message: 'User already exists!',
      status: 409,
      code: 'user_exists',
    });
  });

  it('rejects with the errorMessage when statusCode differs from 200 inside an HTTP 200', async () => {
    const { api } = client(async () => json(200, { statusCode: 400, data: null, errorMessage: 'email must be an email' }));
    await expect(api.get('/x')).rejects.toThrow('email must be an email');
  });

  it.each([
    [500, CATALOGUE_MESSAGES[500]],
    [404, CATALOGUE_MESSAGES[404]],
    [401, CATALOGUE_MESSAGES[401]],
  ])('maps HTTP %i to the catalogue message', async (status, message) => {
    const { api } = client(async () => fail(status, 'internal detail'));
    await expect(api.get('/x', { auth: false })).rejects.toThrow(message);
  });

  it('falls back to the generic message when the answer is not an envelope', async () => {
    const { api } = client(async () => new Response('<html>bad gateway</html>', { status: 502 }));
    await expect(api.get('/x')).rejects.toThrow(CATALOGUE_MESSAGES.generic);
  });

  it("rejects a network failure with 'Error, ' plus the cause", async () => {
    const { api } = client(async () => {
      throw new TypeError('Failed to fetch');
    });
    const error = await api.get('/x').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ApiError);
    expect(error).toMatchObject({ message: 'Error, Failed to fetch', kind: 'network', detail: 'Failed to fetch' });
  });

  it('refreshes once on 401 and replays the call with the new token', async () => {
    const { api, fetchMock, onTokensRefreshed, tokens } = client(async (url, init) => {
      if (url.startsWith('/Session/RefreshToken')) return ok({ accessToken: 'access-2', refreshToken: 'refresh-2' });
      const auth = (init.headers as Record<string, string>).Authorization;
      return auth === 'Bearer access-2' ? ok('fresh') : fail(401, 'Unauthorized');
    });
    await expect(api.get('/api/menu')).resolves.toBe('fresh');
    const refreshCall = fetchMock.mock.calls.find(([url]) => url.startsWith('/Session/RefreshToken'));
    expect(refreshCall?.[0]).toBe('/Session/RefreshToken?userId=u-1');
    expect(headersOf(refreshCall as unknown[])['X-Refresh-Token']).toBe('refresh-1');
    expect(tokens.state).toMatchObject({ accessToken: 'access-2', refreshToken: 'refresh-2' });
    expect(onTokensRefreshed).toHaveBeenCalledWith({ accessToken: 'access-2', refreshToken: 'refresh-2' });
  });

  it('shares one refresh between concurrent 401s', async () => {
    const { api, fetchMock } = client(async (url, init) => {
      if (url.startsWith('/Session/RefreshToken')) return ok({ accessToken: 'access-2', refreshToken: 'refresh-2' });
      const auth = (init.headers as Record<string, string>).Authorization;
      return auth === 'Bearer access-2' ? ok(url) : fail(401, 'Unauthorized');
    });
    await Promise.all([api.get('/a'), api.get('/b'), api.get('/c')]);
    const refreshes = fetchMock.mock.calls.filter(([url]) => url.startsWith('/Session/RefreshToken'));
    expect(refreshes).toHaveLength(1);
  });

  it('spends the shared refresh token once when two tabs refresh at the same moment: the second adopts what the first got', async () => {
    // Two tabs: one storage, one browser-wide lock (Web Locks in the browser), one server that
    // rotates the refresh token and takes a second use of a spent one for theft.
    const shared = tokenSource();
    let held: Promise<unknown> = Promise.resolve();
    const crossTabLock = <T>(_name: string, work: () => Promise<T>): Promise<T> => {
      const run = held.then(work);
      held = run.catch(() => undefined);
      return run;
    };
    const spent = new Set<string>();
    let issued = 1;
    const server = jest.fn(async (url: string, init: RequestInit) => {
      if (!url.startsWith('/Session/RefreshToken')) return ok(null);
      const presented = (init.headers as Record<string, string>)['X-Refresh-Token'];
      if (spent.has(presented)) return fail(401, 'refresh_token_invalid');
      spent.add(presented);
      issued += 1;
      return ok({ accessToken: `access-${issued}`, refreshToken: `refresh-${issued}` });
    });
    const tab = () => {
      const onTokensRefreshed = jest.fn();
      const api = createApiClient({
        baseUrl: '',
        fetch: server as unknown as typeof fetch,
        tokens: shared,
        crossTabLock,
        onTokensRefreshed,
      });
      return { api, onTokensRefreshed };
    };
    const [first, second] = [tab(), tab()];

    const results = await Promise.all([first.api.refreshSession(), second.api.refreshSession()]);

    expect(server).toHaveBeenCalledTimes(1);
    expect(results).toEqual([
      { accessToken: 'access-2', refreshToken: 'refresh-2' },
      { accessToken: 'access-2', refreshToken: 'refresh-2' },
    ]);
    expect(second.onTokensRefreshed).toHaveBeenCalledWith({ accessToken: 'access-2', refreshToken: 'refresh-2' });
    expect(shared.state).toMatchObject({ accessToken: 'access-2', refreshToken: 'refresh-2' });
    // The next refresh, from either tab, spends the new token.
    await expect(second.api.refreshSession()).resolves.toEqual({ accessToken: 'access-3', refreshToken: 'refresh-3' });
  });

  it('reports session expiry when the refresh is refused', async () => {
    const { api, onSessionExpired } = client(async (url) =>
      url.startsWith('/Session/RefreshToken') ? fail(401, 'refresh_token_invalid') : fail(401, 'Unauthorized'),
    );
    await expect(api.get('/api/menu')).rejects.toMatchObject({ kind: 'session', code: 'session_expired' });
    expect(onSessionExpired).toHaveBeenCalledTimes(1);
  });

  it('answers false from refreshSession when nothing can be refreshed', async () => {
    const { api, fetchMock } = client(async () => ok(null), tokenSource({ refreshToken: '' }));
    await expect(api.refreshSession()).resolves.toBe(false);
    expect(fetchMock).not.toHaveBeenCalled();
  });

  it('does not refresh on 401 for calls made without a bearer', async () => {
    const { api, fetchMock } = client(async () => fail(401, 'Invalid credentials', 'invalid_credentials'));
    await expect(api.post('/api/auth/login', {}, { auth: false })).rejects.toThrow(CATALOGUE_MESSAGES[401]);
    expect(fetchMock).toHaveBeenCalledTimes(1);
  });
});
