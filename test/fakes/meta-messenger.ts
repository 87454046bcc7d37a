/**
 * A local fake of Meta's Messenger Platform for Facebook Messenger AND Instagram messaging: the
 * Graph API paths the messenger adapter calls, the customers who write, and the webhooks Meta
 * pushes. One loopback server (port 0) serves every account given to it.
 *
 *   const meta = await startMetaMessengerFake({ appSecret, accounts: [
 *     { kind: 'facebook', accountId: '1001', pageId: '1001', accessToken: 'page-token', name: 'Acme' },
 *     { kind: 'instagram', accountId: '1789', pageId: '1002', accessToken: 'ig-page-token', name: 'Acme IG', username: 'acme' },
 *   ]});
 *   // point the adapter at it: { metaGraphUrl: meta.url, metaGraphVersion: meta.graphVersion }
 *   meta.setWebhookUrl('1001', 'http://127.0.0.1:4000/api/channels/facebook/<accountId>/webhook');
 *   const { mids } = await meta.customerWrites('1001', [{ from: '2001', text: 'Hola ñandú' }]);
 *   ... the platform replies ...
 *   meta.sent                                   // every accepted Send API call, typed
 *   await meta.pushReceipts('1001', [{ messageId: meta.sent[0].messageId!, status: 'read' }]);
 *
 * What it checks, answering Meta's own error bodies (`{error: {message, type, code,
 * error_subcode, fbtrace_id}}`) when a request is wrong:
 * - the Graph version in the path, the token (Authorization: Bearer or access_token), and that the
 *   node is `me` or the token's Page (code 190 / 100);
 * - Send API: recipient.id a customer who wrote to that account (100/2018001), messaging_type and
 *   tag, the reply window (24 h; 7 days with HUMAN_AGENT: code 10 subcode 2018278), exactly one of
 *   text / attachment / sender_action, the text limit (2,000 Messenger, 1,000 Instagram), an
 *   attachment_id uploaded by the same Page;
 * - Attachment Upload API: multipart `message` ({attachment: {type, payload: {is_reusable: true}}})
 *   and `filedata`, `platform=instagram` for Instagram, size and format limits.
 * Graph reads: `me?fields=id,name`, `<ig-id>?fields=id,username,name`, `<psid>?fields=…` (profiles).
 *
 * Webhooks are JSON with every non-ASCII character escaped as \uXXXX (lower-case hex), signed
 * `X-Hub-Signature-256: sha256=<hex HMAC-SHA256(appSecret, body)>` (and the legacy sha1
 * X-Hub-Signature), POSTed to the account's webhook URL and retried on non-2xx like Meta
 * (`webhookRetries` times, backoff from `retryDelayMs`). Media URLs in them are served by the fake
 * and expire (`mediaTtlMs`, or `expireMedia()` at once): Meta's CDN then answers 403.
 *
 * Misbehaviour on demand: `failNext(n, kind)` (rate limit with X-Business-Use-Case-Usage, 5xx,
 * invalid token, person unavailable), `customerWrites(…, { times, urls })` duplicates a delivery
 * (several times, to several URLs at once), `pushReceipts(…, { shuffle: true })` sends receipts out
 * of order (read before delivered), `deliverRaw` posts any body with any signature.
 * Messenger reports no failed sends by webhook: a refused send fails synchronously.
 */
import { createHash, createHmac, randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export type MetaFakeKind = 'facebook' | 'instagram';

export interface MetaFakeAccount {
  kind: MetaFakeKind;
  /** Webhook entry.id and the adapter's externalAccountId: the Page id (facebook) or the Instagram account id. */
  accountId: string;
  /** The Page whose token sends: the same as accountId for facebook, the linked Page for instagram. */
  pageId: string;
  accessToken: string;
  name: string;
  /** Instagram's @username. */
  username?: string;
  webhookUrl?: string;
}

export interface MetaFakeOptions {
  appSecret: string;
  accounts: MetaFakeAccount[];
  graphVersion?: string;
  /** How long a media URL in a webhook works (Meta's CDN URLs expire); default 5 minutes. */
  mediaTtlMs?: number;
  /** Re-deliveries after a non-2xx answer (Meta keeps retrying for hours); default 3. */
  webhookRetries?: number;
  /** First retry delay, doubled each time; default 20 ms. */
  retryDelayMs?: number;
  /** The fake's clock (reply windows, timestamps, media expiry); default Date.now. */
  now?: () => number;
}

export interface CustomerProfile {
  /** The page-scoped (PSID) or Instagram-scoped (IGSID) id. */
  id: string;
  firstName?: string;
  lastName?: string;
  /** Instagram's name and username. */
  name?: string;
  username?: string;
}

export interface CustomerMedia {
  type: 'image' | 'audio' | 'video' | 'file';
  bytes: Buffer;
  mimeType: string;
  fileName?: string;
}

export interface CustomerMessage {
  from: string;
  text?: string;
  /** A tapped quick reply: `text` is its title, this its payload (message.quick_reply.payload). */
  quickReplyPayload?: string;
  media?: CustomerMedia[];
  /** Epoch ms; default the fake's clock. */
  timestamp?: number;
}

/** An accepted Send API call (a message or a sender action). */
export interface RecordedSend {
  accountId: string;
  kind: MetaFakeKind;
  /** The node in the path: `me` or the Page id. */
  node: string;
  recipientId: string;
  messagingType?: string;
  tag?: string;
  text?: string;
  attachment?: { type: string; attachmentId?: string; url?: string };
  /** message.quick_replies as checked (content_type text: title ≤ 20, payload ≤ 1000; at most 13). */
  quickReplies?: { title: string; payload: string }[];
  senderAction?: string;
  /** The mid answered (messages only). */
  messageId?: string;
  at: number;
}

export interface RecordedUpload {
  accountId: string;
  type: string;
  isReusable: boolean;
  platform?: string;
  fileName: string;
  mimeType: string;
  bytes: Buffer;
  attachmentId: string;
}

/** Every Graph API request, including refused ones. */
export interface RecordedRequest {
  method: string;
  path: string;
  status: number;
  errorCode?: number;
}

/** One webhook POST attempt and the platform's answer (0 when unreachable). */
export interface WebhookAttempt {
  accountId: string;
  url: string;
  attempt: number;
  status: number;
  body: string;
}

export type FakeFailure = 'rate-limit' | 'server-error' | 'invalid-token' | 'unavailable';

export type FakeReceipt =
  | { messageId: string; status: 'delivered' | 'read' }
  /** Raw Messenger shapes: delivery by mids and/or watermark, read by watermark (Messenger) or mid (Instagram). */
  | { to: string; delivery: { mids?: string[]; watermark: number } }
  | { to: string; read: { watermark?: number; mid?: string } };

export interface DeliveryOptions {
  /** Deliver the same body this many times to each URL (duplicates); default 1. */
  times?: number;
  /** Deliver to these URLs (concurrently) instead of the account's webhook URL. */
  urls?: string[];
}

export interface MetaMessengerFake {
  url: string;
  graphVersion: string;
  sent: RecordedSend[];
  uploads: RecordedUpload[];
  requests: RecordedRequest[];
  webhooks: WebhookAttempt[];
  setWebhookUrl(accountId: string, url: string): void;
  /** Registers a customer's profile (customerWrites registers unknown senders without a name). */
  customer(accountId: string, profile: CustomerProfile): void;
  /** Builds the webhook body Meta sends for these messages (one entry per message) without sending it. */
  customerPayload(accountId: string, messages: CustomerMessage[]): { body: string; signature: string; mids: string[] };
  /** The customer writes: one signed webhook POST carrying every message (a batch when several). */
  customerWrites(
    accountId: string,
    messages: CustomerMessage[],
    options?: DeliveryOptions,
  ): Promise<{ mids: string[]; statuses: number[] }>;
  /**
   * The customer taps the quick reply with `payload` under the message `mid` the platform sent: a
   * text message whose text is the button's title and whose quick_reply.payload is the payload.
   * Throws when that message offered no such quick reply.
   */
  customerTaps(accountId: string, mid: string, payload: string, options?: DeliveryOptions): Promise<{ mids: string[]; statuses: number[] }>;
  /** Pushes receipts as Meta does, one webhook each, in order or shuffled; answers the final statuses. */
  pushReceipts(accountId: string, receipts: FakeReceipt[], options?: { shuffle?: boolean }): Promise<number[]>;
  /** Posts any body (object → Meta JSON) with Meta's signature, another signature, or none (null). */
  deliverRaw(accountId: string, body: unknown, options?: DeliveryOptions & { signature?: string | null }): Promise<number[]>;
  /** The next `times` Graph calls fail this way. */
  failNext(times: number, failure: FakeFailure, options?: { regainMinutes?: number }): void;
  /** Sets when a customer last wrote (reply windows are counted from it). */
  setLastCustomerMessageAt(accountId: string, customerId: string, at: number): void;
  /** Every media URL handed out so far expires now. */
  expireMedia(): void;
  close(): Promise<void>;
}

const MB = 1024 * 1024;
const WINDOW_MS = 24 * 3600_000;
const HUMAN_AGENT_WINDOW_MS = 7 * 24 * 3600_000;
const UPLOAD_LIMITS: Record<string, { maxBytes: number; mimeTypes: RegExp }> = {
  image: { maxBytes: 8 * MB, mimeTypes: /^image\/(jpeg|png|gif)$/ },
  audio: { maxBytes: 25 * MB, mimeTypes: /^audio\// },
  video: { maxBytes: 25 * MB, mimeTypes: /^video\// },
  file: { maxBytes: 25 * MB, mimeTypes: /^(application|text)\// },
};
const MAX_REQUEST_BYTES = 30 * MB;

/** Meta's webhook JSON: every non-ASCII UTF-16 unit escaped as \uXXXX, lower-case hex. */
export function metaWebhookJson(value: unknown): string {
  return JSON.stringify(value).replace(/[\u0080-\uffff]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

export function metaWebhookSignature(appSecret: string, body: string): string {
  return `sha256=${createHmac('sha256', appSecret).update(body).digest('hex')}`;
}

class GraphError extends Error {
  constructor(
    readonly status: number,
    readonly code: number,
    message: string,
    readonly subcode?: number,
    readonly extra: { type?: string; isTransient?: boolean; headers?: Record<string, string> } = {},
  ) {
    super(message);
  }
}

/**
 * message.quick_replies as the Send API checks them: 1-13, content_type text (a title of 1-20
 * characters and a payload of 1-1000) or user_phone_number / user_email (neither); text titles unique.
 */
function checkQuickReplies(value: unknown): { title: string; payload: string }[] {
  if (!Array.isArray(value) || value.length === 0)
    throw new GraphError(400, 100, '(#100) param message[quick_replies] must be a non-empty array');
  if (value.length > 13) throw new GraphError(400, 100, '(#100) param message[quick_replies] must have at most 13 elements');
  const replies: { title: string; payload: string }[] = [];
  for (const [index, item] of (value as { content_type?: unknown; title?: unknown; payload?: unknown }[]).entries()) {
    const where = `message[quick_replies][${index}]`;
    if (item?.content_type === 'user_phone_number' || item?.content_type === 'user_email') continue;
    if (item?.content_type !== 'text')
      throw new GraphError(400, 100, `(#100) param ${where}[content_type] must be one of {text, user_phone_number, user_email}`);
    if (typeof item.title !== 'string' || !item.title)
      throw new GraphError(400, 100, `(#100) param ${where}[title] is required for a text quick reply`);
    if ([...item.title].length > 20) throw new GraphError(400, 100, `(#100) param ${where}[title] must be at most 20 characters`);
    const payload = typeof item.payload === 'number' ? String(item.payload) : item.payload;
    if (typeof payload !== 'string' || !payload)
      throw new GraphError(400, 100, `(#100) param ${where}[payload] is required for a text quick reply`);
    if ([...payload].length > 1000) throw new GraphError(400, 100, `(#100) param ${where}[payload] must be at most 1000 characters`);
    replies.push({ title: item.title, payload });
  }
  if (new Set(replies.map((reply) => reply.title)).size !== replies.length)
    throw new GraphError(400, 100, '(#100) quick reply titles must be unique');
  return replies;
}

export async function startMetaMessengerFake(options: MetaFakeOptions): Promise<MetaMessengerFake> {
  const graphVersion = options.graphVersion ?? 'v23.0';
  const now = options.now ?? Date.now;
  const mediaTtlMs = options.mediaTtlMs ?? 5 * 60_000;
  const webhookRetries = options.webhookRetries ?? 3;
  const retryDelayMs = options.retryDelayMs ?? 20;
  const accounts = new Map(options.accounts.map((account) => [account.accountId, { ...account }]));
  const profiles = new Map<string, CustomerProfile>(); // `${accountId}/${customerId}`
  const lastCustomerAt = new Map<string, number>(); // `${accountId}/${customerId}`
  const attachments = new Map<string, string>(); // attachment id → accountId
  const media = new Map<string, { bytes: Buffer; mimeType: string; fileName?: string; expiresAt: number }>();
  const failures: Array<{ failure: FakeFailure; regainMinutes: number }> = [];
  const sent: RecordedSend[] = [];
  const uploads: RecordedUpload[] = [];
  const requests: RecordedRequest[] = [];
  const webhooks: WebhookAttempt[] = [];
  let sequence = 0;

  const server: Server = createServer((request, response) => {
    handle(request, response).catch((error: unknown) => {
      if (!response.headersSent) response.writeHead(500, { 'content-type': 'text/plain' });
      response.end(String(error));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  async function handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const requestUrl = new URL(request.url ?? '/', url);
    if (request.method === 'GET' && requestUrl.pathname.startsWith('/cdn/')) return serveMedia(requestUrl, response);
    const raw = await readBody(request);
    try {
      const answer = await graph(request, requestUrl, raw);
      requests.push({ method: request.method ?? '', path: requestUrl.pathname, status: 200 });
      respondJson(response, 200, answer);
    } catch (error) {
      if (!(error instanceof GraphError)) throw error;
      requests.push({ method: request.method ?? '', path: requestUrl.pathname, status: error.status, errorCode: error.code });
      respondJson(
        response,
        error.status,
        {
          error: {
            message: error.message,
            type: error.extra.type ?? 'OAuthException',
            code: error.code,
            ...(error.subcode !== undefined ? { error_subcode: error.subcode } : {}),
            ...(error.extra.isTransient ? { is_transient: true } : {}),
            fbtrace_id: randomBytes(8).toString('base64url'),
          },
        },
        error.extra.headers,
      );
    }
  }

  function serveMedia(requestUrl: URL, response: ServerResponse): void {
    const item = media.get(requestUrl.pathname.slice('/cdn/'.length).split('/')[0]);
    const signature = requestUrl.searchParams.get('oh');
    if (!item || !signature || item.expiresAt <= now()) {
      response.writeHead(403, { 'content-type': 'text/plain' });
      response.end('URL signature expired');
      return;
    }
    response.writeHead(200, { 'content-type': item.mimeType, 'content-length': String(item.bytes.length) });
    response.end(item.bytes);
  }

  async function graph(request: IncomingMessage, requestUrl: URL, raw: Buffer): Promise<unknown> {
    const segments = requestUrl.pathname.split('/').filter(Boolean);
    if (segments[0] !== graphVersion)
      throw new GraphError(400, 100, `Unknown path components: /${segments[0] ?? ''} (this fake serves ${graphVersion})`);
    const token = tokenOf(request, requestUrl);
    if (!token) throw new GraphError(400, 104, 'An access token is required to request this resource.');
    const account = [...accounts.values()].find((candidate) => candidate.accessToken === token);
    if (!account) throw new GraphError(400, 190, 'Invalid OAuth access token - Cannot parse access token');
    const failure = failures.shift();
    if (failure) throw failureError(failure.failure, failure.regainMinutes, account);

    const [node, edge, ...rest] = segments.slice(1);
    if (!node || rest.length) throw new GraphError(400, 100, 'Unknown path components');
    if (request.method === 'GET' && !edge) return read(account, node, requestUrl.searchParams.get('fields') ?? '');
    if (request.method !== 'POST' || (edge !== 'messages' && edge !== 'message_attachments')) {
      throw new GraphError(400, 100, `Unsupported ${request.method} request.`, 33);
    }
    if (node !== 'me' && node !== account.pageId) {
      throw new GraphError(400, 100, `(#100) The access token does not belong to the Page ${node}`, 33);
    }
    if (edge === 'message_attachments') return upload(account, request, raw);
    return sendMessage(account, node, request, raw);
  }

  function read(account: MetaFakeAccount, node: string, fields: string): unknown {
    if (node === 'me' || node === account.pageId)
      return { id: account.pageId, name: account.kind === 'facebook' ? account.name : `${account.name} (Page)` };
    if (account.kind === 'instagram' && node === account.accountId) {
      return { id: account.accountId, username: account.username ?? account.name, name: account.name };
    }
    const profile = profiles.get(`${account.accountId}/${node}`);
    if (!profile)
      throw new GraphError(
        400,
        100,
        `Unsupported get request. Object with ID '${node}' does not exist, cannot be loaded due to missing permissions, or does not support this operation.`,
        33,
      );
    const wanted = new Set(fields.split(',').map((field) => field.trim()));
    const answer: Record<string, string> = { id: profile.id };
    const values: Record<string, string | undefined> =
      account.kind === 'facebook'
        ? { first_name: profile.firstName, last_name: profile.lastName }
        : { name: profile.name, username: profile.username };
    for (const [field, value] of Object.entries(values)) if (wanted.has(field) && value !== undefined) answer[field] = value;
    return answer;
  }

  async function upload(account: MetaFakeAccount, request: IncomingMessage, raw: Buffer): Promise<unknown> {
    const contentType = request.headers['content-type'] ?? '';
    if (!contentType.startsWith('multipart/form-data'))
      throw new GraphError(400, 100, '(#100) Upload attachment failure: expected multipart/form-data with filedata');
    let form: FormData;
    try {
      form = await new Response(new Uint8Array(raw), { headers: { 'content-type': contentType } }).formData();
    } catch {
      throw new GraphError(400, 100, '(#100) Upload attachment failure: unreadable multipart body');
    }
    const platform = form.get('platform');
    if (account.kind === 'instagram' && platform !== 'instagram')
      throw new GraphError(400, 100, '(#100) platform must be instagram for an Instagram upload');
    let message: { attachment?: { type?: string; payload?: { is_reusable?: boolean; url?: string } } };
    try {
      message = JSON.parse(String(form.get('message') ?? ''));
    } catch {
      throw new GraphError(400, 100, '(#100) param message must be JSON');
    }
    const type = message.attachment?.type ?? '';
    const limits = UPLOAD_LIMITS[type];
    if (!limits) throw new GraphError(400, 100, `(#100) param message[attachment][type] must be one of {image, audio, video, file}`);
    const file = form.get('filedata');
    if (!(file instanceof Blob)) throw new GraphError(400, 100, '(#100) Upload attachment failure: filedata is missing');
    const bytes = Buffer.from(await file.arrayBuffer());
    if (!limits.mimeTypes.test(file.type))
      throw new GraphError(
        400,
        100,
        `(#100) Upload attachment failure: ${file.type || 'no type'} is not a supported ${type} format`,
        2018047,
      );
    if (bytes.length > limits.maxBytes)
      throw new GraphError(400, 100, `(#100) Upload attachment failure: the ${type} is larger than ${limits.maxBytes} bytes`, 2018047);
    const attachmentId = String(7_000_000_000 + ++sequence);
    attachments.set(attachmentId, account.accountId);
    uploads.push({
      accountId: account.accountId,
      type,
      isReusable: message.attachment?.payload?.is_reusable === true,
      ...(typeof platform === 'string' ? { platform } : {}),
      fileName: file instanceof File ? file.name : '',
      mimeType: file.type,
      bytes,
      attachmentId,
    });
    return { attachment_id: attachmentId };
  }

  function sendMessage(account: MetaFakeAccount, node: string, request: IncomingMessage, raw: Buffer): unknown {
    if (!String(request.headers['content-type'] ?? '').startsWith('application/json'))
      throw new GraphError(400, 100, '(#100) Expected a JSON body');
    let body: Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any -- hostile input, checked field by field below
    try {
      body = JSON.parse(raw.toString('utf8'));
    } catch {
      throw new GraphError(400, 100, '(#100) The request body is not JSON');
    }
    const recipientId = body?.recipient?.id;
    if (typeof recipientId !== 'string' || !recipientId) throw new GraphError(400, 100, '(#100) The parameter recipient is required');
    const last = lastCustomerAt.get(`${account.accountId}/${recipientId}`);
    if (last === undefined) throw new GraphError(400, 100, '(#100) No matching user found', 2018001);
    const record: RecordedSend = { accountId: account.accountId, kind: account.kind, node, recipientId, at: now() };

    if (body.sender_action !== undefined) {
      if (body.message !== undefined) throw new GraphError(400, 100, '(#100) sender_action cannot be sent with message');
      if (!['mark_seen', 'typing_on', 'typing_off'].includes(body.sender_action))
        throw new GraphError(400, 100, '(#100) param sender_action is invalid');
      sent.push({ ...record, senderAction: body.sender_action });
      return { recipient_id: recipientId };
    }

    const messagingType = body.messaging_type;
    if (!['RESPONSE', 'UPDATE', 'MESSAGE_TAG'].includes(messagingType))
      throw new GraphError(400, 100, '(#100) param messaging_type must be one of {RESPONSE, UPDATE, MESSAGE_TAG}');
    if (messagingType === 'MESSAGE_TAG' && body.tag !== 'HUMAN_AGENT')
      throw new GraphError(400, 100, '(#100) param tag must be HUMAN_AGENT for a MESSAGE_TAG message');
    const window = messagingType === 'MESSAGE_TAG' ? HUMAN_AGENT_WINDOW_MS : WINDOW_MS;
    if (now() - last > window) throw new GraphError(400, 10, '(#10) This message is sent outside of allowed window.', 2018278);

    const message = body.message;
    if (!message || typeof message !== 'object') throw new GraphError(400, 100, '(#100) param message must be an object');
    const hasText = message.text !== undefined;
    const hasAttachment = message.attachment !== undefined;
    if (hasText === hasAttachment) throw new GraphError(400, 100, '(#100) Exactly one of message[text] or message[attachment] is required');
    if (hasText) {
      const limit = account.kind === 'facebook' ? 2000 : 1000;
      if (typeof message.text !== 'string' || !message.text)
        throw new GraphError(400, 100, '(#100) param message[text] must be a non-empty UTF-8 encoded string');
      if ([...message.text].length > limit)
        throw new GraphError(400, 100, `(#100) Length of param message[text] must be less than or equal to ${limit}`);
      record.text = message.text;
    } else {
      if (message.quick_replies !== undefined) throw new GraphError(400, 100, '(#100) quick_replies are only sent here with text');
      const { type, payload } = message.attachment ?? {};
      if (!UPLOAD_LIMITS[type])
        throw new GraphError(400, 100, '(#100) param message[attachment][type] must be one of {image, audio, video, file}');
      if (typeof payload?.attachment_id === 'string') {
        if (attachments.get(payload.attachment_id) !== account.accountId)
          throw new GraphError(400, 100, '(#100) Invalid attachment_id', 2018074);
        record.attachment = { type, attachmentId: payload.attachment_id };
      } else if (typeof payload?.url === 'string') {
        record.attachment = { type, url: payload.url };
      } else {
        throw new GraphError(400, 100, '(#100) message[attachment][payload] needs attachment_id or url');
      }
    }
    if (hasText && message.quick_replies !== undefined) record.quickReplies = checkQuickReplies(message.quick_replies);
    record.messagingType = messagingType;
    if (body.tag) record.tag = body.tag;
    record.messageId = `m_${randomBytes(18).toString('base64url')}`;
    sent.push(record);
    return { recipient_id: recipientId, message_id: record.messageId };
  }

  function failureError(failure: FakeFailure, regainMinutes: number, account: MetaFakeAccount): GraphError {
    switch (failure) {
      case 'rate-limit': {
        const code = account.kind === 'facebook' ? 80006 : 80002;
        const usage = {
          [account.pageId]: [
            {
              type: account.kind === 'facebook' ? 'messenger' : 'instagram',
              call_count: 100,
              total_cputime: 30,
              total_time: 40,
              estimated_time_to_regain_access: regainMinutes,
            },
          ],
        };
        return new GraphError(
          400,
          code,
          `(#${code}) There have been too many messaging requests to this ${account.kind === 'facebook' ? 'Page' : 'Instagram account'}.`,
          2446079,
          {
            headers: { 'x-business-use-case-usage': JSON.stringify(usage) },
          },
        );
      }
      case 'server-error':
        return new GraphError(500, 2, 'An unexpected error has occurred. Please retry your request later.', undefined, {
          isTransient: true,
        });
      case 'invalid-token':
        return new GraphError(400, 190, 'Error validating access token: Session has expired.', 463);
      case 'unavailable':
        return new GraphError(400, 551, "(#551) This person isn't available right now.", 1545041);
    }
  }

  function mediaUrl(item: CustomerMedia): string {
    const id = randomBytes(12).toString('hex');
    const expiresAt = now() + mediaTtlMs;
    media.set(id, { ...item, expiresAt });
    const name = item.fileName ? `/${encodeURIComponent(item.fileName)}` : '';
    return `${url}/cdn/${id}${name}?oe=${Math.floor(expiresAt / 1000).toString(16)}&oh=${createHash('sha256').update(id).digest('hex').slice(0, 16)}`;
  }

  function accountOf(accountId: string): MetaFakeAccount & { webhookUrl?: string } {
    const account = accounts.get(accountId);
    if (!account) throw new Error(`the Meta fake has no account ${accountId}`);
    return account;
  }

  function envelope(account: MetaFakeAccount, messaging: unknown[][]): unknown {
    return {
      object: account.kind === 'facebook' ? 'page' : 'instagram',
      entry: messaging.map((items) => ({ id: account.accountId, time: now(), messaging: items })),
    };
  }

  function customerPayload(accountId: string, messages: CustomerMessage[]): { body: string; signature: string; mids: string[] } {
    const account = accountOf(accountId);
    const mids: string[] = [];
    const items = messages.map((message) => {
      const timestamp = message.timestamp ?? now();
      const key = `${accountId}/${message.from}`;
      if (!profiles.has(key)) profiles.set(key, { id: message.from });
      lastCustomerAt.set(key, Math.max(lastCustomerAt.get(key) ?? 0, timestamp));
      const mid =
        account.kind === 'facebook' ? `m_${randomBytes(18).toString('base64url')}` : `aWdfZAG1f${randomBytes(24).toString('base64url')}`;
      mids.push(mid);
      const attachments = (message.media ?? []).map((item) => ({ type: item.type, payload: { url: mediaUrl(item) } }));
      return [
        {
          sender: { id: message.from },
          recipient: { id: account.accountId },
          timestamp,
          message: {
            mid,
            ...(message.text !== undefined ? { text: message.text } : {}),
            ...(message.quickReplyPayload !== undefined ? { quick_reply: { payload: message.quickReplyPayload } } : {}),
            ...(attachments.length ? { attachments } : {}),
          },
        },
      ];
    });
    const body = metaWebhookJson(envelope(account, items));
    return { body, signature: metaWebhookSignature(options.appSecret, body), mids };
  }

  /** POSTs one body like Meta: signed, retried with backoff on non-2xx; answers the final status (0: unreachable). */
  async function post(accountId: string, target: string, body: string, signature: string | null): Promise<number> {
    const headers: Record<string, string> = { 'content-type': 'application/json', 'user-agent': 'facebookexternalua' };
    if (signature !== null) {
      headers['x-hub-signature-256'] = signature;
      headers['x-hub-signature'] = `sha1=${createHmac('sha1', options.appSecret).update(body).digest('hex')}`;
    }
    let status = 0;
    for (let attempt = 1; attempt <= webhookRetries + 1; attempt++) {
      try {
        const response = await fetch(target, { method: 'POST', headers, body });
        await response.arrayBuffer();
        status = response.status;
      } catch {
        status = 0;
      }
      webhooks.push({ accountId, url: target, attempt, status, body });
      if (status >= 200 && status < 300) return status;
      if (attempt <= webhookRetries) await new Promise((resolve) => setTimeout(resolve, retryDelayMs * 2 ** (attempt - 1)));
    }
    return status;
  }

  async function deliver(accountId: string, body: string, signature: string | null, delivery: DeliveryOptions = {}): Promise<number[]> {
    const account = accountOf(accountId);
    const targets = delivery.urls ?? (account.webhookUrl ? [account.webhookUrl] : []);
    if (!targets.length) throw new Error(`no webhook URL for the Meta fake's account ${accountId}: call setWebhookUrl`);
    const times = delivery.times ?? 1;
    const posts = targets.flatMap((target) => Array.from({ length: times }, () => post(accountId, target, body, signature)));
    return Promise.all(posts);
  }

  function receiptItems(account: MetaFakeAccount, receipt: FakeReceipt): unknown {
    if ('messageId' in receipt) {
      const message = sent.find((record) => record.messageId === receipt.messageId && record.accountId === account.accountId);
      if (!message) throw new Error(`the Meta fake never sent ${receipt.messageId} from ${account.accountId}`);
      const base = { sender: { id: message.recipientId }, recipient: { id: account.accountId } };
      if (receipt.status === 'delivered') {
        if (account.kind === 'instagram') throw new Error('Instagram sends no delivery receipts (only messaging_seen)');
        return { ...base, delivery: { mids: [message.messageId], watermark: message.at } };
      }
      // Messenger reads by watermark (every message up to it), Instagram's messaging_seen by mid.
      return account.kind === 'facebook'
        ? { ...base, timestamp: now(), read: { watermark: message.at } }
        : { ...base, timestamp: now(), read: { mid: message.messageId } };
    }
    const base = { sender: { id: receipt.to }, recipient: { id: account.accountId } };
    return 'delivery' in receipt ? { ...base, delivery: receipt.delivery } : { ...base, timestamp: now(), read: receipt.read };
  }

  return {
    url,
    graphVersion,
    sent,
    uploads,
    requests,
    webhooks,
    setWebhookUrl(accountId, webhookUrl) {
      accountOf(accountId).webhookUrl = webhookUrl;
    },
    customer(accountId, profile) {
      accountOf(accountId);
      profiles.set(`${accountId}/${profile.id}`, profile);
    },
    customerPayload,
    async customerTaps(accountId, mid, payload, delivery) {
      const offered = sent.find((one) => one.accountId === accountId && one.messageId === mid);
      const chosen = offered?.quickReplies?.find((reply) => reply.payload === payload);
      if (!offered || !chosen) throw new Error(`meta fake: message ${mid} offered no quick reply ${payload}`);
      const tap = customerPayload(accountId, [{ from: offered.recipientId, text: chosen.title, quickReplyPayload: payload }]);
      return { mids: tap.mids, statuses: await deliver(accountId, tap.body, tap.signature, delivery) };
    },

    async customerWrites(accountId, messages, delivery) {
      const { body, signature, mids } = customerPayload(accountId, messages);
      return { mids, statuses: await deliver(accountId, body, signature, delivery) };
    },
    async pushReceipts(accountId, receipts, { shuffle = false } = {}) {
      const account = accountOf(accountId);
      const bodies = receipts.map((receipt) => metaWebhookJson(envelope(account, [[receiptItems(account, receipt)]])));
      if (shuffle) {
        // Reverse, then swap at random: "shuffled" must never come out in the original order.
        bodies.reverse();
        for (let i = bodies.length - 1; i > 1; i--) {
          const j = 1 + Math.floor(Math.random() * i);
          [bodies[i], bodies[j]] = [bodies[j], bodies[i]];
        }
      }
      const statuses: number[] = [];
      for (const body of bodies) statuses.push(...(await deliver(accountId, body, metaWebhookSignature(options.appSecret, body))));
      return statuses;
    },
    async deliverRaw(accountId, body, { signature, ...delivery } = {}) {
      const text = typeof body === 'string' ? body : metaWebhookJson(body);
      return deliver(accountId, text, signature === undefined ? metaWebhookSignature(options.appSecret, text) : signature, delivery);
    },
    failNext(times, failure, { regainMinutes = 1 } = {}) {
      for (let i = 0; i < times; i++) failures.push({ failure, regainMinutes });
    },
    setLastCustomerMessageAt(accountId, customerId, at) {
      const key = `${accountId}/${customerId}`;
      if (!profiles.has(key)) profiles.set(key, { id: customerId });
      lastCustomerAt.set(key, at);
    },
    expireMedia() {
      for (const item of media.values()) item.expiresAt = 0;
    },
    close() {
      return new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close((error) => (error ? reject(error) : resolve()));
      });
    },
  };
}

function tokenOf(request: IncomingMessage, requestUrl: URL): string | undefined {
  const header = request.headers.authorization;
  if (header?.startsWith('Bearer ')) return header.slice('Bearer '.length).trim();
  return requestUrl.searchParams.get('access_token') ?? undefined;
}

function readBody(request: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    request.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_REQUEST_BYTES) {
        request.destroy(new Error('request body too large'));
        return;
      }
      chunks.push(chunk);
    });
    request.on('end', () => resolve(Buffer.concat(chunks)));
    request.on('error', reject);
  });
}

function respondJson(response: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  const text = JSON.stringify(body);
  response.writeHead(status, {
    'content-type': 'application/json; charset=UTF-8',
    'content-length': String(Buffer.byteLength(text)),
    ...headers,
  });
  response.end(text);
}
