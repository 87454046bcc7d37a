import type { ChannelAccount } from '../adapter';
import { ChannelError } from '../adapter';
import { PROVIDER_TIMEOUT_MS, retryAfterMs } from '../http';
import { oauth1AuthorizationHeader } from './oauth1';

/**
 * Calls to X API v2 with the account's user context: OAuth 1.0a (consumer key/secret + access
 * token/secret, signed per request) or, when the account has one, an OAuth 2.0 user bearer token.
 *
 * Errors are X's problem documents (`{title, detail, type, status, errors?}`). 429 is retryable,
 * not before `x-rate-limit-reset` (epoch seconds); 5xx, 408 and network errors are retryable;
 * 401/403 (bad credentials, recipient does not accept DMs from the account, …) and other 4xx are
 * permanent, with X's own reason as the message.
 */

export type XAuthorization = (method: string, url: string) => string;

/** The Authorization header maker of an account; throws a permanent ChannelError when credentials are missing. */
export function xAuthorization(account: ChannelAccount): XAuthorization {
  const { oauth2UserToken, consumerKey, consumerSecret, accessToken, accessTokenSecret } = account.secrets;
  if (oauth2UserToken) return () => `Bearer ${oauth2UserToken}`;
  const missing = Object.entries({ consumerKey, consumerSecret, accessToken, accessTokenSecret })
    .filter(([, value]) => !value)
    .map(([name]) => name);
  if (missing.length) {
    throw new ChannelError(`X account credentials missing: ${missing.join(', ')}`, { code: 'credentials_missing', retryable: false });
  }
  const credentials = { consumerKey, consumerSecret, accessToken, accessTokenSecret };
  return (method, url) => oauth1AuthorizationHeader({ method, url, credentials });
}

/**
 * The account's OAuth 1.0a user-context authorization, or null when it has no such credentials (an
 * OAuth 2.0 user token only): v1.1's DM send, the one with quick replies, takes nothing else.
 */
export function xOAuth1Authorization(account: ChannelAccount): XAuthorization | null {
  const { consumerKey, consumerSecret, accessToken, accessTokenSecret } = account.secrets;
  if (!consumerKey || !consumerSecret || !accessToken || !accessTokenSecret) return null;
  const credentials = { consumerKey, consumerSecret, accessToken, accessTokenSecret };
  return (method, url) => oauth1AuthorizationHeader({ method, url, credentials });
}

/** The reset time of X's rate-limit window, as a delay in milliseconds. */
export function xRateLimitResetMs(headers: Headers, now = Date.now()): number | undefined {
  const reset = Number(headers.get('x-rate-limit-reset') ?? NaN);
  if (Number.isFinite(reset) && reset > 0) return Math.max(0, reset * 1000 - now);
  return retryAfterMs(headers.get('retry-after'));
}

function describeXError(status: number, body: unknown): { code: string; message: string } {
  const problem = typeof body === 'object' && body !== null ? (body as Record<string, unknown>) : {};
  const firstError =
    Array.isArray(problem.errors) && typeof problem.errors[0] === 'object' ? (problem.errors[0] as Record<string, unknown>) : {};
  const parts = [problem.detail, firstError.message].filter((part): part is string => typeof part === 'string' && part.length > 0);
  const unique = [...new Set(parts)];
  const message = unique.length
    ? unique.join(': ')
    : typeof problem.title === 'string'
      ? problem.title
      : typeof body === 'string' && body
        ? body.slice(0, 300)
        : `HTTP ${status}`;
  const code =
    status === 429
      ? 'rate_limited'
      : status === 401
        ? 'unauthorized'
        : status === 403
          ? 'forbidden'
          : status >= 500
            ? 'x_unavailable'
            : `x_${status}`;
  return { code, message: `X: ${message}` };
}

/** One JSON call to X; answers the parsed body of a 2xx (null when empty). */
export async function xCall<T>(method: 'GET' | 'POST' | 'PUT', url: string, authorize: XAuthorization, jsonBody?: unknown): Promise<T> {
  let response: Response;
  try {
    response = await fetch(url, {
      method,
      headers: {
        authorization: authorize(method, url),
        ...(jsonBody === undefined ? {} : { 'content-type': 'application/json' }),
      },
      body: jsonBody === undefined ? undefined : JSON.stringify(jsonBody),
      signal: AbortSignal.timeout(PROVIDER_TIMEOUT_MS),
    });
  } catch (error) {
    throw new ChannelError(`X unreachable: ${(error as Error).message}`, { code: 'network', retryable: true });
  }
  const text = await response.text();
  let body: unknown = text;
  try {
    body = text ? JSON.parse(text) : null;
  } catch {
    // A proxy's HTML error page: described from the status alone.
  }
  if (response.ok) return body as T;
  const { code, message } = describeXError(response.status, body);
  const retryable = response.status === 408 || response.status === 429 || response.status >= 500;
  throw new ChannelError(message, {
    code,
    retryable,
    retryAfterMs: response.status === 429 ? xRateLimitResetMs(response.headers) : retryAfterMs(response.headers.get('retry-after')),
    status: response.status,
  });
}

// ---- Media upload (X API v2) -------------------------------------------------------------------

/** Raw bytes per APPEND segment: X takes at most 5 MB per segment (sent base64 in JSON). */
const SEGMENT_BYTES = 4 * 1024 * 1024;
/** How long to wait for X to process a video before the send is retried later. */
const PROCESSING_DEADLINE_MS = 120_000;

interface UploadAnswer {
  data?: {
    id?: string;
    processing_info?: { state?: string; check_after_secs?: number; error?: { message?: string; name?: string } };
  };
}

function mediaIdOf(answer: UploadAnswer | null, step: string): string {
  const id = answer?.data?.id;
  if (typeof id !== 'string' || !id)
    throw new ChannelError(`X: ${step} answered no media id`, { code: 'unexpected_response', retryable: true });
  return id;
}

/**
 * Uploads one medium for a DM and answers its media id. A still image goes in one request
 * (`POST /2/media/upload`, category dm_image); a GIF or a video through the chunked flow
 * (`/2/media/upload/initialize`, `/{id}/append` per segment, `/{id}/finalize`, then STATUS until
 * processing succeeds), categories dm_gif / dm_video. The bytes travel base64 in JSON, which X
 * documents for both the one-shot and the append requests.
 */
export async function uploadXMedia(
  apiUrl: string,
  authorize: XAuthorization,
  media: { mimeType: string; bytes: Buffer },
  sleep: (ms: number) => Promise<void> = (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
): Promise<string> {
  const isGif = media.mimeType === 'image/gif';
  const isVideo = media.mimeType === 'video/mp4';
  if (!isGif && !isVideo) {
    const answer = await xCall<UploadAnswer>('POST', `${apiUrl}/2/media/upload`, authorize, {
      media: media.bytes.toString('base64'),
      media_category: 'dm_image',
      media_type: media.mimeType,
    });
    return mediaIdOf(answer, 'media upload');
  }
  const category = isGif ? 'dm_gif' : 'dm_video';
  const init = await xCall<UploadAnswer>('POST', `${apiUrl}/2/media/upload/initialize`, authorize, {
    media_type: media.mimeType,
    total_bytes: media.bytes.length,
    media_category: category,
  });
  const mediaId = mediaIdOf(init, 'media upload initialize');
  const path = `${apiUrl}/2/media/upload/${encodeURIComponent(mediaId)}`;
  for (let offset = 0, segment = 0; offset < media.bytes.length; offset += SEGMENT_BYTES, segment++) {
    await xCall('POST', `${path}/append`, authorize, {
      media: media.bytes.subarray(offset, offset + SEGMENT_BYTES).toString('base64'),
      segment_index: segment,
    });
  }
  let answer = await xCall<UploadAnswer>('POST', `${path}/finalize`, authorize);
  const deadline = Date.now() + PROCESSING_DEADLINE_MS;
  for (;;) {
    const info = answer?.data?.processing_info;
    if (!info || info.state === 'succeeded') return mediaId;
    if (info.state === 'failed') {
      throw new ChannelError(`X could not process the ${isGif ? 'GIF' : 'video'}: ${info.error?.message ?? info.error?.name ?? 'failed'}`, {
        code: 'media_processing_failed',
        retryable: false,
      });
    }
    if (Date.now() >= deadline) {
      throw new ChannelError('X is still processing the media', { code: 'media_processing_timeout', retryable: true });
    }
    const checkAfter = Number(info.check_after_secs);
    await sleep(Math.min(Number.isFinite(checkAfter) && checkAfter >= 0 ? checkAfter : 1, 10) * 1000);
    answer = await xCall<UploadAnswer>('GET', `${apiUrl}/2/media/upload?command=STATUS&media_id=${encodeURIComponent(mediaId)}`, authorize);
  }
}

// ---- Webhook registration (X API v2 webhooks + Account Activity subscriptions) ---------------

/** RFC 1738 form encoding of a consumer key or secret, as X's app-only token endpoint expects in Basic auth. */
const formEncode = (value: string) => encodeURIComponent(value).replace(/%20/g, '+');

/**
 * The app-only bearer token (OAuth 2.0 client credentials) from the app's consumer key and secret:
 * `POST /oauth2/token` with Basic auth and `grant_type=client_credentials`. The webhook endpoints
 * take only this token; subscriptions take the DM account's user context.
 */
export async function xAppBearer(apiUrl: string, account: ChannelAccount): Promise<XAuthorization> {
  const { consumerKey, consumerSecret } = account.secrets;
  if (!consumerKey || !consumerSecret) {
    throw new ChannelError('X account credentials missing: consumerKey, consumerSecret', { code: 'credentials_missing', retryable: false });
  }
  let response: Response;
  try {
    response = await fetch(`${apiUrl}/oauth2/token`, {
      method: 'POST',
      headers: {
        authorization: `Basic ${Buffer.from(`${formEncode(consumerKey)}:${formEncode(consumerSecret)}`).toString('base64')}`,
        'content-type': 'application/x-www-form-urlencoded;charset=UTF-8',
      },
      body: 'grant_type=client_credentials',
      signal: AbortSignal.timeout(PROVIDER_TIMEOUT_MS),
    });
  } catch (error) {
    throw new ChannelError(`X unreachable: ${(error as Error).message}`, { code: 'network', retryable: true });
  }
  const text = await response.text();
  let body: unknown = text;
  try {
    body = text ? JSON.parse(text) : null;
  } catch {
    // described from the status below
  }
  const token = (body as { token_type?: string; access_token?: string } | null)?.access_token;
  if (!response.ok || typeof token !== 'string' || !token) {
    const { code, message } = describeXError(response.status, body);
    throw new ChannelError(`${message} (app-only token)`, {
      code,
      retryable: response.status === 429 || response.status >= 500,
      status: response.status,
    });
  }
  return () => `Bearer ${token}`;
}

interface XWebhookConfig {
  id: string;
  url: string;
  valid?: boolean;
}

/**
 * Points X's Account Activity webhooks for the DM account at `url`, idempotently: the app's webhook
 * for that URL is reused when X already has it (X allows few webhooks per app and refuses a
 * duplicate URL), else created (`POST /2/webhooks`, during which X runs its CRC against the URL, so
 * the account must be saved and reachable first); then the account is subscribed
 * (`POST /2/account_activity/webhooks/{id}/subscriptions/all`, user context) unless it already is.
 */
export async function registerXWebhook(apiUrl: string, account: ChannelAccount, url: string): Promise<void> {
  const app = await xAppBearer(apiUrl, account);
  const listed = await xCall<{ data?: XWebhookConfig[] }>('GET', `${apiUrl}/2/webhooks`, app);
  let webhook = (listed?.data ?? []).find((config) => config.url === url);
  if (!webhook) {
    const created = await xCall<{ data?: XWebhookConfig }>('POST', `${apiUrl}/2/webhooks`, app, { url });
    if (!created?.data?.id)
      throw new ChannelError('X answered the webhook registration without an id', { code: 'unexpected_response', retryable: false });
    webhook = created.data;
  } else if (webhook.valid === false) {
    // X marks a webhook invalid after a failed hourly CRC; PUT asks it to check again now.
    await xCall('PUT', `${apiUrl}/2/webhooks/${encodeURIComponent(webhook.id)}`, app);
  }
  const user = xAuthorization(account);
  const subscriptions = `${apiUrl}/2/account_activity/webhooks/${encodeURIComponent(webhook.id)}/subscriptions/all`;
  const state = await xCall<{ data?: { subscribed?: boolean } }>('GET', subscriptions, user);
  if (state?.data?.subscribed) return;
  const subscribed = await xCall<{ data?: { subscribed?: boolean } }>('POST', subscriptions, user, {});
  if (!subscribed?.data?.subscribed)
    throw new ChannelError('X did not confirm the subscription', { code: 'unexpected_response', retryable: false });
}
