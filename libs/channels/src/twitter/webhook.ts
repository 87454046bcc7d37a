import { createHmac } from 'node:crypto';
import type { ChannelAccount, InboundEvent, InboundMediaRef, WebhookRequest, WebhookVerdict } from '../adapter';
import { WebhookPayloadError } from '../adapter';
import { constantTimeEqual } from '../meta/signature';

/**
 * X's Account Activity API webhooks.
 *
 * - CRC: X (and the platform, at registration and then hourly) sends `GET ?crc_token=…`; the answer
 *   is `{"response_token":"sha256=<base64 HMAC-SHA256 of the consumer secret over crc_token>"}`.
 * - Every POST carries `x-twitter-webhooks-signature: sha256=<base64 HMAC-SHA256 of the consumer
 *   secret over the body as sent>`.
 * - A POST body is one JSON object: `for_user_id` (the subscribed account) and one or more arrays
 *   of activities (`direct_message_events`, `direct_message_indicate_typing_events`,
 *   `direct_message_mark_read_events`, `block_events`, `unblock_events`, …) with a `users` map
 *   of the users the DM activities name; `user_event.revoke` when the account revokes the app.
 */

/** The CRC answer for a crc_token. */
export function xCrcResponseToken(consumerSecret: string, crcToken: string): string {
  return `sha256=${createHmac('sha256', consumerSecret).update(crcToken).digest('base64')}`;
}

/** The x-twitter-webhooks-signature of a body as sent. */
export function xWebhookSignature(consumerSecret: string, rawBody: Buffer | string): string {
  return `sha256=${createHmac('sha256', consumerSecret).update(rawBody).digest('base64')}`;
}

/** crc_tokens X sends are short; a longer one is not X's and is not worth hashing. */
const MAX_CRC_TOKEN_LENGTH = 512;

export function verifyXWebhook(request: WebhookRequest, account: ChannelAccount): WebhookVerdict {
  const consumerSecret = account.secrets.consumerSecret;
  if (typeof consumerSecret !== 'string' || !consumerSecret) return { kind: 'refused', reason: 'the account has no consumer secret' };
  if (request.method === 'GET') {
    const crcToken = request.query.crc_token;
    if (typeof crcToken !== 'string' || !crcToken) return { kind: 'refused', reason: 'missing crc_token' };
    if (crcToken.length > MAX_CRC_TOKEN_LENGTH) return { kind: 'refused', reason: 'crc_token too long' };
    return {
      kind: 'challenge',
      body: JSON.stringify({ response_token: xCrcResponseToken(consumerSecret, crcToken) }),
      contentType: 'application/json',
    };
  }
  if (request.method !== 'POST') return { kind: 'refused', reason: `unexpected method ${String(request.method)}` };
  const header = request.headers['x-twitter-webhooks-signature'];
  if (typeof header !== 'string' || !header) return { kind: 'refused', reason: 'missing x-twitter-webhooks-signature' };
  if (!Buffer.isBuffer(request.rawBody)) return { kind: 'refused', reason: 'no raw body' };
  return constantTimeEqual(xWebhookSignature(consumerSecret, request.rawBody), header.trim())
    ? { kind: 'verified' }
    : { kind: 'refused', reason: 'x-twitter-webhooks-signature does not match' };
}

// ---- Parsing -------------------------------------------------------------------------------------

type Json = Record<string, unknown>;

function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function fail(message: string): never {
  throw new WebhookPayloadError(`X webhook: ${message}`);
}

/** X ids are decimal strings (64-bit: never numbers, which would lose precision). */
function idField(object: Json, key: string, where: string): string {
  const value = object[key];
  if (typeof value !== 'string' || !/^\d{1,25}$/.test(value)) fail(`${where}.${key} must be a numeric id string`);
  return value;
}

function objectField(object: Json, key: string, where: string): Json {
  const value = object[key];
  if (!isObject(value)) fail(`${where}.${key} must be an object`);
  return value;
}

/** created_timestamp: epoch milliseconds as a string. */
function timestampField(object: Json, where: string): Date {
  const value = object.created_timestamp;
  if (typeof value !== 'string' || !/^\d{1,15}$/.test(value)) fail(`${where}.created_timestamp must be epoch milliseconds`);
  return new Date(Number(value));
}

function optionalString(object: Json, key: string, where: string): string | undefined {
  const value = object[key];
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'string') fail(`${where}.${key} must be a string`);
  return value;
}

function arrayField(payload: Json, key: string): unknown[] {
  const value = payload[key];
  if (!Array.isArray(value)) fail(`${key} must be an array`);
  return value;
}

/** A user of the payload's `users` map, looked up as an own property (ids like "__proto__" find nothing). */
function userOf(users: Json | undefined, id: string): { name?: string; username?: string } {
  if (!users || !Object.hasOwn(users, id)) return {};
  const user = users[id];
  if (!isObject(user)) return {};
  return {
    name: typeof user.name === 'string' && user.name ? user.name : undefined,
    username: typeof user.screen_name === 'string' && user.screen_name ? user.screen_name : undefined,
  };
}

/**
 * The medium of a DM's `message_data.attachment`: a photo's `media_url_https`; for a video or an
 * animated GIF (whose media_url_https is only a thumbnail) the MP4 variant with the highest bitrate.
 * Downloading either needs the account's user-context authorization (fetchMedia signs it).
 */
function mediaOf(attachment: unknown, where: string): (InboundMediaRef & { shortUrl?: string }) | undefined {
  if (attachment === undefined || attachment === null) return undefined;
  if (!isObject(attachment)) fail(`${where}.attachment must be an object`);
  if (attachment.type !== 'media') return undefined;
  const media = objectField(attachment, 'media', `${where}.attachment`);
  const kind = media.type;
  const shortUrl = typeof media.url === 'string' ? media.url : undefined;
  if (kind === 'photo') {
    const url = optionalString(media, 'media_url_https', `${where}.attachment.media`);
    if (!url) fail(`${where}.attachment.media.media_url_https is missing`);
    return { kind: 'image', ref: url, mimeType: mimeFromUrl(url), fileName: fileNameFromUrl(url), shortUrl };
  }
  if (kind === 'video' || kind === 'animated_gif') {
    const info = objectField(media, 'video_info', `${where}.attachment.media`);
    const variants = Array.isArray(info.variants) ? info.variants.filter(isObject) : [];
    const mp4 = variants
      .filter((variant) => variant.content_type === 'video/mp4' && typeof variant.url === 'string')
      .sort((a, b) => (Number(b.bitrate) || 0) - (Number(a.bitrate) || 0))[0];
    if (!mp4) fail(`${where}.attachment.media.video_info has no video/mp4 variant`);
    const url = mp4.url as string;
    return { kind: 'video', ref: url, mimeType: 'video/mp4', fileName: fileNameFromUrl(url), shortUrl };
  }
  return undefined;
}

function fileNameFromUrl(url: string): string | undefined {
  try {
    const last = new URL(url).pathname.split('/').pop();
    return last ? decodeURIComponent(last) : undefined;
  } catch {
    return undefined;
  }
}

function mimeFromUrl(url: string): string | undefined {
  const extension = fileNameFromUrl(url)?.split('.').pop()?.toLowerCase();
  return extension === 'jpg' || extension === 'jpeg'
    ? 'image/jpeg'
    : extension === 'png'
      ? 'image/png'
      : extension === 'webp'
        ? 'image/webp'
        : extension === 'gif'
          ? 'image/gif'
          : undefined;
}

function parseJson(rawBody: Buffer): Json {
  let payload: unknown;
  try {
    payload = JSON.parse(rawBody.toString('utf8'));
  } catch {
    fail('the body is not JSON');
  }
  if (!isObject(payload)) fail('the body is not a JSON object');
  return payload;
}

const ACCOUNT_ACTIVITIES = new Set([
  'direct_message_events',
  'direct_message_indicate_typing_events',
  'direct_message_mark_read_events',
  'block_events',
  'unblock_events',
]);

/**
 * Every event of a verified Account Activity body, in payload order. DMs the account itself sent
 * (sender_id == for_user_id: the platform's own replies, or a person answering from the X app) are
 * echoes and skipped, as are the account's own typing and reads; activity kinds the product does not
 * use (tweets, follows, likes, mutes, revokes) are skipped, not errors.
 */
export function parseXWebhook(rawBody: Buffer, account: ChannelAccount): InboundEvent[] {
  const payload = parseJson(rawBody);
  const forUserId = payload.for_user_id === undefined ? undefined : idField(payload, 'for_user_id', 'payload');
  if (forUserId !== undefined && forUserId !== account.externalAccountId) {
    fail(`for_user_id ${forUserId} is not this account (${account.externalAccountId})`);
  }
  const users = payload.users === undefined ? undefined : isObject(payload.users) ? payload.users : fail('users must be an object');
  const accountId = (): string => forUserId ?? fail('for_user_id is missing');

  const events: InboundEvent[] = [];
  for (const key of Object.keys(payload)) {
    // Every activity about the account's DMs or blocks names the account it was delivered for.
    if (ACCOUNT_ACTIVITIES.has(key)) accountId();
    switch (key) {
      case 'direct_message_events':
        arrayField(payload, key).forEach((item, index) => {
          const event = parseDirectMessage(item, `${key}[${index}]`, accountId(), users);
          if (event) events.push(event);
        });
        break;
      case 'direct_message_indicate_typing_events':
        arrayField(payload, key).forEach((item, index) => {
          const where = `${key}[${index}]`;
          if (!isObject(item)) fail(`${where} must be an object`);
          const senderId = idField(item, 'sender_id', where);
          if (senderId === accountId()) return;
          events.push({ type: 'typing', contactExternalId: senderId, at: timestampField(item, where) });
        });
        break;
      case 'direct_message_mark_read_events':
        arrayField(payload, key).forEach((item, index) => {
          const where = `${key}[${index}]`;
          if (!isObject(item)) fail(`${where} must be an object`);
          const senderId = idField(item, 'sender_id', where);
          // The account reading the customer's messages says nothing about the platform's replies.
          if (senderId === accountId()) return;
          events.push({
            type: 'receipt',
            // X marks everything up to this event read; the core moves the message it names.
            providerMessageId: idField(item, 'last_read_event_id', where),
            status: 'read',
            at: timestampField(item, where),
            contactExternalId: senderId,
          });
        });
        break;
      case 'block_events':
      case 'unblock_events':
        arrayField(payload, key).forEach((item, index) => {
          const where = `${key}[${index}]`;
          if (!isObject(item)) fail(`${where} must be an object`);
          const sourceId = idField(objectField(item, 'source', where), 'id', `${where}.source`);
          const targetId = idField(objectField(item, 'target', where), 'id', `${where}.target`);
          // Only a customer blocking (or unblocking) the account matters; the account blocking
          // someone is the operator's own decision, already known.
          if (targetId !== accountId() || sourceId === accountId()) return;
          const blocked = key === 'block_events';
          events.push({
            type: blocked ? 'opt-out' : 'opt-in',
            contactExternalId: sourceId,
            at: timestampField(item, where),
            reason: blocked ? 'blocked' : 'unblocked',
          });
        });
        break;
      default:
        // for_user_id, users, user_event (revoke), tweet/follow/favorite/mute events, …
        break;
    }
  }
  return events;
}

function parseDirectMessage(item: unknown, where: string, accountId: string, users: Json | undefined): InboundEvent | undefined {
  if (!isObject(item)) fail(`${where} must be an object`);
  if (item.type !== 'message_create') return undefined;
  const id = idField(item, 'id', where);
  const at = timestampField(item, where);
  const create = objectField(item, 'message_create', where);
  const senderId = idField(create, 'sender_id', `${where}.message_create`);
  const recipientId = idField(objectField(create, 'target', `${where}.message_create`), 'recipient_id', `${where}.message_create.target`);
  if (senderId === accountId) return undefined;
  if (recipientId !== accountId) fail(`${where} is addressed to ${recipientId}, not this account`);
  const data = objectField(create, 'message_data', `${where}.message_create`);
  let text = optionalString(data, 'text', `${where}.message_create.message_data`);
  const media = mediaOf(data.attachment, `${where}.message_create.message_data`);
  // X appends the attachment's t.co link to the text; the attachment itself is what the agent sees.
  if (media?.shortUrl && text) text = text.split(media.shortUrl).join('').trim();
  const { shortUrl: _shortUrl, ...mediaRef } = media ?? {};
  // A picked quick reply option: the text is its label, the metadata what the platform offered.
  const response = isObject(data.quick_reply_response) ? data.quick_reply_response : undefined;
  const picked = response?.type === 'options' && typeof response.metadata === 'string' && response.metadata ? response.metadata : undefined;
  return {
    type: 'message',
    providerMessageId: id,
    contact: { externalId: senderId, ...userOf(users, senderId) },
    at,
    ...(text ? { text } : {}),
    ...(media ? { media: [mediaRef as InboundMediaRef] } : {}),
    ...(picked && text ? { button: { payload: picked } } : {}),
  };
}
