/**
 * Calls to Meta's Graph API for the WhatsApp Cloud API, and the classification of its errors.
 *
 * Graph answers errors as `{ error: { message, type, code, error_data: { details }, error_subcode,
 * fbtrace_id } }`. The HTTP status alone does not say whether to retry: Meta returns its throughput
 * and pair rate limits with 400, so the code decides (Meta recommends building on `code` and
 * `error_data.details`, never on the title inside `message`).
 */
import { ChannelError } from '../adapter';
import { PROVIDER_TIMEOUT_MS, retryAfterMs } from '../http';

/** Graph's error body. */
export interface GraphErrorBody {
  error: {
    message?: string;
    type?: string;
    code?: number;
    error_subcode?: number;
    error_data?: { messaging_product?: string; details?: string };
    fbtrace_id?: string;
  };
}

/**
 * Codes that mean "not now, later": throughput (130429), the business/customer pair limit (131056:
 * about one message every 6 s to the same user), the WABA and app call limits (80007, 4, 613) and
 * Graph's own transient failures (1 unknown, 2 service, 131000 something went wrong, 133004 server
 * temporarily unavailable).
 */
const RETRYABLE_CODES = new Set([130429, 131056, 80007, 4, 613, 1, 2, 131000, 133004]);

/**
 * The least wait before retrying each rate limit when Meta gives no header saying so: the pair limit
 * clears in seconds, throughput in about a second, the account and app call limits are hourly windows.
 */
const RATE_LIMIT_BACKOFF_MS: Record<number, number> = { 131056: 6_000, 130429: 1_000, 80007: 60_000, 4: 60_000, 613: 60_000 };

/** Reasons worded for the agent where Meta's own text does not say what to do. */
const PERMANENT_REASONS: Record<number, string> = {
  131047: 'More than 24 hours have passed since the customer last wrote: only an approved template can be sent now',
  190: 'The WhatsApp access token is invalid or has expired: an administrator must enter a new one',
  131050: 'The customer has stopped marketing messages from this business',
  131026: 'The message could not be delivered to this WhatsApp user',
};

/** Meta's reason, led by what it means for the agent where Meta's own text does not say. */
export function reasonForCode(code: number | undefined, metaReason: string): string {
  const reason = code === undefined ? undefined : PERMANENT_REASONS[code];
  return reason ? `${reason} (${metaReason})` : metaReason;
}

/** Reads Graph's error body into ChannelError details (code, reason, retryability, wait). */
export function describeGraphError(
  status: number,
  body: unknown,
  headers?: Headers,
): { code: string; message: string; retryable: boolean; retryAfterMs?: number } {
  const error = isGraphErrorBody(body) ? body.error : undefined;
  const code = typeof error?.code === 'number' ? error.code : undefined;
  if (code === undefined) {
    return {
      code: `http_${status}`,
      message: typeof body === 'string' && body ? body.slice(0, 300) : `HTTP ${status}`,
      retryable: status === 408 || status === 429 || status >= 500,
      retryAfterMs: retryAfterMs(headers?.get('retry-after') ?? null),
    };
  }
  const details = error?.error_data?.details?.trim();
  const metaReason = details || error?.message?.trim() || `Graph error ${code}`;
  const retryable = RETRYABLE_CODES.has(code) || status >= 500;
  const wait = retryable ? (headerWaitMs(headers) ?? RATE_LIMIT_BACKOFF_MS[code]) : undefined;
  return {
    code: String(code),
    message: reasonForCode(code, metaReason),
    retryable,
    retryAfterMs: wait,
  };
}

/**
 * How long Meta asked to wait: Retry-After when present, else the largest
 * `estimated_time_to_regain_access` (minutes) of X-Business-Use-Case-Usage, Meta's rate-limit header.
 */
function headerWaitMs(headers: Headers | undefined): number | undefined {
  if (!headers) return undefined;
  const retryAfter = retryAfterMs(headers.get('retry-after'));
  if (retryAfter !== undefined) return retryAfter;
  const usage = headers.get('x-business-use-case-usage');
  if (!usage) return undefined;
  try {
    const parsed = JSON.parse(usage) as Record<string, { estimated_time_to_regain_access?: number }[]>;
    const minutes = Object.values(parsed)
      .flat()
      .map((entry) => Number(entry?.estimated_time_to_regain_access))
      .filter((value) => Number.isFinite(value) && value > 0);
    return minutes.length ? Math.max(...minutes) * 60_000 : undefined;
  } catch {
    return undefined;
  }
}

function isGraphErrorBody(body: unknown): body is GraphErrorBody {
  return (
    typeof body === 'object' &&
    body !== null &&
    typeof (body as GraphErrorBody).error === 'object' &&
    (body as GraphErrorBody).error !== null
  );
}

/**
 * One Graph call answering the parsed JSON of a 2xx; any failure is a ChannelError (network and
 * timeouts retryable). Not http.ts's providerJson because Meta's rate-limit wait is in a response
 * header (X-Business-Use-Case-Usage) that the error classification must read.
 */
export async function graphRequest<T>(url: string, init: RequestInit): Promise<T> {
  let response: Response;
  try {
    response = await fetch(url, { ...init, signal: AbortSignal.timeout(PROVIDER_TIMEOUT_MS) });
  } catch (error) {
    throw new ChannelError(`WhatsApp Cloud API unreachable: ${(error as Error).message}`, { code: 'network', retryable: true });
  }
  const text = await response.text();
  let body: unknown = text;
  try {
    body = text ? JSON.parse(text) : null;
  } catch {
    // Not JSON (a proxy's error page): described from the status alone.
  }
  if (response.ok) return body as T;
  const described = describeGraphError(response.status, body, response.headers);
  throw new ChannelError(described.message, {
    code: described.code,
    retryable: described.retryable,
    retryAfterMs: described.retryAfterMs,
    status: response.status,
  });
}
