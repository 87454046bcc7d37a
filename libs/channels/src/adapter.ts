/**
 * The channel seam: one adapter per messaging provider behind this interface, registered by
 * channel kind in registry.ts. The API verifies and parses webhooks with it; the worker sends,
 * marks read and fetches media with it. An adapter holds no state of its own: everything it needs
 * comes in the account (credentials decrypted by the caller) and the endpoints (configuration, so
 * tests point every provider at a local fake).
 */
import type { AttachmentKind, MessagingKind } from '@centralita/contracts';

export type { AttachmentKind } from '@centralita/contracts';
/** The channels an adapter serves: every digital channel but web chat, which the platform serves itself. */
export type MessagingChannelKind = MessagingKind;

/** What a channel can do, as data: the core and the console read these, never the kind. */
export interface ChannelCapabilities {
  /** Longest text one message carries (characters). */
  textLimit: number;
  /** Attachment kinds and their largest size in bytes, as the provider accepts them for sending. */
  attachments: Partial<Record<AttachmentKind, { maxBytes: number; mimeTypes: readonly string[] }>>;
  /** Which receipts the provider reports for sent messages. */
  receipts: { delivered: boolean; read: boolean };
  typing: boolean;
  /** Whether markRead tells the customer their message was read. */
  markRead: boolean;
  /**
   * Hours after the customer's last message during which free text may be sent; null when the
   * channel has no window. Outside it only approved templates go out (WhatsApp) or, where the
   * account has it, messages tagged HUMAN_AGENT (humanAgentTagHours: Messenger, Instagram).
   */
  replyWindowHours: number | null;
  humanAgentTagHours: number | null;
  /** Whether the account has provider-approved templates (listTemplates, send with `template`). */
  templates: boolean;
  /**
   * Reply buttons a text message can carry (OutboundMessage.buttons), as the provider limits them;
   * null when the channel has none (email): the bot then offers numbered options in the text.
   */
  buttons?: ButtonCapability | null;
}

/** How many reply buttons one message carries, and how long their labels and payloads may be. */
export interface ButtonCapability {
  /** Most buttons in one message (WhatsApp: 3 as reply buttons, up to 10 as a list). */
  max: number;
  /** Longest label, in characters (longer ones are cut by the adapter with an ellipsis). */
  titleMax: number;
  /** Longest payload, in UTF-8 bytes (Telegram's callback_data: 64). */
  payloadMaxBytes: number;
}

/** One reply button: its label, and the payload the provider sends back when the customer taps it. */
export interface OutboundButton {
  payload: string;
  title: string;
}

/** Where each provider's API is: configuration (channelEndpointsFromEnv), so tests use local fakes. */
export interface ChannelEndpoints {
  /** Meta's Graph API root, e.g. https://graph.facebook.com (WhatsApp Cloud API, Messenger, Instagram). */
  metaGraphUrl: string;
  /** e.g. v23.0 */
  metaGraphVersion: string;
  /** Telegram Bot API root, e.g. https://api.telegram.org */
  telegramApiUrl: string;
  /** X API root, e.g. https://api.x.com */
  xApiUrl: string;
}

/**
 * One connected account as an adapter sees it. `externalAccountId` is the provider's id for the
 * account (WhatsApp phone-number id, Facebook page id, Instagram account id, Telegram bot id, X user
 * id); `settings` are its plain settings (e.g. WhatsApp business account id), `secrets` its
 * decrypted credentials (access token, app secret, bot token, …) and `verifyToken` the token the
 * platform generated for the provider's handshake or secret header.
 */
export interface ChannelAccount {
  id: string;
  kind: MessagingChannelKind;
  externalAccountId: string;
  settings: Record<string, string>;
  secrets: Record<string, string>;
  verifyToken: string;
}

/** A webhook request as received: header names lower-case, the body exactly as sent. */
export interface WebhookRequest {
  method: 'GET' | 'POST';
  query: Record<string, string | undefined>;
  headers: Record<string, string | undefined>;
  rawBody: Buffer;
}

/**
 * What verification decided, before anything is parsed:
 * - `challenge`: a provider handshake (Meta's hub.challenge, X's CRC); answer `body` with 200;
 * - `verified`: a signed event, to parse;
 * - `refused`: answer 401 (403 for a failed handshake) and store nothing.
 */
export type WebhookVerdict =
  | { kind: 'challenge'; body: string; contentType: 'text/plain' | 'application/json' }
  | { kind: 'verified' }
  | { kind: 'refused'; reason: string };

/** A medium the customer sent, to fetch at once with fetchMedia (provider URLs expire). */
export interface InboundMediaRef {
  kind: AttachmentKind;
  /** The provider's media id (WhatsApp media id, Telegram file_id) or its URL (Messenger, Instagram, X). */
  ref: string;
  mimeType?: string;
  fileName?: string;
  caption?: string;
  /** As announced by the provider, when it does. */
  size?: number;
}

export type ReceiptStatus = 'sent' | 'delivered' | 'read' | 'failed';

/** Every event a webhook payload carries, in payload order (a batch yields several). */
export type InboundEvent =
  | {
      type: 'message';
      /** The provider's id for the message: the key that makes a re-delivery a no-op. */
      providerMessageId: string;
      contact: { externalId: string; name?: string; username?: string };
      at: Date;
      text?: string;
      media?: InboundMediaRef[];
      /**
       * The customer tapped a reply button the platform sent: its payload (OutboundButton.payload);
       * `text` is the button's label, as the customer's app shows it. `ack` is what the adapter's
       * acknowledgeButton needs (Telegram's callback_query id), when the provider wants an answer.
       */
      button?: { payload: string; ack?: string };
    }
  | {
      type: 'receipt';
      /** The provider's id of a message the platform sent. */
      providerMessageId: string;
      status: ReceiptStatus;
      at: Date;
      contactExternalId?: string;
      /** With `failed`: the provider's reason, shown to the agent. */
      error?: { code: string; message: string };
      /** What the sender attached to the message (WhatsApp biz_opaque_callback_data): correlates a receipt that beats the send's answer. */
      callbackData?: string;
    }
  /** A provider template's review or quality status moved (WhatsApp message_template_status_update). */
  | { type: 'template-status'; providerTemplateId: string; name: string; language: string; status: string; reason?: string; at: Date }
  | { type: 'typing'; contactExternalId: string; at: Date }
  /** The number's quality or messaging-limit tier moved (WhatsApp phone_number_quality_update). */
  | { type: 'quality-update'; displayPhoneNumber: string; event: string; currentLimit?: string; oldLimit?: string; at: Date }
  /** The customer blocked the bot (Telegram `kicked`), stopped marketing (WhatsApp), or came back (`opt-in`). */
  | { type: 'opt-out' | 'opt-in'; contactExternalId: string; at: Date; reason: 'blocked' | 'marketing' | 'unblocked' };

/** A template's parameters, in the provider's component order (header, body, buttons). */
export interface TemplateSend {
  name: string;
  language: string;
  /** Body parameters in order ({{1}}, {{2}}, …). */
  bodyParameters: string[];
  headerParameters?: string[];
  /** A NAMED template's parameter names, in the order of the values above (sent as `parameter_name`). */
  parameterNames?: { header?: string[]; body?: string[] };
  /** The image, video or document of a media header: a public https link or an uploaded media id. */
  headerMedia?: { kind: 'image' | 'video' | 'document'; link?: string; id?: string; fileName?: string };
}

export interface TemplateInfo {
  name: string;
  language: string;
  status: string;
  category: string;
  /** The body text with its {{n}} placeholders. */
  body: string;
  parameterCount: number;
  /** A text header with its {{n}} placeholders (sent as the header component's parameters), or null when there is none. */
  headerText: string | null;
  headerParameterCount: number;
  /** NAMED ({{first_name}}, values sent with parameter_name) or POSITIONAL ({{1}}). */
  parameterFormat?: 'POSITIONAL' | 'NAMED';
  /** A NAMED template's parameter names in the order the values go; empty for a positional one. */
  headerParameterNames?: string[];
  bodyParameterNames?: string[];
  /** Meta's approved examples by parameter name (or '1', '2'… for a positional body). */
  parameterExamples?: Record<string, string>;
  /** The header's format: TEXT, IMAGE, VIDEO or DOCUMENT (the send then needs headerMedia), null without a header. */
  headerFormat?: 'TEXT' | 'IMAGE' | 'VIDEO' | 'DOCUMENT' | null;
}

/** One message to send: exactly one of text, media or template. */
export interface OutboundMessage {
  to: string;
  text?: string;
  media?: { kind: AttachmentKind; mimeType: string; fileName: string; bytes: Buffer; caption?: string };
  template?: TemplateSend;
  /** Messenger/Instagram outside the 24 h window, where the account has the human-agent tag. */
  humanAgentTag?: boolean;
  /** Echoed by the provider in the message's receipts (WhatsApp biz_opaque_callback_data, at most 512 characters). */
  callbackData?: string;
  /** Reply buttons with the text (capabilities.buttons; at most its max). Ignored with media or a template. */
  buttons?: OutboundButton[];
}

/** A template as submitted for the provider's review (WhatsApp: Meta's message_templates components). */
export interface TemplateDefinition {
  name: string;
  language: string;
  category: 'MARKETING' | 'UTILITY' | 'AUTHENTICATION';
  /** NAMED for {{first_name}} parameters (sent as Meta's `parameter_format`); positional by default. */
  parameterFormat?: 'POSITIONAL' | 'NAMED';
  /** Meta's components (HEADER, BODY, FOOTER, BUTTONS) with their examples, as Meta takes them. */
  components: Record<string, unknown>[];
}

/** A template's review state at the provider. */
export interface TemplateStatusInfo {
  providerTemplateId: string;
  name: string;
  language: string;
  status: string;
  category: string;
  reason?: string;
}

export interface SendContext {
  /** Stable per platform message: a provider that supports idempotency gets it, and a retry never sends twice. */
  idempotencyKey: string;
}

export interface SendResult {
  providerMessageId: string;
}

export interface FetchedMedia {
  bytes: Buffer;
  mimeType: string;
  fileName?: string;
}

export interface ChannelAdapter {
  readonly kind: MessagingChannelKind;
  readonly capabilities: ChannelCapabilities;
  /** Names of the secrets and settings an administrator enters (the console's form and the API's check). */
  readonly credentials: { secrets: readonly string[]; settings: readonly string[] };
  /** Checks the signature, secret header or handshake over the raw bytes, in constant time. Never throws. */
  verifyWebhook(request: WebhookRequest, account: ChannelAccount): WebhookVerdict;
  /** Every event of a verified body; throws WebhookPayloadError when the body is not what the provider sends. */
  parseWebhook(rawBody: Buffer, account: ChannelAccount): InboundEvent[];
  /** The provider's stable id for one delivery of a verified body (dedupe of raw events); null when it has none. */
  deliveryId(rawBody: Buffer, account: ChannelAccount): string | null;
  /** Throws ChannelError (retryable or not) on failure. */
  send(account: ChannelAccount, message: OutboundMessage, context: SendContext): Promise<SendResult>;
  markRead(account: ChannelAccount, input: { contactExternalId: string; providerMessageId: string }): Promise<void>;
  /** Downloads a medium at once, refusing more than `maxBytes`. */
  fetchMedia(account: ChannelAccount, media: InboundMediaRef, maxBytes: number): Promise<FetchedMedia>;
  /** Calls the provider with the account's credentials; answers the account's display name there. */
  testConnection(account: ChannelAccount): Promise<{ name: string }>;
  /**
   * The customer's display name where webhooks carry only their id (Messenger, Instagram): the core
   * asks once per new contact, and a failure leaves the contact named by its id.
   */
  profile?(account: ChannelAccount, contactExternalId: string): Promise<{ name?: string; username?: string }>;
  /**
   * Tells the provider a button tap was taken (Telegram's answerCallbackQuery, which stops the
   * button's spinner); only providers that want it. `ack` is InboundEvent's button.ack.
   */
  acknowledgeButton?(account: ChannelAccount, ack: string): Promise<void>;
  /** Approved templates (capabilities.templates only). */
  listTemplates?(account: ChannelAccount): Promise<TemplateInfo[]>;
  /** Submits a template for the provider's review; answers its id and first status (capabilities.templates only). */
  createTemplate?(account: ChannelAccount, template: TemplateDefinition): Promise<TemplateStatusInfo>;
  /** Every template of the account with its review status, whatever it is (the manual "sync now"). */
  templateStatuses?(account: ChannelAccount): Promise<TemplateStatusInfo[]>;
  /**
   * Uploads a media header's sample for a template's review (WhatsApp: Meta's Resumable Upload API)
   * and answers the handle that goes in the template's `example.header_handle`.
   */
  uploadTemplateSample?(account: ChannelAccount, sample: { bytes: Buffer; mimeType: string; fileName: string }): Promise<string>;
  /**
   * Uploads a medium to the provider once and answers its id, for sends that reuse it (a campaign's
   * media header: WhatsApp's POST /{phone-number-id}/media; Meta keeps it 30 days).
   */
  uploadMedia?(account: ChannelAccount, media: NonNullable<OutboundMessage['media']>): Promise<string>;
  /**
   * Points the provider's webhook at `url` (the account's webhook URL) with the account's
   * credentials and verify token, so connecting needs no trip to the provider's console; only
   * providers with an API for it (Telegram's setWebhook, X's webhooks and subscriptions). Throws
   * ChannelError with the reason.
   */
  registerWebhook?(account: ChannelAccount, url: string): Promise<void>;
  /**
   * How the platform receives the account's messages: the provider's webhook (default) or a
   * mailbox the worker reads (email), so the console shows no webhook URL to paste.
   */
  readonly inbound?: 'webhook' | 'mailbox';
  /** The first problem of plain settings (and the account id) as typed: answered 400 by the API, naming the field; null when fine. */
  settingsProblem?(settings: Record<string, string>, externalAccountId: string): { field: string; message: string } | null;
}

/** A webhook body that verified but is not what the provider sends: answered 400, nothing stored. */
export class WebhookPayloadError extends Error {
  override name = 'WebhookPayloadError';
}

/**
 * A provider call that failed. `retryable` (network errors, 5xx, rate limits) means the worker
 * tries again with backoff (not before `retryAfterMs` when the provider said so); otherwise the
 * message is failed for good and `message` (the provider's reason) is shown to the agent.
 */
export class ChannelError extends Error {
  override name = 'ChannelError';
  constructor(
    message: string,
    readonly details: { code: string; retryable: boolean; retryAfterMs?: number; status?: number },
  ) {
    super(message);
  }
}
