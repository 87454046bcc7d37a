import { createHash, timingSafeEqual } from 'node:crypto';
import {
  ChannelError,
  type ChannelAccount,
  type ChannelAdapter,
  type ChannelEndpoints,
  type FetchedMedia,
  type InboundMediaRef,
  type OutboundMessage,
  type SendResult,
  type WebhookRequest,
  type WebhookVerdict,
} from '../adapter';
import { fitButtons } from '../buttons';
import { downloadLimited, providerJson } from '../http';
import {
  TELEGRAM_AUDIO_MIME_TYPES,
  TELEGRAM_CAPABILITIES,
  TELEGRAM_FILE_MAX_BYTES,
  TELEGRAM_PHOTO_MAX_BYTES,
  TELEGRAM_PHOTO_MIME_TYPES,
  TELEGRAM_VIDEO_MIME_TYPES,
} from './capabilities';
import { parseTelegramUpdate, telegramDeliveryId } from './parse';
import type { TelegramApiResponse, TelegramFile, TelegramMessage, TelegramUser } from './types';

/**
 * Telegram Bot API adapter (https://core.telegram.org/bots/api).
 *
 * Every call is `POST {telegramApiUrl}/bot<botToken>/<method>`: the bot token (secret `botToken`,
 * from @BotFather) is the credential, in the path. Webhooks carry no signature: setWebhook's
 * `secret_token` (the account's verify token) comes back in `X-Telegram-Bot-Api-Secret-Token` on
 * every update, and there is no GET handshake.
 *
 * registerWebhook(account, url) (ChannelAdapter's optional method) is setWebhook with the verify
 * token as secret_token and the update kinds the platform reads, so the console's "connect" needs
 * no trip to the Bot API by hand. Beyond ChannelAdapter it offers (see TypingIndicator)
 * sendTyping(account, {contactExternalId}): sendChatAction `typing`.
 *
 * The Bot API has no idempotency key: a send whose answer was lost (timeout) and is retried may
 * reach the customer twice. Bots get no delivery or read receipts, and markRead is a no-op.
 */

/** The update kinds the platform reads; setWebhook filters out the rest at Telegram. */
export const TELEGRAM_ALLOWED_UPDATES = ['message', 'edited_message', 'my_chat_member', 'callback_query'] as const;

/** An adapter that can show the customer that an agent is typing. */
export interface TypingIndicator {
  sendTyping(account: ChannelAccount, input: { contactExternalId: string }): Promise<void>;
}

export type TelegramAdapter = ChannelAdapter & Required<Pick<ChannelAdapter, 'registerWebhook' | 'acknowledgeButton'>> & TypingIndicator;

export function canSendTyping(adapter: ChannelAdapter): adapter is ChannelAdapter & TypingIndicator {
  return typeof (adapter as Partial<TypingIndicator>).sendTyping === 'function';
}

/** `<bot id>:<secret>` as @BotFather issues it; anything else would also change the request path. */
const BOT_TOKEN = /^\d{1,20}:[A-Za-z0-9_-]{20,100}$/;
/** setWebhook's secret_token: 1-256 characters of A-Z, a-z, 0-9, _ and -. */
const SECRET_TOKEN = /^[A-Za-z0-9_-]{1,256}$/;
/** A private chat's id (the platform serves private chats only). */
const CHAT_ID = /^-?\d{1,20}$/;

export function createTelegramAdapter(endpoints: ChannelEndpoints): TelegramAdapter {
  const apiRoot = endpoints.telegramApiUrl.replace(/\/+$/, '');

  async function call<T>(account: ChannelAccount, method: string, body: Record<string, unknown> | FormData): Promise<T> {
    const init: RequestInit =
      body instanceof FormData
        ? { method: 'POST', body }
        : { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) };
    const answer = await providerJson<TelegramApiResponse<T>>(`${apiRoot}/bot${botToken(account)}/${method}`, init, describeTelegramError);
    if (typeof answer !== 'object' || answer === null || answer.ok !== true || !('result' in answer)) {
      // A 2xx that is not the Bot API's envelope (a proxy in the way): never assume the call worked.
      throw new ChannelError(`Telegram ${method} answered an unexpected body`, { code: 'bad_response', retryable: false });
    }
    return answer.result;
  }

  async function send(account: ChannelAccount, message: OutboundMessage): Promise<SendResult> {
    const chatId = chatIdOf(message.to);
    let sent: TelegramMessage;
    if (message.template) {
      throw new ChannelError('Telegram has no message templates', { code: 'templates_unsupported', retryable: false });
    } else if (message.media) {
      const media = message.media;
      if (media.bytes.length > TELEGRAM_FILE_MAX_BYTES) {
        throw new ChannelError(`file too large for Telegram: ${media.bytes.length} bytes (limit ${TELEGRAM_FILE_MAX_BYTES})`, {
          code: 'media_too_large',
          retryable: false,
        });
      }
      const { method, field } = uploadMethod(media);
      const form = new FormData();
      form.set('chat_id', chatId);
      if (media.caption) form.set('caption', media.caption);
      form.set(field, new Blob([new Uint8Array(media.bytes)], { type: media.mimeType }), media.fileName || field);
      sent = await call<TelegramMessage>(account, method, form);
    } else if (typeof message.text === 'string' && message.text.length > 0) {
      const buttons = message.buttons?.length ? fitButtons(message.buttons, TELEGRAM_CAPABILITIES.buttons!) : [];
      sent = await call<TelegramMessage>(account, 'sendMessage', {
        chat_id: chatId,
        text: message.text,
        // One button a row; a tap comes back as a callback_query with the payload as its data.
        ...(buttons.length
          ? { reply_markup: { inline_keyboard: buttons.map((button) => [{ text: button.title, callback_data: button.payload }]) } }
          : {}),
      });
    } else {
      throw new ChannelError('nothing to send: a message needs text or media', { code: 'empty_message', retryable: false });
    }
    if (!sent || typeof sent.message_id !== 'number' || typeof sent.chat?.id !== 'number') {
      throw new ChannelError('Telegram answered a message without message_id or chat', { code: 'bad_response', retryable: false });
    }
    return { providerMessageId: `${sent.chat.id}:${sent.message_id}` };
  }

  async function fetchMedia(account: ChannelAccount, media: InboundMediaRef, maxBytes: number): Promise<FetchedMedia> {
    if (media.size !== undefined && media.size > maxBytes) throw tooLarge(media.size, maxBytes);
    // A download link lasts at least an hour and a new getFile renews it: one renewal covers a
    // link that expired between the two calls.
    for (let attempt = 1; ; attempt++) {
      const file = await call<TelegramFile>(account, 'getFile', { file_id: media.ref });
      if (typeof file?.file_path !== 'string' || !file.file_path) {
        throw new ChannelError('Telegram gave no download path for this file', { code: 'media_unavailable', retryable: false });
      }
      if (typeof file.file_size === 'number' && file.file_size > maxBytes) throw tooLarge(file.file_size, maxBytes);
      const path = file.file_path
        .split('/')
        .map((segment) => encodeURIComponent(segment))
        .join('/');
      try {
        const downloaded = await downloadLimited(`${apiRoot}/file/bot${botToken(account)}/${path}`, { method: 'GET' }, maxBytes);
        const fileName = media.fileName ?? file.file_path.split('/').pop();
        return {
          bytes: downloaded.bytes,
          mimeType: mimeTypeOf(media, downloaded.mimeType, file.file_path),
          ...(fileName ? { fileName } : {}),
        };
      } catch (error) {
        const expired = error instanceof ChannelError && error.details.status === 404;
        if (!expired) throw error;
        if (attempt >= 2) {
          // file_id outlives its links: a later attempt gets a fresh one.
          throw new ChannelError('Telegram file link expired twice in a row', { code: 'media_expired', retryable: true, status: 404 });
        }
      }
    }
  }

  return {
    kind: 'telegram',
    capabilities: TELEGRAM_CAPABILITIES,
    credentials: { secrets: ['botToken'], settings: [] },

    verifyWebhook(request: WebhookRequest, account: ChannelAccount): WebhookVerdict {
      try {
        if (request.method !== 'POST')
          return { kind: 'refused', reason: 'Telegram has no webhook handshake: only POSTed updates are accepted' };
        if (!account.verifyToken) return { kind: 'refused', reason: 'the account has no secret token' };
        const header = request.headers['x-telegram-bot-api-secret-token'];
        if (typeof header !== 'string' || header === '') return { kind: 'refused', reason: 'missing X-Telegram-Bot-Api-Secret-Token' };
        return secretEquals(header, account.verifyToken)
          ? { kind: 'verified' }
          : { kind: 'refused', reason: 'X-Telegram-Bot-Api-Secret-Token does not match' };
      } catch {
        return { kind: 'refused', reason: 'unreadable webhook request' };
      }
    },

    parseWebhook: (rawBody) => parseTelegramUpdate(rawBody),
    deliveryId: (rawBody) => telegramDeliveryId(rawBody),
    send: (account, message) => send(account, message),

    async markRead() {
      // Bots cannot mark a user's message as read (capabilities.markRead is false).
    },

    fetchMedia,

    async testConnection(account) {
      const me = await call<TelegramUser>(account, 'getMe', {});
      if (typeof me?.id !== 'number' || me.is_bot !== true) {
        throw new ChannelError('the token does not belong to a bot', { code: 'not_a_bot', retryable: false });
      }
      if (account.externalAccountId && account.externalAccountId !== String(me.id)) {
        throw new ChannelError(`the token belongs to bot ${me.id}, not to this account's bot ${account.externalAccountId}`, {
          code: 'account_mismatch',
          retryable: false,
        });
      }
      const name = me.first_name || String(me.id);
      return { name: me.username ? `${name} (@${me.username})` : name };
    },

    async registerWebhook(account, url) {
      if (!SECRET_TOKEN.test(account.verifyToken)) {
        throw new ChannelError('the verify token is not a valid Telegram secret_token (1-256 of A-Z a-z 0-9 _ -)', {
          code: 'invalid_secret_token',
          retryable: false,
        });
      }
      await call<boolean>(account, 'setWebhook', { url, secret_token: account.verifyToken, allowed_updates: TELEGRAM_ALLOWED_UPDATES });
    },

    async acknowledgeButton(account, ack) {
      // Stops the spinner on the tapped button; shows nothing more (no text, no alert).
      await call<boolean>(account, 'answerCallbackQuery', { callback_query_id: ack });
    },

    async sendTyping(account, { contactExternalId }) {
      await call<boolean>(account, 'sendChatAction', { chat_id: chatIdOf(contactExternalId), action: 'typing' });
    },
  };
}

function botToken(account: ChannelAccount): string {
  const token = account.secrets.botToken?.trim() ?? '';
  if (!BOT_TOKEN.test(token)) {
    throw new ChannelError('the Telegram bot token is missing or malformed (expected <bot id>:<secret> from @BotFather)', {
      code: 'invalid_credentials',
      retryable: false,
    });
  }
  return token;
}

function chatIdOf(to: string): string {
  if (!CHAT_ID.test(to))
    throw new ChannelError(`not a Telegram chat id: ${JSON.stringify(to).slice(0, 40)}`, { code: 'invalid_recipient', retryable: false });
  return to;
}

/** Compares digests so neither the contents nor the length of the secret leak through timing. */
function secretEquals(received: string, expected: string): boolean {
  const digest = (value: string) => createHash('sha256').update(value, 'utf8').digest();
  return timingSafeEqual(digest(received), digest(expected));
}

/** The Bot API method and form field for a medium: each kind's own method where Telegram plays it, a document otherwise. */
function uploadMethod(media: NonNullable<OutboundMessage['media']>): { method: string; field: string } {
  const mime = media.mimeType.toLowerCase();
  if (media.kind === 'image' && includes(TELEGRAM_PHOTO_MIME_TYPES, mime) && media.bytes.length <= TELEGRAM_PHOTO_MAX_BYTES) {
    return { method: 'sendPhoto', field: 'photo' };
  }
  if (media.kind === 'audio' && mime === 'audio/ogg') return { method: 'sendVoice', field: 'voice' };
  if (media.kind === 'audio' && includes(TELEGRAM_AUDIO_MIME_TYPES, mime)) return { method: 'sendAudio', field: 'audio' };
  if (media.kind === 'video' && includes(TELEGRAM_VIDEO_MIME_TYPES, mime)) return { method: 'sendVideo', field: 'video' };
  // Larger photos and other formats still reach the customer, as a file.
  return { method: 'sendDocument', field: 'document' };
}

function includes(list: readonly string[], value: string): boolean {
  return list.includes(value);
}

/**
 * Classifies a Bot API error body `{ok:false,error_code,description,parameters:{retry_after}}`.
 * The description is Telegram's human reason (shown to the agent); codes the core acts on:
 * `blocked` (the user blocked the bot: recorded as an opt-out), `rate_limited` (retry after
 * retry_after seconds).
 */
export function describeTelegramError(
  status: number,
  body: unknown,
): { code: string; message: string; retryable?: boolean; retryAfterMs?: number } {
  const error =
    typeof body === 'object' && body !== null ? (body as Partial<{ error_code: unknown; description: unknown; parameters: unknown }>) : {};
  const errorCode = typeof error.error_code === 'number' ? error.error_code : status;
  const message = typeof error.description === 'string' && error.description ? error.description.slice(0, 500) : `Telegram HTTP ${status}`;
  const parameters =
    typeof error.parameters === 'object' && error.parameters !== null ? (error.parameters as { retry_after?: unknown }) : {};
  if (errorCode === 429 || status === 429) {
    const retryAfter =
      typeof parameters.retry_after === 'number' && parameters.retry_after >= 0 ? parameters.retry_after * 1000 : undefined;
    return { code: 'rate_limited', message, retryable: true, ...(retryAfter !== undefined ? { retryAfterMs: retryAfter } : {}) };
  }
  if (status >= 500) return { code: 'server_error', message, retryable: true };
  if (errorCode === 403) {
    if (/bot was blocked by the user/i.test(message)) return { code: 'blocked', message, retryable: false };
    if (/user is deactivated/i.test(message)) return { code: 'user_deactivated', message, retryable: false };
    return { code: 'forbidden', message, retryable: false };
  }
  if (errorCode === 401) return { code: 'unauthorized', message, retryable: false };
  // An unknown token in the path answers 404 Not Found.
  if (errorCode === 404) return { code: 'not_found', message, retryable: false };
  if (errorCode === 413 || /file is too big/i.test(message)) return { code: 'media_too_large', message, retryable: false };
  if (errorCode === 400) {
    if (/chat not found/i.test(message)) return { code: 'invalid_recipient', message, retryable: false };
    if (/message is too long/i.test(message)) return { code: 'text_too_long', message, retryable: false };
    return { code: 'bad_request', message, retryable: false };
  }
  return { code: `telegram_${errorCode}`, message, retryable: false };
}

function tooLarge(size: number, maxBytes: number): ChannelError {
  return new ChannelError(`media too large: ${size} bytes (limit ${maxBytes})`, { code: 'media_too_large', retryable: false });
}

const MIME_BY_EXTENSION: Record<string, string> = {
  jpg: 'image/jpeg',
  jpeg: 'image/jpeg',
  png: 'image/png',
  webp: 'image/webp',
  gif: 'image/gif',
  mp4: 'video/mp4',
  webm: 'video/webm',
  mp3: 'audio/mpeg',
  m4a: 'audio/mp4',
  oga: 'audio/ogg',
  ogg: 'audio/ogg',
  pdf: 'application/pdf',
};

/**
 * Telegram's file server answers application/octet-stream for most files: the update's own
 * mime_type wins, then a specific Content-Type, then the file path's extension.
 */
function mimeTypeOf(media: InboundMediaRef, served: string, filePath: string): string {
  const generic = (mime: string | undefined) => !mime || mime === 'application/octet-stream';
  if (!generic(media.mimeType)) return media.mimeType!;
  if (!generic(served)) return served;
  const extension = filePath.split('.').pop()?.toLowerCase() ?? '';
  return MIME_BY_EXTENSION[extension] ?? 'application/octet-stream';
}
