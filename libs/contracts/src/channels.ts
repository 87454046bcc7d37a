/**
 * Messaging channel accounts and the messages they carry, as the API answers them and the console
 * shows them (issue 19). The adapters themselves live in libs/channels (Node only).
 */
import type { ChannelKind } from './constants';

/** Every digital channel but web chat: those an account connects to a provider. */
export type MessagingKind = Exclude<ChannelKind, 'webchat'>;
export const MESSAGING_KINDS: readonly MessagingKind[] = ['whatsapp', 'facebook', 'instagram', 'telegram', 'twitter', 'email'];

/** Whether a conversation's channel is one of a provider account (MESSAGING_KINDS): its sends obey that channel's rules. */
export function isMessagingChannel(channel: string | null): channel is MessagingKind {
  return channel !== null && (MESSAGING_KINDS as readonly string[]).includes(channel);
}

/** The conversation channel of a caller (the stored spelling; the console names it 'Phone'): no text reaches them. */
export const PHONE_CHANNEL = 'phone';

/** A sent message's way to the customer; only forward (sent < delivered < read), `failed` is terminal. */
export type MessageDeliveryStatus = 'pending' | 'sent' | 'delivered' | 'read' | 'failed';
export const DELIVERY_STATUS_RANK: Record<MessageDeliveryStatus, number> = { pending: 0, sent: 1, delivered: 2, read: 3, failed: 4 };

export type AttachmentKind = 'image' | 'document' | 'audio' | 'video';

export interface AttachmentView {
  id: string;
  kind: AttachmentKind;
  fileName: string;
  mimeType: string;
  size: number;
  /** Staff download path (GET, bearer): served as an attachment with nosniff. */
  url: string;
}

/** What the console's account form needs per kind: GET /api/channel-kinds. */
export interface ChannelKindView {
  kind: MessagingKind;
  /** Secret credential names (write-only: never answered back). */
  secrets: string[];
  /** Plain setting names. */
  settings: string[];
  textLimit: number;
  replyWindowHours: number | null;
  humanAgentTagHours: number | null;
  templates: boolean;
  attachments: Partial<Record<AttachmentKind, { maxBytes: number; mimeTypes: string[] }>>;
  /** X is paid-only and being replaced: offered only when CHANNEL_X_ENABLED=on. */
  enabled: boolean;
  /**
   * The platform can tell the provider the account's webhook URL itself (Telegram's setWebhook):
   * POST /api/channel-accounts/:id/register-webhook. Otherwise the administrator pastes it.
   */
  registersWebhook: boolean;
  /**
   * How the platform receives the account's messages: a provider's webhook (the account shows its
   * URL and verify token; the default), or a mailbox the worker reads (email: IMAP, nothing to paste).
   */
  inbound?: 'webhook' | 'mailbox';
}

/** A connected account: GET/POST /api/channel-accounts, PUT/DELETE /api/channel-accounts/:id. */
export interface ChannelAccountView {
  id: string;
  kind: MessagingKind;
  name: string;
  /** The provider's id of the account (phone-number id, page id, Instagram id, bot id, X user id). */
  externalAccountId: string;
  attentionLineId: string;
  settings: Record<string, string>;
  /** Which secrets are set (values never leave the server). */
  secretsSet: string[];
  /** To paste at the provider: the webhook URL and the verify token (Meta) / secret token (Telegram). */
  webhookUrl: string;
  verifyToken: string;
  enabled: boolean;
  /** The last provider check: POST /api/channel-accounts/:id/test. */
  lastCheck: { ok: boolean; at: string; message: string | null } | null;
  /** When the last webhook arrived (the console's online indicator, spec §4). */
  lastEventAt: string | null;
  createdAt: string;
}

export interface ChannelAccountInput {
  kind: MessagingKind;
  name: string;
  externalAccountId: string;
  attentionLineId: string;
  settings?: Record<string, string>;
  secrets?: Record<string, string>;
  enabled?: boolean;
}
/** PUT: any field; `secrets` replaces only the names it carries. */
export type ChannelAccountUpdate = Partial<Omit<ChannelAccountInput, 'kind'>>;

/** GET /api/conversations/:id/reply-window: whether free text can still go out, and until when. */
export interface ReplyWindowView {
  conversationId: string;
  channel: ChannelKind;
  /** true for channels without a window (web chat, Telegram, X). */
  open: boolean;
  /** ISO time the window closes (null: no window, or no customer message yet). */
  until: string | null;
  /** Outside the window with this tag, free text may still go until `humanAgentUntil`. */
  humanAgentUntil: string | null;
  /** The account offers approved templates (WhatsApp). */
  templates: boolean;
  /** The customer opted out (blocked the bot, STOP): nothing can be sent. */
  optedOut: boolean;
}

export interface TemplateView {
  name: string;
  language: string;
  /** Meta's category word: UTILITY, MARKETING or AUTHENTICATION (the console names the TEMPLATE_CATEGORIES). */
  category: string;
  body: string;
  parameterCount: number;
  /** The text header with its {{n}} placeholders, or null when the template has none. */
  headerText: string | null;
  headerParameterCount: number;
  /** NAMED templates ({{first_name}}) take their values by name; POSITIONAL ({{1}}) in order (absent: POSITIONAL). */
  parameterFormat?: 'POSITIONAL' | 'NAMED';
  /** A NAMED template's parameter names in the order the values go (header, body); empty for a positional one. */
  headerParameterNames?: string[];
  bodyParameterNames?: string[];
  /** The examples Meta approved, by parameter name (the picker's placeholders). */
  parameterExamples?: Record<string, string>;
  /** IMAGE, VIDEO or DOCUMENT: the send needs headerMedia (a link or an uploaded file); TEXT or null otherwise. */
  headerFormat?: 'TEXT' | 'IMAGE' | 'VIDEO' | 'DOCUMENT' | null;
}

/** POST /api/conversations/:id/template-messages */
export interface TemplateMessageInput {
  name: string;
  language: string;
  /** Values in order: {{1}}, {{2}}…, or for a NAMED template in the order of bodyParameterNames. */
  bodyParameters: string[];
  /** The text header's parameters in order; as many as headerParameterCount (omitted when it is 0). */
  headerParameters?: string[];
  /** A media header's file: a public https link (POST …/template-messages/media uploads one instead). */
  headerMedia?: { link: string; fileName?: string };
  clientMessageId?: string;
}

/** Meta's template categories the console names (desk.templates.category.<key>); any other word is shown as sent. */
export const TEMPLATE_CATEGORIES = ['UTILITY', 'MARKETING', 'AUTHENTICATION'] as const;

/** An address of an email, as the desk shows it. */
export interface EmailAddressView {
  address: string;
  name: string | null;
}

/** A sender-authentication verdict of the receiving server (Authentication-Results): null when it did not say. */
export type EmailAuthVerdict = 'pass' | 'fail' | 'softfail' | 'neutral' | 'none' | 'temperror' | 'permerror' | 'policy';

/**
 * One email of a conversation (issue 20), beside its message (the desk's message list shows the
 * message; the email view shows this): GET /api/conversations/:id/emails.
 */
export interface EmailMessageView {
  /** The conversation message it is (null while an inbound one is being stored). */
  messageId: string | null;
  direction: 'in' | 'out';
  subject: string;
  /** RFC 5322 Message-ID, with its angle brackets. */
  messageIdHeader: string;
  inReplyTo: string | null;
  references: string[];
  from: EmailAddressView;
  to: EmailAddressView[];
  cc: EmailAddressView[];
  /** Outbound only (the customer never sees it). */
  bcc: EmailAddressView[];
  /** The new part of the plain text; the quoted part (the earlier mails) folded away in `quoted`. */
  text: string;
  quoted: string;
  /** The HTML as received (the console sanitises it and shows it in a sandboxed frame); null for plain-text mail. */
  html: string | null;
  /** The receiving server's verdicts (inbound only). */
  auth: { spf: EmailAuthVerdict | null; dkim: EmailAuthVerdict | null; dmarc: EmailAuthVerdict | null } | null;
  attachments: AttachmentView[];
  at: string;
  /** Outbound: the SMTP server took it (250) and the platform saw the answer; false when a worker died in between (sent once, unconfirmed). */
  confirmed: boolean | null;
}

/** POST /api/conversations/:id/email-replies (multipart: field `payload` holds this JSON, `files` the attachments). */
export interface EmailReplyInput {
  /** The editor's HTML (sanitised by the server before it is stored or sent). */
  html: string;
  /** Extra recipients; the customer is always the first `to`. */
  cc?: string[];
  bcc?: string[];
  /** Default: "Re: " and the thread's subject. */
  subject?: string;
  clientMessageId?: string;
}
