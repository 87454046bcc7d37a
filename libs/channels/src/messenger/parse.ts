import { WebhookPayloadError, type AttachmentKind, type ChannelAccount, type InboundEvent, type InboundMediaRef } from '../adapter';
import type { MessagingItem } from './payload';

/** What a Messenger attachment type is on the platform; `fallback`, `location`, `share`, `story_mention`, reels… have no file to keep. */
const ATTACHMENT_KINDS: Record<string, AttachmentKind> = { image: 'image', audio: 'audio', video: 'video', file: 'document' };

/** The prefix of a receipt that covers every message sent up to a time rather than one message id. */
export const WATERMARK_PREFIX = 'watermark:';

/**
 * Every event of a verified Messenger (`object: page`) or Instagram (`object: instagram`) webhook
 * body, in payload order. Skipped (not errors): echoes of the account's own sends, deleted or
 * unsupported messages, reactions, referrals, edits, handover and other kinds the platform does not
 * handle, and entries of another Page or Instagram account (one Meta app delivers every account it
 * serves to the same callback URL: their events belong to that account's webhook, not this one's).
 */
export function parseMessagingWebhook(rawBody: Buffer, account: ChannelAccount, expectedObject: 'page' | 'instagram'): InboundEvent[] {
  let body: unknown;
  try {
    body = JSON.parse(rawBody.toString('utf8'));
  } catch {
    throw new WebhookPayloadError('the body is not JSON');
  }
  if (!isObject(body)) throw new WebhookPayloadError('the body is not a JSON object');
  if (body.object !== expectedObject) {
    throw new WebhookPayloadError(`expected object "${expectedObject}", got ${JSON.stringify(body.object)?.slice(0, 40)}`);
  }
  if (!Array.isArray(body.entry)) throw new WebhookPayloadError('entry must be an array');

  const events: InboundEvent[] = [];
  body.entry.forEach((entry: unknown, entryIndex: number) => {
    const where = `entry[${entryIndex}]`;
    if (!isObject(entry)) throw new WebhookPayloadError(`${where} must be an object`);
    if (typeof entry.id !== 'string' && typeof entry.id !== 'number') throw new WebhookPayloadError(`${where}.id must be a string`);
    if (entry.messaging === undefined) return; // `changes` (comments, mentions) or `standby`: not messaging events.
    if (!Array.isArray(entry.messaging)) throw new WebhookPayloadError(`${where}.messaging must be an array`);
    const accountId = String(entry.id);
    if (accountId !== account.externalAccountId) return;
    entry.messaging.forEach((item: unknown, itemIndex: number) => {
      events.push(...parseItem(item, `${where}.messaging[${itemIndex}]`, accountId));
    });
  });
  return events;
}

function parseItem(raw: unknown, where: string, accountId: string): InboundEvent[] {
  if (!isObject(raw)) throw new WebhookPayloadError(`${where} must be an object`);
  const senderId = idOf(raw.sender, `${where}.sender`);
  idOf(raw.recipient, `${where}.recipient`);
  const item = raw as unknown as MessagingItem;
  const timestamp = optionalNumber(raw.timestamp, `${where}.timestamp`);

  if (raw.message !== undefined) return parseMessage(raw.message, where, senderId, accountId, timestamp);

  if (raw.delivery !== undefined) {
    if (!isObject(raw.delivery)) throw new WebhookPayloadError(`${where}.delivery must be an object`);
    const watermark = requiredNumber(raw.delivery.watermark, `${where}.delivery.watermark`);
    const at = dateOf(timestamp ?? watermark, `${where}.delivery.watermark`);
    const mids = raw.delivery.mids;
    if (mids !== undefined && !(Array.isArray(mids) && mids.every((mid) => typeof mid === 'string' && mid))) {
      throw new WebhookPayloadError(`${where}.delivery.mids must be an array of message ids`);
    }
    // `mids` is absent for older Messenger clients: then only the watermark says what was delivered.
    const ids = mids && mids.length ? (mids as string[]) : [`${WATERMARK_PREFIX}${watermark}`];
    return ids.map((providerMessageId) => ({ type: 'receipt', providerMessageId, status: 'delivered', at, contactExternalId: senderId }));
  }

  if (raw.read !== undefined) {
    if (!isObject(raw.read)) throw new WebhookPayloadError(`${where}.read must be an object`);
    if (typeof raw.read.mid === 'string' && raw.read.mid) {
      // Instagram's messaging_seen names the message read.
      const at = dateOf(timestamp ?? Date.now(), `${where}.timestamp`);
      return [{ type: 'receipt', providerMessageId: raw.read.mid, status: 'read', at, contactExternalId: senderId }];
    }
    const watermark = requiredNumber(raw.read.watermark, `${where}.read.watermark`);
    const at = dateOf(timestamp ?? watermark, `${where}.read.watermark`);
    return [{ type: 'receipt', providerMessageId: `${WATERMARK_PREFIX}${watermark}`, status: 'read', at, contactExternalId: senderId }];
  }

  if (raw.optin !== undefined) {
    if (!isObject(raw.optin)) throw new WebhookPayloadError(`${where}.optin must be an object`);
    const status = item.optin?.notification_messages_status;
    if (item.optin?.type !== 'notification_messages' || (status !== 'STOP_NOTIFICATIONS' && status !== 'RESUME_NOTIFICATIONS')) return [];
    const at = dateOf(timestamp ?? Date.now(), `${where}.timestamp`);
    return [{ type: status === 'STOP_NOTIFICATIONS' ? 'opt-out' : 'opt-in', contactExternalId: senderId, at, reason: 'marketing' }];
  }

  if (raw.postback !== undefined) {
    // A tapped button (e.g. "Get Started"): what the customer chose, shown as their text.
    if (!isObject(raw.postback)) throw new WebhookPayloadError(`${where}.postback must be an object`);
    const { mid, title } = raw.postback;
    if (typeof mid !== 'string' || !mid || typeof title !== 'string' || !title || senderId === accountId) return [];
    const at = dateOf(timestamp ?? Date.now(), `${where}.timestamp`);
    return [{ type: 'message', providerMessageId: mid, contact: { externalId: senderId }, at, text: title }];
  }
  return [];
}

function parseMessage(raw: unknown, where: string, senderId: string, accountId: string, timestamp: number | undefined): InboundEvent[] {
  if (!isObject(raw)) throw new WebhookPayloadError(`${where}.message must be an object`);
  // Our own sends come back as echoes (Messenger's message_echoes, Instagram's `messages` field).
  if (raw.is_echo === true || senderId === accountId) return [];
  if (raw.is_deleted === true || raw.is_unsupported === true) return [];
  if (typeof raw.mid !== 'string' || !raw.mid) throw new WebhookPayloadError(`${where}.message.mid must be a string`);
  if (raw.text !== undefined && typeof raw.text !== 'string') throw new WebhookPayloadError(`${where}.message.text must be a string`);
  const attachments = raw.attachments === undefined ? [] : raw.attachments;
  if (!Array.isArray(attachments)) throw new WebhookPayloadError(`${where}.message.attachments must be an array`);
  const at = dateOf(requiredNumber(timestamp, `${where}.timestamp`), `${where}.timestamp`);

  const media: InboundMediaRef[] = [];
  attachments.forEach((attachment: unknown, index: number) => {
    const path = `${where}.message.attachments[${index}]`;
    if (!isObject(attachment) || typeof attachment.type !== 'string')
      throw new WebhookPayloadError(`${path} must be an object with a type`);
    const kind = ATTACHMENT_KINDS[attachment.type];
    if (!kind) return;
    const url = isObject(attachment.payload) ? attachment.payload.url : undefined;
    if (typeof url !== 'string' || !isHttpUrl(url)) throw new WebhookPayloadError(`${path}.payload.url must be an http(s) URL`);
    const title = isObject(attachment.payload) && typeof attachment.payload.title === 'string' ? attachment.payload.title : undefined;
    media.push(title && kind === 'document' ? { kind, ref: url, fileName: title } : { kind, ref: url });
  });
  const text = typeof raw.text === 'string' && raw.text.length ? raw.text : undefined;
  // A tapped quick reply: its title is the text, its payload what the platform offered.
  const quickReply = isObject(raw.quick_reply) && typeof raw.quick_reply.payload === 'string' ? raw.quick_reply.payload : undefined;
  // A location, a shared post or a story mention carries nothing the desk can show: not a message.
  if (text === undefined && media.length === 0) return [];
  return [
    {
      type: 'message',
      providerMessageId: raw.mid,
      // Webhooks carry only the scoped id: the name comes from the adapter's profile() on demand.
      contact: { externalId: senderId },
      at,
      ...(text !== undefined ? { text } : {}),
      ...(media.length ? { media } : {}),
      ...(quickReply && text !== undefined ? { button: { payload: quickReply } } : {}),
    },
  ];
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function idOf(value: unknown, where: string): string {
  if (!isObject(value) || typeof value.id !== 'string' || !value.id) throw new WebhookPayloadError(`${where}.id must be a string`);
  return value.id;
}

function optionalNumber(value: unknown, where: string): number | undefined {
  if (value === undefined) return undefined;
  return requiredNumber(value, where);
}

function requiredNumber(value: unknown, where: string): number {
  if (typeof value !== 'number' || !Number.isFinite(value)) throw new WebhookPayloadError(`${where} must be a number`);
  return value;
}

function dateOf(ms: number, where: string): Date {
  const date = new Date(ms);
  if (Number.isNaN(date.getTime())) throw new WebhookPayloadError(`${where} is not a time`);
  return date;
}

function isHttpUrl(value: string): boolean {
  try {
    const url = new URL(value);
    return url.protocol === 'https:' || url.protocol === 'http:';
  } catch {
    return false;
  }
}
