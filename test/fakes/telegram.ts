/**
 * A local Telegram Bot API (https://core.telegram.org/bots/api) for tests: a loopback HTTP server
 * that checks requests the way Telegram does and plays the customers who write to the bot.
 *
 *   const telegram = await startTelegramFake({ token: '123456:AAE…' });
 *   // point the adapter at it: endpoints.telegramApiUrl = telegram.url
 *   telegram.setWebhook({ url, secretToken });         // or let adapter.registerWebhook call setWebhook
 *   await telegram.customerWrites({ chatId: 42, firstName: 'Ana', text: 'hola' });
 *   await telegram.customerWrites({ chatId: 42, photo: jpegBytes, caption: 'mira' });
 *   await telegram.customerBlocks(42);                  // my_chat_member kicked
 *   telegram.failNext(2, { status: 429, retryAfter: 3 }); // flood control on the next 2 API calls
 *   telegram.expireLinks();                             // every file link handed out so far is dead
 *   telegram.expireNextLinks(1);                        // the next getFile link is dead on arrival
 *   telegram.sent                                       // what the platform sent, as received
 *   await telegram.customerTaps({ chatId: 42, messageId, data: 'bot:handoff' }); // a tap on an inline button
 *   telegram.answeredCallbacks                          // answerCallbackQuery calls, as received
 *   await telegram.close();
 *
 * API side (`{url}/bot<token>/<method>`, method names case-insensitive, parameters as query string,
 * JSON, urlencoded or multipart like the real one):
 * - the token in the path must be the bot's (else 401 Unauthorized); unknown methods 404;
 * - sendMessage: chat_id and text required, text at most 4096 characters ("Bad Request: message is
 *   too long"); sendPhoto/sendDocument/sendAudio/sendVoice/sendVideo: a multipart upload (or a known
 *   file_id), photos up to 10 MB, other files 50 MB (413 beyond), captions 1024 characters;
 * - sending to a chat no customer opened answers 400 "Bad Request: chat not found"; to a customer
 *   who blocked the bot 403 "Forbidden: bot was blocked by the user";
 * - sendMessage's reply_markup: an inline_keyboard (array of rows of InlineKeyboardButton) whose
 *   buttons each have a non-empty text and exactly one action; callback_data 1-64 bytes ("Bad
 *   Request: BUTTON_DATA_INVALID"), as the Bot API checks them; answerCallbackQuery takes the id of a
 *   callback query the fake posted, once, within 15 s ("Bad Request: query is too old and response
 *   timeout expired or query ID is invalid"); text at most 200 characters;
 * - getFile hands out a download link `{url}/file/bot<token>/<file_path>` valid for `linkTtlMs`
 *   (files over 20 MB: "Bad Request: file is too big"); getMe, setWebhook (secret_token charset
 *   checked), deleteWebhook, getWebhookInfo, sendChatAction;
 * - errors are Telegram's body `{ok:false,error_code,description[,parameters:{retry_after}]}` with
 *   the same HTTP status.
 *
 * Webhook side: one Update per POST, `X-Telegram-Bot-Api-Secret-Token` when a secret is set,
 * re-sent with the same update_id after a non-2xx answer or a network error (`webhookRetryDelaysMs`,
 * then Telegram gives up). `deliver(update, { times })` re-delivers on purpose. Bots get no delivery
 * or read receipts, so there is nothing like pushReceipts here.
 */
import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface TelegramFakeOptions {
  /** The bot token the fake accepts, `<bot id>:<secret>`. */
  token: string;
  bot?: { firstName?: string; username?: string };
  /** Waits before each re-delivery of a refused update; its length is the number of retries. */
  webhookRetryDelaysMs?: number[];
  /** How long a getFile link stays valid (Telegram guarantees at least an hour). */
  linkTtlMs?: number;
}

/** A message the platform sent to a customer, as the fake received it. */
export interface TelegramFakeSent {
  method: string;
  chatId: string;
  messageId: number;
  text?: string;
  caption?: string;
  file?: { field: string; fileName: string; mimeType: string; bytes: Buffer };
  /** sendMessage's inline keyboard, as sent: rows of buttons. */
  inlineKeyboard?: { text: string; callback_data?: string; url?: string }[][];
  at: Date;
}

/** Every API call, successful or not, for assertions on the wire format. */
export interface TelegramFakeCall {
  method: string;
  httpMethod: string;
  contentType: string;
  params: Record<string, string>;
  files: string[];
  status: number;
  description?: string;
}

export interface TelegramFakeDelivery {
  updateId: number;
  body: string;
  /** HTTP status of each attempt, 0 for a network error. */
  attempts: number[];
}

export interface CustomerMedia {
  bytes: Buffer;
  fileName?: string;
  mimeType?: string;
}

export interface CustomerMessageInput {
  chatId: number;
  firstName?: string;
  lastName?: string;
  username?: string;
  text?: string;
  caption?: string;
  photo?: Buffer;
  document?: CustomerMedia;
  audio?: CustomerMedia;
  voice?: CustomerMedia;
  video?: CustomerMedia;
  sticker?: { bytes: Buffer; emoji?: string };
}

export interface TelegramFakeFailure {
  status: number;
  /** With 429: the seconds in parameters.retry_after. */
  retryAfter?: number;
  description?: string;
  /** Only these methods fail (case-insensitive); all when absent. */
  methods?: string[];
}

export interface CustomerAction {
  update: Record<string, unknown>;
  /** The exact bytes posted to the webhook. */
  body: string;
  /** Absent when `deliver: false`. */
  delivery?: TelegramFakeDelivery;
}

export interface TelegramFake {
  /** The Bot API root: the adapter's telegramApiUrl. */
  url: string;
  token: string;
  bot: { id: number; firstName: string; username: string };
  sent: TelegramFakeSent[];
  calls: TelegramFakeCall[];
  deliveries: TelegramFakeDelivery[];
  chatActions: { chatId: string; action: string }[];
  webhook: { url: string; secretToken?: string; allowedUpdates?: string[] } | null;
  setWebhook(target: { url: string; secretToken?: string } | null): void;
  customerWrites(
    input: CustomerMessageInput,
    options?: { deliver?: boolean; times?: number },
  ): Promise<CustomerAction & { messageId: number }>;
  customerEdits(input: { chatId: number; messageId: number; text: string }, options?: { deliver?: boolean }): Promise<CustomerAction>;
  customerBlocks(chatId: number, options?: { deliver?: boolean }): Promise<CustomerAction>;
  customerUnblocks(chatId: number, options?: { deliver?: boolean }): Promise<CustomerAction>;
  /**
   * The customer taps the inline button with `data` under the bot's message `messageId`: a
   * callback_query update (refused when that message has no such button). Skipped, as Telegram does,
   * when setWebhook's allowed_updates leaves callback_query out.
   */
  customerTaps(
    input: { chatId: number; messageId: number; data: string },
    options?: { deliver?: boolean },
  ): Promise<CustomerAction & { queryId: string }>;
  /** answerCallbackQuery calls that Telegram accepted. */
  answeredCallbacks: { queryId: string; text?: string }[];
  /** Posts an update (as given) to the webhook `times` times in a row (a duplicate delivery), retrying each on non-2xx. */
  deliver(update: Record<string, unknown>, options?: { times?: number }): Promise<TelegramFakeDelivery>;
  /** Stores a file as if a customer had sent it; answers its file_id. */
  addFile(bytes: Buffer, input: { folder: string; extension: string }): string;
  failNext(count: number, failure: TelegramFakeFailure): void;
  /** Every getFile link handed out so far answers 404 from now on. */
  expireLinks(): void;
  /** The next `count` getFile links are dead on arrival (a link that expired before the download). */
  expireNextLinks(count: number): void;
  close(): Promise<void>;
}

const TEXT_LIMIT = 4096;
/** How long a callback query can be answered (Telegram's clients give up after about 15 s). */
const CALLBACK_ANSWER_MS = 15_000;
const CAPTION_LIMIT = 1024;
const MB = 1024 * 1024;
const PHOTO_LIMIT = 10 * MB;
const UPLOAD_LIMIT = 50 * MB;
const DOWNLOAD_LIMIT = 20 * MB;
/** A request body over this is refused before it is read whole. */
const REQUEST_LIMIT = UPLOAD_LIMIT + MB;
const CHAT_ACTIONS = [
  'typing',
  'upload_photo',
  'record_video',
  'upload_video',
  'record_voice',
  'upload_voice',
  'upload_document',
  'choose_sticker',
];
const MEDIA_METHODS: Record<string, { field: string; folder: string; extension: string }> = {
  sendphoto: { field: 'photo', folder: 'photos', extension: 'jpg' },
  senddocument: { field: 'document', folder: 'documents', extension: 'bin' },
  sendaudio: { field: 'audio', folder: 'music', extension: 'mp3' },
  sendvoice: { field: 'voice', folder: 'voice', extension: 'oga' },
  sendvideo: { field: 'video', folder: 'videos', extension: 'mp4' },
};

class BotApiError extends Error {
  constructor(
    readonly status: number,
    readonly description: string,
    readonly parameters?: Record<string, unknown>,
  ) {
    super(description);
  }
}

interface StoredFile {
  fileId: string;
  uniqueId: string;
  bytes: Buffer;
  folder: string;
  extension: string;
}

interface Upload {
  fileName: string;
  mimeType: string;
  bytes: Buffer;
}

export async function startTelegramFake(options: TelegramFakeOptions): Promise<TelegramFake> {
  const token = options.token;
  const botId = Number(token.split(':')[0]);
  if (!Number.isSafeInteger(botId)) throw new Error('startTelegramFake: token must be <bot id>:<secret>');
  const bot = {
    id: botId,
    firstName: options.bot?.firstName ?? 'Centralita Test',
    username: options.bot?.username ?? 'centralita_test_bot',
  };
  const retryDelays = options.webhookRetryDelaysMs ?? [50, 100, 200];
  const linkTtlMs = options.linkTtlMs ?? 60 * 60 * 1000;

  const chats = new Map<string, { firstName?: string; lastName?: string; username?: string; blocked: boolean; lastMessageId: number }>();
  const files = new Map<string, StoredFile>();
  const links = new Map<string, { fileId: string; expiresAt: number }>();
  const failures: (TelegramFakeFailure & { remaining: number })[] = [];
  /** Callback queries posted, by id: answerable once, for CALLBACK_ANSWER_MS. */
  const callbackQueries = new Map<string, { at: number; answered: boolean }>();
  let nextUpdateId = 500_000_000 + Math.floor(Math.random() * 1_000_000);
  let nextLink = 1;
  let deadLinks = 0;
  const now = () => Math.floor(Date.now() / 1000);

  function addFile(bytes: Buffer, input: { folder: string; extension: string }): string {
    const fileId = `AgAC${randomBytes(24).toString('base64url')}`;
    files.set(fileId, { fileId, uniqueId: `AQAD${randomBytes(8).toString('base64url')}`, bytes, ...input });
    return fileId;
  }

  function fileObject(fileId: string) {
    const file = files.get(fileId)!;
    return { file_id: file.fileId, file_unique_id: file.uniqueId, file_size: file.bytes.length };
  }

  function chatOf(chatId: number, names: { firstName?: string; lastName?: string; username?: string } = {}) {
    const key = String(chatId);
    const chat = chats.get(key) ?? { blocked: false, lastMessageId: 0 };
    if (names.firstName !== undefined) chat.firstName = names.firstName;
    if (names.lastName !== undefined) chat.lastName = names.lastName;
    if (names.username !== undefined) chat.username = names.username;
    if (!chat.firstName) chat.firstName = `Customer ${chatId}`;
    chats.set(key, chat);
    return chat;
  }

  function chatJson(chatId: number | string) {
    const chat = chats.get(String(chatId))!;
    return {
      id: Number(chatId),
      first_name: chat.firstName,
      ...(chat.lastName ? { last_name: chat.lastName } : {}),
      ...(chat.username ? { username: chat.username } : {}),
      type: 'private',
    };
  }

  function userJson(chatId: number) {
    const chat = chats.get(String(chatId))!;
    return {
      id: chatId,
      is_bot: false,
      first_name: chat.firstName,
      ...(chat.lastName ? { last_name: chat.lastName } : {}),
      ...(chat.username ? { username: chat.username } : {}),
      language_code: 'es',
    };
  }

  // --- the API --------------------------------------------------------------------------------

  const server: Server = createServer((request, response) => {
    handle(request, response).catch((error: unknown) => {
      if (!response.headersSent) answerError(response, new BotApiError(500, `Internal Server Error: ${(error as Error).message}`));
    });
  });

  async function handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const url = new URL(request.url ?? '/', 'http://fake');
    const download = /^\/file\/bot([^/]+)\/(.+)$/.exec(url.pathname);
    if (download) return serveFile(download[1], decodeURIComponent(download[2]), response);
    const api = /^\/bot([^/]+)\/([A-Za-z]+)$/.exec(url.pathname);
    const call: TelegramFakeCall = {
      method: api?.[2] ?? url.pathname,
      httpMethod: request.method ?? 'GET',
      contentType: request.headers['content-type'] ?? '',
      params: {},
      files: [],
      status: 200,
    };
    fake.calls.push(call);
    try {
      if (!api) throw new BotApiError(404, 'Not Found');
      if (decodeURIComponent(api[1]) !== token) throw new BotApiError(401, 'Unauthorized');
      const { params, uploads } = await readParams(request, url);
      call.params = params;
      call.files = [...uploads.keys()];
      failIfAsked(api[2].toLowerCase());
      const result = runMethod(api[2].toLowerCase(), params, uploads);
      answer(response, 200, { ok: true, result });
    } catch (error) {
      const apiError = error instanceof BotApiError ? error : new BotApiError(500, `Internal Server Error: ${(error as Error).message}`);
      call.status = apiError.status;
      call.description = apiError.description;
      answerError(response, apiError);
    }
  }

  function failIfAsked(method: string) {
    const failure = failures.find((candidate) => !candidate.methods || candidate.methods.some((name) => name.toLowerCase() === method));
    if (!failure) return;
    if (--failure.remaining <= 0) failures.splice(failures.indexOf(failure), 1);
    if (failure.status === 429) {
      const seconds = failure.retryAfter ?? 1;
      throw new BotApiError(429, failure.description ?? `Too Many Requests: retry after ${seconds}`, { retry_after: seconds });
    }
    throw new BotApiError(failure.status, failure.description ?? (failure.status >= 500 ? 'Internal Server Error' : 'Bad Request'));
  }

  function runMethod(method: string, params: Record<string, string>, uploads: Map<string, Upload>): unknown {
    switch (method) {
      case 'getme':
        return {
          id: bot.id,
          is_bot: true,
          first_name: bot.firstName,
          username: bot.username,
          can_join_groups: true,
          can_read_all_group_messages: false,
        };
      case 'sendmessage': {
        const chatId = recipient(params);
        const text = params.text ?? '';
        if (!text) throw new BotApiError(400, 'Bad Request: message text is empty');
        if (text.length > TEXT_LIMIT) throw new BotApiError(400, 'Bad Request: message is too long');
        const inlineKeyboard = params.reply_markup === undefined ? undefined : inlineKeyboardOf(params.reply_markup);
        const messageId = record(chatId, { method: 'sendMessage', text, ...(inlineKeyboard ? { inlineKeyboard } : {}) });
        return { ...botMessage(chatId, messageId), text, ...(inlineKeyboard ? { reply_markup: { inline_keyboard: inlineKeyboard } } : {}) };
      }
      case 'answercallbackquery': {
        const queryId = params.callback_query_id ?? '';
        const query = callbackQueries.get(queryId);
        if (!query || query.answered || Date.now() - query.at > CALLBACK_ANSWER_MS) {
          throw new BotApiError(400, 'Bad Request: query is too old and response timeout expired or query ID is invalid');
        }
        if (params.text !== undefined && params.text.length > 200) throw new BotApiError(400, 'Bad Request: MESSAGE_TOO_LONG');
        query.answered = true;
        fake.answeredCallbacks.push({ queryId, ...(params.text ? { text: params.text } : {}) });
        return true;
      }
      case 'sendphoto':
      case 'senddocument':
      case 'sendaudio':
      case 'sendvoice':
      case 'sendvideo':
        return sendMedia(method, params, uploads);
      case 'sendchataction': {
        const chatId = recipient(params);
        if (!CHAT_ACTIONS.includes(params.action ?? '')) throw new BotApiError(400, 'Bad Request: wrong parameter action in request');
        fake.chatActions.push({ chatId, action: params.action! });
        return true;
      }
      case 'getfile': {
        const file = files.get(params.file_id ?? '');
        if (!file) throw new BotApiError(400, 'Bad Request: invalid file_id');
        if (file.bytes.length > DOWNLOAD_LIMIT) throw new BotApiError(400, 'Bad Request: file is too big');
        const filePath = `${file.folder}/file_${nextLink++}.${file.extension}`;
        const dead = deadLinks > 0;
        if (dead) deadLinks--;
        links.set(filePath, { fileId: file.fileId, expiresAt: dead ? 0 : Date.now() + linkTtlMs });
        return { ...fileObject(file.fileId), file_path: filePath };
      }
      case 'setwebhook': {
        const target = params.url ?? '';
        if (!target) {
          fake.webhook = null;
          return true;
        }
        if (!/^https?:\/\//.test(target)) throw new BotApiError(400, 'Bad Request: bad webhook: An HTTPS URL must be provided for webhook');
        const secretToken = params.secret_token;
        if (secretToken !== undefined && !/^[A-Za-z0-9_-]{1,256}$/.test(secretToken)) {
          throw new BotApiError(400, 'Bad Request: bad webhook: Secret token contains unallowed characters');
        }
        let allowedUpdates: string[] | undefined;
        if (params.allowed_updates !== undefined) {
          try {
            allowedUpdates = JSON.parse(params.allowed_updates) as string[];
          } catch {
            throw new BotApiError(400, "Bad Request: can't parse allowed_updates JSON array");
          }
          if (!Array.isArray(allowedUpdates)) throw new BotApiError(400, "Bad Request: can't parse allowed_updates JSON array");
        }
        fake.webhook = { url: target, ...(secretToken ? { secretToken } : {}), ...(allowedUpdates ? { allowedUpdates } : {}) };
        return true;
      }
      case 'deletewebhook':
        fake.webhook = null;
        return true;
      case 'getwebhookinfo':
        return {
          url: fake.webhook?.url ?? '',
          has_custom_certificate: false,
          pending_update_count: 0,
          ...(fake.webhook?.allowedUpdates ? { allowed_updates: fake.webhook.allowedUpdates } : {}),
        };
      default:
        throw new BotApiError(404, 'Not Found');
    }
  }

  function sendMedia(method: string, params: Record<string, string>, uploads: Map<string, Upload>) {
    const chatId = recipient(params);
    const { field, folder, extension } = MEDIA_METHODS[method];
    const caption = params.caption;
    if (caption !== undefined && caption.length > CAPTION_LIMIT) throw new BotApiError(400, 'Bad Request: message caption is too long');
    let upload = uploads.get(field);
    if (!upload && params[field] && files.has(params[field])) {
      const stored = files.get(params[field])!;
      upload = { fileName: `file.${stored.extension}`, mimeType: 'application/octet-stream', bytes: stored.bytes };
    }
    if (!upload) throw new BotApiError(400, `Bad Request: there is no ${field} in the request`);
    if (upload.bytes.length === 0) throw new BotApiError(400, 'Bad Request: file must be non-empty');
    if (upload.bytes.length > UPLOAD_LIMIT) throw new BotApiError(413, 'Request Entity Too Large');
    if (field === 'photo' && upload.bytes.length > PHOTO_LIMIT) throw new BotApiError(400, 'Bad Request: PHOTO_SAVE_FILE_INVALID');
    const fileId = addFile(upload.bytes, { folder, extension });
    const messageId = record(chatId, {
      method: `send${field[0].toUpperCase()}${field.slice(1)}`,
      ...(caption ? { caption } : {}),
      file: { field, ...upload },
    });
    const media =
      field === 'photo'
        ? { photo: [{ ...fileObject(fileId), width: 1280, height: 720 }] }
        : { [field]: { ...fileObject(fileId), file_name: upload.fileName, mime_type: upload.mimeType } };
    return { ...botMessage(chatId, messageId), ...media, ...(caption ? { caption } : {}) };
  }

  /** reply_markup as the Bot API reads it: only inline keyboards here (the platform sends no reply keyboards). */
  function inlineKeyboardOf(raw: string): NonNullable<TelegramFakeSent['inlineKeyboard']> {
    let markup: unknown;
    try {
      markup = JSON.parse(raw);
    } catch {
      throw new BotApiError(400, "Bad Request: can't parse reply keyboard markup JSON object");
    }
    const rows = (markup as { inline_keyboard?: unknown } | null)?.inline_keyboard;
    if (!Array.isArray(rows)) throw new BotApiError(400, "Bad Request: can't parse reply keyboard markup JSON object");
    if (rows.flat().length > 100) throw new BotApiError(400, 'Bad Request: reply markup is too long');
    return rows.map((row) => {
      if (!Array.isArray(row))
        throw new BotApiError(
          400,
          'Bad Request: can\'t parse inline keyboard button: field "inline_keyboard" of the InlineKeyboardMarkup should be an Array of Arrays',
        );
      return row.map((value) => {
        const button = value as { text?: unknown; callback_data?: unknown; url?: unknown };
        if (typeof button?.text !== 'string' || !button.text) throw new BotApiError(400, 'Bad Request: BUTTON_TEXT_INVALID');
        const actions = ['callback_data', 'url'].filter((key) => (button as Record<string, unknown>)[key] !== undefined);
        if (actions.length !== 1) throw new BotApiError(400, 'Bad Request: BUTTON_TYPE_INVALID');
        if (button.callback_data !== undefined) {
          const bytes = typeof button.callback_data === 'string' ? Buffer.byteLength(button.callback_data, 'utf8') : 0;
          if (bytes < 1 || bytes > 64) throw new BotApiError(400, 'Bad Request: BUTTON_DATA_INVALID');
          return { text: button.text, callback_data: button.callback_data as string };
        }
        if (typeof button.url !== 'string' || !/^(https?|tg):\/\//.test(button.url))
          throw new BotApiError(400, 'Bad Request: BUTTON_URL_INVALID');
        return { text: button.text, url: button.url };
      });
    });
  }

  function recipient(params: Record<string, string>): string {
    const chatId = params.chat_id;
    if (!chatId) throw new BotApiError(400, 'Bad Request: chat_id is empty');
    const chat = chats.get(chatId);
    if (!chat) throw new BotApiError(400, 'Bad Request: chat not found');
    if (chat.blocked) throw new BotApiError(403, 'Forbidden: bot was blocked by the user');
    return chatId;
  }

  function record(chatId: string, sent: Omit<TelegramFakeSent, 'chatId' | 'messageId' | 'at'>): number {
    const chat = chats.get(chatId)!;
    const messageId = ++chat.lastMessageId;
    fake.sent.push({ ...sent, chatId, messageId, at: new Date() });
    return messageId;
  }

  function botMessage(chatId: string, messageId: number) {
    return {
      message_id: messageId,
      from: { id: bot.id, is_bot: true, first_name: bot.firstName, username: bot.username },
      chat: chatJson(chatId),
      date: now(),
    };
  }

  function serveFile(pathToken: string, filePath: string, response: ServerResponse) {
    if (pathToken !== token) return answerError(response, new BotApiError(401, 'Unauthorized'));
    const link = links.get(filePath);
    const file = link && link.expiresAt > Date.now() ? files.get(link.fileId) : undefined;
    if (!file) return answerError(response, new BotApiError(404, 'Not Found'));
    // Telegram's file server labels nearly everything application/octet-stream.
    response.writeHead(200, { 'content-type': 'application/octet-stream', 'content-length': String(file.bytes.length) });
    response.end(file.bytes);
  }

  // --- the customers ---------------------------------------------------------------------------

  async function deliver(update: Record<string, unknown>, { times = 1 } = {}): Promise<TelegramFakeDelivery> {
    const delivery: TelegramFakeDelivery = { updateId: update.update_id as number, body: JSON.stringify(update), attempts: [] };
    fake.deliveries.push(delivery);
    for (let copy = 0; copy < times; copy++) await postWithRetries(delivery);
    return delivery;
  }

  async function postWithRetries(delivery: TelegramFakeDelivery) {
    const target = fake.webhook;
    if (!target) throw new Error('Telegram fake: no webhook set (setWebhook first)');
    for (let attempt = 0; ; attempt++) {
      let status = 0;
      try {
        const response = await fetch(target.url, {
          method: 'POST',
          headers: {
            'content-type': 'application/json',
            ...(target.secretToken ? { 'x-telegram-bot-api-secret-token': target.secretToken } : {}),
          },
          body: delivery.body,
          signal: AbortSignal.timeout(10_000),
        });
        status = response.status;
        await response.arrayBuffer();
      } catch {
        status = 0;
      }
      delivery.attempts.push(status);
      if ((status >= 200 && status < 300) || attempt >= retryDelays.length) return;
      await new Promise((resolve) => setTimeout(resolve, retryDelays[attempt]));
    }
  }

  async function act(update: Record<string, unknown>, options: { deliver?: boolean; times?: number } = {}): Promise<CustomerAction> {
    const body = JSON.stringify(update);
    if (options.deliver === false) return { update, body };
    return { update, body, delivery: await deliver(update, { times: options.times }) };
  }

  function mediaObject(media: CustomerMedia, folder: string, extension: string, defaults: { fileName?: string; mimeType: string }) {
    const fileId = addFile(media.bytes, { folder, extension });
    const fileName = media.fileName ?? defaults.fileName;
    return { ...(fileName ? { file_name: fileName } : {}), mime_type: media.mimeType ?? defaults.mimeType, ...fileObject(fileId) };
  }

  const fake: TelegramFake = {
    url: '',
    token,
    bot,
    sent: [],
    calls: [],
    deliveries: [],
    chatActions: [],
    answeredCallbacks: [],
    webhook: null,

    setWebhook(target) {
      fake.webhook = target ? { url: target.url, ...(target.secretToken ? { secretToken: target.secretToken } : {}) } : null;
    },

    async customerWrites(input, options) {
      const chat = chatOf(input.chatId, input);
      const messageId = ++chat.lastMessageId;
      const message: Record<string, unknown> = {
        message_id: messageId,
        from: userJson(input.chatId),
        chat: chatJson(input.chatId),
        date: now(),
      };
      if (input.text !== undefined) message.text = input.text;
      if (input.caption !== undefined) message.caption = input.caption;
      if (input.photo) {
        // Telegram sends every size it made, smallest first; the thumbnail is a file of its own.
        const thumbnail = addFile(input.photo.subarray(0, Math.min(input.photo.length, 64)), { folder: 'photos', extension: 'jpg' });
        const original = addFile(input.photo, { folder: 'photos', extension: 'jpg' });
        message.photo = [
          { ...fileObject(thumbnail), width: 90, height: 51 },
          { ...fileObject(original), width: 1280, height: 720 },
        ];
      }
      if (input.document)
        message.document = mediaObject(input.document, 'documents', 'bin', { fileName: 'file', mimeType: 'application/octet-stream' });
      if (input.audio)
        message.audio = { duration: 3, ...mediaObject(input.audio, 'music', 'mp3', { fileName: 'audio.mp3', mimeType: 'audio/mpeg' }) };
      if (input.voice) message.voice = { duration: 2, ...mediaObject(input.voice, 'voice', 'oga', { mimeType: 'audio/ogg' }) };
      if (input.video) {
        message.video = {
          duration: 4,
          width: 640,
          height: 360,
          ...mediaObject(input.video, 'videos', 'mp4', { fileName: 'video.mp4', mimeType: 'video/mp4' }),
        };
      }
      if (input.sticker) {
        const fileId = addFile(input.sticker.bytes, { folder: 'stickers', extension: 'webp' });
        message.sticker = {
          ...fileObject(fileId),
          width: 512,
          height: 512,
          emoji: input.sticker.emoji ?? '🙂',
          is_animated: false,
          is_video: false,
          type: 'regular',
        };
      }
      const action = await act({ update_id: nextUpdateId++, message }, options);
      return { ...action, messageId };
    },

    async customerEdits(input, options) {
      chatOf(input.chatId);
      const edited = {
        message_id: input.messageId,
        from: userJson(input.chatId),
        chat: chatJson(input.chatId),
        date: now() - 5,
        edit_date: now(),
        text: input.text,
      };
      return act({ update_id: nextUpdateId++, edited_message: edited }, options);
    },

    async customerBlocks(chatId, options) {
      const chat = chatOf(chatId);
      chat.blocked = true;
      return act({ update_id: nextUpdateId++, my_chat_member: membership(chatId, 'member', 'kicked') }, options);
    },

    async customerUnblocks(chatId, options) {
      const chat = chatOf(chatId);
      chat.blocked = false;
      return act({ update_id: nextUpdateId++, my_chat_member: membership(chatId, 'kicked', 'member') }, options);
    },

    async customerTaps(input, options) {
      chatOf(input.chatId);
      const sentMessage = fake.sent.find((one) => one.chatId === String(input.chatId) && one.messageId === input.messageId);
      const keyboard = sentMessage?.inlineKeyboard;
      if (!keyboard?.flat().some((button) => button.callback_data === input.data)) {
        throw new Error(`Telegram fake: message ${input.messageId} in chat ${input.chatId} has no button with data ${input.data}`);
      }
      const queryId = String(BigInt(bot.id) * 1000n + BigInt(nextUpdateId));
      callbackQueries.set(queryId, { at: Date.now(), answered: false });
      const update = {
        update_id: nextUpdateId++,
        callback_query: {
          id: queryId,
          from: userJson(input.chatId),
          message: {
            ...botMessage(String(input.chatId), input.messageId),
            date: Math.floor(sentMessage!.at.getTime() / 1000),
            text: sentMessage!.text,
            reply_markup: { inline_keyboard: keyboard },
          },
          chat_instance: String(-BigInt(input.chatId) * 7n),
          data: input.data,
        },
      };
      const allowed = fake.webhook?.allowedUpdates;
      // Telegram keeps back update kinds setWebhook did not ask for.
      if (allowed && !allowed.includes('callback_query')) return { update, body: JSON.stringify(update), queryId };
      return { ...(await act(update, options)), queryId };
    },

    deliver,
    addFile,

    failNext(count, failure) {
      failures.push({ ...failure, remaining: count });
    },

    expireLinks() {
      for (const link of links.values()) link.expiresAt = 0;
    },

    expireNextLinks(count) {
      deadLinks = count;
    },

    close() {
      return new Promise((resolve, reject) => {
        server.closeAllConnections();
        server.close((error) => (error ? reject(error) : resolve()));
      });
    },
  };

  function membership(chatId: number, before: string, after: string) {
    const botUser = { id: bot.id, is_bot: true, first_name: bot.firstName, username: bot.username };
    return {
      chat: chatJson(chatId),
      from: userJson(chatId),
      date: now(),
      old_chat_member: { user: botUser, status: before },
      new_chat_member: { user: botUser, status: after, ...(after === 'kicked' ? { until_date: 0 } : {}) },
    };
  }

  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  fake.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return fake;
}

// --- request reading ---------------------------------------------------------------------------

async function readParams(request: IncomingMessage, url: URL): Promise<{ params: Record<string, string>; uploads: Map<string, Upload> }> {
  const params: Record<string, string> = Object.fromEntries(url.searchParams);
  const uploads = new Map<string, Upload>();
  const announced = Number(request.headers['content-length'] ?? NaN);
  if (Number.isFinite(announced) && announced > REQUEST_LIMIT) {
    request.resume();
    throw new BotApiError(413, 'Request Entity Too Large');
  }
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of request as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > REQUEST_LIMIT) throw new BotApiError(413, 'Request Entity Too Large');
    chunks.push(chunk);
  }
  const body = Buffer.concat(chunks);
  const contentType = (request.headers['content-type'] ?? '').toLowerCase();
  if (body.length === 0) return { params, uploads };
  if (contentType.startsWith('application/json')) {
    let json: unknown;
    try {
      json = JSON.parse(body.toString('utf8'));
    } catch {
      throw new BotApiError(400, "Bad Request: can't parse JSON object");
    }
    if (typeof json !== 'object' || json === null || Array.isArray(json))
      throw new BotApiError(400, "Bad Request: can't parse JSON object");
    for (const [key, value] of Object.entries(json)) {
      // Telegram reads JSON-serialised parameters (allowed_updates, reply_markup) either way.
      if (value !== null && value !== undefined) params[key] = typeof value === 'string' ? value : JSON.stringify(value);
    }
  } else if (contentType.startsWith('application/x-www-form-urlencoded')) {
    Object.assign(params, Object.fromEntries(new URLSearchParams(body.toString('utf8'))));
  } else if (contentType.startsWith('multipart/form-data')) {
    const boundary = /boundary=(?:"([^"]+)"|([^;]+))/i.exec(request.headers['content-type'] ?? '');
    if (!boundary) throw new BotApiError(400, 'Bad Request: multipart boundary missing');
    for (const part of parseMultipart(body, boundary[1] ?? boundary[2])) {
      if (part.fileName !== undefined) uploads.set(part.name, { fileName: part.fileName, mimeType: part.mimeType, bytes: part.data });
      else params[part.name] = part.data.toString('utf8');
    }
  } else {
    throw new BotApiError(400, 'Bad Request: unsupported Content-Type');
  }
  return { params, uploads };
}

function parseMultipart(body: Buffer, boundary: string): { name: string; fileName?: string; mimeType: string; data: Buffer }[] {
  const delimiter = Buffer.from(`--${boundary}`);
  const parts: { name: string; fileName?: string; mimeType: string; data: Buffer }[] = [];
  let position = body.indexOf(delimiter);
  while (position !== -1) {
    position += delimiter.length;
    if (body.subarray(position, position + 2).toString() === '--') break;
    position += 2; // CRLF after the delimiter
    const next = body.indexOf(delimiter, position);
    if (next === -1) throw new BotApiError(400, 'Bad Request: unterminated multipart body');
    const part = body.subarray(position, next - 2); // the CRLF before the next delimiter belongs to it
    const headerEnd = part.indexOf('\r\n\r\n');
    if (headerEnd === -1) throw new BotApiError(400, 'Bad Request: malformed multipart part');
    const headers = part.subarray(0, headerEnd).toString('utf8');
    const name = /name="([^"]*)"/i.exec(headers)?.[1];
    if (name === undefined) throw new BotApiError(400, 'Bad Request: multipart part without a name');
    const fileName = /filename="([^"]*)"/i.exec(headers)?.[1];
    const mimeType = /content-type:\s*([^\r\n;]+)/i.exec(headers)?.[1]?.trim() ?? 'application/octet-stream';
    parts.push({ name, ...(fileName !== undefined ? { fileName } : {}), mimeType, data: part.subarray(headerEnd + 4) });
    position = next;
  }
  return parts;
}

function answer(response: ServerResponse, status: number, body: unknown) {
  const text = JSON.stringify(body);
  response.writeHead(status, { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(text)) });
  response.end(text);
}

function answerError(response: ServerResponse, error: BotApiError) {
  answer(response, error.status, {
    ok: false,
    error_code: error.status,
    description: error.description,
    ...(error.parameters ? { parameters: error.parameters } : {}),
  });
}
