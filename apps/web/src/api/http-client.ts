import { CATALOGUE_MESSAGES, IDEMPOTENCY_KEY_HEADER, type Envelope, type ErrorCode } from '@centralita/contracts';
import { ApiError } from './api-error';

export interface TokenPair {
  accessToken: string;
  refreshToken: string;
}

/** Where the client reads and writes credentials (the session store in the browser). */
export interface TokenSource {
  getAccessToken(): string | null;
  getRefreshToken(): string | null;
  getUserId(): string | null;
  saveTokens(tokens: TokenPair): void;
}

export interface ApiClientOptions {
  /** '' when the console is served by the API itself (same origin). */
  baseUrl: string;
  fetch: typeof fetch;
  tokens: TokenSource;
  /** Called once the refresh token is refused: the session is over. */
  onSessionExpired?: () => void;
  /** Called after every successful refresh, whoever triggered it. */
  onTokensRefreshed?: (tokens: TokenPair) => void;
  /** The console's language, sent as Accept-Language (report exports head their files in it). */
  language?: () => string;
  /**
   * Runs `work` holding a lock shared by every tab of the console (default: the Web Locks API where
   * the browser has it). Refreshes take it: tabs share one session, and its refresh token may be
   * spent only once; a second use is taken for theft and ends the session everywhere.
   */
  crossTabLock?: CrossTabLock;
  /** Waits between retries of an idempotent call (default a timer; tests pass an instant one). */
  sleep?: (ms: number) => Promise<void>;
  /** Mints the Idempotency-Key of one user action (default a random UUID). */
  newIdempotencyKey?: () => string;
  /**
   * How long one try of an idempotent call may go unanswered before it is given up and repeated
   * with the same key (default 15 s): a browser's own fetch would wait minutes.
   */
  idempotentAttemptTimeoutMs?: number;
}

export type CrossTabLock = <T>(name: string, work: () => Promise<T>) => Promise<T>;

/** The browser's Web Locks when it has them; elsewhere (tests, old browsers) no lock beyond this tab's own single flight. */
export const webLocks: CrossTabLock = (name, work) => {
  const locks = (globalThis as { navigator?: { locks?: { request<T>(name: string, work: () => Promise<T>): Promise<T> } } }).navigator
    ?.locks;
  return locks ? locks.request(name, work) : work();
};

const REFRESH_LOCK = 'centralita.session-refresh';

export type Query = Record<string, string | number | boolean | null | undefined>;

export interface RequestOptions {
  method?: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  body?: unknown;
  query?: Query;
  headers?: Record<string, string>;
  /** Send the stored bearer token (default true). */
  auth?: boolean;
  /** Use this token instead of the stored one (logout sends the token it is about to drop). */
  accessToken?: string;
  /** Sent as-is instead of JSON (file uploads); set Content-Type in headers (a FormData sets its own multipart type). */
  rawBody?: Blob | ArrayBuffer | FormData;
  /** Try a token refresh and replay once on 401 (default true for authenticated calls). */
  refreshOnUnauthorized?: boolean;
  signal?: AbortSignal;
  /**
   * One user action that must not act twice (close, transfer, send, pause…): the call carries an
   * Idempotency-Key minted here once, and is retried with that same key when no answer came back
   * (network failure, 5xx) or the server says the first try is still running (409
   * idempotency_in_progress, after its Retry-After). The server answers a repeat with the first
   * answer, so the retry is safe; every new call is a new action with a new key.
   */
  idempotent?: boolean;
}

/** Attempts of one idempotent action: the first try and three retries. */
export const IDEMPOTENT_ATTEMPTS = 4;
/** Wait before the retry after `failures` failed tries, when the server named no Retry-After (ms). */
export function idempotentRetryDelay(failures: number): number {
  return Math.min(500 * 2 ** (failures - 1), 4000);
}
/** The most a Retry-After may make the client wait, so a desk button never hangs for long (ms). */
const MAX_RETRY_AFTER_MS = 5000;

export function newIdempotencyKey(): string {
  return typeof crypto !== 'undefined' && 'randomUUID' in crypto
    ? crypto.randomUUID()
    : `${Date.now().toString(36)}-${Math.random().toString(36).slice(2)}-${Math.random().toString(36).slice(2)}`;
}

const defaultSleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** Retry-After in seconds (the only form the API sends) as milliseconds, or null when absent. */
function retryAfterMs(response: Response): number | null {
  const value = Number(response.headers.get('Retry-After'));
  return Number.isFinite(value) && value >= 0 && response.headers.has('Retry-After') ? Math.min(value * 1000, MAX_RETRY_AFTER_MS) : null;
}

/** Status answers that mean "the action may not have happened, or is still happening": worth repeating with the same key. */
function isRetryableStatus(status: number): boolean {
  return status === 502 || status === 503 || status === 504 || status === 500;
}

export interface ApiClient {
  request<T>(path: string, options?: RequestOptions): Promise<T>;
  get<T>(path: string, options?: Omit<RequestOptions, 'method' | 'body'>): Promise<T>;
  post<T>(path: string, body?: unknown, options?: Omit<RequestOptions, 'method' | 'body'>): Promise<T>;
  /** Single-flight token refresh: concurrent callers share one request. Resolves false on failure. */
  refreshSession(): Promise<TokenPair | false>;
  /** The raw response of an authenticated GET (downloads that are not envelopes). */
  download(path: string): Promise<Response>;
}

/** Generic catalogue messages by HTTP status (spec §8). */
const STATUS_MESSAGES: Record<number, string> = {
  401: CATALOGUE_MESSAGES[401],
  404: CATALOGUE_MESSAGES[404],
  500: CATALOGUE_MESSAGES[500],
};

function isEnvelope(value: unknown): value is Envelope<unknown> {
  return typeof value === 'object' && value !== null && typeof (value as { statusCode?: unknown }).statusCode === 'number';
}

function buildUrl(baseUrl: string, path: string, query?: Query): string {
  let url = `${baseUrl}${path}`;
  if (query) {
    const params = new URLSearchParams();
    for (const [key, value] of Object.entries(query)) {
      if (value !== undefined && value !== null) params.append(key, String(value));
    }
    const qs = params.toString();
    if (qs) url += (url.includes('?') ? '&' : '?') + qs;
  }
  return url;
}

function causeOf(error: unknown): string {
  if (error instanceof Error) return error.message;
  return String(error);
}

/** Turns a response into its data, or an ApiError that carries the message to show. */
export async function readEnvelope<T>(response: Response): Promise<T> {
  let body: unknown = null;
  const text = await response.text().catch(() => '');
  if (text) {
    try {
      body = JSON.parse(text);
    } catch {
      body = null;
    }
  }
  const envelope = isEnvelope(body) ? body : null;
  if (response.ok && envelope && envelope.statusCode === 200) return envelope.data as T;
  if (response.ok && !envelope && response.status === 204) return null as T;

  const status = envelope && envelope.statusCode !== 200 ? envelope.statusCode : response.status;
  const code: ErrorCode | undefined = envelope?.errorCode ?? undefined;
  const message =
    STATUS_MESSAGES[status] ??
    (envelope?.errorMessage && envelope.errorMessage.trim() ? envelope.errorMessage : CATALOGUE_MESSAGES.generic);
  throw new ApiError(message, { status, code, kind: 'http', data: envelope?.data ?? null });
}

/** A signal for one try: aborted by the caller's own signal, or after `ms` without an answer. */
function timedAttempt(outer: AbortSignal | undefined, ms: number) {
  const controller = new AbortController();
  let expired = false;
  const onOuterAbort = () => controller.abort(outer?.reason);
  if (outer?.aborted) controller.abort(outer.reason);
  else outer?.addEventListener('abort', onOuterAbort, { once: true });
  const timer = setTimeout(() => {
    expired = true;
    controller.abort();
  }, ms);
  return {
    signal: controller.signal,
    expired: () => expired,
    clear: () => {
      clearTimeout(timer);
      outer?.removeEventListener('abort', onOuterAbort);
    },
  };
}

/** A 409 that says the same key's first call is still running (its body read from a clone, so the caller can still read it). */
async function isInProgress(response: Response): Promise<boolean> {
  try {
    const body: unknown = await response.clone().json();
    return isEnvelope(body) && body.errorCode === 'idempotency_in_progress';
  } catch {
    return false;
  }
}

export function createApiClient(options: ApiClientOptions): ApiClient {
  const { baseUrl, tokens } = options;
  let inflightRefresh: Promise<TokenPair | false> | null = null;

  async function send(path: string, opts: RequestOptions, bearer: string | null): Promise<Response> {
    const headers: Record<string, string> = {
      Accept: 'application/json',
      'Content-Type': 'application/json',
      ...(options.language ? { 'Accept-Language': options.language() } : {}),
      ...opts.headers,
    };
    if (bearer) headers.Authorization = `Bearer ${bearer}`;
    // The browser writes a multipart body's Content-Type with its boundary.
    if (typeof FormData !== 'undefined' && opts.rawBody instanceof FormData) delete headers['Content-Type'];
    try {
      return await options.fetch(buildUrl(baseUrl, path, opts.query), {
        method: opts.method ?? 'GET',
        headers,
        body: opts.rawBody ?? (opts.body === undefined ? undefined : JSON.stringify(opts.body)),
        signal: opts.signal,
      });
    } catch (error) {
      if (opts.signal?.aborted) throw error;
      const detail = causeOf(error);
      throw new ApiError(`Error, ${detail}`, { kind: 'network', detail });
    }
  }

  /**
   * Refreshes under the cross-tab lock. `seen` is the access token the caller found stored when it
   * decided to refresh: if another tab stored a new one while this one waited for the lock, that
   * one is adopted instead of spending the refresh token a second time.
   */
  async function doRefresh(seen: string | null): Promise<TokenPair | false> {
    return (options.crossTabLock ?? webLocks)(REFRESH_LOCK, async () => {
      const current = tokens.getAccessToken();
      const refreshToken = tokens.getRefreshToken();
      if (current && refreshToken && current !== seen) {
        const pair: TokenPair = { accessToken: current, refreshToken };
        options.onTokensRefreshed?.(pair);
        return pair;
      }
      return spendRefreshToken();
    });
  }

  async function spendRefreshToken(): Promise<TokenPair | false> {
    const userId = tokens.getUserId();
    const refreshToken = tokens.getRefreshToken();
    if (!userId || !refreshToken) return false;
    try {
      const response = await send(
        '/Session/RefreshToken',
        { query: { userId }, headers: { 'X-Refresh-Token': refreshToken } },
        tokens.getAccessToken(),
      );
      const data = await readEnvelope<Partial<TokenPair> | null>(response);
      if (!data || typeof data.accessToken !== 'string' || !data.accessToken) return false;
      const pair: TokenPair = { accessToken: data.accessToken, refreshToken: data.refreshToken ?? refreshToken };
      tokens.saveTokens(pair);
      options.onTokensRefreshed?.(pair);
      return pair;
    } catch {
      return false;
    }
  }

  function refreshSession(): Promise<TokenPair | false> {
    if (!inflightRefresh) {
      inflightRefresh = doRefresh(tokens.getAccessToken()).finally(() => {
        inflightRefresh = null;
      });
    }
    return inflightRefresh;
  }

  /** One try: the call, and on 401 a refresh and a replay with the new token. */
  async function attempt(path: string, opts: RequestOptions): Promise<Response> {
    const useAuth = opts.auth !== false;
    const bearer = useAuth ? (opts.accessToken ?? tokens.getAccessToken()) : null;
    const response = await send(path, opts, bearer);
    const mayRefresh = useAuth && bearer !== null && opts.refreshOnUnauthorized !== false && !opts.accessToken;
    if (response.status !== 401 || !mayRefresh) return response;

    // Another request may already have rotated the token while this one was in flight.
    const current = tokens.getAccessToken();
    let nextToken: string | null = current && current !== bearer ? current : null;
    if (!nextToken) {
      const refreshed = await refreshSession();
      if (!refreshed) {
        options.onSessionExpired?.();
        throw new ApiError(CATALOGUE_MESSAGES.noSession, { status: 401, code: 'session_expired', kind: 'session' });
      }
      nextToken = refreshed.accessToken;
    }
    return send(path, opts, nextToken);
  }

  async function request<T>(path: string, opts: RequestOptions = {}): Promise<T> {
    if (!opts.idempotent) return readEnvelope<T>(await attempt(path, opts));
    const key = (options.newIdempotencyKey ?? newIdempotencyKey)();
    const keyed: RequestOptions = { ...opts, headers: { ...opts.headers, [IDEMPOTENCY_KEY_HEADER]: key } };
    const sleep = options.sleep ?? defaultSleep;
    for (let failures = 1; ; failures++) {
      let response: Response;
      const timeout = timedAttempt(opts.signal, options.idempotentAttemptTimeoutMs ?? 15_000);
      try {
        response = await attempt(path, { ...keyed, signal: timeout.signal });
      } catch (error) {
        // No answer at all: the first try may or may not have acted; the same key makes asking again safe.
        const unanswered = (error instanceof ApiError && error.kind === 'network') || timeout.expired();
        if (!unanswered || failures >= IDEMPOTENT_ATTEMPTS || opts.signal?.aborted) {
          if (timeout.expired()) throw new ApiError('Error, timeout', { kind: 'network', detail: 'timeout' });
          throw error;
        }
        await sleep(idempotentRetryDelay(failures));
        continue;
      } finally {
        timeout.clear();
      }
      const inProgress = response.status === 409 && (await isInProgress(response));
      if ((!inProgress && !isRetryableStatus(response.status)) || failures >= IDEMPOTENT_ATTEMPTS || opts.signal?.aborted) {
        return readEnvelope<T>(response);
      }
      await sleep(retryAfterMs(response) ?? idempotentRetryDelay(failures));
    }
  }

  return {
    request,
    get: (path, opts) => request(path, { ...opts, method: 'GET' }),
    post: (path, body, opts) => request(path, { ...opts, method: 'POST', body }),
    refreshSession,
    download: async (path) => {
      const response = await send(path, { headers: { Accept: '*/*' } }, tokens.getAccessToken());
      if (!response.ok) await readEnvelope(response);
      return response;
    },
  };
}
