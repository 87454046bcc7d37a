/**
 * The WhatsApp Cloud API webhook payload (Meta's "messages" and "user_preferences" webhook fields)
 * and its translation into the platform's inbound events.
 *
 * Meta batches: one POST carries `entry[]` (per WhatsApp Business Account), each with `changes[]`,
 * each change's `value` with `messages[]`, `statuses[]` and `user_preferences[]`. Every one of them
 * becomes an event, in payload order. A change for another phone number of the same business
 * account (its `metadata.phone_number_id` is not this account's) belongs to another channel account
 * and is ignored here.
 */
import { WebhookPayloadError, type InboundEvent, type InboundMediaRef, type ReceiptStatus } from '../adapter';
import { reasonForCode } from './graph';

export interface WhatsAppContact {
  profile?: { name?: string; username?: string };
  /** The user's phone number as WhatsApp id; absent for users with a username whose number Meta withholds. */
  wa_id?: string;
  /** The business-scoped user id (BSUID, e.g. "US.13491208655302741918"), present in newer payloads. */
  user_id?: string;
}

export interface WhatsAppMediaObject {
  id: string;
  mime_type?: string;
  sha256?: string;
  caption?: string;
  filename?: string;
  voice?: boolean;
  animated?: boolean;
}

export interface WhatsAppInboundMessage {
  id: string;
  from?: string;
  from_user_id?: string;
  timestamp: string;
  type: string;
  text?: { body: string };
  image?: WhatsAppMediaObject;
  document?: WhatsAppMediaObject;
  audio?: WhatsAppMediaObject;
  video?: WhatsAppMediaObject;
  sticker?: WhatsAppMediaObject;
  location?: { latitude: number; longitude: number; name?: string; address?: string };
  button?: { text: string; payload?: string };
  interactive?: { type: string; button_reply?: { id: string; title: string }; list_reply?: { id: string; title: string } };
  contacts?: { name?: { formatted_name?: string }; phones?: { phone?: string }[] }[];
}

export interface WhatsAppError {
  code: number;
  title?: string;
  message?: string;
  error_data?: { details?: string };
}

export interface WhatsAppStatus {
  id: string;
  status: string;
  timestamp: string;
  recipient_id?: string;
  recipient_user_id?: string;
  errors?: WhatsAppError[];
}

export interface WhatsAppUserPreference {
  wa_id?: string;
  user_id?: string;
  detail?: string;
  category: string;
  value: string;
  timestamp: number | string;
}

export interface WhatsAppChangeValue {
  messaging_product: 'whatsapp';
  metadata: { display_phone_number?: string; phone_number_id: string };
  contacts?: WhatsAppContact[];
  messages?: WhatsAppInboundMessage[];
  statuses?: WhatsAppStatus[];
  user_preferences?: WhatsAppUserPreference[];
  errors?: WhatsAppError[];
}

export interface WhatsAppWebhookPayload {
  object: 'whatsapp_business_account';
  entry: { id: string; changes: { field: string; value: WhatsAppChangeValue }[] }[];
}

/** The webhook fields this adapter reads; any other field a business subscribes to is skipped. */
const HANDLED_FIELDS = new Set(['messages', 'user_preferences']);
const MEDIA_KINDS: Record<string, InboundMediaRef['kind']> = {
  image: 'image',
  // A sticker is a WebP image: shown to the agent as one.
  sticker: 'image',
  document: 'document',
  audio: 'audio',
  video: 'video',
};
const RECEIPT_STATUSES = new Set<ReceiptStatus>(['sent', 'delivered', 'read', 'failed']);

/** Parses a verified body into the events for the account whose phone-number id is `phoneNumberId`. */
export function parseWhatsAppWebhook(
  rawBody: Buffer,
  phoneNumberId: string,
  options: { displayPhoneNumber?: string } = {},
): InboundEvent[] {
  let body: unknown;
  try {
    body = JSON.parse(rawBody.toString('utf8'));
  } catch {
    throw new WebhookPayloadError('the body is not JSON');
  }
  const root = object(body, 'body');
  if (root.object !== 'whatsapp_business_account') {
    throw new WebhookPayloadError(`object is ${JSON.stringify(root.object)}, not "whatsapp_business_account"`);
  }
  const events: InboundEvent[] = [];
  array(root.entry, 'entry', true).forEach((entryValue, entryIndex) => {
    const entry = object(entryValue, `entry[${entryIndex}]`);
    array(entry.changes, `entry[${entryIndex}].changes`, true).forEach((changeValue, changeIndex) => {
      const where = `entry[${entryIndex}].changes[${changeIndex}]`;
      const change = object(changeValue, where);
      if (change.field === 'message_template_status_update') {
        // Template reviews belong to the business account (entry.id), not to one phone number.
        const event = templateStatusEvent(object(change.value, `${where}.value`), `${where}.value`);
        if (event) events.push(event);
        return;
      }
      if (change.field === 'phone_number_quality_update') {
        const event = qualityUpdateEvent(object(change.value, `${where}.value`), `${where}.value`, options.displayPhoneNumber);
        if (event) events.push(event);
        return;
      }
      if (typeof change.field !== 'string' || !HANDLED_FIELDS.has(change.field)) return;
      const value = object(change.value, `${where}.value`);
      const metadata = object(value.metadata, `${where}.value.metadata`);
      if (string(metadata.phone_number_id, `${where}.value.metadata.phone_number_id`) !== phoneNumberId) return;
      events.push(...changeEvents(value, where));
    });
  });
  return events;
}

function changeEvents(value: Record<string, unknown>, where: string): InboundEvent[] {
  const events: InboundEvent[] = [];
  const contacts = array(value.contacts, `${where}.value.contacts`).map((contact, index) =>
    readContact(object(contact, `${where}.value.contacts[${index}]`), `${where}.value.contacts[${index}]`),
  );
  array(value.messages, `${where}.value.messages`).forEach((messageValue, index) => {
    const event = messageEvent(object(messageValue, `${where}.value.messages[${index}]`), contacts, `${where}.value.messages[${index}]`);
    if (event) events.push(event);
  });
  array(value.statuses, `${where}.value.statuses`).forEach((statusValue, index) => {
    const event = receiptEvent(object(statusValue, `${where}.value.statuses[${index}]`), `${where}.value.statuses[${index}]`);
    if (event) events.push(event);
  });
  array(value.user_preferences, `${where}.value.user_preferences`).forEach((preferenceValue, index) => {
    const event = preferenceEvent(
      object(preferenceValue, `${where}.value.user_preferences[${index}]`),
      `${where}.value.user_preferences[${index}]`,
    );
    if (event) events.push(event);
  });
  return events;
}

interface ContactIdentity {
  waId?: string;
  userId?: string;
  name?: string;
  username?: string;
}

function readContact(contact: Record<string, unknown>, where: string): ContactIdentity {
  const profile = contact.profile === undefined ? {} : object(contact.profile, `${where}.profile`);
  return {
    waId: optionalString(contact.wa_id, `${where}.wa_id`),
    userId: optionalString(contact.user_id, `${where}.user_id`),
    name: optionalString(profile.name, `${where}.profile.name`),
    username: optionalString(profile.username, `${where}.profile.username`),
  };
}

/**
 * The contact's identity is the phone number (wa_id / `from`) whenever Meta gives it: that is what
 * the Cloud API sends `to`, and what every existing contact is keyed by. A user whose number Meta
 * withholds (usernames) is known by the business-scoped user id instead, to which messages go as
 * `recipient`.
 */
function messageEvent(message: Record<string, unknown>, contacts: ContactIdentity[], where: string): InboundEvent | null {
  const id = string(message.id, `${where}.id`);
  const from = optionalString(message.from, `${where}.from`);
  const fromUserId = optionalString(message.from_user_id, `${where}.from_user_id`);
  const at = timestamp(message.timestamp, `${where}.timestamp`);
  const type = string(message.type, `${where}.type`);
  const contact =
    contacts.find((candidate) => (from && candidate.waId === from) || (fromUserId && candidate.userId === fromUserId)) ??
    (contacts.length === 1 ? contacts[0] : undefined);
  const externalId = from ?? contact?.waId ?? fromUserId ?? contact?.userId;
  if (!externalId) throw new WebhookPayloadError(`${where} names no sender (from / from_user_id)`);
  const base = {
    type: 'message' as const,
    providerMessageId: id,
    contact: { externalId, name: contact?.name, username: contact?.username },
    at,
  };
  const content = messageContent(message, type, where);
  return content ? { ...base, ...content } : null;
}

/** The text or media of a customer message; null for kinds the desk has nothing to show for (reactions, system notices, unsupported). */
function messageContent(
  message: Record<string, unknown>,
  type: string,
  where: string,
): { text?: string; media?: InboundMediaRef[]; button?: { payload: string } } | null {
  if (type === 'text') {
    const text = object(message.text, `${where}.text`);
    return { text: string(text.body, `${where}.text.body`) };
  }
  const mediaKind = MEDIA_KINDS[type];
  if (mediaKind) {
    const media = object(message[type], `${where}.${type}`);
    const caption = optionalString(media.caption, `${where}.${type}.caption`);
    const ref: InboundMediaRef = {
      kind: mediaKind,
      ref: string(media.id, `${where}.${type}.id`),
      mimeType: optionalString(media.mime_type, `${where}.${type}.mime_type`)?.split(';')[0].trim(),
      fileName: optionalString(media.filename, `${where}.${type}.filename`),
      caption,
    };
    return { media: [ref], ...(caption ? { text: caption } : {}) };
  }
  if (type === 'location') {
    const location = object(message.location, `${where}.location`);
    const latitude = number(location.latitude, `${where}.location.latitude`);
    const longitude = number(location.longitude, `${where}.location.longitude`);
    const label = [optionalString(location.name, `${where}.location.name`), optionalString(location.address, `${where}.location.address`)]
      .filter(Boolean)
      .join(', ');
    const link = `https://maps.google.com/?q=${latitude},${longitude}`;
    return { text: label ? `${label}\n${link}` : link };
  }
  if (type === 'button') {
    // The customer tapped a quick-reply button of a template: its label is what they "said".
    const button = object(message.button, `${where}.button`);
    return { text: string(button.text, `${where}.button.text`) };
  }
  if (type === 'interactive') {
    const interactive = object(message.interactive, `${where}.interactive`);
    const reply = interactive.button_reply ?? interactive.list_reply;
    if (reply === undefined) return null;
    // A tap on one of the platform's interactive buttons or list rows: its label, and its id as the payload.
    const chosen = object(reply, `${where}.interactive reply`);
    const id = optionalString(chosen.id, `${where}.interactive reply id`);
    return {
      text: string(chosen.title, `${where}.interactive reply title`),
      ...(id ? { button: { payload: id } } : {}),
    };
  }
  if (type === 'contacts') {
    const cards = array(message.contacts, `${where}.contacts`).map((card, index) => {
      const entry = object(card, `${where}.contacts[${index}]`);
      const name =
        entry.name === undefined
          ? undefined
          : optionalString(object(entry.name, `${where}.contacts[${index}].name`).formatted_name, 'name');
      const phones = array(entry.phones, `${where}.contacts[${index}].phones`)
        .map((phone) => optionalString(object(phone, `${where}.contacts[${index}].phones[]`).phone, 'phone'))
        .filter(Boolean);
      return [name, ...phones].filter(Boolean).join(' ');
    });
    const text = cards.filter(Boolean).join('\n');
    return text ? { text } : null;
  }
  return null;
}

function receiptEvent(status: Record<string, unknown>, where: string): InboundEvent | null {
  const value = string(status.status, `${where}.status`);
  if (!RECEIPT_STATUSES.has(value as ReceiptStatus)) return null;
  const providerMessageId = string(status.id, `${where}.id`);
  const at = timestamp(status.timestamp, `${where}.timestamp`);
  const contactExternalId =
    optionalString(status.recipient_id, `${where}.recipient_id`) ?? optionalString(status.recipient_user_id, `${where}.recipient_user_id`);
  const callbackData = optionalString(status.biz_opaque_callback_data, `${where}.biz_opaque_callback_data`);
  const event: InboundEvent = {
    type: 'receipt',
    providerMessageId,
    status: value as ReceiptStatus,
    at,
    contactExternalId,
    ...(callbackData ? { callbackData } : {}),
  };
  if (value === 'failed') {
    const errors = array(status.errors, `${where}.errors`);
    const first = errors.length ? object(errors[0], `${where}.errors[0]`) : undefined;
    const code = first && typeof first.code === 'number' ? first.code : undefined;
    const errorData = first?.error_data === undefined ? undefined : object(first.error_data, `${where}.errors[0].error_data`);
    const metaReason =
      optionalString(errorData?.details, `${where}.errors[0].error_data.details`) ??
      optionalString(first?.message, `${where}.errors[0].message`) ??
      optionalString(first?.title, `${where}.errors[0].title`) ??
      'WhatsApp could not deliver the message';
    return { ...event, error: { code: code === undefined ? 'unknown' : String(code), message: reasonForCode(code, metaReason) } };
  }
  return event;
}

/**
 * Meta's message_template_status_update: `event` is the new status (APPROVED, REJECTED, PAUSED,
 * DISABLED, FLAGGED, REINSTATED, PENDING_DELETION…), `reason` Meta's rejection reason ("NONE" when
 * there is none), `other_info` the pause's title and description.
 */
function templateStatusEvent(value: Record<string, unknown>, where: string): InboundEvent | null {
  const status = optionalString(value.event, `${where}.event`);
  const id = value.message_template_id;
  if (!status || (typeof id !== 'number' && typeof id !== 'string')) return null;
  const otherInfo = value.other_info === undefined ? undefined : object(value.other_info, `${where}.other_info`);
  const reasonText = optionalString(value.reason, `${where}.reason`);
  const detail = [
    optionalString(otherInfo?.title, `${where}.other_info.title`),
    optionalString(otherInfo?.description, `${where}.other_info.description`),
  ]
    .filter(Boolean)
    .join(': ');
  const reason = [reasonText && reasonText !== 'NONE' ? reasonText : undefined, detail || undefined].filter(Boolean).join(' — ');
  return {
    type: 'template-status',
    providerTemplateId: String(id),
    name: optionalString(value.message_template_name, `${where}.message_template_name`) ?? '',
    language: optionalString(value.message_template_language, `${where}.message_template_language`) ?? '',
    status: status.toUpperCase(),
    ...(reason ? { reason: reason.slice(0, 500) } : {}),
    at: new Date(),
  };
}

/**
 * Meta's phone_number_quality_update (a field of the business account's subscription): the number
 * is named by its display number only (`display_phone_number`), `event` says what moved (FLAGGED,
 * UNFLAGGED, DOWNGRADE, UPGRADE, THROUGHPUT_UPGRADE, ONBOARDING…), `current_limit` / `old_limit` the
 * messaging-limit tiers (TIER_250, TIER_1K…). An update for another number of the account's WABA is
 * ignored when the account knows its display number (setting `displayPhoneNumber`); without it the
 * update is taken as this account's (its webhook URL is its own).
 */
function qualityUpdateEvent(value: Record<string, unknown>, where: string, displayPhoneNumber: string | undefined): InboundEvent | null {
  const event = optionalString(value.event, `${where}.event`);
  if (!event) return null;
  const display = optionalString(value.display_phone_number, `${where}.display_phone_number`) ?? '';
  const digitsOf = (phone: string) => phone.replace(/\D/g, '');
  if (displayPhoneNumber && display && digitsOf(displayPhoneNumber) !== digitsOf(display)) return null;
  // current_limit is being replaced by max_daily_conversations_per_business: either names the tier.
  const maxDaily = value.max_daily_conversations_per_business;
  const currentLimit =
    (typeof maxDaily === 'number' || (typeof maxDaily === 'string' && maxDaily) ? String(maxDaily) : undefined) ??
    optionalString(value.current_limit, `${where}.current_limit`);
  const oldLimit = optionalString(value.old_limit, `${where}.old_limit`);
  return {
    type: 'quality-update',
    displayPhoneNumber: display,
    event: event.toUpperCase(),
    ...(currentLimit ? { currentLimit } : {}),
    ...(oldLimit ? { oldLimit } : {}),
    at: new Date(),
  };
}

function preferenceEvent(preference: Record<string, unknown>, where: string): InboundEvent | null {
  if (preference.category !== 'marketing_messages') return null;
  const value = string(preference.value, `${where}.value`);
  if (value !== 'stop' && value !== 'resume') return null;
  const contactExternalId = optionalString(preference.wa_id, `${where}.wa_id`) ?? optionalString(preference.user_id, `${where}.user_id`);
  if (!contactExternalId) throw new WebhookPayloadError(`${where} names no user (wa_id / user_id)`);
  return {
    type: value === 'stop' ? 'opt-out' : 'opt-in',
    contactExternalId,
    at: timestamp(preference.timestamp, `${where}.timestamp`),
    reason: 'marketing',
  };
}

// Shape checks: a verified body that is not what Meta sends is refused with the path that is wrong.

function object(value: unknown, where: string): Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new WebhookPayloadError(`${where} is not an object`);
  return value as Record<string, unknown>;
}

function array(value: unknown, where: string, required = false): unknown[] {
  if (value === undefined && !required) return [];
  if (!Array.isArray(value)) throw new WebhookPayloadError(`${where} is not an array`);
  return value;
}

function string(value: unknown, where: string): string {
  if (typeof value !== 'string' || value === '') throw new WebhookPayloadError(`${where} is not a non-empty string`);
  return value;
}

function optionalString(value: unknown, where: string): string | undefined {
  if (value === undefined || value === null || value === '') return undefined;
  if (typeof value !== 'string') throw new WebhookPayloadError(`${where} is not a string`);
  return value;
}

function number(value: unknown, where: string): number {
  const parsed = typeof value === 'string' && value.trim() !== '' ? Number(value) : value;
  if (typeof parsed !== 'number' || !Number.isFinite(parsed)) throw new WebhookPayloadError(`${where} is not a number`);
  return parsed;
}

/** Meta's timestamps are Unix seconds, as a string in messages and statuses, a number in preferences. */
function timestamp(value: unknown, where: string): Date {
  const seconds = number(value, where);
  const at = new Date(seconds * 1000);
  if (seconds < 0 || Number.isNaN(at.getTime())) throw new WebhookPayloadError(`${where} is not a Unix time`);
  return at;
}
