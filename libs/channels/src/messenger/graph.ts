import { ChannelError } from '../adapter';
import { PROVIDER_TIMEOUT_MS, retryAfterMs } from '../http';
import type { GraphErrorBody } from './payload';

/**
 * Graph error codes that mean "too many calls, try later": 4 (application request limit), 17 (user
 * request limit), 32 (page request limit), 613 (calls to this API exceeded the rate limit), 80006
 * (Messenger business-use-case limit) and 80002 (Instagram business-use-case limit). Meta answers
 * them with HTTP 400/403, not 429, so the code in the body decides.
 */
const RATE_LIMIT_CODES = new Set([4, 17, 32, 613, 80002, 80006]);
/** 1 (unknown error) and 2 (service temporarily unavailable): Meta asks to retry later. */
const TRANSIENT_CODES = new Set([1, 2]);
/** Code 10 with this subcode: the message was sent outside the 24-hour (or 7-day human-agent) window. */
const OUTSIDE_WINDOW_SUBCODE = 2018278;
/** Code 100 with this subcode: no user with that id has a conversation with the Page. */
const NO_MATCHING_USER_SUBCODE = 2018001;

/**
 * One Graph API call with the account's token as a bearer header (never in the URL, so it stays out
 * of proxies' logs). Answers the parsed JSON of a 2xx; otherwise throws the ChannelError
 * `classifyGraphError` makes of Meta's error body.
 */
export async function graphRequest<T>(
  url: string,
  token: string,
  init: { method: 'GET' | 'POST'; json?: unknown; form?: FormData },
): Promise<T> {
  const headers: Record<string, string> = { authorization: `Bearer ${token}` };
  let body: string | FormData | undefined;
  if (init.json !== undefined) {
    headers['content-type'] = 'application/json';
    body = JSON.stringify(init.json);
  } else if (init.form) {
    body = init.form; // fetch writes the multipart boundary into Content-Type itself.
  }
  let response: Response;
  try {
    response = await fetch(url, { method: init.method, headers, body, signal: AbortSignal.timeout(PROVIDER_TIMEOUT_MS) });
  } catch (error) {
    throw new ChannelError(`Meta Graph API unreachable: ${(error as Error).message}`, { code: 'network', retryable: true });
  }
  const text = await response.text();
  let parsed: unknown = text;
  try {
    parsed = text ? JSON.parse(text) : null;
  } catch {
    // Not JSON (a proxy's error page): classified from the status alone.
  }
  if (response.ok) return parsed as T;
  throw classifyGraphError(response.status, parsed, response.headers);
}

/**
 * Meta's error body `{error: {message, type, code, error_subcode, is_transient, fbtrace_id}}` as a
 * ChannelError: rate limits and transient errors are retryable (not before the time Meta announces
 * in X-Business-Use-Case-Usage / Retry-After); the closed reply window, an invalid token, an
 * unavailable person and every other 4xx are permanent, with Meta's reason as the message.
 */
export function classifyGraphError(status: number, body: unknown, headers: Headers): ChannelError {
  const error = graphErrorOf(body);
  if (!error) {
    const retryable = status === 408 || status === 429 || status >= 500;
    return new ChannelError(`Meta Graph API answered HTTP ${status}`, {
      code: `http_${status}`,
      retryable,
      retryAfterMs: retryable ? retryAfterMs(headers.get('retry-after')) : undefined,
      status,
    });
  }
  const code = typeof error.code === 'number' ? error.code : undefined;
  const subcode = typeof error.error_subcode === 'number' ? error.error_subcode : undefined;
  const reason =
    (typeof error.error_user_msg === 'string' && error.error_user_msg) ||
    (typeof error.message === 'string' && error.message) ||
    `HTTP ${status}`;
  const permanent = (name: string, message = reason) => new ChannelError(message, { code: name, retryable: false, status });

  if (code !== undefined && RATE_LIMIT_CODES.has(code)) {
    return new ChannelError(`Meta rate limit reached: ${reason}`, {
      code: 'rate_limited',
      retryable: true,
      retryAfterMs: retryAfterMs(headers.get('retry-after')) ?? regainAccessMs(headers),
      status,
    });
  }
  if (error.is_transient === true || (code !== undefined && TRANSIENT_CODES.has(code)) || (code === undefined && status >= 500)) {
    return new ChannelError(`Meta is temporarily unavailable: ${reason}`, {
      code: 'transient',
      retryable: true,
      retryAfterMs: retryAfterMs(headers.get('retry-after')),
      status,
    });
  }
  if (code === 10 && subcode === OUTSIDE_WINDOW_SUBCODE) {
    return permanent('outside_window', `The customer's reply window has closed (24 hours, 7 days with the human-agent tag): ${reason}`);
  }
  if (code === 190) return permanent('invalid_token', `The access token is invalid or expired: ${reason}`);
  if (code === 551) return permanent('recipient_unavailable', `This person isn't available to receive messages: ${reason}`);
  if (code === 100 && subcode === NO_MATCHING_USER_SUBCODE) return permanent('invalid_recipient', `Unknown recipient: ${reason}`);
  if (code !== undefined && code >= 200 && code <= 299) return permanent('permission_denied', `Missing permission: ${reason}`);
  if (status >= 500) {
    return new ChannelError(`Meta is temporarily unavailable: ${reason}`, { code: `graph_${code}`, retryable: true, status });
  }
  return permanent(subcode !== undefined ? `graph_${code}_${subcode}` : `graph_${code}`);
}

function graphErrorOf(body: unknown): GraphErrorBody['error'] | undefined {
  if (!body || typeof body !== 'object') return undefined;
  const error = (body as Partial<GraphErrorBody>).error;
  return error && typeof error === 'object' ? error : undefined;
}

/**
 * Meta reports its business-use-case throttling in `X-Business-Use-Case-Usage: {"<id>": [{type,
 * call_count, total_cputime, total_time, estimated_time_to_regain_access}]}`, the wait in minutes.
 * The longest announced wait wins; undefined when the header is absent or unreadable.
 */
export function regainAccessMs(headers: Headers): number | undefined {
  const header = headers.get('x-business-use-case-usage');
  if (!header) return undefined;
  try {
    const usage = JSON.parse(header) as Record<string, Array<{ estimated_time_to_regain_access?: unknown }>>;
    let minutes = 0;
    for (const entries of Object.values(usage)) {
      if (!Array.isArray(entries)) continue;
      for (const entry of entries) {
        const value = Number(entry?.estimated_time_to_regain_access);
        if (Number.isFinite(value) && value > minutes) minutes = value;
      }
    }
    return minutes > 0 ? minutes * 60_000 : undefined;
  } catch {
    return undefined;
  }
}
