/**
 * A local fake of X (Twitter) for the Direct Messages channel: the X API v2 paths the adapter calls
 * and the Account Activity API webhooks X pushes. A loopback HTTP server on port 0.
 *
 *   const x = await startXFake({ accountUserId: '4337869213', consumerKey, consumerSecret, accessToken, accessTokenSecret });
 *   x.setWebhookUrl(`${api}/api/channels/twitter/${accountId}/webhook`);   // then point X_API_URL at x.url
 *   await x.crcCheck();                                     // X's CRC: GET ?crc_token=…, checks response_token
 *   x.webhooks, x.subscriptions                             // what POST /2/webhooks (CRC first) and the subscription call registered
 *   const { dmEventIds } = await x.customerWrites({ senderId: '3001969357', name: 'Jordan', text: 'Hola' });
 *   await x.customerWrites([{ senderId, text: 'a' }, { senderId, image: { bytes, mimeType: 'image/png' } }]); // one batched payload
 *   await x.customerWrites({ senderId, text: 'dup' }, { duplicates: 5 });  // the same signed body 6 times
 *   x.sent                                                  // every DM the platform sent: participant, text, media bytes, quick reply options
 *   await x.customerTaps(senderId, dmEventId, 'bot:person'); // the customer picks a quick reply option (quick_reply_response)
 *   await x.pushReceipts();                                 // read receipts for what was sent (X has no "delivered")
 *   await x.pushReceipts(undefined, { shuffle: true });
 *   await x.customerTypes(senderId); await x.customerBlocks(senderId); await x.customerUnblocks(senderId);
 *   x.failNext(2, 'rate-limit', { resetInSeconds: 1 });    // the next 2 API calls answer X's 429
 *   x.failNext(1, 'server-error');                          // 503
 *   x.expireMedia();                                        // customer media URLs answer 404 from now on
 *   await x.close();
 *
 * What it checks like X does: every API request carries a valid OAuth 1.0a HMAC-SHA1 signature
 * (recomputed here over method, URL and query with the consumer and token secrets; unknown keys,
 * stale timestamps and reused nonces refused) or the account's OAuth 2.0 user bearer token, else
 * X's 401 problem body; DM bodies (text ≤ 10,000 characters, at most one attachment that this user
 * uploaded and that has not expired, text or attachment present, recipient a numeric user id, not
 * the account itself, not a user who blocked the account: 403); a DM with a quick reply (only through
 * POST /1.1/direct_messages/events/new.json, OAuth 1.0a user context only: type options, 1-20 options,
 * label 1-36 characters without URLs, description ≤ 72 on all options or none, metadata ≤ 1,000, as X's
 * Quick Reply reference says; errors in v1.1's `{errors:[{code,message}]}`); media categories and sizes (dm_image
 * ≤ 5 MB, dm_gif ≤ 15 MB, dm_video ≤ 512 MB; segments adding up to total_bytes).
 * What it sends like X does: Account Activity JSON bodies signed with
 * `x-twitter-webhooks-signature: sha256=<base64 HMAC-SHA256(consumer secret, body)>`, retried
 * (3 more times by default) while the webhook answers non-2xx; DM media at private URLs that need
 * the account's authorization.
 */
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface XFakeOptions {
  /** The DM account's X user id (the channel account's externalAccountId, for_user_id in webhooks). */
  accountUserId: string;
  accountName?: string;
  accountUsername?: string;
  consumerKey: string;
  consumerSecret: string;
  accessToken: string;
  accessTokenSecret: string;
  /** When set, `Authorization: Bearer <this>` is accepted too (OAuth 2.0 user context). */
  oauth2UserToken?: string;
  /**
   * The app-only bearer token `POST /oauth2/token` hands out for the consumer key and secret (the
   * only authorization the `/2/webhooks` endpoints take). Default: a random one.
   */
  appBearerToken?: string;
  webhookUrl?: string;
  /** Extra attempts after a non-2xx webhook answer (default 3). */
  webhookRetries?: number;
  retryDelayMs?: number;
  /** How long customer media URLs stay valid (default 10 minutes). */
  mediaTtlMs?: number;
}

export interface XUpload {
  mediaId: string;
  category: string;
  mediaType: string;
  bytes: Buffer;
  segments: number;
  finalized: boolean;
}

export interface XSentDm {
  dmEventId: string;
  participantId: string;
  text?: string;
  mediaId?: string;
  media?: XUpload;
  auth: 'oauth1' | 'oauth2';
  /** The quick reply's options (v1.1 message_create with quick_reply type options), as checked. */
  quickReplyOptions?: { label: string; description?: string; metadata?: string }[];
  at: Date;
}

export interface XApiRequest {
  method: string;
  path: string;
  status: number;
  /** Why the fake refused the request's authorization, when it did. */
  authError?: string;
}

export interface XWebhookDelivery {
  body: string;
  signature: string;
  /** Status of each attempt, in order (0 = the webhook was unreachable). */
  statuses: number[];
}

export interface CustomerMessage {
  senderId: string;
  name?: string;
  screenName?: string;
  text?: string;
  image?: { bytes: Buffer; mimeType: 'image/jpeg' | 'image/png' | 'image/gif' | 'image/webp' };
  video?: { bytes: Buffer };
}

export type XFailure = 'rate-limit' | 'server-error' | 'unauthorized' | 'forbidden';

export interface XFake {
  url: string;
  sent: XSentDm[];
  uploads: Map<string, XUpload>;
  requests: XApiRequest[];
  deliveries: XWebhookDelivery[];
  setWebhookUrl(url: string): void;
  /** Webhooks registered through `POST /2/webhooks` (X runs its CRC against the URL first), by id. */
  webhooks: Map<string, { id: string; url: string; valid: boolean; createdAt: string }>;
  /** Webhook ids the DM account is subscribed to (`POST /2/account_activity/webhooks/{id}/subscriptions/all`). */
  subscriptions: Set<string>;
  /** X's CRC check against the webhook: true when the response_token is right. */
  crcCheck(): Promise<{ ok: boolean; status: number; body: string }>;
  /** The customer(s) write: one Account Activity payload with a direct_message_event per message. */
  customerWrites(
    messages: CustomerMessage | CustomerMessage[],
    options?: { duplicates?: number },
  ): Promise<{ dmEventIds: string[]; mediaUrls: string[]; deliveries: XWebhookDelivery[] }>;
  /**
   * The customer picks the quick reply option with `metadata` of the DM `dmEventId` the platform sent:
   * a message_create whose text is the option's label and whose message_data.quick_reply_response is
   * `{type: 'options', metadata}`. Throws when that DM offered no such option.
   */
  customerTaps(senderId: string, dmEventId: string, metadata: string): Promise<{ dmEventId: string; delivery: XWebhookDelivery }>;
  customerTypes(senderId: string): Promise<XWebhookDelivery>;
  customerReads(senderId: string, lastReadEventId: string): Promise<XWebhookDelivery>;
  customerBlocks(senderId: string): Promise<XWebhookDelivery>;
  customerUnblocks(senderId: string): Promise<XWebhookDelivery>;
  /** The account revokes the app (user_event.revoke). */
  revokeAccess(): Promise<XWebhookDelivery>;
  /** Read receipts (X has no other kind) for DMs the platform sent, in order or shuffled; default: all of `sent`. */
  pushReceipts(dmEventIds?: string[], options?: { shuffle?: boolean }): Promise<XWebhookDelivery[]>;
  /** Signs and POSTs any payload (retrying like X). */
  deliver(payload: unknown): Promise<XWebhookDelivery>;
  /** The x-twitter-webhooks-signature of a body. */
  signatureOf(body: string | Buffer): string;
  /** The next `count` API calls fail as X would. */
  failNext(count: number, failure: XFailure, options?: { resetInSeconds?: number }): void;
  expireMedia(): void;
  close(): Promise<void>;
}

const MB = 1024 * 1024;
const CATEGORY_LIMITS: Record<string, number> = { dm_image: 5 * MB, dm_gif: 15 * MB, dm_video: 512 * MB, tweet_image: 5 * MB };
const UNAUTHORIZED = { title: 'Unauthorized', type: 'about:blank', status: 401, detail: 'Unauthorized' };

/** RFC 3986 percent-encoding, written independently of the adapter's so the fake is a real check. */
function rfc3986(value: string): string {
  return Array.from(Buffer.from(value, 'utf8'))
    .map((byte) => {
      const c = String.fromCharCode(byte);
      return /[A-Za-z0-9\-._~]/.test(c) ? c : `%${byte.toString(16).toUpperCase().padStart(2, '0')}`;
    })
    .join('');
}

function invalidRequest(message: string, parameter = 'body') {
  return {
    errors: [{ parameters: { [parameter]: [] }, message }],
    title: 'Invalid Request',
    detail: 'One or more parameters to your request was invalid.',
    type: 'https://api.twitter.com/2/problems/invalid-request',
  };
}

export async function startXFake(options: XFakeOptions): Promise<XFake> {
  const sent: XSentDm[] = [];
  const uploads = new Map<string, XUpload>();
  const requests: XApiRequest[] = [];
  const deliveries: XWebhookDelivery[] = [];
  const usedNonces = new Set<string>();
  const blockedBy = new Set<string>();
  const media = new Map<string, { bytes: Buffer; mimeType: string; expiresAt: number }>();
  const failures: { failure: XFailure; resetInSeconds: number }[] = [];
  /** total_bytes announced by each chunked upload's INITIALIZE, checked at FINALIZE. */
  const expectedBytes = new Map<string, number>();
  let webhookUrl = options.webhookUrl;
  const appBearerToken = options.appBearerToken ?? randomBytes(24).toString('base64url');
  const webhooks: XFake['webhooks'] = new Map();
  const subscriptions = new Set<string>();
  let mediaExpired = false;
  let nextId = 1_900_000_000_000_000_000n + BigInt(Math.floor(Math.random() * 1e9)) * 1000n;
  const newId = () => String(nextId++);
  const mediaTtlMs = options.mediaTtlMs ?? 10 * 60_000;

  function checkAuthorization(request: IncomingMessage, url: URL): { auth: 'oauth1' | 'oauth2' | 'app' } | { error: string } {
    const header = request.headers.authorization ?? '';
    if (header.startsWith('Bearer ')) {
      const token = header.slice(7);
      if (token === appBearerToken) return { auth: 'app' };
      return options.oauth2UserToken && token === options.oauth2UserToken ? { auth: 'oauth2' } : { error: 'unknown bearer token' };
    }
    if (!header.startsWith('OAuth ')) return { error: 'no OAuth or Bearer authorization' };
    const oauth: Record<string, string> = {};
    for (const part of header.slice(6).split(',')) {
      const match = /^\s*([^=\s]+)="([^"]*)"\s*$/.exec(part);
      if (!match) return { error: `malformed OAuth header part ${part}` };
      oauth[decodeURIComponent(match[1])] = decodeURIComponent(match[2]);
    }
    if (oauth.oauth_consumer_key !== options.consumerKey) return { error: 'unknown consumer key' };
    if (oauth.oauth_token !== options.accessToken) return { error: 'unknown access token' };
    if (oauth.oauth_signature_method !== 'HMAC-SHA1') return { error: 'signature method is not HMAC-SHA1' };
    if (oauth.oauth_version !== undefined && oauth.oauth_version !== '1.0') return { error: 'oauth_version is not 1.0' };
    const timestamp = Number(oauth.oauth_timestamp);
    if (!Number.isFinite(timestamp) || Math.abs(timestamp - Date.now() / 1000) > 300) return { error: 'stale or missing oauth_timestamp' };
    if (!oauth.oauth_nonce) return { error: 'missing oauth_nonce' };
    if (usedNonces.has(oauth.oauth_nonce)) return { error: 'reused oauth_nonce' };
    const parameters: [string, string][] = [...url.searchParams.entries()];
    for (const [key, value] of Object.entries(oauth))
      if (key !== 'oauth_signature' && key.startsWith('oauth_')) parameters.push([key, value]);
    const parameterString = parameters
      .map(([key, value]) => [rfc3986(key), rfc3986(value)])
      .sort(([ka, va], [kb, vb]) => (ka === kb ? (va < vb ? -1 : 1) : ka < kb ? -1 : 1))
      .map(([key, value]) => `${key}=${value}`)
      .join('&');
    const baseUrl = `http://${(request.headers.host ?? '').toLowerCase()}${url.pathname}`;
    const baseString = `${request.method}&${rfc3986(baseUrl)}&${rfc3986(parameterString)}`;
    const expected = createHmac('sha1', `${rfc3986(options.consumerSecret)}&${rfc3986(options.accessTokenSecret)}`)
      .update(baseString)
      .digest();
    const given = Buffer.from(oauth.oauth_signature ?? '', 'base64');
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) return { error: 'signature does not match' };
    usedNonces.add(oauth.oauth_nonce);
    return { auth: 'oauth1' };
  }

  async function readBody(request: IncomingMessage): Promise<Buffer> {
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    return Buffer.concat(chunks);
  }

  function answer(response: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) {
    const text = body === undefined ? '' : JSON.stringify(body);
    response.writeHead(status, { 'content-type': 'application/json; charset=utf-8', ...headers });
    response.end(text);
    return status;
  }

  async function handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const url = new URL(request.url ?? '/', `http://${request.headers.host}`);
    const method = request.method ?? 'GET';
    const record: XApiRequest = { method, path: url.pathname + url.search, status: 0 };
    requests.push(record);
    const body = await readBody(request);
    if (method === 'POST' && url.pathname === '/oauth2/token') {
      record.status = appToken(request, body, response);
      return;
    }
    const authorization = checkAuthorization(request, url);
    if ('error' in authorization) {
      record.authError = authorization.error;
      record.status = answer(response, 401, UNAUTHORIZED);
      return;
    }

    // DM media: private URLs, authorized like the API.
    const stored = media.get(url.pathname);
    if (method === 'GET' && stored) {
      if (mediaExpired || Date.now() > stored.expiresAt) {
        record.status = 404;
        response.writeHead(404).end();
        return;
      }
      record.status = 200;
      response.writeHead(200, { 'content-type': stored.mimeType, 'content-length': String(stored.bytes.length) });
      response.end(stored.bytes);
      return;
    }

    const failure = failures.shift();
    if (failure) {
      if (failure.failure === 'rate-limit') {
        const reset = String(Math.floor(Date.now() / 1000) + failure.resetInSeconds);
        record.status = answer(
          response,
          429,
          { title: 'Too Many Requests', detail: 'Too Many Requests', type: 'about:blank', status: 429 },
          { 'x-rate-limit-limit': '200', 'x-rate-limit-remaining': '0', 'x-rate-limit-reset': reset },
        );
      } else if (failure.failure === 'server-error') {
        record.status = answer(response, 503, {
          title: 'Service Unavailable',
          detail: 'Service Unavailable',
          type: 'about:blank',
          status: 503,
        });
      } else if (failure.failure === 'unauthorized') {
        record.status = answer(response, 401, UNAUTHORIZED);
      } else {
        record.status = answer(response, 403, {
          detail: 'You are not permitted to perform this action.',
          type: 'about:blank',
          title: 'Forbidden',
          status: 403,
        });
      }
      return;
    }
    if (url.pathname === '/2/webhooks' || url.pathname.startsWith('/2/webhooks/')) {
      record.status =
        authorization.auth === 'app'
          ? await webhookRoute(method, url, body, response)
          : answer(response, 403, unsupportedAuthentication('a user context', 'OAuth 2.0 Application-Only'));
      return;
    }
    if (authorization.auth === 'app') {
      record.status = answer(
        response,
        403,
        unsupportedAuthentication('OAuth 2.0 Application-Only', 'OAuth 1.0a User Context, OAuth 2.0 User Context'),
      );
      return;
    }
    record.status = await route(method, url, body, authorization.auth, response);
  }

  /** X's 403 for a token of the wrong kind (the webhook endpoints take only the app-only bearer token, the rest only user context). */
  function unsupportedAuthentication(given: string, supported: string) {
    return {
      title: 'Unsupported Authentication',
      detail: `Authenticating with ${given} is forbidden for this endpoint.  Supported authentication types are [${supported}].`,
      type: 'https://api.twitter.com/2/problems/unsupported-authentication',
      status: 403,
    };
  }

  /** `POST /oauth2/token`: client credentials with Basic base64(form-encoded key:secret), as X documents. */
  function appToken(request: IncomingMessage, body: Buffer, response: ServerResponse): number {
    const basic = /^Basic (.+)$/.exec(request.headers.authorization ?? '');
    const decoded = basic ? Buffer.from(basic[1], 'base64').toString('utf8') : '';
    const [key, secret] = decoded.split(':').map((part) => decodeURIComponent(part.replace(/\+/g, ' ')));
    if (key !== options.consumerKey || secret !== options.consumerSecret) {
      return answer(response, 403, {
        errors: [{ code: 99, label: 'authenticity_token_error', message: 'Unable to verify your credentials' }],
      });
    }
    if (new URLSearchParams(body.toString('utf8')).get('grant_type') !== 'client_credentials') {
      return answer(response, 403, {
        errors: [{ code: 170, label: 'forbidden_missing_parameter', message: 'Missing required parameter: grant_type' }],
      });
    }
    return answer(response, 200, { token_type: 'bearer', access_token: appBearerToken });
  }

  /** X's CRC against a URL: GET ?crc_token=…, the answer must be sha256=<base64 HMAC(consumer secret, token)>. */
  async function runCrc(target: string): Promise<{ ok: boolean; status: number; body: string }> {
    const token = randomBytes(24).toString('base64url');
    const crcUrl = new URL(target);
    crcUrl.searchParams.set('crc_token', token);
    let response: Response;
    try {
      response = await fetch(crcUrl);
    } catch {
      return { ok: false, status: 0, body: '' };
    }
    const body = await response.text();
    const expected = `sha256=${createHmac('sha256', options.consumerSecret).update(token).digest('base64')}`;
    let ok = false;
    try {
      ok = response.status === 200 && (JSON.parse(body) as { response_token?: string }).response_token === expected;
    } catch {
      ok = false;
    }
    return { ok, status: response.status, body };
  }

  /** `/2/webhooks`: list, create (after a passing CRC; one webhook per URL), re-validate (PUT), delete. */
  async function webhookRoute(method: string, url: URL, raw: Buffer, response: ServerResponse): Promise<number> {
    const view = (hook: { id: string; url: string; valid: boolean; createdAt: string }) => ({
      id: hook.id,
      url: hook.url,
      valid: hook.valid,
      created_at: hook.createdAt,
    });
    if (method === 'GET' && url.pathname === '/2/webhooks') {
      const data = [...webhooks.values()].map(view);
      return answer(response, 200, { data, meta: { result_count: data.length } });
    }
    if (method === 'POST' && url.pathname === '/2/webhooks') {
      const target = jsonOf(raw)?.url;
      if (typeof target !== 'string' || !URL.canParse(target))
        return answer(response, 400, invalidRequest('The `url` query parameter value is not a valid URL.', 'url'));
      if ([...webhooks.values()].some((hook) => hook.url === target)) {
        return answer(
          response,
          400,
          invalidRequest('DuplicateUrlFailed: a webhook with this URL already exists for the application.', 'url'),
        );
      }
      const crc = await runCrc(target);
      if (!crc.ok)
        return answer(response, 400, invalidRequest(`CrcValidationFailed: the CRC response was not valid (HTTP ${crc.status}).`, 'url'));
      const hook = { id: newId(), url: target, valid: true, createdAt: new Date().toISOString() };
      webhooks.set(hook.id, hook);
      return answer(response, 200, { data: view(hook) });
    }
    const byId = /^\/2\/webhooks\/([^/]+)$/.exec(url.pathname);
    const hook = byId ? webhooks.get(decodeURIComponent(byId[1])) : undefined;
    if (byId && !hook)
      return answer(response, 404, {
        title: 'Not Found Error',
        detail: 'Webhook not found.',
        type: 'https://api.twitter.com/2/problems/resource-not-found',
        status: 404,
      });
    if (method === 'PUT' && hook) {
      hook.valid = (await runCrc(hook.url)).ok;
      return answer(response, 200, { data: { attempted: true } });
    }
    if (method === 'DELETE' && hook) {
      webhooks.delete(hook.id);
      subscriptions.delete(hook.id);
      return answer(response, 200, { data: { deleted: true } });
    }
    return answer(response, 404, {
      title: 'Not Found Error',
      detail: `No route ${method} ${url.pathname}`,
      type: 'about:blank',
      status: 404,
    });
  }

  function jsonOf(body: Buffer): Record<string, unknown> | undefined {
    try {
      const value: unknown = JSON.parse(body.toString('utf8'));
      return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
    } catch {
      return undefined;
    }
  }

  async function route(method: string, url: URL, raw: Buffer, auth: 'oauth1' | 'oauth2', response: ServerResponse): Promise<number> {
    const path = url.pathname;
    if (method === 'GET' && path === '/2/users/me') {
      return answer(response, 200, {
        data: {
          id: options.accountUserId,
          name: options.accountName ?? 'Centralita Support',
          username: options.accountUsername ?? 'centralita',
        },
      });
    }
    const subscription = /^\/2\/account_activity\/webhooks\/([^/]+)\/subscriptions\/all$/.exec(path);
    if (subscription) {
      const hook = webhooks.get(decodeURIComponent(subscription[1]));
      if (!hook)
        return answer(response, 404, {
          title: 'Not Found Error',
          detail: 'Webhook not found.',
          type: 'https://api.twitter.com/2/problems/resource-not-found',
          status: 404,
        });
      if (method === 'GET') return answer(response, 200, { data: { subscribed: subscriptions.has(hook.id) } });
      if (method === 'POST') {
        if (subscriptions.has(hook.id))
          return answer(response, 409, invalidRequest('DuplicateSubscriptionFailed: the user is already subscribed to this webhook.'));
        subscriptions.add(hook.id);
        return answer(response, 200, { data: { subscribed: true } });
      }
    }
    if (method === 'POST' && path === '/1.1/direct_messages/events/new.json') return legacyDm(raw, auth, response);
    const dm = /^\/2\/dm_conversations\/with\/([^/]+)\/messages$/.exec(path);
    if (method === 'POST' && dm) {
      const participantId = decodeURIComponent(dm[1]);
      const body = jsonOf(raw);
      if (!body) return answer(response, 400, invalidRequest('The request body is not valid JSON.'));
      if (!/^\d{1,19}$/.test(participantId))
        return answer(response, 400, invalidRequest(`The participant_id ${participantId} is not valid.`, 'participant_id'));
      if (participantId === options.accountUserId)
        return answer(response, 400, invalidRequest('You cannot send a Direct Message to yourself.'));
      const { text, attachments } = body;
      if (text !== undefined && typeof text !== 'string') return answer(response, 400, invalidRequest('text must be a string.', 'text'));
      if (typeof text === 'string' && [...text].length > 10_000) {
        return answer(response, 400, invalidRequest('The text of the Direct Message is longer than 10000 characters.', 'text'));
      }
      let upload: XUpload | undefined;
      if (attachments !== undefined) {
        if (!Array.isArray(attachments) || attachments.length !== 1) {
          return answer(response, 400, invalidRequest('Exactly one attachment is supported.', 'attachments'));
        }
        const mediaId = (attachments[0] as { media_id?: unknown })?.media_id;
        upload = typeof mediaId === 'string' ? uploads.get(mediaId) : undefined;
        if (!upload || !upload.finalized)
          return answer(response, 400, invalidRequest(`The media_id ${String(mediaId)} is not valid.`, 'attachments'));
        if (!upload.category.startsWith('dm_'))
          return answer(response, 400, invalidRequest('The media was not uploaded for Direct Messages.', 'attachments'));
      }
      if (!text && !upload) return answer(response, 400, invalidRequest('One of text or attachments is required.'));
      if (blockedBy.has(participantId)) {
        return answer(response, 403, {
          detail: 'You are not permitted to send Direct Messages to this user.',
          type: 'about:blank',
          title: 'Forbidden',
          status: 403,
        });
      }
      const dmEventId = newId();
      sent.push({
        dmEventId,
        participantId,
        ...(typeof text === 'string' && text ? { text } : {}),
        ...(upload ? { mediaId: upload.mediaId, media: upload } : {}),
        auth,
        at: new Date(),
      });
      const [low, high] = [options.accountUserId, participantId].sort((a, b) => (BigInt(a) < BigInt(b) ? -1 : 1));
      return answer(response, 201, { data: { dm_conversation_id: `${low}-${high}`, dm_event_id: dmEventId } });
    }
    if (method === 'POST' && path === '/2/media/upload') {
      const body = jsonOf(raw);
      if (!body || typeof body.media !== 'string') return answer(response, 400, invalidRequest('media is required.', 'media'));
      const category = String(body.media_category ?? '');
      if (category !== 'dm_image' && category !== 'tweet_image')
        return answer(response, 400, invalidRequest(`media_category ${category} is not valid here.`, 'media_category'));
      const bytes = Buffer.from(body.media, 'base64');
      if (bytes.length > CATEGORY_LIMITS[category])
        return answer(response, 400, invalidRequest('Image file size must be <= 5242880 bytes.', 'media'));
      const mediaId = newId();
      const mediaType = String(body.media_type ?? 'application/octet-stream');
      uploads.set(mediaId, { mediaId, category, mediaType, bytes, segments: 1, finalized: true });
      return answer(response, 200, {
        data: {
          id: mediaId,
          media_key: `3_${mediaId}`,
          size: bytes.length,
          expires_after_secs: 86400,
          image: { image_type: mediaType, w: 1, h: 1 },
        },
      });
    }
    if (method === 'POST' && path === '/2/media/upload/initialize') {
      const body = jsonOf(raw);
      const category = String(body?.media_category ?? '');
      const totalBytes = Number(body?.total_bytes);
      if (!body || !(category in CATEGORY_LIMITS))
        return answer(response, 400, invalidRequest(`media_category ${category} is not valid.`, 'media_category'));
      if (!Number.isInteger(totalBytes) || totalBytes <= 0)
        return answer(response, 400, invalidRequest('total_bytes is required.', 'total_bytes'));
      if (totalBytes > CATEGORY_LIMITS[category]) {
        return answer(response, 400, invalidRequest(`File size exceeds ${CATEGORY_LIMITS[category]} bytes.`, 'total_bytes'));
      }
      const mediaId = newId();
      uploads.set(mediaId, {
        mediaId,
        category,
        mediaType: String(body.media_type ?? ''),
        bytes: Buffer.alloc(0),
        segments: 0,
        finalized: false,
      });
      expectedBytes.set(mediaId, totalBytes);
      return answer(response, 200, { data: { id: mediaId, media_key: `7_${mediaId}`, expires_after_secs: 86400 } });
    }
    const chunked = /^\/2\/media\/upload\/(\d+)\/(append|finalize)$/.exec(path);
    if (method === 'POST' && chunked) {
      const upload = uploads.get(chunked[1]);
      if (!upload || upload.finalized) return answer(response, 400, invalidRequest('The media_id is not valid.', 'id'));
      if (chunked[2] === 'append') {
        const body = jsonOf(raw);
        if (!body || typeof body.media !== 'string') return answer(response, 400, invalidRequest('media is required.', 'media'));
        if (body.segment_index !== upload.segments)
          return answer(response, 400, invalidRequest('segment_index is out of order.', 'segment_index'));
        const chunk = Buffer.from(body.media, 'base64');
        if (chunk.length > 5 * MB) return answer(response, 400, invalidRequest('A segment must be <= 5 MB.', 'media'));
        upload.bytes = Buffer.concat([upload.bytes, chunk]);
        upload.segments++;
        return answer(response, 200, { data: { expires_at: Math.floor(Date.now() / 1000) + 86400 } });
      }
      if (upload.bytes.length !== expectedBytes.get(upload.mediaId)) {
        return answer(response, 400, invalidRequest('The uploaded bytes do not add up to total_bytes.', 'id'));
      }
      upload.finalized = true;
      return answer(response, 200, {
        data: {
          id: upload.mediaId,
          media_key: `7_${upload.mediaId}`,
          size: upload.bytes.length,
          expires_after_secs: 86400,
          // Videos and GIFs are processed asynchronously: the client polls STATUS.
          processing_info: { state: 'pending', check_after_secs: 0 },
        },
      });
    }
    if (method === 'GET' && path === '/2/media/upload' && url.searchParams.get('command') === 'STATUS') {
      const upload = uploads.get(url.searchParams.get('media_id') ?? '');
      if (!upload) return answer(response, 400, invalidRequest('The media_id is not valid.', 'media_id'));
      return answer(response, 200, {
        data: { id: upload.mediaId, media_key: `7_${upload.mediaId}`, processing_info: { state: 'succeeded', progress_percent: 100 } },
      });
    }
    return answer(response, 404, {
      title: 'Not Found Error',
      detail: `Could not find ${method} ${path}`,
      type: 'https://api.twitter.com/2/problems/resource-not-found',
    });
  }
  const server = createServer((request, response) => {
    handle(request, response).catch((error: Error) => {
      if (!response.headersSent)
        answer(response, 500, { title: 'Internal Error', detail: error.message, type: 'about:blank', status: 500 });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  const signatureOf = (body: string | Buffer) => `sha256=${createHmac('sha256', options.consumerSecret).update(body).digest('base64')}`;

  async function postOnce(body: string, signature: string): Promise<number> {
    if (!webhookUrl) throw new Error('X fake: no webhook URL (setWebhookUrl)');
    try {
      const response = await fetch(webhookUrl, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-twitter-webhooks-signature': signature },
        body,
      });
      await response.arrayBuffer();
      return response.status;
    } catch {
      return 0;
    }
  }

  async function deliverBody(body: string): Promise<XWebhookDelivery> {
    const delivery: XWebhookDelivery = { body, signature: signatureOf(body), statuses: [] };
    deliveries.push(delivery);
    const attempts = 1 + (options.webhookRetries ?? 3);
    for (let attempt = 0; attempt < attempts; attempt++) {
      if (attempt > 0) await new Promise((resolve) => setTimeout(resolve, options.retryDelayMs ?? 20));
      const status = await postOnce(body, delivery.signature);
      delivery.statuses.push(status);
      if (status >= 200 && status < 300) break;
    }
    return delivery;
  }

  const deliver = (payload: unknown) => deliverBody(JSON.stringify(payload));

  const userObject = (id: string, name?: string, screenName?: string) => ({
    id,
    created_timestamp: '1422556069340',
    name: name ?? `User ${id}`,
    screen_name: screenName ?? `user${id}`,
    protected: false,
    verified: false,
    followers_count: 10,
    friends_count: 10,
    statuses_count: 10,
    profile_image_url_https: 'https://pbs.twimg.com/profile_images/default.png',
  });
  const accountUser = () =>
    userObject(options.accountUserId, options.accountName ?? 'Centralita Support', options.accountUsername ?? 'centralita');

  function mediaAttachment(
    dmEventId: string,
    message: CustomerMessage,
  ): { attachment: unknown; shortUrl: string; mediaUrl: string } | undefined {
    const mediaId = newId();
    const shortUrl = `https://t.co/${randomBytes(5).toString('hex')}`;
    const expiresAt = Date.now() + mediaTtlMs;
    if (message.image) {
      const extension = message.image.mimeType.split('/')[1].replace('jpeg', 'jpg');
      const path = `/1.1/ton/data/dm/${dmEventId}/${mediaId}/${randomBytes(6).toString('hex')}.${extension}`;
      media.set(path, { bytes: message.image.bytes, mimeType: message.image.mimeType, expiresAt });
      const mediaUrl = `${url}${path}`;
      return {
        shortUrl,
        mediaUrl,
        attachment: {
          type: 'media',
          media: {
            id: Number(mediaId),
            id_str: mediaId,
            media_url: mediaUrl,
            media_url_https: mediaUrl,
            url: shortUrl,
            display_url: 'pic.x.com/abc',
            type: 'photo',
          },
        },
      };
    }
    if (message.video) {
      const path = `/dm_video/${mediaId}/vid/1280x720/${randomBytes(6).toString('hex')}.mp4`;
      media.set(path, { bytes: message.video.bytes, mimeType: 'video/mp4', expiresAt });
      const mediaUrl = `${url}${path}`;
      const thumbnail = `${url}/dm_video_preview/${mediaId}/img/thumb.jpg`;
      return {
        shortUrl,
        mediaUrl,
        attachment: {
          type: 'media',
          media: {
            id_str: mediaId,
            media_url_https: thumbnail,
            url: shortUrl,
            type: 'video',
            video_info: {
              aspect_ratio: [16, 9],
              duration_millis: 1000,
              variants: [
                { bitrate: 256000, content_type: 'video/mp4', url: `${url}/dm_video/${mediaId}/vid/480x270/low.mp4` },
                { content_type: 'application/x-mpegURL', url: `${url}/dm_video/${mediaId}/pl/playlist.m3u8` },
                { bitrate: 2176000, content_type: 'video/mp4', url: mediaUrl },
              ],
            },
          },
        },
      };
    }
    return undefined;
  }

  /** v1.1's DM send, the one that carries quick replies: OAuth 1.0a user context only, v1.1 error bodies. */
  function legacyDm(raw: Buffer, auth: 'oauth1' | 'oauth2', response: ServerResponse): number {
    const refuse = (status: number, code: number, message: string) => answer(response, status, { errors: [{ code, message }] });
    if (auth !== 'oauth1') return refuse(403, 220, 'Your credentials do not allow access to this resource.');
    const body = jsonOf(raw) as { event?: Record<string, unknown> } | null;
    const event = body?.event as
      { type?: unknown; message_create?: { target?: { recipient_id?: unknown }; message_data?: Record<string, unknown> } } | undefined;
    if (!event || event.type !== 'message_create' || !event.message_create) return refuse(400, 214, 'event.type: invalid value');
    const recipientId = event.message_create.target?.recipient_id;
    if (typeof recipientId !== 'string' || !/^\d{1,19}$/.test(recipientId))
      return refuse(400, 214, 'event.message_create.target.recipient_id: invalid value');
    if (recipientId === options.accountUserId) return refuse(403, 349, 'You cannot send messages to this user.');
    const data = event.message_create.message_data ?? {};
    const text = data.text;
    if (typeof text !== 'string' || !text) return refuse(400, 214, 'event.message_create.message_data.text: a value is required');
    if ([...text].length > 10_000) return refuse(400, 354, 'The text of your direct message is over the max character limit.');
    let quickReplyOptions: XSentDm['quickReplyOptions'];
    if (data.quick_reply !== undefined) {
      const quickReply = data.quick_reply as { type?: unknown; options?: unknown };
      if (quickReply?.type !== 'options') return refuse(400, 214, 'event.message_create.message_data.quick_reply.type: invalid value');
      const list = quickReply.options;
      if (!Array.isArray(list) || list.length < 1 || list.length > 20)
        return refuse(400, 214, 'event.message_create.message_data.quick_reply.options: must have 1 to 20 options');
      const described = list.filter((option) => (option as { description?: unknown })?.description !== undefined).length;
      if (described !== 0 && described !== list.length)
        return refuse(400, 214, 'quick_reply.options: description must be defined on every option or on none');
      quickReplyOptions = [];
      for (const [index, value] of (list as { label?: unknown; description?: unknown; metadata?: unknown }[]).entries()) {
        const where = `event.message_create.message_data.quick_reply.options[${index}]`;
        if (typeof value?.label !== 'string' || !value.label || [...value.label].length > 36)
          return refuse(400, 214, `${where}.label: must be 1 to 36 characters`);
        if (/https?:\/\/|www\./i.test(value.label)) return refuse(400, 214, `${where}.label: URLs are not allowed`);
        if (value.description !== undefined && (typeof value.description !== 'string' || [...value.description].length > 72))
          return refuse(400, 214, `${where}.description: must be at most 72 characters`);
        if (value.metadata !== undefined && (typeof value.metadata !== 'string' || [...value.metadata].length > 1000))
          return refuse(400, 214, `${where}.metadata: must be at most 1000 characters`);
        quickReplyOptions.push({
          label: value.label,
          ...(typeof value.description === 'string' ? { description: value.description } : {}),
          ...(typeof value.metadata === 'string' ? { metadata: value.metadata } : {}),
        });
      }
    }
    if (blockedBy.has(recipientId)) return refuse(403, 349, 'You cannot send messages to this user.');
    const dmEventId = newId();
    const createdTimestamp = String(Date.now());
    sent.push({ dmEventId, participantId: recipientId, text, auth, ...(quickReplyOptions ? { quickReplyOptions } : {}), at: new Date() });
    return answer(response, 200, {
      event: {
        type: 'message_create',
        id: dmEventId,
        created_timestamp: createdTimestamp,
        message_create: { target: { recipient_id: recipientId }, sender_id: options.accountUserId, message_data: data },
      },
    });
  }

  async function customerTaps(senderId: string, dmEventId: string, metadata: string) {
    const dm = sent.find((candidate) => candidate.dmEventId === dmEventId && candidate.participantId === senderId);
    const option = dm?.quickReplyOptions?.find((candidate) => candidate.metadata === metadata);
    if (!option) throw new Error(`X fake: DM ${dmEventId} offered ${senderId} no quick reply option ${metadata}`);
    const id = newId();
    const body = JSON.stringify({
      for_user_id: options.accountUserId,
      direct_message_events: [
        {
          type: 'message_create',
          id,
          created_timestamp: String(Date.now()),
          message_create: {
            target: { recipient_id: options.accountUserId },
            sender_id: senderId,
            source_app_id: '268278',
            // The label is what the customer "said"; the metadata comes back as the response.
            message_data: {
              text: option.label,
              entities: { hashtags: [], symbols: [], user_mentions: [], urls: [] },
              quick_reply_response: { type: 'options', metadata },
            },
          },
        },
      ],
      users: { [options.accountUserId]: accountUser(), [senderId]: userObject(senderId) },
    });
    return { dmEventId: id, delivery: await deliverBody(body) };
  }

  async function customerWrites(messages: CustomerMessage | CustomerMessage[], writeOptions: { duplicates?: number } = {}) {
    const list = Array.isArray(messages) ? messages : [messages];
    const users: Record<string, unknown> = { [options.accountUserId]: accountUser() };
    const dmEventIds: string[] = [];
    const mediaUrls: string[] = [];
    const events = list.map((message) => {
      const id = newId();
      dmEventIds.push(id);
      users[message.senderId] = userObject(message.senderId, message.name, message.screenName);
      const media = mediaAttachment(id, message);
      if (media) mediaUrls.push(media.mediaUrl);
      // X appends the attachment's t.co link to the text.
      const text = [message.text, media?.shortUrl].filter(Boolean).join(' ');
      return {
        type: 'message_create',
        id,
        created_timestamp: String(Date.now()),
        message_create: {
          target: { recipient_id: options.accountUserId },
          sender_id: message.senderId,
          source_app_id: '268278',
          message_data: {
            text,
            entities: { hashtags: [], symbols: [], user_mentions: [], urls: media ? [{ url: media.shortUrl, indices: [0, 0] }] : [] },
            ...(media ? { attachment: media.attachment } : {}),
          },
        },
      };
    });
    const body = JSON.stringify({ for_user_id: options.accountUserId, direct_message_events: events, users });
    const results: XWebhookDelivery[] = [];
    for (let copy = 0; copy <= (writeOptions.duplicates ?? 0); copy++) results.push(await deliverBody(body));
    return { dmEventIds, mediaUrls, deliveries: results };
  }

  const typingOrRead = (key: string, senderId: string, extra: Record<string, string> = {}) =>
    deliver({
      for_user_id: options.accountUserId,
      [key]: [{ created_timestamp: String(Date.now()), sender_id: senderId, target: { recipient_id: options.accountUserId }, ...extra }],
      users: { [senderId]: userObject(senderId), [options.accountUserId]: accountUser() },
    });

  const blockEvent = (type: 'block' | 'unblock', senderId: string) =>
    deliver({
      for_user_id: options.accountUserId,
      [`${type}_events`]: [{ type, created_timestamp: String(Date.now()), source: userObject(senderId), target: accountUser() }],
    });

  const fake: XFake = {
    url,
    sent,
    uploads,
    requests,
    deliveries,
    setWebhookUrl(next) {
      webhookUrl = next;
    },
    async crcCheck() {
      if (!webhookUrl) throw new Error('X fake: no webhook URL (setWebhookUrl)');
      return runCrc(webhookUrl);
    },
    webhooks,
    subscriptions,
    customerWrites,
    customerTaps,
    customerTypes: (senderId) => typingOrRead('direct_message_indicate_typing_events', senderId),
    customerReads: (senderId, lastReadEventId) =>
      typingOrRead('direct_message_mark_read_events', senderId, { last_read_event_id: lastReadEventId }),
    async customerBlocks(senderId) {
      blockedBy.add(senderId);
      return blockEvent('block', senderId);
    },
    async customerUnblocks(senderId) {
      blockedBy.delete(senderId);
      return blockEvent('unblock', senderId);
    },
    revokeAccess: () =>
      deliver({
        user_event: {
          revoke: { date_time: new Date().toISOString(), target: { app_id: '13090192' }, source: { user_id: options.accountUserId } },
        },
      }),
    async pushReceipts(dmEventIds, receiptOptions = {}) {
      const chosen = (dmEventIds ?? sent.map((dm) => dm.dmEventId)).map((id) => {
        const dm = sent.find((candidate) => candidate.dmEventId === id);
        if (!dm) throw new Error(`X fake: no sent DM ${id}`);
        return dm;
      });
      if (receiptOptions.shuffle) {
        for (let i = chosen.length - 1; i > 0; i--) {
          const j = Math.floor(Math.random() * (i + 1));
          [chosen[i], chosen[j]] = [chosen[j], chosen[i]];
        }
      }
      const results: XWebhookDelivery[] = [];
      for (const dm of chosen) {
        results.push(await typingOrRead('direct_message_mark_read_events', dm.participantId, { last_read_event_id: dm.dmEventId }));
      }
      return results;
    },
    deliver,
    signatureOf,
    failNext(count, failure, failOptions = {}) {
      for (let i = 0; i < count; i++) failures.push({ failure, resetInSeconds: failOptions.resetInSeconds ?? 60 });
    },
    expireMedia() {
      mediaExpired = true;
    },
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close((error) => (error ? reject(error) : resolve()));
      }),
  };
  return fake;
}
