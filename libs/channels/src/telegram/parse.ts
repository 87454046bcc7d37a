import { WebhookPayloadError, type InboundEvent, type InboundMediaRef } from '../adapter';
import type { TelegramChat, TelegramMessage, TelegramPhotoSize, TelegramUpdate, TelegramUser } from './types';

/**
 * Telegram posts ONE Update per webhook request (never a batch), and the secret header proves only
 * who sent it: every field used below is checked, and a body that is not an Update throws
 * WebhookPayloadError (answered 400). Update kinds the platform does not serve (channel posts,
 * inline queries, …) are skipped, never errors; callback queries are taps on the bot's buttons.
 *
 * Decisions:
 * - Only private chats become conversations. In a group the chat is many people at once (one
 *   contact would merge them), and a bot in privacy mode sees only commands there; a contact
 *   centre answers a person, so group and channel messages are skipped.
 * - The contact's externalId is the private chat's id (equal to the user's id, and what sendMessage
 *   takes as chat_id).
 * - message_id is unique only within a chat: providerMessageId is `<chat.id>:<message_id>`.
 * - An edited message is a new message with its own id `<chat.id>:<message_id>:edit:<edit_date>`
 *   carrying the corrected text, so the agent sees the correction (an edit can change only text or
 *   caption, so its media, already fetched with the original, is not fetched again). An edit that
 *   leaves no text is skipped.
 * - my_chat_member in a private chat arrives only when the user blocks (`kicked`) or unblocks
 *   (`member`) the bot: opt-out 'blocked' / opt-in 'unblocked'.
 */

/** Real updates are a few kilobytes (a text is at most 4096 characters); anything far larger is hostile. */
export const TELEGRAM_MAX_UPDATE_BYTES = 1024 * 1024;
/** Telegram caps first and last names at 64 characters each; a longer one is cut, not trusted. */
const MAX_NAME_LENGTH = 200;

export function readTelegramUpdate(rawBody: Buffer): TelegramUpdate {
  if (rawBody.length > TELEGRAM_MAX_UPDATE_BYTES) {
    throw new WebhookPayloadError(`Telegram update too large: ${rawBody.length} bytes (limit ${TELEGRAM_MAX_UPDATE_BYTES})`);
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(rawBody.toString('utf8'));
  } catch {
    throw new WebhookPayloadError('Telegram update is not JSON');
  }
  const update = record(parsed, 'update');
  integer(update.update_id, 'update.update_id');
  return update as unknown as TelegramUpdate;
}

/** The provider's unique id of the delivery (Telegram re-sends the same update_id when it retries); null when unreadable. */
export function telegramDeliveryId(rawBody: Buffer): string | null {
  try {
    return String(readTelegramUpdate(rawBody).update_id);
  } catch {
    return null;
  }
}

export function parseTelegramUpdate(rawBody: Buffer): InboundEvent[] {
  const update = readTelegramUpdate(rawBody);
  if (update.message !== undefined) {
    const event = messageEvent(update.message, 'update.message');
    return event ? [event] : [];
  }
  if (update.edited_message !== undefined) {
    const event = editEvent(update.edited_message, 'update.edited_message');
    return event ? [event] : [];
  }
  if (update.my_chat_member !== undefined) {
    const event = membershipEvent(update.my_chat_member, 'update.my_chat_member');
    return event ? [event] : [];
  }
  if (update.callback_query !== undefined) {
    const event = callbackEvent(update.callback_query, 'update.callback_query');
    return event ? [event] : [];
  }
  return [];
}

/**
 * A tap on one of the platform's inline buttons: a customer message saying the button's label
 * (read from the keyboard of the message it was under, as the customer saw it), carrying the
 * payload and the query id to answer. Its id `cb:<query id>` makes a re-delivery a no-op. Taps
 * in other chats than private ones, or without data (game buttons), are skipped.
 */
function callbackEvent(value: unknown, path: string): InboundEvent | null {
  const query = record(value, path);
  const id = string(query.id, `${path}.id`);
  if (!id) throw new WebhookPayloadError(`${path}.id is empty`);
  record(query.from, `${path}.from`);
  const data = optionalString(query.data, `${path}.data`);
  if (query.message === undefined || !data) return null;
  const message = record(query.message, `${path}.message`) as unknown as TelegramMessage;
  const chat = privateChat(message.chat, `${path}.message.chat`);
  if (!chat) return null;
  const keyboard = message.reply_markup?.inline_keyboard;
  const label = Array.isArray(keyboard)
    ? keyboard
        .flat()
        .find((button) => button?.callback_data === data)
        ?.text?.toString()
    : undefined;
  return {
    type: 'message',
    providerMessageId: `cb:${id}`,
    contact: contactOf(chat, query.from, path),
    // A callback query carries no time of its own: it is taken as it arrives.
    at: new Date(),
    text: label || data,
    button: { payload: data, ack: id },
  };
}

function messageEvent(value: unknown, path: string): InboundEvent | null {
  const message = record(value, path) as unknown as TelegramMessage;
  const chat = privateChat(message.chat, `${path}.chat`);
  const messageId = integer(message.message_id, `${path}.message_id`);
  const at = unixDate(message.date, `${path}.date`);
  if (!chat) return null;
  const media = mediaOf(message, path);
  const text = textOf(message, path) ?? (media.length === 0 ? fallbackText(message, path) : undefined);
  if (text === undefined && media.length === 0) return null; // service messages, polls, dice, …
  return {
    type: 'message',
    providerMessageId: `${chat.id}:${messageId}`,
    contact: contactOf(chat, message.from, path),
    at,
    ...(text !== undefined ? { text } : {}),
    ...(media.length ? { media } : {}),
  };
}

function editEvent(value: unknown, path: string): InboundEvent | null {
  const message = record(value, path) as unknown as TelegramMessage;
  const chat = privateChat(message.chat, `${path}.chat`);
  const messageId = integer(message.message_id, `${path}.message_id`);
  const editDate = integer(message.edit_date, `${path}.edit_date`);
  if (!chat) return null;
  const text = textOf(message, path);
  if (text === undefined) return null;
  return {
    type: 'message',
    providerMessageId: `${chat.id}:${messageId}:edit:${editDate}`,
    contact: contactOf(chat, message.from, path),
    at: unixDate(editDate, `${path}.edit_date`),
    text,
  };
}

function membershipEvent(value: unknown, path: string): InboundEvent | null {
  const change = record(value, path);
  const chat = privateChat(change.chat, `${path}.chat`);
  const at = unixDate(change.date, `${path}.date`);
  const status = string(record(change.new_chat_member, `${path}.new_chat_member`).status, `${path}.new_chat_member.status`);
  if (!chat) return null;
  const contactExternalId = String(chat.id);
  if (status === 'kicked') return { type: 'opt-out', contactExternalId, at, reason: 'blocked' };
  if (status === 'member') return { type: 'opt-in', contactExternalId, at, reason: 'unblocked' };
  return null;
}

/** The chat, checked; null (skip) when it is not a private chat. */
function privateChat(value: unknown, path: string): Pick<TelegramChat, 'id' | 'first_name' | 'last_name' | 'username'> | null {
  const chat = record(value, path);
  const id = integer(chat.id, `${path}.id`);
  const type = string(chat.type, `${path}.type`);
  if (type !== 'private') return null;
  return {
    id,
    first_name: optionalString(chat.first_name, `${path}.first_name`),
    last_name: optionalString(chat.last_name, `${path}.last_name`),
    username: optionalString(chat.username, `${path}.username`),
  };
}

function contactOf(chat: Pick<TelegramChat, 'id' | 'first_name' | 'last_name' | 'username'>, fromValue: unknown, path: string) {
  // In a private chat `from` is the customer; the chat carries the same names as a fallback.
  const from = fromValue === undefined ? undefined : (record(fromValue, `${path}.from`) as unknown as TelegramUser);
  const first = optionalString(from?.first_name, `${path}.from.first_name`) ?? chat.first_name;
  const last = optionalString(from?.last_name, `${path}.from.last_name`) ?? chat.last_name;
  const username = optionalString(from?.username, `${path}.from.username`) ?? chat.username;
  const name = [first, last]
    .filter((part) => part && part.trim())
    .join(' ')
    .trim()
    .slice(0, MAX_NAME_LENGTH);
  return {
    externalId: String(chat.id),
    ...(name ? { name } : {}),
    ...(username ? { username: username.slice(0, MAX_NAME_LENGTH) } : {}),
  };
}

function textOf(message: TelegramMessage, path: string): string | undefined {
  const text = optionalString(message.text, `${path}.text`) ?? optionalString(message.caption, `${path}.caption`);
  return text === undefined || text === '' ? undefined : text;
}

/** Content without text or media the agent still needs to see: a shared location or contact card. */
function fallbackText(message: TelegramMessage, path: string): string | undefined {
  if (message.location !== undefined) {
    const location = record(message.location, `${path}.location`);
    return `geo:${finite(location.latitude, `${path}.location.latitude`)},${finite(location.longitude, `${path}.location.longitude`)}`;
  }
  if (message.contact !== undefined) {
    const contact = record(message.contact, `${path}.contact`);
    const name = [
      optionalString(contact.first_name, `${path}.contact.first_name`),
      optionalString(contact.last_name, `${path}.contact.last_name`),
    ]
      .filter(Boolean)
      .join(' ');
    const phone = string(contact.phone_number, `${path}.contact.phone_number`);
    return name ? `${name}: ${phone}` : phone;
  }
  if (message.sticker !== undefined) {
    // An animated (TGS) sticker is a Lottie file no browser shows: its emoji stands for it.
    return optionalString(record(message.sticker, `${path}.sticker`).emoji, `${path}.sticker.emoji`);
  }
  return undefined;
}

/** A Telegram message carries at most one medium (an album arrives as several messages). */
function mediaOf(message: TelegramMessage, path: string): InboundMediaRef[] {
  if (message.photo !== undefined) return [largestPhoto(message.photo, `${path}.photo`)];
  // An animation also fills `document` for old clients: the animation is the medium.
  if (message.animation !== undefined) return [fileRef(message.animation, `${path}.animation`, 'video', 'video/mp4')];
  if (message.document !== undefined) return [fileRef(message.document, `${path}.document`, 'document', 'application/octet-stream')];
  if (message.audio !== undefined) return [fileRef(message.audio, `${path}.audio`, 'audio', 'audio/mpeg')];
  if (message.voice !== undefined) return [fileRef(message.voice, `${path}.voice`, 'audio', 'audio/ogg')];
  if (message.video !== undefined) return [fileRef(message.video, `${path}.video`, 'video', 'video/mp4')];
  if (message.video_note !== undefined) return [fileRef(message.video_note, `${path}.video_note`, 'video', 'video/mp4')];
  if (message.sticker !== undefined) {
    const sticker = record(message.sticker, `${path}.sticker`);
    if (sticker.is_animated === true) return [];
    return [
      sticker.is_video === true
        ? fileRef(sticker, `${path}.sticker`, 'video', 'video/webm')
        : fileRef(sticker, `${path}.sticker`, 'image', 'image/webp'),
    ];
  }
  return [];
}

/** Telegram sends every size it made of a photo; the agent gets the largest. Photos are re-encoded as JPEG. */
function largestPhoto(value: unknown, path: string): InboundMediaRef {
  if (!Array.isArray(value) || value.length === 0) throw new WebhookPayloadError(`${path} must be a non-empty array of PhotoSize`);
  let best: InboundMediaRef | undefined;
  let bestArea = -1;
  for (const [index, item] of value.entries()) {
    const size = record(item, `${path}[${index}]`) as unknown as TelegramPhotoSize;
    const area = integer(size.width, `${path}[${index}].width`) * integer(size.height, `${path}[${index}].height`);
    const ref = fileRef(size, `${path}[${index}]`, 'image', 'image/jpeg');
    if (!best || area > bestArea || (area === bestArea && (ref.size ?? 0) > (best.size ?? 0))) {
      best = ref;
      bestArea = area;
    }
  }
  return best!;
}

function fileRef(value: unknown, path: string, kind: InboundMediaRef['kind'], defaultMimeType: string): InboundMediaRef {
  const file = record(value, path);
  const fileId = string(file.file_id, `${path}.file_id`);
  if (!fileId) throw new WebhookPayloadError(`${path}.file_id is empty`);
  const size = file.file_size === undefined ? undefined : integer(file.file_size, `${path}.file_size`);
  const mimeType = optionalString(file.mime_type, `${path}.mime_type`) || defaultMimeType;
  const fileName = optionalString(file.file_name, `${path}.file_name`);
  return { kind, ref: fileId, mimeType, ...(fileName ? { fileName } : {}), ...(size !== undefined ? { size } : {}) };
}

// --- checks: each names the field, so a 400 says what is wrong --------------------------------

function record(value: unknown, path: string): Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new WebhookPayloadError(`${path} must be an object`);
  return value as Record<string, unknown>;
}

function integer(value: unknown, path: string): number {
  // Chat ids reach 52 bits: still exact in a double, so a safe integer is the right check.
  if (typeof value !== 'number' || !Number.isSafeInteger(value)) throw new WebhookPayloadError(`${path} must be an integer`);
  return value;
}

function finite(value: unknown, path: string): number {
  if (typeof value !== 'number' || !Number.isFinite(value)) throw new WebhookPayloadError(`${path} must be a number`);
  return value;
}

function string(value: unknown, path: string): string {
  if (typeof value !== 'string') throw new WebhookPayloadError(`${path} must be a string`);
  return value;
}

function optionalString(value: unknown, path: string): string | undefined {
  return value === undefined || value === null ? undefined : string(value, path);
}

function unixDate(value: unknown, path: string): Date {
  const seconds = integer(value, path);
  if (seconds < 0) throw new WebhookPayloadError(`${path} must be a Unix time`);
  return new Date(seconds * 1000);
}
