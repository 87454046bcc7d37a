/**
 * A local WhatsApp Cloud API (Meta Graph API) for tests: a loopback HTTP server that checks requests
 * the way Meta does and plays the customer by pushing signed webhooks.
 *
 *   const wa = await startWhatsAppFake({ webhookUrl });      // every option has a default
 *   endpoints = { ...endpoints, metaGraphUrl: wa.url, metaGraphVersion: wa.graphVersion };
 *   account = { externalAccountId: wa.phoneNumberId, settings: { wabaId: wa.wabaId },
 *               secrets: { accessToken: wa.accessToken, appSecret: wa.appSecret }, verifyToken, … };
 *
 * Graph API served (under `/{graphVersion}/`, `Authorization: Bearer <accessToken>` required):
 *   POST /{phone-number-id}/messages   text | image | document | audio | video | template, and mark read
 *                                      ({ status: 'read', message_id }); checks messaging_product,
 *                                      recipient_type, to/recipient, text ≤ 4096, media ids uploaded and of
 *                                      the right kind, the 24 h free-text window per recipient (error 131047),
 *                                      templates existing (132001) with matching parameter counts (132000),
 *                                      marketing templates to a user who stopped marketing (131050)
 *   POST /{phone-number-id}/media      multipart (messaging_product, type, file); types and sizes as Meta
 *   GET  /{phone-number-id}            verified_name, display_phone_number (testConnection)
 *   GET  /{waba-id}/message_templates  Meta's paging (limit, after)
 *   POST /{waba-id}/message_templates  create a template (Meta's checks: name [a-z0-9_], category, one BODY,
 *                                      examples for every variable, name+language unique); answers
 *                                      { id, status: 'PENDING', category }. `reviewTemplate(name, language,
 *                                      status, reason)` decides and pushes message_template_status_update
 *   `qualityUpdate(event, { currentLimit, oldLimit })` pushes phone_number_quality_update for the number
 *                                      (display_phone_number, event, old_limit, current_limit, max_daily_…)
 *   POST /{app-id}/uploads             Resumable Upload API, step 1 (file_name, file_length, file_type among
 *                                      pdf/jpeg/png/mp4): answers { id: 'upload:…' }
 *   POST /upload:…                     step 2: `Authorization: OAuth <token>`, `file_offset: 0`, the bytes
 *                                      (exactly file_length): answers { h } (recorded in `templateSamples`); a
 *                                      media header template must give a known handle of its kind
 *   NAMED templates (parameter_format NAMED, {{first_name}}, body_text_named_params) are checked on
 *   creation and at send time: every parameter carries the template's parameter_name (#132012 otherwise);
 *   a media header template's send carries a header with that medium by link or uploaded id (#132012)
 *   GET  /{media-id}                   a customer's medium: { url, mime_type, sha256, file_size, id }; the url
 *                                      (bearer token required) expires after mediaUrlTtlMs of the fake clock
 * Errors are Graph's body: { error: { message, type, code, error_data: { messaging_product, details }, fbtrace_id } }.
 *
 * Recorded: `sent` (every accepted message, typed), `uploads`, `reads`, `requests` (every API call),
 * `webhookDeliveries` (every webhook attempt and the answer it got).
 *
 * The customer: `customerWrites(...)` builds Meta's exact `messages` webhook (text, media served by the
 * fake, locations; several in one batch, or one change / one entry per message), signs it as Meta does
 * (X-Hub-Signature-256 = sha256 HMAC of the app secret over the body with non-ASCII escaped \uXXXX) and
 * POSTs it to the webhook URL, retrying on non-2xx; `duplicates` re-delivers it. After the platform sent,
 * `pushReceipts(ids, { order })` sends sent/delivered/read (in order, reversed or shuffled),
 * `pushFailure(id, error)` a failed status, `customerPreference(user, 'stop' | 'resume')` the marketing
 * preference webhook, `handshake(verifyToken)` Meta's GET verification, `deliver(payload, { signature })`
 * any body (forged or unsigned on demand).
 *
 * Misbehaviour: `failNext(count, 'throughput' | 'pair-rate-limit' | 'account-rate-limit' | 'server-error'
 * | 'token-expired' | custom, { path })`; `issueExpiredMediaUrls(n)` and `expireMediaUrls()`;
 * `clock.advance(ms)` moves the fake's time (the 24 h window, webhook timestamps, URL expiry).
 */
import { createHash, createHmac, randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export type FakeMessageType = 'text' | 'image' | 'document' | 'audio' | 'video' | 'template' | 'interactive';
export type FakeMediaKind = 'image' | 'document' | 'audio' | 'video' | 'sticker';
export type FakeReceiptStatus = 'sent' | 'delivered' | 'read';

export interface FakeTemplate {
  name: string;
  language: string;
  category: 'MARKETING' | 'UTILITY' | 'AUTHENTICATION';
  status: 'APPROVED' | 'PENDING' | 'REJECTED' | 'PAUSED' | 'DISABLED';
  /** Meta's template id (given to created templates; listed ones get one by position). */
  id?: string;
  rejectedReason?: string;
  /** The body with {{1}}, {{2}}… placeholders. */
  body: string;
  /** A text header, possibly with {{1}}. */
  header?: string;
  /** A media header instead (the send must then carry a header with that medium). */
  mediaHeader?: 'IMAGE' | 'VIDEO' | 'DOCUMENT';
  /** NAMED: {{first_name}} placeholders, sent with parameter_name. */
  parameterFormat?: 'NAMED' | 'POSITIONAL';
  /** The sample handle the template was created with (media headers). */
  headerHandle?: string;
  /** NAMED: the approved example of each parameter (listed as body_text_named_params; the name itself when absent). */
  examples?: Record<string, string>;
}

/** A template sample uploaded through the Resumable Upload API. */
export interface FakeTemplateSample {
  handle: string;
  fileName: string;
  fileType: string;
  bytes: Buffer;
}

export interface FakeUpload {
  id: string;
  mimeType: string;
  fileName: string;
  bytes: Buffer;
}

export interface FakeSentMessage {
  /** The wamid answered to the platform. */
  id: string;
  /** The recipient as addressed: a phone number (`to`) or a business-scoped user id (`recipient`). */
  to: string;
  addressedBy: 'to' | 'recipient';
  type: FakeMessageType;
  text?: string;
  media?: { id: string; caption?: string; filename?: string; upload: FakeUpload };
  template?: {
    name: string;
    language: string;
    headerParameters: string[];
    bodyParameters: string[];
    /** NAMED templates: the values by parameter_name. */
    namedParameters?: Record<string, string>;
    headerMedia?: { type: string; link?: string; id?: string; filename?: string };
  };
  /** An interactive message: reply buttons or a list, its body and every option (id, title) as checked. */
  interactive?: { kind: 'button' | 'list'; body: string; listButton?: string; options: { id: string; title: string }[] };
  /** The JSON body exactly as received. */
  body: Record<string, unknown>;
  at: Date;
}

export interface FakeRequest {
  method: string;
  path: string;
  query: Record<string, string>;
  authorization: string | undefined;
}

export interface FakeWebhookDelivery {
  url: string;
  attempt: number;
  /** The HTTP status the webhook answered, or 0 when it could not be reached. */
  status: number;
  body: string;
  signature: string | undefined;
}

export interface CustomerMessage {
  /** The customer's phone number (wa_id / from); default 34600111222. Null for a user Meta knows only by BSUID. */
  from?: string | null;
  /** The business-scoped user id (contacts[].user_id, messages[].from_user_id). */
  userId?: string;
  name?: string;
  username?: string;
  text?: string;
  media?: { kind: FakeMediaKind; bytes: Buffer; mimeType: string; fileName?: string; caption?: string };
  location?: { latitude: number; longitude: number; name?: string; address?: string };
  /** Any other message object Meta sends (reaction, unsupported, …): merged as is. */
  raw?: Record<string, unknown>;
  /** Default: the fake clock's now. */
  at?: Date;
  /** Default: a fresh wamid. */
  id?: string;
}

export interface DeliveryOptions {
  /** Extra deliveries of the same body (Meta re-delivers). */
  duplicates?: number;
  /** Where to POST; several URLs are delivered concurrently. Default: the fake's webhookUrl. */
  to?: string | string[];
  /** 'forged' signs with a wrong secret; 'missing' sends no signature. */
  signature?: 'valid' | 'forged' | 'missing';
}

export interface CustomerWriteOptions extends DeliveryOptions {
  /** How the batch is laid out: all messages in one change (default), one change or one entry per message. */
  layout?: 'one-change' | 'change-per-message' | 'entry-per-message';
  /** The business phone number the messages are addressed to (default: the fake's). */
  phoneNumberId?: string;
}

export type FailurePreset = 'throughput' | 'pair-rate-limit' | 'account-rate-limit' | 'server-error' | 'token-expired';
export interface FakeFailure {
  status: number;
  code: number;
  message: string;
  details?: string;
  headers?: Record<string, string>;
}

export interface WhatsAppFakeOptions {
  graphVersion?: string;
  phoneNumberId?: string;
  displayPhoneNumber?: string;
  verifiedName?: string;
  wabaId?: string;
  /** The Meta app of the Resumable Upload API (template samples). */
  appId?: string;
  accessToken?: string;
  appSecret?: string;
  webhookUrl?: string;
  templates?: FakeTemplate[];
  /** Retries after a failed webhook delivery (Meta keeps retrying; default 4, i.e. 5 attempts). */
  webhookRetries?: number;
  /** First retry delay, doubled each time (default 20 ms). */
  retryDelayMs?: number;
  /** How long a media download URL lives on the fake clock (Meta: 5 minutes). */
  mediaUrlTtlMs?: number;
  /** Push a `sent` status webhook for every accepted message, as Meta does (default off: tests push receipts). */
  autoSentStatus?: boolean;
}

const FREE_TEXT_WINDOW_MS = 24 * 60 * 60 * 1000;
const MB = 1024 * 1024;
/** Meta's upload limits per MIME type. */
const MEDIA_LIMITS: Record<string, { kind: FakeMediaKind; maxBytes: number }> = {
  'image/jpeg': { kind: 'image', maxBytes: 5 * MB },
  'image/png': { kind: 'image', maxBytes: 5 * MB },
  'image/webp': { kind: 'sticker', maxBytes: 500 * 1024 },
  'audio/aac': { kind: 'audio', maxBytes: 16 * MB },
  'audio/mp4': { kind: 'audio', maxBytes: 16 * MB },
  'audio/mpeg': { kind: 'audio', maxBytes: 16 * MB },
  'audio/amr': { kind: 'audio', maxBytes: 16 * MB },
  'audio/ogg': { kind: 'audio', maxBytes: 16 * MB },
  'video/mp4': { kind: 'video', maxBytes: 16 * MB },
  'video/3gpp': { kind: 'video', maxBytes: 16 * MB },
  'application/pdf': { kind: 'document', maxBytes: 100 * MB },
  'text/plain': { kind: 'document', maxBytes: 100 * MB },
  'application/msword': { kind: 'document', maxBytes: 100 * MB },
  'application/vnd.openxmlformats-officedocument.wordprocessingml.document': { kind: 'document', maxBytes: 100 * MB },
  'application/vnd.ms-excel': { kind: 'document', maxBytes: 100 * MB },
  'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet': { kind: 'document', maxBytes: 100 * MB },
  'application/vnd.ms-powerpoint': { kind: 'document', maxBytes: 100 * MB },
  'application/vnd.openxmlformats-officedocument.presentationml.presentation': { kind: 'document', maxBytes: 100 * MB },
};

/** Meta's answers for each preset failure (the account limit carries Meta's rate-limit header for the WABA). */
function failurePreset(preset: FailurePreset, wabaId: string): FakeFailure {
  const presets: Record<FailurePreset, FakeFailure> = {
    throughput: {
      status: 400,
      code: 130429,
      message: '(#130429) Rate limit hit',
      details: 'Message failed to send because there were too many messages sent from this phone number in a short period of time',
    },
    'pair-rate-limit': {
      status: 400,
      code: 131056,
      message: '(#131056) (Business Account, Consumer Account) pair rate limit hit',
      details:
        'Message failed to send because there were too many messages sent from this phone number to the same phone number in a short period of time',
    },
    'account-rate-limit': {
      status: 429,
      code: 80007,
      message: '(#80007) There have been too many calls to this WhatsApp Business account.',
      details: 'Wait and retry the operation, or examine your API request volume.',
      headers: {
        'x-business-use-case-usage': JSON.stringify({
          [wabaId]: [{ type: 'whatsapp', call_count: 100, total_cputime: 1, total_time: 1, estimated_time_to_regain_access: 1 }],
        }),
      },
    },
    'server-error': { status: 503, code: 2, message: 'Service temporarily unavailable', details: 'Service temporarily unavailable' },
    'token-expired': { status: 401, code: 190, message: 'Error validating access token: Session has expired.' },
  };
  return presets[preset];
}

const DEFAULT_TEMPLATES: FakeTemplate[] = [
  { name: 'hello_world', language: 'en_US', category: 'UTILITY', status: 'APPROVED', body: 'Hello World' },
  {
    name: 'order_update',
    language: 'es',
    category: 'UTILITY',
    status: 'APPROVED',
    header: 'Pedido {{1}}',
    body: 'Hola {{1}}, tu pedido {{2}} está listo.',
  },
  { name: 'spring_offer', language: 'es', category: 'MARKETING', status: 'APPROVED', body: '¡{{1}} de descuento esta semana!' },
  { name: 'draft_notice', language: 'es', category: 'UTILITY', status: 'PENDING', body: 'Aviso {{1}}' },
];

export interface WhatsAppFake {
  /** The Graph API root to configure as metaGraphUrl. */
  url: string;
  graphVersion: string;
  phoneNumberId: string;
  displayPhoneNumber: string;
  verifiedName: string;
  wabaId: string;
  appId: string;
  accessToken: string;
  appSecret: string;
  templates: FakeTemplate[];
  templateSamples: FakeTemplateSample[];
  sent: FakeSentMessage[];
  uploads: FakeUpload[];
  reads: { messageId: string; at: Date }[];
  requests: FakeRequest[];
  webhookDeliveries: FakeWebhookDelivery[];
  clock: { now(): Date; advance(ms: number): void; set(at: Date): void };
  setWebhookUrl(url: string): void;
  /** Plays the customer: one webhook with every message; resolves when delivered (or retries ran out). */
  customerWrites(
    messages: CustomerMessage | CustomerMessage[],
    options?: CustomerWriteOptions,
  ): Promise<{ ids: string[]; payload: Record<string, unknown>; deliveries: FakeWebhookDelivery[] }>;
  /**
   * The customer taps the option `id` of the interactive message `messageId` the platform sent: the
   * messages webhook Meta sends for it (type interactive, button_reply or list_reply with the id and
   * title, context naming the message). Throws when that message has no such option.
   */
  customerTaps(
    messageId: string,
    id: string,
    options?: CustomerWriteOptions,
  ): Promise<{ ids: string[]; deliveries: FakeWebhookDelivery[] }>;
  /** Status webhooks for messages the platform sent: each status its own POST unless `batch`. */
  pushReceipts(
    messageIds: string | string[],
    options?: { statuses?: FakeReceiptStatus[]; order?: 'in-order' | 'reversed' | 'shuffled'; batch?: boolean } & DeliveryOptions,
  ): Promise<FakeWebhookDelivery[]>;
  pushFailure(
    messageId: string,
    error?: { code: number; title: string; details: string },
    options?: DeliveryOptions,
  ): Promise<FakeWebhookDelivery[]>;
  customerPreference(
    user: { waId?: string; userId?: string; name?: string },
    value: 'stop' | 'resume',
    options?: DeliveryOptions,
  ): Promise<FakeWebhookDelivery[]>;
  /** Meta's GET verification against the webhook URL. */
  handshake(
    verifyToken: string,
    options?: { to?: string; challenge?: string },
  ): Promise<{ status: number; body: string; challenge: string }>;
  /** POSTs any body (an object is serialised as Meta does) with Meta's retries. */
  deliver(payload: Record<string, unknown> | string, options?: DeliveryOptions): Promise<FakeWebhookDelivery[]>;
  /** Signs a body as Meta does (the X-Hub-Signature-256 value). */
  sign(body: string): string;
  /** Serialises as Meta does: JSON with every non-ASCII UTF-16 unit as \uXXXX (lower-case hex). */
  serialize(payload: unknown): string;
  failNext(count: number, failure: FailurePreset | FakeFailure, match?: { path?: string; method?: string }): void;
  /** The next `count` media URLs handed out are already expired. */
  issueExpiredMediaUrls(count: number): void;
  /** Every media URL handed out so far expires now. */
  expireMediaUrls(): void;
  /** Stores a customer medium (as customerWrites does) and answers its media id. */
  addCustomerMedia(bytes: Buffer, mimeType: string): string;
  /** Meta's review of a created template: sets its status and pushes message_template_status_update. */
  reviewTemplate(
    name: string,
    language: string,
    status: FakeTemplate['status'],
    reason?: string,
    options?: DeliveryOptions,
  ): Promise<FakeWebhookDelivery[]>;
  /**
   * Meta's phone_number_quality_update for this number (entry.id = the WABA, value = display_phone_number,
   * event, old_limit only when the limit changed, current_limit and max_daily_conversations_per_business).
   */
  qualityUpdate(
    event: 'FLAGGED' | 'UNFLAGGED' | 'DOWNGRADE' | 'UPGRADE' | 'THROUGHPUT_UPGRADE' | 'ONBOARDING',
    limits: { currentLimit: string; oldLimit?: string },
    options?: DeliveryOptions,
  ): Promise<FakeWebhookDelivery[]>;
  /**
   * Turns the automatic `sent` status on or off; `beforeAnswer` pushes it (and waits) before the send
   * is answered; `statuses` pushes these instead, each its own webhook in this order (a phone that
   * read the message before Meta's answer reached the platform: `['read', 'delivered', 'sent']`).
   */
  setAutoSentStatus(on: boolean, options?: { beforeAnswer?: boolean; statuses?: FakeReceiptStatus[] }): void;
  /** Accepts (records) the next sends after `after` more, but never answers them: the caller dies waiting. */
  holdAnswers(after: number): void;
  close(): Promise<void>;
}

export async function startWhatsAppFake(options: WhatsAppFakeOptions = {}): Promise<WhatsAppFake> {
  const graphVersion = options.graphVersion ?? 'v23.0';
  const phoneNumberId = options.phoneNumberId ?? '106540352242922';
  const displayPhoneNumber = options.displayPhoneNumber ?? '15550783881';
  const verifiedName = options.verifiedName ?? 'Centralita Test';
  const wabaId = options.wabaId ?? '102290129340398';
  const appId = options.appId ?? '1234567890123456';
  const templateSamples: FakeTemplateSample[] = [];
  const uploadSessions = new Map<string, { fileName: string; fileType: string; length: number }>();
  const accessToken = options.accessToken ?? `EAAG${randomBytes(24).toString('hex')}`;
  const appSecret = options.appSecret ?? randomBytes(16).toString('hex');
  const templates = options.templates ?? DEFAULT_TEMPLATES.map((template) => ({ ...template }));
  const webhookRetries = options.webhookRetries ?? 4;
  const retryDelayMs = options.retryDelayMs ?? 20;
  const mediaUrlTtlMs = options.mediaUrlTtlMs ?? 5 * 60 * 1000;
  let webhookUrl = options.webhookUrl;
  let clockOffsetMs = 0;
  const now = () => new Date(Date.now() + clockOffsetMs);

  const sent: FakeSentMessage[] = [];
  const uploads: FakeUpload[] = [];
  const reads: { messageId: string; at: Date }[] = [];
  const requests: FakeRequest[] = [];
  const webhookDeliveries: FakeWebhookDelivery[] = [];
  /** The customer's last message per address (phone number and BSUID): the free-text window. */
  const lastCustomerMessageAt = new Map<string, Date>();
  const stoppedMarketing = new Set<string>();
  const inboundMessageIds = new Set<string>();
  const customerMedia = new Map<string, { bytes: Buffer; mimeType: string; sha256: string }>();
  const mediaUrls = new Map<string, { mediaId: string; expiresAt: number }>();
  const failures: { failure: FakeFailure; match?: { path?: string; method?: string } }[] = [];
  let expiredUrlsToIssue = 0;
  let baseUrl = '';
  let autoSentStatus = options.autoSentStatus ?? false;
  let sentStatusBeforeAnswer = false;
  let autoStatuses: FakeReceiptStatus[] = ['sent'];
  let answersBeforeHold = Infinity;
  let templateIds = 0;
  // Declared before the handlers that call it; assigned once the webhook helpers exist below.
  let pushSentStatus: (messageId: string) => Promise<unknown> = async () => undefined;

  const newWamid = () => `wamid.${Buffer.from(`${randomBytes(18).toString('hex')}`).toString('base64url')}`;
  const unixSeconds = (at: Date) => String(Math.floor(at.getTime() / 1000));
  const serialize = (payload: unknown) =>
    JSON.stringify(payload).replace(/[\u0080-\uffff]/g, (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`);
  const sign = (body: string, secret = appSecret) => `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`;

  const graphError = (response: ServerResponse, failure: FakeFailure) => {
    const body = {
      error: {
        message: failure.message,
        type: 'OAuthException',
        code: failure.code,
        ...(failure.details ? { error_data: { messaging_product: 'whatsapp', details: failure.details } } : {}),
        fbtrace_id: randomBytes(9).toString('base64url'),
      },
    };
    response.writeHead(failure.status, { 'content-type': 'application/json', ...failure.headers });
    response.end(JSON.stringify(body));
  };
  const invalidParameter = (response: ServerResponse, details: string) =>
    graphError(response, { status: 400, code: 100, message: '(#100) Invalid parameter', details });
  const json = (response: ServerResponse, body: unknown) => {
    response.writeHead(200, { 'content-type': 'application/json' });
    response.end(JSON.stringify(body));
  };

  const readBody = async (request: IncomingMessage): Promise<Buffer> => {
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    return Buffer.concat(chunks);
  };

  const recordedSend = (
    response: ServerResponse,
    body: Record<string, unknown>,
    entry: Omit<FakeSentMessage, 'id' | 'body' | 'at'>,
  ): void => {
    const id = newWamid();
    sent.push({ id, body, at: now(), ...entry });
    if (answersBeforeHold <= 0) {
      // Accepted (Meta reports it) but never answered: the caller dies waiting (holdAnswers).
      if (autoSentStatus) void pushSentStatus(id).catch(() => undefined);
      return;
    }
    answersBeforeHold--;
    if (autoSentStatus && sentStatusBeforeAnswer) {
      // Meta's status can beat its own answer to the send: the webhook is delivered first.
      void pushSentStatus(id).finally(() => answer());
      return;
    }
    if (autoSentStatus) void pushSentStatus(id).catch(() => undefined);
    answer();
    function answer() {
      json(response, {
        messaging_product: 'whatsapp',
        contacts: [{ input: entry.to, ...(entry.addressedBy === 'to' ? { wa_id: entry.to.replace(/^\+/, '') } : { user_id: entry.to }) }],
        messages: [{ id, ...(entry.type === 'template' ? { message_status: 'accepted' } : {}) }],
      });
    }
  };

  const handleMessages = async (request: IncomingMessage, response: ServerResponse) => {
    const raw = await readBody(request);
    if (!(request.headers['content-type'] ?? '').includes('application/json')) return invalidParameter(response, 'The body must be JSON');
    let body: Record<string, unknown>;
    try {
      body = JSON.parse(raw.toString('utf8')) as Record<string, unknown>;
    } catch {
      return invalidParameter(response, 'The body is not valid JSON');
    }
    if (body.messaging_product !== 'whatsapp') return invalidParameter(response, 'The parameter messaging_product is required.');
    if (body.status !== undefined) {
      if (body.status !== 'read') return invalidParameter(response, 'Param status must be one of {read}');
      if (typeof body.message_id !== 'string' || !inboundMessageIds.has(body.message_id)) {
        return invalidParameter(response, `Invalid message_id: ${String(body.message_id)}`);
      }
      reads.push({ messageId: body.message_id, at: now() });
      return json(response, { success: true });
    }
    if (body.recipient_type !== undefined && body.recipient_type !== 'individual') {
      return invalidParameter(response, 'Param recipient_type must be individual');
    }
    const to = typeof body.to === 'string' && body.to ? body.to : undefined;
    const recipient = typeof body.recipient === 'string' && body.recipient ? body.recipient : undefined;
    const address = to ?? recipient;
    if (!address) return invalidParameter(response, 'The parameter to is required.');
    const addressedBy = to ? 'to' : 'recipient';
    const normalized = address.replace(/^\+/, '');
    const type = (body.type ?? 'text') as string;

    if (type === 'template') {
      const template = body.template as { name?: unknown; language?: { code?: unknown }; components?: unknown } | undefined;
      if (!template || typeof template.name !== 'string' || typeof template.language?.code !== 'string') {
        return invalidParameter(response, 'Param template[name] and template[language][code] are required');
      }
      const known = templates.find((candidate) => candidate.name === template.name && candidate.language === template.language!.code);
      if (!known || known.status !== 'APPROVED') {
        return graphError(response, {
          status: 404,
          code: 132001,
          message: '(#132001) Template name does not exist in the translation',
          details: `template name (${template.name}) does not exist in ${String(template.language.code)}`,
        });
      }
      const components = Array.isArray(template.components) ? (template.components as { type?: string; parameters?: unknown }[]) : [];
      const checked = checkTemplateParameters(known, components, uploads);
      if ('failure' in checked) return graphError(response, checked.failure);
      const { headerParameters, bodyParameters, namedParameters, headerMedia } = checked;
      if (known.category === 'MARKETING' && stoppedMarketing.has(normalized)) {
        return graphError(response, {
          status: 400,
          code: 131050,
          message:
            '(#131050) Unable to deliver the message. This recipient has chosen to stop receiving marketing messages on WhatsApp from your business',
          details:
            'Unable to deliver the message. This recipient has chosen to stop receiving marketing messages on WhatsApp from your business',
        });
      }
      return recordedSend(response, body, {
        to: address,
        addressedBy,
        type: 'template',
        template: {
          name: known.name,
          language: known.language,
          headerParameters,
          bodyParameters,
          ...(namedParameters ? { namedParameters } : {}),
          ...(headerMedia ? { headerMedia } : {}),
        },
      });
    }

    if (!['text', 'image', 'document', 'audio', 'video', 'interactive'].includes(type))
      return invalidParameter(response, `Unsupported message type: ${type}`);
    // Free-form messages only within 24 h of the customer's last message, as Meta enforces.
    const last = lastCustomerMessageAt.get(normalized);
    if (!last || now().getTime() - last.getTime() > FREE_TEXT_WINDOW_MS) {
      return graphError(response, {
        status: 400,
        code: 131047,
        message: '(#131047) Re-engagement message',
        details: 'Message failed to send because more than 24 hours have passed since the customer last replied to this number.',
      });
    }
    if (type === 'text') {
      const text = body.text as { body?: unknown } | undefined;
      if (typeof text?.body !== 'string' || !text.body.trim()) return invalidParameter(response, "Param text['body'] is required");
      if ([...text.body].length > 4096) return invalidParameter(response, "Param text['body'] must be at most 4096 characters long.");
      return recordedSend(response, body, { to: address, addressedBy, type: 'text', text: text.body });
    }
    if (type === 'interactive') {
      const checked = checkInteractive(body.interactive);
      if (typeof checked === 'string') return invalidParameter(response, checked);
      return recordedSend(response, body, { to: address, addressedBy, type: 'interactive', interactive: checked });
    }
    const media = body[type] as { id?: unknown; link?: unknown; caption?: unknown; filename?: unknown } | undefined;
    if (!media || typeof media.id !== 'string')
      return invalidParameter(response, `Param ${type}[id] is required (this fake serves uploads only)`);
    const upload = uploads.find((candidate) => candidate.id === media.id);
    if (!upload) return invalidParameter(response, `Invalid media id ${media.id}`);
    if (MEDIA_LIMITS[upload.mimeType]?.kind !== type)
      return invalidParameter(response, `Media ${media.id} (${upload.mimeType}) cannot be sent as ${type}`);
    if (type === 'audio' && media.caption !== undefined) return invalidParameter(response, 'Param audio[caption] is not supported');
    return recordedSend(response, body, {
      to: address,
      addressedBy,
      type: type as FakeMessageType,
      media: {
        id: media.id,
        caption: typeof media.caption === 'string' ? media.caption : undefined,
        filename: typeof media.filename === 'string' ? media.filename : undefined,
        upload,
      },
    });
  };

  const handleUpload = async (request: IncomingMessage, response: ServerResponse) => {
    const raw = await readBody(request);
    const contentType = request.headers['content-type'] ?? '';
    if (!contentType.startsWith('multipart/form-data')) return invalidParameter(response, 'The upload must be multipart/form-data');
    let form: FormData;
    try {
      form = await new Response(new Uint8Array(raw), { headers: { 'content-type': contentType } }).formData();
    } catch {
      return invalidParameter(response, 'The multipart body is malformed');
    }
    if (form.get('messaging_product') !== 'whatsapp') return invalidParameter(response, 'The parameter messaging_product is required.');
    const file = form.get('file');
    const type = form.get('type');
    if (!(file instanceof Blob) || typeof type !== 'string' || !type)
      return invalidParameter(response, 'The parameters file and type are required.');
    const limit = MEDIA_LIMITS[type];
    const bytes = Buffer.from(await file.arrayBuffer());
    if (!limit || bytes.length > limit.maxBytes || bytes.length === 0) {
      return graphError(response, {
        status: 400,
        code: 131053,
        message: '(#131053) Media upload error',
        details: limit
          ? `Media file size ${bytes.length} is outside 1..${limit.maxBytes} bytes for ${type}`
          : `Unsupported media type ${type}`,
      });
    }
    const upload: FakeUpload = {
      id: String(10 ** 15 + uploads.length * 7919 + Math.floor(Math.random() * 1000)),
      mimeType: type,
      fileName: (file as File).name,
      bytes,
    };
    uploads.push(upload);
    json(response, { id: upload.id });
  };

  /** Resumable Upload API, step 1: describes the file, answers the session id. */
  const handleUploadStart = async (request: IncomingMessage, response: ServerResponse, query: Record<string, string>) => {
    await readBody(request);
    const length = Number(query.file_length);
    if (!query.file_name) return invalidParameter(response, 'The parameter file_name is required.');
    if (!Number.isInteger(length) || length <= 0) return invalidParameter(response, 'The parameter file_length is required.');
    if (!['application/pdf', 'image/jpeg', 'image/jpg', 'image/png', 'video/mp4'].includes(query.file_type ?? '')) {
      return invalidParameter(response, 'Param file_type must be one of {application/pdf, image/jpeg, image/jpg, image/png, video/mp4}');
    }
    const id = `upload:${randomBytes(18).toString('base64url')}`;
    uploadSessions.set(id, {
      fileName: query.file_name,
      fileType: query.file_type === 'image/jpg' ? 'image/jpeg' : query.file_type,
      length,
    });
    json(response, { id });
  };

  /** Resumable Upload API, step 2: the bytes from file_offset 0, answered with the file handle `h`. */
  const handleUploadSession = async (request: IncomingMessage, response: ServerResponse, sessionId: string) => {
    const bytes = await readBody(request);
    if (request.headers.authorization !== `OAuth ${accessToken}`) {
      return graphError(response, { status: 401, code: 190, message: 'Invalid OAuth access token - Cannot parse access token' });
    }
    const session = uploadSessions.get(sessionId);
    if (!session) return invalidParameter(response, `Upload session ${sessionId} does not exist`);
    if (request.headers.file_offset !== '0') return invalidParameter(response, 'The header file_offset is required (0 for a new upload).');
    if (bytes.length !== session.length) {
      return invalidParameter(response, `The upload has ${bytes.length} bytes; the session announced ${session.length}`);
    }
    uploadSessions.delete(sessionId);
    const handle = `4::${Buffer.from(`${session.fileType}:${randomBytes(9).toString('hex')}`).toString('base64')}`;
    templateSamples.push({ handle, fileName: session.fileName, fileType: session.fileType, bytes });
    json(response, { h: handle });
  };

  /** Meta's checks of POST /{waba-id}/message_templates, and its answer. */
  const handleCreateTemplate = async (request: IncomingMessage, response: ServerResponse) => {
    let body: Record<string, unknown>;
    try {
      body = JSON.parse((await readBody(request)).toString('utf8')) as Record<string, unknown>;
    } catch {
      return invalidParameter(response, 'The body is not valid JSON');
    }
    const { name, language, category } = body;
    if (typeof name !== 'string' || !/^[a-z0-9_]{1,512}$/.test(name)) {
      return invalidParameter(response, 'Param name must be at most 512 characters: lowercase letters, digits and underscores');
    }
    if (typeof language !== 'string' || !/^[a-z]{2,3}(_[A-Z]{2})?$/.test(language))
      return invalidParameter(response, 'Param language is invalid');
    if (category !== 'MARKETING' && category !== 'UTILITY' && category !== 'AUTHENTICATION') {
      return invalidParameter(response, 'Param category must be one of {MARKETING, UTILITY, AUTHENTICATION}');
    }
    const components = Array.isArray(body.components) ? (body.components as Record<string, unknown>[]) : [];
    const bodies = components.filter((component) => component?.type === 'BODY');
    const bodyText = bodies[0]?.text;
    if (bodies.length !== 1 || typeof bodyText !== 'string' || !bodyText.trim() || bodyText.length > 1024) {
      return invalidParameter(response, 'A template has exactly one BODY component with text of at most 1024 characters');
    }
    const header = components.find((component) => component?.type === 'HEADER');
    const headerText = header && (header.format ?? 'TEXT') === 'TEXT' && typeof header.text === 'string' ? header.text : undefined;
    const examples = (component: Record<string, unknown> | undefined, key: 'body_text' | 'header_text'): number => {
      const example = component?.example as Record<string, unknown> | undefined;
      const value = example?.[key];
      return key === 'body_text'
        ? Array.isArray(value) && Array.isArray(value[0])
          ? value[0].length
          : 0
        : Array.isArray(value)
          ? value.length
          : 0;
    };
    const named = body.parameter_format === 'NAMED';
    if (body.parameter_format !== undefined && body.parameter_format !== 'NAMED' && body.parameter_format !== 'POSITIONAL')
      return invalidParameter(response, 'Param parameter_format must be one of {POSITIONAL, NAMED}');
    const namedProblem = named
      ? (namedExamplesProblem(bodies[0], bodyText, 'body_text_named_params') ??
        (headerText !== undefined ? namedExamplesProblem(header, headerText, 'header_text_named_params') : null))
      : null;
    if (namedProblem) return graphError(response, { status: 400, code: 100, message: 'Invalid parameter', details: namedProblem });
    if (!named && [...`${bodyText}${headerText ?? ''}`.matchAll(/\{\{\s*([^}]*?)\s*\}\}/g)].some((match) => !/^\d+$/.test(match[1]))) {
      return graphError(response, {
        status: 400,
        code: 100,
        message: 'Invalid parameter',
        details: 'Named variables such as {{first_name}} need parameter_format NAMED',
      });
    }
    let headerHandle: string | undefined;
    if (header && header.format && header.format !== 'TEXT') {
      const handle = ((header.example as { header_handle?: unknown } | undefined)?.header_handle as unknown[] | undefined)?.[0];
      const sample = templateSamples.find((candidate) => candidate.handle === handle);
      const kinds: Record<string, string[]> = { IMAGE: ['image/jpeg', 'image/png'], VIDEO: ['video/mp4'], DOCUMENT: ['application/pdf'] };
      if (!sample || !kinds[String(header.format)]?.includes(sample.fileType)) {
        return graphError(response, {
          status: 400,
          code: 100,
          message: 'Invalid parameter',
          details: `The ${String(header.format)} header needs example.header_handle: a handle of an uploaded ${String(header.format).toLowerCase()} sample`,
        });
      }
      headerHandle = sample.handle;
    }
    if (!named && placeholders(bodyText) > 0 && examples(bodies[0], 'body_text') !== placeholders(bodyText)) {
      return graphError(response, {
        status: 400,
        code: 100,
        message: 'Invalid parameter',
        details: "Message template's variables need example values: add an example for every {{n}} of the body",
      });
    }
    if (!named && headerText && placeholders(headerText) > 0 && examples(header, 'header_text') !== placeholders(headerText)) {
      return graphError(response, {
        status: 400,
        code: 100,
        message: 'Invalid parameter',
        details: 'The header variable needs an example value',
      });
    }
    if (templates.some((template) => template.name === name && template.language === language)) {
      return graphError(response, {
        status: 400,
        code: 100,
        message: 'Invalid parameter',
        details: `Content in this language already exists: ${name} (${language})`,
      });
    }
    const id = String(7_000_000_000_000 + ++templateIds * 7919 + Math.floor(Math.random() * 1000));
    templates.push({
      id,
      name,
      language,
      category,
      status: 'PENDING',
      body: bodyText,
      ...(headerText !== undefined ? { header: headerText } : {}),
      ...(header && header.format && header.format !== 'TEXT' ? { mediaHeader: header.format as FakeTemplate['mediaHeader'] } : {}),
      ...(named ? { parameterFormat: 'NAMED' as const, examples: namedExamplesOf(bodies[0]) } : {}),
      ...(headerHandle ? { headerHandle } : {}),
    });
    json(response, { id, status: 'PENDING', category });
  };

  const handleTemplates = (response: ServerResponse, query: Record<string, string>) => {
    const limit = Math.min(Math.max(Number(query.limit ?? 25) || 25, 1), 100);
    const start = query.after ? Number(Buffer.from(query.after, 'base64url').toString()) || 0 : 0;
    const page = templates.slice(start, start + limit);
    const next = start + limit < templates.length ? Buffer.from(String(start + limit)).toString('base64url') : undefined;
    json(response, {
      data: page.map((template, index) => ({
        name: template.name,
        language: template.language,
        status: template.status,
        category: template.category,
        id: template.id ?? String(900_000 + start + index),
        ...(template.status === 'REJECTED' ? { rejected_reason: template.rejectedReason ?? 'INVALID_FORMAT' } : {}),
        components: [
          ...(template.header ? [{ type: 'HEADER', format: 'TEXT', text: template.header }] : []),
          ...(template.mediaHeader ? [{ type: 'HEADER', format: template.mediaHeader, example: { header_handle: ['4::aW1hZ2U='] } }] : []),
          {
            type: 'BODY',
            text: template.body,
            // Meta lists a NAMED body's examples as {param_name, example} (they were required at creation).
            ...(template.parameterFormat === 'NAMED' && /\{\{/.test(template.body)
              ? {
                  example: {
                    body_text_named_params: [
                      ...new Set([...template.body.matchAll(/\{\{\s*([a-z][a-z0-9_]*)\s*\}\}/g)].map((m) => m[1]!)),
                    ].map((name) => ({ param_name: name, example: template.examples?.[name] ?? name })),
                  },
                }
              : {}),
          },
        ],
      })),
      paging: {
        cursors: { before: Buffer.from(String(start)).toString('base64url'), after: next ?? '' },
        ...(next ? { next: `${baseUrl}/${graphVersion}/${wabaId}/message_templates?limit=${limit}&after=${next}` } : {}),
      },
    });
  };

  const handleMediaLookup = (response: ServerResponse, mediaId: string) => {
    const media = customerMedia.get(mediaId);
    if (!media) {
      return graphError(response, {
        status: 400,
        code: 100,
        message: `Unsupported get request. Object with ID '${mediaId}' does not exist, cannot be loaded due to missing permissions, or does not support this operation.`,
      });
    }
    const token = randomBytes(12).toString('hex');
    const expired = expiredUrlsToIssue > 0;
    if (expired) expiredUrlsToIssue--;
    mediaUrls.set(token, { mediaId, expiresAt: expired ? 0 : now().getTime() + mediaUrlTtlMs });
    json(response, {
      messaging_product: 'whatsapp',
      url: `${baseUrl}/whatsapp_business/attachments/?mid=${mediaId}&hash=${token}`,
      mime_type: media.mimeType,
      sha256: media.sha256,
      file_size: media.bytes.length,
      id: mediaId,
    });
  };

  const handleMediaDownload = (request: IncomingMessage, response: ServerResponse, query: Record<string, string>) => {
    if (request.headers.authorization !== `Bearer ${accessToken}`) {
      response.writeHead(401, { 'content-type': 'text/plain' });
      return response.end('Unauthorized');
    }
    const issued = mediaUrls.get(query.hash ?? '');
    const media = issued && issued.mediaId === query.mid ? customerMedia.get(issued.mediaId) : undefined;
    if (!issued || !media || issued.expiresAt <= now().getTime()) {
      response.writeHead(404, { 'content-type': 'text/plain' });
      return response.end('URL signature expired');
    }
    response.writeHead(200, { 'content-type': media.mimeType, 'content-length': String(media.bytes.length) });
    response.end(media.bytes);
  };

  const server = createServer((request, response) => {
    void (async () => {
      const url = new URL(request.url ?? '/', 'http://fake');
      const query = Object.fromEntries(url.searchParams);
      const segments = url.pathname.split('/').filter(Boolean);
      if (segments[0] === 'whatsapp_business' && segments[1] === 'attachments') return handleMediaDownload(request, response, query);
      requests.push({ method: request.method ?? 'GET', path: url.pathname, query, authorization: request.headers.authorization });
      const failureIndex = failures.findIndex(
        ({ match }) => (!match?.path || url.pathname.includes(match.path)) && (!match?.method || match.method === request.method),
      );
      if (failureIndex >= 0) {
        const [{ failure }] = failures.splice(failureIndex, 1);
        await readBody(request);
        return graphError(response, failure);
      }
      if (segments[0] !== graphVersion) {
        return graphError(response, { status: 400, code: 2500, message: `Unknown path components: ${url.pathname}` });
      }
      // The Resumable Upload API's second step authenticates with `OAuth <token>`, not Bearer.
      if (request.method === 'POST' && segments.length === 2 && segments[1].startsWith('upload:'))
        return handleUploadSession(request, response, segments[1]);
      const authorization = request.headers.authorization;
      if (!authorization) {
        return graphError(response, {
          status: 400,
          code: 2500,
          message: 'An active access token must be used to query information about the current user.',
        });
      }
      if (authorization !== `Bearer ${accessToken}`) {
        return graphError(response, { status: 401, code: 190, message: 'Invalid OAuth access token - Cannot parse access token' });
      }
      const [, objectId, edge] = segments;
      if (request.method === 'POST' && objectId === phoneNumberId && edge === 'messages' && segments.length === 3)
        return handleMessages(request, response);
      if (request.method === 'POST' && objectId === phoneNumberId && edge === 'media' && segments.length === 3)
        return handleUpload(request, response);
      if (request.method === 'GET' && objectId === phoneNumberId && segments.length === 2) {
        return json(response, { verified_name: verifiedName, display_phone_number: displayPhoneNumber, id: phoneNumberId });
      }
      if (request.method === 'POST' && objectId === appId && edge === 'uploads' && segments.length === 3)
        return handleUploadStart(request, response, query);
      if (request.method === 'GET' && objectId === wabaId && edge === 'message_templates' && segments.length === 3)
        return handleTemplates(response, query);
      if (request.method === 'POST' && objectId === wabaId && edge === 'message_templates' && segments.length === 3)
        return handleCreateTemplate(request, response);
      if (request.method === 'GET' && objectId && segments.length === 2) return handleMediaLookup(response, objectId);
      await readBody(request);
      graphError(response, {
        status: 400,
        code: 100,
        message: `Unsupported ${request.method?.toLowerCase()} request. Object with ID '${objectId ?? ''}' does not exist, cannot be loaded due to missing permissions, or does not support this operation.`,
      });
    })().catch((error: Error) => {
      if (!response.headersSent) response.writeHead(500, { 'content-type': 'text/plain' });
      response.end(`fake failure: ${error.message}`);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  const postOnce = async (url: string, body: string, signature: string | undefined, attempt: number): Promise<FakeWebhookDelivery> => {
    let status = 0;
    try {
      const response = await fetch(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...(signature ? { 'x-hub-signature-256': signature } : {}) },
        body,
        signal: AbortSignal.timeout(10_000),
      });
      status = response.status;
      await response.arrayBuffer();
    } catch {
      status = 0;
    }
    const delivery = { url, attempt, status, body, signature };
    webhookDeliveries.push(delivery);
    return delivery;
  };

  /** One delivery as Meta makes it: POST, and on anything but 2xx again with growing delays. */
  const deliverWithRetries = async (url: string, body: string, signature: string | undefined): Promise<FakeWebhookDelivery[]> => {
    const attempts: FakeWebhookDelivery[] = [];
    for (let attempt = 1; attempt <= webhookRetries + 1; attempt++) {
      const delivery = await postOnce(url, body, signature, attempt);
      attempts.push(delivery);
      if (delivery.status >= 200 && delivery.status < 300) break;
      if (attempt <= webhookRetries) await new Promise((resolve) => setTimeout(resolve, retryDelayMs * 2 ** (attempt - 1)));
    }
    return attempts;
  };

  const deliver = async (payload: Record<string, unknown> | string, deliveryOptions: DeliveryOptions = {}) => {
    const body = typeof payload === 'string' ? payload : serialize(payload);
    const targets = deliveryOptions.to === undefined ? (webhookUrl ? [webhookUrl] : []) : [deliveryOptions.to].flat();
    if (!targets.length) throw new Error('whatsapp fake: no webhook URL (setWebhookUrl or options.to)');
    const signature =
      deliveryOptions.signature === 'missing'
        ? undefined
        : deliveryOptions.signature === 'forged'
          ? sign(body, `${appSecret}-forged`)
          : sign(body);
    const results: FakeWebhookDelivery[] = [];
    for (let round = 0; round <= (deliveryOptions.duplicates ?? 0); round++) {
      const rounds = await Promise.all(targets.map((target) => deliverWithRetries(target, body, signature)));
      results.push(...rounds.flat());
    }
    return results;
  };

  const envelope = (changes: { field: string; value: Record<string, unknown> }[][]) => ({
    object: 'whatsapp_business_account',
    entry: changes.map((entryChanges) => ({ id: wabaId, changes: entryChanges })),
  });
  const metadata = (id = phoneNumberId) => ({ display_phone_number: displayPhoneNumber, phone_number_id: id });

  const addCustomerMedia = (bytes: Buffer, mimeType: string): string => {
    const id = String(2 * 10 ** 15 + customerMedia.size * 104_729 + Math.floor(Math.random() * 1000));
    customerMedia.set(id, { bytes, mimeType, sha256: createHash('sha256').update(bytes).digest('base64') });
    return id;
  };

  const customerWrites: WhatsAppFake['customerWrites'] = async (input, writeOptions = {}) => {
    const messages = [input].flat();
    const built = messages.map((message) => {
      const at = message.at ?? now();
      const from = message.from === null ? undefined : (message.from ?? '34600111222');
      const id = message.id ?? newWamid();
      inboundMessageIds.add(id);
      for (const address of [from, message.userId]) {
        if (!address) continue;
        const previous = lastCustomerMessageAt.get(address);
        if (!previous || previous < at) lastCustomerMessageAt.set(address, at);
      }
      const contact = {
        profile: { name: message.name ?? 'Cliente de prueba', ...(message.username ? { username: message.username } : {}) },
        ...(from ? { wa_id: from } : {}),
        ...(message.userId ? { user_id: message.userId } : {}),
      };
      const body: Record<string, unknown> = {
        ...(from ? { from } : {}),
        ...(message.userId ? { from_user_id: message.userId } : {}),
        id,
        timestamp: unixSeconds(at),
      };
      if (message.media) {
        const mediaId = addCustomerMedia(message.media.bytes, message.media.mimeType);
        const media = customerMedia.get(mediaId)!;
        body.type = message.media.kind;
        body[message.media.kind] = {
          ...(message.media.caption ? { caption: message.media.caption } : {}),
          ...(message.media.fileName ? { filename: message.media.fileName } : {}),
          mime_type: message.media.mimeType,
          sha256: media.sha256,
          id: mediaId,
          ...(message.media.kind === 'audio' ? { voice: false } : {}),
          ...(message.media.kind === 'sticker' ? { animated: false } : {}),
        };
      } else if (message.location) {
        body.type = 'location';
        body.location = message.location;
      } else if (message.raw) {
        Object.assign(body, message.raw);
      } else {
        body.type = 'text';
        body.text = { body: message.text ?? 'Hola' };
      }
      return { contact, body, id };
    });
    const value = (items: typeof built) => ({
      messaging_product: 'whatsapp',
      metadata: metadata(writeOptions.phoneNumberId),
      contacts: dedupeContacts(items.map((item) => item.contact)),
      messages: items.map((item) => item.body),
    });
    const layout = writeOptions.layout ?? 'one-change';
    const payload =
      layout === 'one-change'
        ? envelope([[{ value: value(built), field: 'messages' }]])
        : layout === 'change-per-message'
          ? envelope([built.map((item) => ({ value: value([item]), field: 'messages' }))])
          : envelope(built.map((item) => [{ value: value([item]), field: 'messages' }]));
    const deliveries = await deliver(payload, writeOptions);
    return { ids: built.map((item) => item.id), payload, deliveries };
  };

  const customerTaps: WhatsAppFake['customerTaps'] = async (messageId, optionId, writeOptions) => {
    const message = sent.find((candidate) => candidate.id === messageId);
    const option = message?.interactive?.options.find((candidate) => candidate.id === optionId);
    if (!message || !option) throw new Error(`whatsapp fake: message ${messageId} has no interactive option ${optionId}`);
    const reply = message.interactive!.kind === 'button' ? 'button_reply' : 'list_reply';
    const { ids, deliveries } = await customerWrites(
      {
        ...(message.addressedBy === 'to' ? { from: message.to.replace(/^\+/, '') } : { from: null, userId: message.to }),
        raw: {
          context: { from: displayPhoneNumber.replace(/\D/g, ''), id: messageId },
          type: 'interactive',
          interactive: { type: reply, [reply]: { id: option.id, title: option.title } },
        },
      },
      writeOptions,
    );
    return { ids, deliveries };
  };

  const statusValue = (messageId: string, status: string, extra: Record<string, unknown> = {}) => {
    const message = sent.find((candidate) => candidate.id === messageId);
    if (!message) throw new Error(`whatsapp fake: no sent message ${messageId}`);
    const recipient = message.addressedBy === 'to' ? { recipient_id: message.to.replace(/^\+/, '') } : { recipient_user_id: message.to };
    const billing =
      status === 'sent' || status === 'delivered'
        ? {
            conversation: {
              id: createHash('md5').update(message.to).digest('hex'),
              origin: { type: message.type === 'template' ? 'utility' : 'service' },
            },
            pricing: {
              billable: message.type === 'template',
              pricing_model: 'PMP',
              category: message.type === 'template' ? 'utility' : 'service',
            },
          }
        : {};
    const callback =
      typeof message.body.biz_opaque_callback_data === 'string' ? { biz_opaque_callback_data: message.body.biz_opaque_callback_data } : {};
    return { id: messageId, status, timestamp: unixSeconds(now()), ...recipient, ...billing, ...callback, ...extra };
  };
  const statusPayload = (statuses: Record<string, unknown>[]) =>
    envelope([[{ value: { messaging_product: 'whatsapp', metadata: metadata(), statuses }, field: 'messages' }]]);
  pushSentStatus = async (messageId) => {
    if (!webhookUrl) return;
    for (const status of autoStatuses) await deliver(statusPayload([statusValue(messageId, status)]));
  };

  return {
    url: baseUrl,
    graphVersion,
    phoneNumberId,
    displayPhoneNumber,
    verifiedName,
    wabaId,
    appId,
    templateSamples,
    accessToken,
    appSecret,
    templates,
    sent,
    uploads,
    reads,
    requests,
    webhookDeliveries,
    clock: {
      now,
      advance: (ms) => {
        clockOffsetMs += ms;
      },
      set: (at) => {
        clockOffsetMs = at.getTime() - Date.now();
      },
    },
    setWebhookUrl: (url) => {
      webhookUrl = url;
    },
    customerWrites,
    customerTaps,
    async pushReceipts(messageIds, receiptOptions = {}) {
      const statuses = receiptOptions.statuses ?? ['sent', 'delivered', 'read'];
      let values = [messageIds].flat().flatMap((id) => statuses.map((status) => statusValue(id, status)));
      if (receiptOptions.order === 'reversed') values = values.reverse();
      if (receiptOptions.order === 'shuffled') values = shuffle(values);
      if (receiptOptions.batch) return deliver(statusPayload(values), receiptOptions);
      const deliveries: FakeWebhookDelivery[] = [];
      for (const value of values) deliveries.push(...(await deliver(statusPayload([value]), receiptOptions)));
      return deliveries;
    },
    pushFailure(messageId, error, deliveryOptions) {
      const failure = error ?? {
        code: 131026,
        title: 'Message undeliverable',
        details: 'Message Undeliverable.',
      };
      return deliver(
        statusPayload([
          statusValue(messageId, 'failed', {
            errors: [
              {
                code: failure.code,
                title: failure.title,
                message: failure.title,
                error_data: { details: failure.details },
                href: 'https://developers.facebook.com/docs/whatsapp/cloud-api/support/error-codes/',
              },
            ],
          }),
        ]),
        deliveryOptions,
      );
    },
    customerPreference(user, value, deliveryOptions) {
      for (const address of [user.waId, user.userId]) {
        if (!address) continue;
        if (value === 'stop') stoppedMarketing.add(address);
        else stoppedMarketing.delete(address);
      }
      const ids = { ...(user.waId ? { wa_id: user.waId } : {}), ...(user.userId ? { user_id: user.userId } : {}) };
      return deliver(
        envelope([
          [
            {
              value: {
                messaging_product: 'whatsapp',
                metadata: metadata(),
                contacts: [{ profile: { name: user.name ?? 'Cliente de prueba' }, ...ids }],
                user_preferences: [
                  {
                    ...ids,
                    detail: value === 'stop' ? 'User requested to stop marketing messages' : 'User requested to resume marketing messages',
                    category: 'marketing_messages',
                    value,
                    timestamp: Math.floor(now().getTime() / 1000),
                  },
                ],
              },
              field: 'user_preferences',
            },
          ],
        ]),
        deliveryOptions,
      );
    },
    async handshake(verifyToken, handshakeOptions = {}) {
      const target = handshakeOptions.to ?? webhookUrl;
      if (!target) throw new Error('whatsapp fake: no webhook URL');
      const challenge = handshakeOptions.challenge ?? String(Math.floor(Math.random() * 2 ** 31));
      const url = new URL(target);
      url.searchParams.set('hub.mode', 'subscribe');
      url.searchParams.set('hub.challenge', challenge);
      url.searchParams.set('hub.verify_token', verifyToken);
      const response = await fetch(url, { signal: AbortSignal.timeout(10_000) });
      return { status: response.status, body: await response.text(), challenge };
    },
    deliver,
    sign: (body) => sign(body),
    serialize,
    failNext(count, failure, match) {
      const resolved = typeof failure === 'string' ? failurePreset(failure, wabaId) : failure;
      for (let index = 0; index < count; index++) failures.push({ failure: resolved, match });
    },
    issueExpiredMediaUrls(count) {
      expiredUrlsToIssue += count;
    },
    expireMediaUrls() {
      for (const issued of mediaUrls.values()) issued.expiresAt = 0;
    },
    addCustomerMedia,
    async reviewTemplate(name, language, status, reason, deliveryOptions) {
      const template = templates.find((candidate) => candidate.name === name && candidate.language === language);
      if (!template) throw new Error(`whatsapp fake: no template ${name} (${language})`);
      template.status = status;
      if (status === 'REJECTED') template.rejectedReason = reason ?? 'INVALID_FORMAT';
      template.id ??= String(900_000 + templates.indexOf(template));
      const paused = status === 'PAUSED' || status === 'DISABLED';
      // Meta stamps template updates' entries with `time`: the same decision taken again is a new body.
      const stamped = (payload: ReturnType<typeof envelope>) => ({
        ...payload,
        entry: payload.entry.map((entry) => ({ ...entry, time: Math.floor(now().getTime() / 1000) })),
      });
      return deliver(
        stamped(
          envelope([
            [
              {
                field: 'message_template_status_update',
                value: {
                  event: status,
                  message_template_id: Number(template.id),
                  message_template_name: name,
                  message_template_language: language,
                  reason: status === 'REJECTED' ? (reason ?? 'INVALID_FORMAT') : 'NONE',
                  ...(paused
                    ? { other_info: { title: status === 'PAUSED' ? 'FIRST_PAUSE' : 'DISABLED', description: reason ?? 'Low quality' } }
                    : {}),
                },
              },
            ],
          ]),
        ),
        deliveryOptions,
      );
    },
    async qualityUpdate(event, limits, deliveryOptions) {
      const payload = envelope([
        [
          {
            field: 'phone_number_quality_update',
            value: {
              display_phone_number: displayPhoneNumber,
              event,
              ...(limits.oldLimit ? { old_limit: limits.oldLimit } : {}),
              current_limit: limits.currentLimit,
              // Meta's replacement for current_limit (which it is phasing out), in the same tier names.
              max_daily_conversations_per_business: limits.currentLimit,
            },
          },
        ],
      ]);
      // Stamped with `time` as Meta does: the same event later is a new body, not a re-delivery.
      return deliver(
        { ...payload, entry: payload.entry.map((entry) => ({ ...entry, time: Math.floor(now().getTime() / 1000) })) },
        deliveryOptions,
      );
    },
    setAutoSentStatus(on, setOptions = {}) {
      autoSentStatus = on;
      sentStatusBeforeAnswer = setOptions.beforeAnswer ?? false;
      autoStatuses = setOptions.statuses ?? ['sent'];
    },
    holdAnswers(after) {
      answersBeforeHold = after;
    },
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close((error) => (error ? reject(error) : resolve()));
      }),
  };
}

/** The problem of a NAMED component's examples: `{param_name, example}` for exactly its {{names}}, or null. */
function namedExamplesProblem(
  component: Record<string, unknown> | undefined,
  text: string,
  key: 'body_text_named_params' | 'header_text_named_params',
): string | null {
  const names = [...new Set([...text.matchAll(/\{\{\s*([^}]*?)\s*\}\}/g)].map((match) => match[1]))];
  const bad = names.find((name) => !/^[a-z][a-z0-9_]*$/.test(name));
  if (bad !== undefined) return `Variable {{${bad}}} must be lowercase letters, digits and underscores`;
  if (!names.length) return null;
  const given = (component?.example as Record<string, unknown> | undefined)?.[key];
  const examples = Array.isArray(given) ? (given as { param_name?: unknown; example?: unknown }[]) : [];
  const exampleNames = examples.map((example) => example?.param_name);
  if (
    examples.length !== names.length ||
    names.some((name) => !exampleNames.includes(name)) ||
    examples.some((example) => typeof example?.example !== 'string' || !example.example.trim())
  ) {
    return `Message template's variables need example values: add ${key} with a param_name and example for each of ${names.map((name) => `{{${name}}}`).join(', ')}`;
  }
  return null;
}

/** The 132012 body Meta answers when the parameters do not fit the template's format. */
function formatMismatch(details: string): FakeFailure {
  return {
    status: 400,
    code: 132012,
    message: '(#132012) Parameter format does not match format in the created template',
    details,
  };
}

/**
 * Meta's checks of a template send's components against the template: parameter counts (132000),
 * named parameters by parameter_name and a media header's medium (132012).
 */
/** A created NAMED body's examples by name (body_text_named_params), listed back as Meta lists them. */
function namedExamplesOf(component: Record<string, unknown> | undefined): Record<string, string> {
  const list = (component?.example as Record<string, unknown> | undefined)?.body_text_named_params;
  const examples: Record<string, string> = {};
  for (const one of Array.isArray(list) ? (list as { param_name?: unknown; example?: unknown }[]) : []) {
    if (typeof one.param_name === 'string' && typeof one.example === 'string') examples[one.param_name] = one.example;
  }
  return examples;
}

function checkTemplateParameters(
  known: FakeTemplate,
  components: { type?: string; parameters?: unknown }[],
  uploads: FakeUpload[],
):
  | { failure: FakeFailure }
  | {
      headerParameters: string[];
      bodyParameters: string[];
      namedParameters?: Record<string, string>;
      headerMedia?: { type: string; link?: string; id?: string; filename?: string };
    } {
  type Parameter = { type?: string; text?: unknown; parameter_name?: unknown } & Record<string, unknown>;
  const parametersOf = (kind: string): Parameter[] => {
    const component = components.find((candidate) => candidate.type === kind);
    return Array.isArray(component?.parameters) ? (component.parameters as Parameter[]) : [];
  };
  const named = known.parameterFormat === 'NAMED';
  const namesOf = (text: string) => [...new Set([...text.matchAll(/\{\{\s*([^}]*?)\s*\}\}/g)].map((match) => match[1]))];
  const expected = { header: named ? namesOf(known.header ?? '') : [], body: named ? namesOf(known.body) : [] };
  const textOf = (parameter: Parameter) => (parameter.type === 'text' && typeof parameter.text === 'string' ? parameter.text : '');

  let headerMedia: { type: string; link?: string; id?: string; filename?: string } | undefined;
  const headerRaw = parametersOf('header');
  if (known.mediaHeader) {
    const kind = known.mediaHeader.toLowerCase();
    const parameter = headerRaw[0];
    const object = parameter?.[kind] as { link?: unknown; id?: unknown; filename?: unknown } | undefined;
    if (headerRaw.length !== 1 || parameter?.type !== kind || !object) {
      return {
        failure: formatMismatch(`header: the template's header is ${known.mediaHeader}: send one ${kind} parameter with a link or id`),
      };
    }
    if (typeof object.link === 'string') {
      if (!/^https?:\/\/\S+$/.test(object.link)) return { failure: formatMismatch(`header: ${kind}.link is not a URL`) };
      headerMedia = { type: kind, link: object.link };
    } else if (typeof object.id === 'string') {
      const upload = uploads.find((candidate) => candidate.id === object.id);
      if (!upload || MEDIA_LIMITS[upload.mimeType]?.kind !== kind)
        return { failure: formatMismatch(`header: ${kind}.id is not an uploaded ${kind}`) };
      headerMedia = { type: kind, id: object.id };
    } else {
      return { failure: formatMismatch(`header: ${kind} needs a link or an id`) };
    }
    if (typeof object.filename === 'string') headerMedia.filename = object.filename;
  } else if (headerRaw.some((parameter) => parameter.type !== 'text')) {
    return { failure: formatMismatch('header: the template has no media header') };
  }
  const headerParameters = known.mediaHeader ? [] : headerRaw.map(textOf);
  const bodyRaw = parametersOf('body');
  const bodyParameters = bodyRaw.map(textOf);
  const expectedCount = { header: known.mediaHeader ? 0 : placeholders(known.header ?? ''), body: placeholders(known.body) };
  if (named) {
    expectedCount.header = known.mediaHeader ? 0 : expected.header.length;
    expectedCount.body = expected.body.length;
  }
  if (
    bodyParameters.length !== expectedCount.body ||
    headerParameters.length !== expectedCount.header ||
    [...headerParameters, ...bodyParameters].some((value) => !value.trim())
  ) {
    return {
      failure: {
        status: 400,
        code: 132000,
        message: '(#132000) Number of parameters does not match the expected number of params',
        details: `body: number of localizable_params (${bodyParameters.length}) does not match the expected number of params (${expectedCount.body})`,
      },
    };
  }
  if (!named) {
    const stray = [...bodyRaw, ...(known.mediaHeader ? [] : headerRaw)].find((parameter) => parameter.parameter_name !== undefined);
    if (stray) return { failure: formatMismatch(`parameter_name ${String(stray.parameter_name)} given for a positional template`) };
    return { headerParameters, bodyParameters, ...(headerMedia ? { headerMedia } : {}) };
  }
  const namedParameters: Record<string, string> = {};
  for (const [part, raw] of [
    ['header', known.mediaHeader ? [] : headerRaw],
    ['body', bodyRaw],
  ] as const) {
    for (const parameter of raw) {
      const name = parameter.parameter_name;
      if (typeof name !== 'string' || !expected[part].includes(name) || name in namedParameters) {
        return {
          failure: formatMismatch(
            `${part}: parameter_name ${typeof name === 'string' ? `'${name}'` : '(missing)'} does not match the template's parameters (${expected[part].join(', ')})`,
          ),
        };
      }
      namedParameters[name] = textOf(parameter);
    }
  }
  return { headerParameters, bodyParameters, namedParameters, ...(headerMedia ? { headerMedia } : {}) };
}

function placeholders(text: string): number {
  return new Set([...text.matchAll(/\{\{\s*(\d+)\s*\}\}/g)].map((match) => match[1])).size;
}

function dedupeContacts<T extends { wa_id?: string; user_id?: string }>(contacts: T[]): T[] {
  const seen = new Set<string>();
  return contacts.filter((contact) => {
    const key = `${contact.wa_id ?? ''}|${contact.user_id ?? ''}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

function shuffle<T>(items: T[]): T[] {
  const copy = [...items];
  for (let index = copy.length - 1; index > 0; index--) {
    const other = Math.floor(Math.random() * (index + 1));
    [copy[index], copy[other]] = [copy[other], copy[index]];
  }
  // A shuffle that happens to keep the order proves nothing about out-of-order handling.
  if (copy.length > 1 && copy.every((item, index) => item === items[index])) copy.reverse();
  return copy;
}

/**
 * An interactive message's `interactive` object as the Cloud API checks it: reply buttons (1-3,
 * type reply, id 1-256 characters, title 1-20, ids and titles unique; body 1-1024) or a list (its
 * button label 1-20, 1-10 sections, 1-10 rows in all, row id 1-200, row title 1-24, ids unique, a
 * section title (≤ 24) required when there are several; body 1-4096). Answers the problem, or what was sent.
 */
function checkInteractive(value: unknown): string | NonNullable<FakeSentMessage['interactive']> {
  const interactive = value as
    | {
        type?: unknown;
        body?: { text?: unknown };
        action?: { buttons?: unknown; button?: unknown; sections?: unknown };
      }
    | undefined;
  if (!interactive || typeof interactive !== 'object') return 'Param interactive is required';
  const body = interactive.body?.text;
  if (typeof body !== 'string' || !body.trim()) return "Param interactive['body']['text'] is required";
  const length = (text: string) => [...text].length;
  const isText = (text: unknown, max: number): text is string => typeof text === 'string' && text.trim().length > 0 && length(text) <= max;
  if (interactive.type === 'button') {
    if (length(body) > 1024) return "Param interactive['body']['text'] must be at most 1024 characters long";
    const buttons = interactive.action?.buttons;
    if (!Array.isArray(buttons) || buttons.length < 1 || buttons.length > 3)
      return "Param interactive['action']['buttons'] must have 1 to 3 buttons";
    const options: { id: string; title: string }[] = [];
    for (const [index, button] of (buttons as { type?: unknown; reply?: { id?: unknown; title?: unknown } }[]).entries()) {
      if (button?.type !== 'reply') return `Param interactive['action']['buttons'][${index}]['type'] must be reply`;
      if (!isText(button.reply?.id, 256)) return `Param interactive['action']['buttons'][${index}]['reply']['id'] must be 1-256 characters`;
      if (!isText(button.reply?.title, 20))
        return `Param interactive['action']['buttons'][${index}]['reply']['title'] must be 1-20 characters`;
      options.push({ id: button.reply.id, title: button.reply.title });
    }
    if (new Set(options.map((option) => option.id)).size !== options.length) return 'Button ids must be unique';
    if (new Set(options.map((option) => option.title)).size !== options.length) return 'Button titles must be unique';
    return { kind: 'button', body, options };
  }
  if (interactive.type === 'list') {
    if (length(body) > 4096) return "Param interactive['body']['text'] must be at most 4096 characters long";
    const label = interactive.action?.button;
    if (!isText(label, 20)) return "Param interactive['action']['button'] must be 1-20 characters";
    const sections = interactive.action?.sections;
    if (!Array.isArray(sections) || sections.length < 1 || sections.length > 10)
      return "Param interactive['action']['sections'] must have 1 to 10 sections";
    const options: { id: string; title: string }[] = [];
    for (const [index, section] of (sections as { title?: unknown; rows?: unknown }[]).entries()) {
      if (sections.length > 1 && !isText(section?.title, 24))
        return `Param interactive['action']['sections'][${index}]['title'] is required (1-24 characters)`;
      if (!Array.isArray(section?.rows) || section.rows.length < 1)
        return `Param interactive['action']['sections'][${index}]['rows'] must not be empty`;
      for (const [rowIndex, row] of (section.rows as { id?: unknown; title?: unknown; description?: unknown }[]).entries()) {
        const where = `interactive['action']['sections'][${index}]['rows'][${rowIndex}]`;
        if (!isText(row?.id, 200)) return `Param ${where}['id'] must be 1-200 characters`;
        if (!isText(row.title, 24)) return `Param ${where}['title'] must be 1-24 characters`;
        if (row.description !== undefined && !isText(row.description, 72))
          return `Param ${where}['description'] must be at most 72 characters`;
        options.push({ id: row.id, title: row.title });
      }
    }
    if (options.length > 10) return 'A list message has at most 10 rows';
    if (new Set(options.map((option) => option.id)).size !== options.length) return 'Row ids must be unique';
    return { kind: 'list', body, listButton: label, options };
  }
  return `Param interactive['type'] must be one of {button, list} here (got ${String(interactive.type)})`;
}
