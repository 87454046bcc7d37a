import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { startTelegramFake, type TelegramFake } from '../../../../test/fakes/telegram';
import { eventually } from '../../../../test/support/eventually';
import { ChannelError, WebhookPayloadError, type ChannelAccount, type InboundEvent, type WebhookRequest } from '../adapter';
import { DEFAULT_CHANNEL_ENDPOINTS } from '../endpoints';
import { createChannelRegistry } from '../registry';
import { TELEGRAM_CAPABILITIES } from './capabilities';
import { TELEGRAM_MAX_UPDATE_BYTES } from './parse';
import { canSendTyping, createTelegramAdapter, TELEGRAM_ALLOWED_UPDATES, type TelegramAdapter } from './telegram.adapter';

const TOKEN = '7123456789:AAHk3x9_fake-token-for-tests-0123456789';
const JPEG = Buffer.concat([Buffer.from([0xff, 0xd8, 0xff, 0xe0]), Buffer.alloc(2000, 7), Buffer.from([0xff, 0xd9])]);
const PDF = Buffer.from('%PDF-1.4\n1 0 obj <<>> endobj\ntrailer <<>>\n%%EOF\n');

/** A stand-in for the platform's webhook endpoint: records each POST as received, answers `status()`. */
interface Receiver {
  url: string;
  requests: { headers: IncomingHttpHeaders; rawBody: Buffer }[];
  answers: number[];
  close(): Promise<void>;
}

async function startReceiver(): Promise<Receiver> {
  const receiver: Receiver = { url: '', requests: [], answers: [], close: async () => undefined };
  const server: Server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      receiver.requests.push({ headers: request.headers, rawBody: Buffer.concat(chunks) });
      response.writeHead(receiver.answers.shift() ?? 200);
      response.end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  receiver.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/api/channels/telegram/acc-1/webhook`;
  receiver.close = () => new Promise((resolve) => server.close(() => resolve()));
  return receiver;
}

function asWebhookRequest(received: { headers: IncomingHttpHeaders; rawBody: Buffer }): WebhookRequest {
  const headers: Record<string, string | undefined> = {};
  for (const [name, value] of Object.entries(received.headers)) headers[name] = Array.isArray(value) ? value.join(', ') : value;
  return { method: 'POST', query: {}, headers, rawBody: received.rawBody };
}

async function channelError(promise: Promise<unknown>): Promise<ChannelError> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof ChannelError) return error;
    throw error;
  }
  throw new Error('expected a ChannelError');
}

describe('Telegram adapter against the Bot API fake', () => {
  let fake: TelegramFake;
  let receiver: Receiver;
  let adapter: TelegramAdapter;
  let account: ChannelAccount;
  let nextChat = 900_000_001;
  const newChat = () => nextChat++;

  beforeAll(async () => {
    fake = await startTelegramFake({ token: TOKEN, webhookRetryDelaysMs: [10, 20, 40] });
    receiver = await startReceiver();
    adapter = createTelegramAdapter({ ...DEFAULT_CHANNEL_ENDPOINTS, telegramApiUrl: fake.url });
    account = {
      id: 'acc-1',
      kind: 'telegram',
      externalAccountId: '7123456789',
      settings: {},
      secrets: { botToken: TOKEN },
      verifyToken: 'vt_3f9c2a7d1e8b4c6a9f0e2d4b6a8c0e1f',
    };
    await adapter.registerWebhook(account, receiver.url);
  });

  afterAll(async () => {
    await fake.close();
    await receiver.close();
  });

  beforeEach(() => {
    receiver.requests.length = 0;
    receiver.answers.length = 0;
  });

  /** The customer writes; the update the platform received, verified and parsed by the adapter. */
  async function received(action: () => Promise<unknown>): Promise<{ events: InboundEvent[]; rawBody: Buffer }> {
    const before = receiver.requests.length;
    await action();
    const request = await eventually(() => {
      expect(receiver.requests.length).toBeGreaterThan(before);
      return receiver.requests[before];
    });
    expect(adapter.verifyWebhook(asWebhookRequest(request), account)).toEqual({ kind: 'verified' });
    return { events: adapter.parseWebhook(request.rawBody, account), rawBody: request.rawBody };
  }

  describe('capabilities and registry', () => {
    it('answers the Bot API limits as data', () => {
      expect(adapter.kind).toBe('telegram');
      expect(adapter.credentials).toEqual({ secrets: ['botToken'], settings: [] });
      expect(TELEGRAM_CAPABILITIES).toMatchObject({
        textLimit: 4096,
        receipts: { delivered: false, read: false },
        typing: true,
        markRead: false,
        replyWindowHours: null,
        templates: false,
      });
      expect(TELEGRAM_CAPABILITIES.attachments.image?.maxBytes).toBe(10 * 1024 * 1024);
      expect(TELEGRAM_CAPABILITIES.attachments.document?.maxBytes).toBe(50 * 1024 * 1024);
    });

    it('is registered under `telegram` with its webhook registration and typing indicator', () => {
      const registered = createChannelRegistry({ ...DEFAULT_CHANNEL_ENDPOINTS, telegramApiUrl: fake.url }).get('telegram');
      expect(registered?.kind).toBe('telegram');
      expect(typeof registered?.registerWebhook).toBe('function');
      expect(registered && canSendTyping(registered)).toBe(true);
    });
  });

  describe('registerWebhook', () => {
    it('calls setWebhook with the URL, the verify token as secret_token and the update kinds read', () => {
      expect(fake.webhook).toEqual({ url: receiver.url, secretToken: account.verifyToken, allowedUpdates: [...TELEGRAM_ALLOWED_UPDATES] });
      const call = fake.calls.find((candidate) => candidate.method === 'setWebhook');
      expect(call?.contentType).toBe('application/json');
    });

    it('refuses a verify token Telegram would not accept, without calling it', async () => {
      const calls = fake.calls.length;
      const error = await channelError(adapter.registerWebhook({ ...account, verifyToken: 'has spaces/and+slashes' }, receiver.url));
      expect(error.details).toMatchObject({ code: 'invalid_secret_token', retryable: false });
      expect(fake.calls.length).toBe(calls);
    });
  });

  describe('verifyWebhook', () => {
    const body = Buffer.from('{"update_id":1}');
    const request = (headers: Record<string, string | undefined>, method: 'GET' | 'POST' = 'POST'): WebhookRequest => ({
      method,
      query: {},
      headers,
      rawBody: body,
    });

    it('verifies the secret header the fake sends', async () => {
      await received(() => fake.customerWrites({ chatId: newChat(), text: 'hola' }));
      expect(receiver.requests[0].headers['x-telegram-bot-api-secret-token']).toBe(account.verifyToken);
    });

    it('refuses a forged, missing, truncated or extended secret', () => {
      const cases: Record<string, string | undefined>[] = [
        { 'x-telegram-bot-api-secret-token': 'vt_forged0000000000000000000000000' },
        {},
        { 'x-telegram-bot-api-secret-token': '' },
        { 'x-telegram-bot-api-secret-token': account.verifyToken.slice(0, -1) },
        { 'x-telegram-bot-api-secret-token': `${account.verifyToken}x` },
        { 'x-hub-signature-256': account.verifyToken },
      ];
      for (const headers of cases) expect(adapter.verifyWebhook(request(headers), account).kind).toBe('refused');
    });

    it('refuses a GET (Telegram has no handshake) and an account without a verify token', () => {
      expect(adapter.verifyWebhook(request({ 'x-telegram-bot-api-secret-token': account.verifyToken }, 'GET'), account)).toMatchObject({
        kind: 'refused',
      });
      expect(adapter.verifyWebhook(request({ 'x-telegram-bot-api-secret-token': '' }), { ...account, verifyToken: '' }).kind).toBe(
        'refused',
      );
    });

    it('never throws on a hostile request shape', () => {
      const hostile = {
        method: 'POST',
        query: {},
        headers: { 'x-telegram-bot-api-secret-token': ['a', 'b'] },
        rawBody: body,
      } as unknown as WebhookRequest;
      expect(adapter.verifyWebhook(hostile, account).kind).toBe('refused');
      expect(adapter.verifyWebhook({ ...request({}), headers: null } as unknown as WebhookRequest, account).kind).toBe('refused');
    });
  });

  describe('parseWebhook', () => {
    it('parses a text message: chat-scoped id, contact from the payload, time', async () => {
      const chatId = newChat();
      const { events, rawBody } = await received(() =>
        fake.customerWrites({ chatId, firstName: 'Ana', lastName: 'García Ñúñez', username: 'ana_g', text: 'Hola, ¿me ayudáis? 👋' }),
      );
      expect(events).toEqual([
        {
          type: 'message',
          providerMessageId: `${chatId}:1`,
          contact: { externalId: String(chatId), name: 'Ana García Ñúñez', username: 'ana_g' },
          at: expect.any(Date),
          text: 'Hola, ¿me ayudáis? 👋',
        },
      ]);
      // Telegram's `date` is in seconds.
      expect((events[0] as { at: Date }).at.getTime()).toBe(JSON.parse(rawBody.toString()).message.date * 1000);
      expect(adapter.deliveryId(rawBody, account)).toBe(String(JSON.parse(rawBody.toString()).update_id));
    });

    it('takes the largest photo size and the caption as text', async () => {
      const chatId = newChat();
      const { events } = await received(() => fake.customerWrites({ chatId, photo: JPEG, caption: 'la factura' }));
      expect(events).toHaveLength(1);
      const event = events[0] as Extract<InboundEvent, { type: 'message' }>;
      expect(event.text).toBe('la factura');
      expect(event.media).toEqual([{ kind: 'image', ref: expect.any(String), mimeType: 'image/jpeg', size: JPEG.length }]);
    });

    it('maps document, audio, voice, video and sticker to attachment kinds', async () => {
      const chatId = newChat();
      const kinds: [() => Promise<unknown>, object][] = [
        [
          () => fake.customerWrites({ chatId, document: { bytes: PDF, fileName: 'contrato.pdf', mimeType: 'application/pdf' } }),
          { kind: 'document', mimeType: 'application/pdf', fileName: 'contrato.pdf', size: PDF.length },
        ],
        [
          () => fake.customerWrites({ chatId, audio: { bytes: Buffer.from('ID3audio') } }),
          { kind: 'audio', mimeType: 'audio/mpeg', fileName: 'audio.mp3' },
        ],
        [() => fake.customerWrites({ chatId, voice: { bytes: Buffer.from('OggSvoice') } }), { kind: 'audio', mimeType: 'audio/ogg' }],
        [() => fake.customerWrites({ chatId, video: { bytes: Buffer.from('....ftypmp42') } }), { kind: 'video', mimeType: 'video/mp4' }],
        [() => fake.customerWrites({ chatId, sticker: { bytes: Buffer.from('RIFF....WEBP') } }), { kind: 'image', mimeType: 'image/webp' }],
      ];
      for (const [write, media] of kinds) {
        const { events } = await received(write);
        expect(events).toHaveLength(1);
        expect((events[0] as Extract<InboundEvent, { type: 'message' }>).media).toEqual([expect.objectContaining(media)]);
      }
    });

    it('turns an edit into a new message with its own id, carrying the corrected text', async () => {
      const chatId = newChat();
      const { messageId } = await fake.customerWrites({ chatId, text: 'mi pedio es 123' });
      const { events } = await received(() => fake.customerEdits({ chatId, messageId, text: 'mi pedido es 123' }));
      expect(events).toEqual([
        expect.objectContaining({
          type: 'message',
          providerMessageId: expect.stringMatching(new RegExp(`^${chatId}:${messageId}:edit:\\d+$`)),
          text: 'mi pedido es 123',
        }),
      ]);
    });

    it('reads blocking the bot as opt-out and unblocking as opt-in', async () => {
      const chatId = newChat();
      await fake.customerWrites({ chatId, text: 'hola' });
      const blocked = await received(() => fake.customerBlocks(chatId));
      expect(blocked.events).toEqual([{ type: 'opt-out', contactExternalId: String(chatId), at: expect.any(Date), reason: 'blocked' }]);
      const unblocked = await received(() => fake.customerUnblocks(chatId));
      expect(unblocked.events).toEqual([{ type: 'opt-in', contactExternalId: String(chatId), at: expect.any(Date), reason: 'unblocked' }]);
    });

    it('renders a shared location and a contact card as text', () => {
      const base = { message_id: 5, date: 1_700_000_000, chat: { id: 77, type: 'private', first_name: 'Eva' } };
      const location = adapter.parseWebhook(
        Buffer.from(JSON.stringify({ update_id: 1, message: { ...base, location: { latitude: 40.4168, longitude: -3.7038 } } })),
        account,
      );
      expect(location).toEqual([expect.objectContaining({ text: 'geo:40.4168,-3.7038', contact: { externalId: '77', name: 'Eva' } })]);
      const card = adapter.parseWebhook(
        Buffer.from(JSON.stringify({ update_id: 2, message: { ...base, contact: { phone_number: '+34600000000', first_name: 'Luis' } } })),
        account,
      );
      expect(card).toEqual([expect.objectContaining({ text: 'Luis: +34600000000' })]);
    });

    it('skips group chats, channel posts, service messages and update kinds it does not serve', () => {
      const skipped = [
        {
          update_id: 1,
          message: { message_id: 1, date: 1_700_000_000, chat: { id: -100123, type: 'supergroup', title: 'Clientes' }, text: 'hola' },
        },
        { update_id: 2, message: { message_id: 1, date: 1_700_000_000, chat: { id: -55, type: 'group', title: 'G' }, text: 'hola' } },
        { update_id: 3, channel_post: { message_id: 1, date: 1_700_000_000, chat: { id: -100, type: 'channel' }, text: 'news' } },
        { update_id: 4, callback_query: { id: 'q', from: { id: 1, is_bot: false, first_name: 'x' }, data: 'y' } },
        {
          update_id: 5,
          message: { message_id: 2, date: 1_700_000_000, chat: { id: 9, type: 'private' }, dice: { emoji: '🎲', value: 3 } },
        },
        { update_id: 6, my_chat_member: { chat: { id: -5, type: 'group' }, date: 1_700_000_000, new_chat_member: { status: 'kicked' } } },
        {
          update_id: 7,
          my_chat_member: { chat: { id: 5, type: 'private' }, date: 1_700_000_000, new_chat_member: { status: 'administrator' } },
        },
        { update_id: 8 },
      ];
      for (const update of skipped) expect(adapter.parseWebhook(Buffer.from(JSON.stringify(update)), account)).toEqual([]);
    });

    it('throws WebhookPayloadError (never TypeError) on a verified body that is not an Update', () => {
      const chat = { id: 9, type: 'private' };
      const malformed: (string | Buffer)[] = [
        'not json',
        '',
        'null',
        '[{"update_id":1}]',
        '{"update_id":"1"}',
        '{"update_id":1.5}',
        JSON.stringify({ update_id: 1, message: 'hola' }),
        JSON.stringify({ update_id: 1, message: { message_id: 1, date: 1 } }),
        JSON.stringify({ update_id: 1, message: { message_id: 1, date: 1, chat: { id: '9', type: 'private' } } }),
        JSON.stringify({ update_id: 1, message: { message_id: 1, date: 1, chat: { id: 9 } } }),
        JSON.stringify({ update_id: 1, message: { message_id: 'x', date: 1, chat } }),
        JSON.stringify({ update_id: 1, message: { message_id: 1, date: 1, chat, text: 42 } }),
        JSON.stringify({ update_id: 1, message: { message_id: 1, date: 1, chat, photo: [] } }),
        JSON.stringify({ update_id: 1, message: { message_id: 1, date: 1, chat, photo: [{ file_id: 'a' }] } }),
        JSON.stringify({ update_id: 1, message: { message_id: 1, date: 1, chat, document: { file_id: 7 } } }),
        JSON.stringify({ update_id: 1, message: { message_id: 1, date: 1, chat, document: { file_id: '' } } }),
        JSON.stringify({ update_id: 1, message: { message_id: 1, date: 1, chat, from: 'me', text: 'x' } }),
        JSON.stringify({ update_id: 1, message: { message_id: 1, date: 1, chat, location: { latitude: 'N' } } }),
        JSON.stringify({ update_id: 1, edited_message: { message_id: 1, date: 1, chat, text: 'x' } }),
        JSON.stringify({ update_id: 1, my_chat_member: { chat, date: 1, new_chat_member: null } }),
        JSON.stringify({ update_id: 1, my_chat_member: { chat, date: 1 } }),
        JSON.stringify({ update_id: 1, message: { message_id: 1, date: -5, chat, text: 'x' } }),
        '{"update_id":1,"message":{"__proto__":{"chat":{"id":1,"type":"private"}},"message_id":1,"date":1}}',
        Buffer.alloc(TELEGRAM_MAX_UPDATE_BYTES + 1, 0x20),
      ];
      for (const body of malformed) {
        expect(() => adapter.parseWebhook(Buffer.isBuffer(body) ? body : Buffer.from(body), account)).toThrow(WebhookPayloadError);
      }
    });

    it('caps hostile names and keeps a huge but legal text intact', () => {
      const update = {
        update_id: 1,
        message: {
          message_id: 1,
          date: 1_700_000_000,
          chat: { id: 9, type: 'private' },
          from: { id: 9, is_bot: false, first_name: 'A'.repeat(5000), username: 'u'.repeat(5000) },
          text: '\u0000<script>'.repeat(400),
        },
      };
      const [event] = adapter.parseWebhook(Buffer.from(JSON.stringify(update)), account) as Extract<InboundEvent, { type: 'message' }>[];
      expect(event.contact.name).toHaveLength(200);
      expect(event.contact.username).toHaveLength(200);
      expect(event.text).toBe(update.message.text);
    });

    it('answers a null deliveryId for an unreadable body', () => {
      expect(adapter.deliveryId(Buffer.from('garbage'), account)).toBeNull();
      expect(adapter.deliveryId(Buffer.from('{"update_id":123456789}'), account)).toBe('123456789');
    });
  });

  describe('reply buttons (inline keyboard) and taps (callback_query)', () => {
    const buttons = [
      { payload: 'bot:handoff', title: 'Hablar con una persona' },
      { payload: 'bot:topic:billing', title: 'Facturación y pagos de la cuenta del cliente' },
    ];

    it('sends the buttons as an inline keyboard, one a row, with callback_data; a tap parses back to the payload and is answered', async () => {
      const chatId = newChat();
      await fake.customerWrites({ chatId, firstName: 'Lucía', text: 'hola' });
      const { providerMessageId } = await adapter.send(
        account,
        { to: String(chatId), text: '¿En qué te ayudo?', buttons },
        { idempotencyKey: 'b-1' },
      );
      const sent = fake.sent.at(-1)!;
      expect(sent.inlineKeyboard).toEqual([
        [{ text: 'Hablar con una persona', callback_data: 'bot:handoff' }],
        // Cut to the platform's label length, with an ellipsis.
        [{ text: 'Facturación y pagos de la cuenta del cl…', callback_data: 'bot:topic:billing' }],
      ]);
      expect([...sent.inlineKeyboard![1][0].text].length).toBeLessThanOrEqual(TELEGRAM_CAPABILITIES.buttons!.titleMax);

      const { events } = await received(() =>
        fake.customerTaps({ chatId, messageId: Number(providerMessageId.split(':')[1]), data: 'bot:handoff' }),
      );
      expect(events).toEqual([
        {
          type: 'message',
          providerMessageId: expect.stringMatching(/^cb:\d+$/),
          contact: { externalId: String(chatId), name: 'Lucía' },
          at: expect.any(Date),
          text: 'Hablar con una persona',
          button: { payload: 'bot:handoff', ack: expect.any(String) },
        },
      ]);
      const event = events[0] as Extract<InboundEvent, { type: 'message' }>;
      await adapter.acknowledgeButton(account, event.button!.ack!);
      expect(fake.answeredCallbacks.at(-1)).toEqual({ queryId: event.button!.ack });
      // Telegram answers a query once.
      const again = await channelError(adapter.acknowledgeButton(account, event.button!.ack!));
      expect(again.message).toMatch(/query is too old|query ID is invalid/);
    });

    it('refuses what Telegram refuses: callback_data over 64 bytes, too many buttons, duplicates', async () => {
      const chatId = newChat();
      await fake.customerWrites({ chatId, text: 'hola' });
      const long = await channelError(
        adapter.send(
          account,
          { to: String(chatId), text: 'x', buttons: [{ payload: 'ñ'.repeat(33), title: 'Largo' }] },
          { idempotencyKey: 'b-2' },
        ),
      );
      expect(long.details).toMatchObject({ code: 'invalid_button', retryable: false });
      const many = Array.from({ length: TELEGRAM_CAPABILITIES.buttons!.max + 1 }, (_, index) => ({
        payload: `p${index}`,
        title: `Opción ${index}`,
      }));
      expect(
        (await channelError(adapter.send(account, { to: String(chatId), text: 'x', buttons: many }, { idempotencyKey: 'b-3' }))).details
          .code,
      ).toBe('too_many_buttons');
      const twice = [
        { payload: 'a', title: 'Igual' },
        { payload: 'b', title: 'Igual' },
      ];
      expect(
        (await channelError(adapter.send(account, { to: String(chatId), text: 'x', buttons: twice }, { idempotencyKey: 'b-4' }))).details
          .code,
      ).toBe('invalid_button');
      // The fake checks the wire format itself: 65 bytes of callback_data is BUTTON_DATA_INVALID.
      const raw = await fetch(`${fake.url}/bot${TOKEN}/sendMessage`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({
          chat_id: chatId,
          text: 'x',
          reply_markup: { inline_keyboard: [[{ text: 'a', callback_data: 'x'.repeat(65) }]] },
        }),
      });
      expect(raw.status).toBe(400);
      expect(await raw.json()).toMatchObject({ ok: false, description: 'Bad Request: BUTTON_DATA_INVALID' });
    });

    it('asks Telegram for callback queries when it registers the webhook, and skips taps without data or outside private chats', async () => {
      expect(TELEGRAM_ALLOWED_UPDATES).toContain('callback_query');
      const base = { id: '77', from: { id: 5, is_bot: false, first_name: 'A' }, chat_instance: '1' };
      const message = { message_id: 3, date: 1, chat: { id: 5, type: 'private' } };
      const parse = (callback: Record<string, unknown>) =>
        adapter.parseWebhook(Buffer.from(JSON.stringify({ update_id: 1, callback_query: callback })), account);
      expect(parse({ ...base, message, game_short_name: 'g' })).toEqual([]);
      expect(parse({ ...base, message: { ...message, chat: { id: -100, type: 'group' } }, data: 'x' })).toEqual([]);
      // The label is the data when the keyboard is not in the update.
      expect(parse({ ...base, message, data: 'bot:handoff' })).toEqual([
        expect.objectContaining({ providerMessageId: 'cb:77', text: 'bot:handoff', button: { payload: 'bot:handoff', ack: '77' } }),
      ]);
      expect(() => parse({ ...base, id: 7 })).toThrow(WebhookPayloadError);
    });
  });

  describe('webhook deliveries from the fake', () => {
    it('re-delivers the same update (same update_id) after non-2xx answers, then stops', async () => {
      receiver.answers.push(500, 503);
      const { delivery } = await fake.customerWrites({ chatId: newChat(), text: 'reintento' });
      expect(delivery?.attempts).toEqual([500, 503, 200]);
      expect(receiver.requests).toHaveLength(3);
      const ids = receiver.requests.map((request) => adapter.deliveryId(request.rawBody, account));
      expect(new Set(ids).size).toBe(1);
      expect(receiver.requests.every((request) => request.rawBody.equals(receiver.requests[0].rawBody))).toBe(true);
    });

    it('gives up after its retries', async () => {
      receiver.answers.push(500, 500, 500, 500);
      const { delivery } = await fake.customerWrites({ chatId: newChat(), text: 'nadie contesta' });
      expect(delivery?.attempts).toEqual([500, 500, 500, 500]);
    });

    it('delivers a duplicate on demand, byte for byte', async () => {
      await fake.customerWrites({ chatId: newChat(), text: 'dos veces' }, { times: 2 });
      expect(receiver.requests).toHaveLength(2);
      expect(receiver.requests[0].rawBody.equals(receiver.requests[1].rawBody)).toBe(true);
    });
  });

  describe('send', () => {
    it('sends text with sendMessage as JSON and answers `<chat>:<message_id>`', async () => {
      const chatId = newChat();
      await fake.customerWrites({ chatId, text: 'hola' });
      const result = await adapter.send(
        account,
        { to: String(chatId), text: 'Buenos días, ¿en qué puedo ayudarle?' },
        { idempotencyKey: 'm-1' },
      );
      expect(result).toEqual({ providerMessageId: `${chatId}:2` });
      expect(fake.sent.at(-1)).toMatchObject({
        method: 'sendMessage',
        chatId: String(chatId),
        messageId: 2,
        text: 'Buenos días, ¿en qué puedo ayudarle?',
      });
      expect(fake.calls.at(-1)).toMatchObject({ method: 'sendMessage', httpMethod: 'POST', contentType: 'application/json', status: 200 });
    });

    it('uploads media with the method of its kind, as multipart with the file', async () => {
      const chatId = newChat();
      await fake.customerWrites({ chatId, text: 'hola' });
      const cases = [
        {
          media: { kind: 'image' as const, mimeType: 'image/jpeg', fileName: 'foto.jpg', bytes: JPEG, caption: 'su ticket' },
          method: 'sendPhoto',
          field: 'photo',
        },
        {
          media: { kind: 'document' as const, mimeType: 'application/pdf', fileName: 'factura.pdf', bytes: PDF },
          method: 'sendDocument',
          field: 'document',
        },
        {
          media: { kind: 'audio' as const, mimeType: 'audio/mpeg', fileName: 'aviso.mp3', bytes: Buffer.from('ID3') },
          method: 'sendAudio',
          field: 'audio',
        },
        {
          media: { kind: 'audio' as const, mimeType: 'audio/ogg', fileName: 'nota.ogg', bytes: Buffer.from('OggS') },
          method: 'sendVoice',
          field: 'voice',
        },
        {
          media: { kind: 'video' as const, mimeType: 'video/mp4', fileName: 'guia.mp4', bytes: Buffer.from('ftypmp42') },
          method: 'sendVideo',
          field: 'video',
        },
        {
          media: { kind: 'video' as const, mimeType: 'video/quicktime', fileName: 'guia.mov', bytes: Buffer.from('ftypqt') },
          method: 'sendDocument',
          field: 'document',
        },
        {
          media: { kind: 'image' as const, mimeType: 'image/gif', fileName: 'anim.gif', bytes: Buffer.from('GIF89a') },
          method: 'sendDocument',
          field: 'document',
        },
      ];
      for (const { media, method, field } of cases) {
        const result = await adapter.send(account, { to: String(chatId), media }, { idempotencyKey: `k-${method}` });
        const sent = fake.sent.at(-1)!;
        expect(result.providerMessageId).toBe(`${chatId}:${sent.messageId}`);
        expect(sent).toMatchObject({ method, chatId: String(chatId), file: { field, fileName: media.fileName, mimeType: media.mimeType } });
        expect(sent.file?.bytes.equals(media.bytes)).toBe(true);
        expect(sent.caption).toBe('caption' in media ? media.caption : undefined);
        expect(fake.calls.at(-1)?.contentType).toMatch(/^multipart\/form-data; boundary=/);
      }
    });

    it('sends a photo over 10 MB as a document, and refuses over 50 MB without calling Telegram', async () => {
      const chatId = newChat();
      await fake.customerWrites({ chatId, text: 'hola' });
      const big = Buffer.alloc(10 * 1024 * 1024 + 1, 1);
      await adapter.send(
        account,
        { to: String(chatId), media: { kind: 'image', mimeType: 'image/jpeg', fileName: 'grande.jpg', bytes: big } },
        { idempotencyKey: 'big' },
      );
      expect(fake.sent.at(-1)).toMatchObject({ method: 'sendDocument', file: { fileName: 'grande.jpg' } });
      const calls = fake.calls.length;
      const huge = Buffer.alloc(50 * 1024 * 1024 + 1, 1);
      const error = await channelError(
        adapter.send(
          account,
          { to: String(chatId), media: { kind: 'video', mimeType: 'video/mp4', fileName: 'x.mp4', bytes: huge } },
          { idempotencyKey: 'huge' },
        ),
      );
      expect(error.details).toMatchObject({ code: 'media_too_large', retryable: false });
      expect(fake.calls.length).toBe(calls);
    });

    it('fails a text over 4096 characters permanently with Telegram’s reason', async () => {
      const chatId = newChat();
      await fake.customerWrites({ chatId, text: 'hola' });
      const ok = await adapter.send(account, { to: String(chatId), text: 'x'.repeat(4096) }, { idempotencyKey: 'limit' });
      expect(ok.providerMessageId).toMatch(new RegExp(`^${chatId}:`));
      const error = await channelError(adapter.send(account, { to: String(chatId), text: 'x'.repeat(4097) }, { idempotencyKey: 'long' }));
      expect(error.message).toBe('Bad Request: message is too long');
      expect(error.details).toMatchObject({ code: 'text_too_long', retryable: false, status: 400 });
    });

    it('classifies a blocked bot as a permanent `blocked` error', async () => {
      const chatId = newChat();
      await fake.customerWrites({ chatId, text: 'hola' });
      await fake.customerBlocks(chatId);
      const error = await channelError(adapter.send(account, { to: String(chatId), text: '¿sigue ahí?' }, { idempotencyKey: 'b' }));
      expect(error.message).toBe('Forbidden: bot was blocked by the user');
      expect(error.details).toMatchObject({ code: 'blocked', retryable: false, status: 403 });
    });

    it('retries a 429 after parameters.retry_after, then sends', async () => {
      const chatId = newChat();
      await fake.customerWrites({ chatId, text: 'hola' });
      fake.failNext(1, { status: 429, retryAfter: 7 });
      const error = await channelError(adapter.send(account, { to: String(chatId), text: 'uno' }, { idempotencyKey: 'r' }));
      expect(error.message).toBe('Too Many Requests: retry after 7');
      expect(error.details).toMatchObject({ code: 'rate_limited', retryable: true, retryAfterMs: 7000, status: 429 });
      await expect(adapter.send(account, { to: String(chatId), text: 'uno' }, { idempotencyKey: 'r' })).resolves.toHaveProperty(
        'providerMessageId',
      );
    });

    it('retries 5xx and network failures; never 400-class ones', async () => {
      const chatId = newChat();
      await fake.customerWrites({ chatId, text: 'hola' });
      fake.failNext(1, { status: 502, methods: ['sendMessage'] });
      expect((await channelError(adapter.send(account, { to: String(chatId), text: 'a' }, { idempotencyKey: 'x' }))).details).toMatchObject(
        {
          code: 'server_error',
          retryable: true,
        },
      );
      fake.failNext(1, { status: 400, description: 'Bad Request: wrong parameter' });
      expect((await channelError(adapter.send(account, { to: String(chatId), text: 'a' }, { idempotencyKey: 'x' }))).details).toMatchObject(
        {
          code: 'bad_request',
          retryable: false,
        },
      );
      const unknownChat = await channelError(adapter.send(account, { to: '123', text: 'a' }, { idempotencyKey: 'x' }));
      expect(unknownChat.details).toMatchObject({ code: 'invalid_recipient', retryable: false });
      const offline = createTelegramAdapter({ ...DEFAULT_CHANNEL_ENDPOINTS, telegramApiUrl: 'http://127.0.0.1:1' });
      expect((await channelError(offline.send(account, { to: String(chatId), text: 'a' }, { idempotencyKey: 'x' }))).details).toMatchObject(
        {
          code: 'network',
          retryable: true,
        },
      );
    });

    it('refuses a bad or malformed token, a non-chat recipient, a template and an empty message', async () => {
      const chatId = newChat();
      await fake.customerWrites({ chatId, text: 'hola' });
      const wrongToken = await channelError(
        adapter.send(
          { ...account, secrets: { botToken: '7123456789:AAHk3x9_wrong-token-for-tests-000000000' } },
          { to: String(chatId), text: 'a' },
          { idempotencyKey: 'x' },
        ),
      );
      expect(wrongToken.details).toMatchObject({ code: 'unauthorized', retryable: false, status: 401 });
      const calls = fake.calls.length;
      for (const botToken of ['', 'abc', '123:short', '7123456789:AAHk3x9_fake-token/../../getMe?x=0000']) {
        const error = await channelError(
          adapter.send({ ...account, secrets: { botToken } }, { to: String(chatId), text: 'a' }, { idempotencyKey: 'x' }),
        );
        expect(error.details).toMatchObject({ code: 'invalid_credentials', retryable: false });
      }
      expect((await channelError(adapter.send(account, { to: '@someone', text: 'a' }, { idempotencyKey: 'x' }))).details.code).toBe(
        'invalid_recipient',
      );
      const template = { name: 'hello', language: 'es', bodyParameters: [] };
      expect((await channelError(adapter.send(account, { to: String(chatId), template }, { idempotencyKey: 'x' }))).details.code).toBe(
        'templates_unsupported',
      );
      expect((await channelError(adapter.send(account, { to: String(chatId), text: '' }, { idempotencyKey: 'x' }))).details.code).toBe(
        'empty_message',
      );
      expect(fake.calls.length).toBe(calls);
    });
  });

  describe('fetchMedia', () => {
    async function mediaOf(write: () => Promise<unknown>) {
      const { events } = await received(write);
      return (events[0] as Extract<InboundEvent, { type: 'message' }>).media![0];
    }

    it('downloads a photo through getFile and the file link, typed from the update', async () => {
      const media = await mediaOf(() => fake.customerWrites({ chatId: newChat(), photo: JPEG }));
      const fetched = await adapter.fetchMedia(account, media, 1024 * 1024);
      expect(fetched.bytes.equals(JPEG)).toBe(true);
      expect(fetched.mimeType).toBe('image/jpeg');
      expect(fetched.fileName).toMatch(/^file_\d+\.jpg$/);
      expect(fake.calls.at(-1)).toMatchObject({ method: 'getFile', params: { file_id: media.ref } });
    });

    it('keeps a document’s own name and type', async () => {
      const media = await mediaOf(() =>
        fake.customerWrites({ chatId: newChat(), document: { bytes: PDF, fileName: 'dni.pdf', mimeType: 'application/pdf' } }),
      );
      const fetched = await adapter.fetchMedia(account, media, 1024 * 1024);
      expect(fetched).toEqual({ bytes: PDF, mimeType: 'application/pdf', fileName: 'dni.pdf' });
    });

    it('refuses a file over maxBytes, announced by the update or by getFile', async () => {
      const media = await mediaOf(() => fake.customerWrites({ chatId: newChat(), photo: JPEG }));
      const calls = fake.calls.length;
      expect((await channelError(adapter.fetchMedia(account, media, 100))).details).toMatchObject({
        code: 'media_too_large',
        retryable: false,
      });
      expect(fake.calls.length).toBe(calls);
      const unannounced = { ...media, size: undefined };
      expect((await channelError(adapter.fetchMedia(account, unannounced, 100))).details).toMatchObject({
        code: 'media_too_large',
        retryable: false,
      });
    });

    it('reports a file over the Bot API’s 20 MB download limit as too large', async () => {
      const fileId = fake.addFile(Buffer.alloc(20 * 1024 * 1024 + 1), { folder: 'videos', extension: 'mp4' });
      const error = await channelError(adapter.fetchMedia(account, { kind: 'video', ref: fileId }, 100 * 1024 * 1024));
      expect(error.message).toBe('Bad Request: file is too big');
      expect(error.details).toMatchObject({ code: 'media_too_large', retryable: false });
    });

    it('asks for a fresh link when one expired, and fails retryably when links keep expiring', async () => {
      const expiring = await startTelegramFake({ token: TOKEN, linkTtlMs: 0 });
      try {
        const expiringAdapter = createTelegramAdapter({ ...DEFAULT_CHANNEL_ENDPOINTS, telegramApiUrl: expiring.url });
        const fileId = expiring.addFile(JPEG, { folder: 'photos', extension: 'jpg' });
        const error = await channelError(expiringAdapter.fetchMedia(account, { kind: 'image', ref: fileId }, 1024 * 1024));
        expect(error.details).toMatchObject({ code: 'media_expired', retryable: true });
        expect(expiring.calls.filter((call) => call.method === 'getFile')).toHaveLength(2);
      } finally {
        await expiring.close();
      }
    });

    it('fails permanently for an unknown file_id', async () => {
      const error = await channelError(adapter.fetchMedia(account, { kind: 'image', ref: 'AgACnot-a-file' }, 1024));
      expect(error.message).toBe('Bad Request: invalid file_id');
      expect(error.details).toMatchObject({ code: 'bad_request', retryable: false });
    });

    it('renews a link that expired before the download with a second getFile', async () => {
      const media = await mediaOf(() => fake.customerWrites({ chatId: newChat(), photo: JPEG }));
      const getFiles = () => fake.calls.filter((call) => call.method === 'getFile').length;
      const before = getFiles();
      fake.expireNextLinks(1);
      const fetched = await adapter.fetchMedia(account, media, 1024 * 1024);
      expect(fetched.bytes.equals(JPEG)).toBe(true);
      expect(getFiles() - before).toBe(2);
    });

    it('serves a link until it is expired, then 404 like Telegram', async () => {
      const fileId = fake.addFile(PDF, { folder: 'documents', extension: 'pdf' });
      const file = (await (await fetch(`${fake.url}/bot${TOKEN}/getFile?file_id=${fileId}`)).json()) as { result: { file_path: string } };
      const link = `${fake.url}/file/bot${TOKEN}/${file.result.file_path}`;
      expect(Buffer.from(await (await fetch(link)).arrayBuffer()).equals(PDF)).toBe(true);
      fake.expireLinks();
      const expired = await fetch(link);
      expect(expired.status).toBe(404);
      expect(await expired.json()).toEqual({ ok: false, error_code: 404, description: 'Not Found' });
    });
  });

  describe('testConnection, markRead, sendTyping', () => {
    it('answers the bot’s name from getMe', async () => {
      await expect(adapter.testConnection(account)).resolves.toEqual({ name: 'Centralita Test (@centralita_test_bot)' });
    });

    it('fails with a wrong token and with a token of another bot', async () => {
      const wrong = await channelError(
        adapter.testConnection({ ...account, secrets: { botToken: '7123456789:AAHk3x9_wrong-token-for-tests-000000000' } }),
      );
      expect(wrong.details).toMatchObject({ code: 'unauthorized', retryable: false });
      const other = await channelError(adapter.testConnection({ ...account, externalAccountId: '555' }));
      expect(other.details.code).toBe('account_mismatch');
    });

    it('markRead is a no-op (bots cannot mark messages read)', async () => {
      const calls = fake.calls.length;
      await expect(adapter.markRead(account, { contactExternalId: '1', providerMessageId: '1:1' })).resolves.toBeUndefined();
      expect(fake.calls.length).toBe(calls);
    });

    it('shows typing with sendChatAction', async () => {
      const chatId = newChat();
      await fake.customerWrites({ chatId, text: 'hola' });
      await adapter.sendTyping(account, { contactExternalId: String(chatId) });
      expect(fake.chatActions.at(-1)).toEqual({ chatId: String(chatId), action: 'typing' });
    });
  });
});

describe('Telegram fake on its own', () => {
  let fake: TelegramFake;
  beforeAll(async () => {
    fake = await startTelegramFake({ token: TOKEN });
  });
  afterAll(() => fake.close());

  const post = (path: string, body: unknown) =>
    fetch(`${fake.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });

  it('refuses a wrong token, an unknown method, and answers methods case-insensitively', async () => {
    const wrong = await post('/bot1:nope/getMe', {});
    expect(wrong.status).toBe(401);
    expect(await wrong.json()).toEqual({ ok: false, error_code: 401, description: 'Unauthorized' });
    expect((await post(`/bot${TOKEN}/fooBar`, {})).status).toBe(404);
    const me = await post(`/bot${TOKEN}/GETME`, {});
    expect(await me.json()).toMatchObject({ ok: true, result: { is_bot: true, id: 7123456789 } });
  });

  it('checks chat_id, text and a photo’s 10 MB limit', async () => {
    await fake.customerWrites({ chatId: 1234, text: 'hola' }, { deliver: false });
    expect(await (await post(`/bot${TOKEN}/sendMessage`, { text: 'x' })).json()).toMatchObject({
      description: 'Bad Request: chat_id is empty',
    });
    expect(await (await post(`/bot${TOKEN}/sendMessage`, { chat_id: 1234 })).json()).toMatchObject({
      description: 'Bad Request: message text is empty',
    });
    const form = new FormData();
    form.set('chat_id', '1234');
    form.set('photo', new Blob([new Uint8Array(10 * 1024 * 1024 + 1)], { type: 'image/jpeg' }), 'big.jpg');
    const photo = await fetch(`${fake.url}/bot${TOKEN}/sendPhoto`, { method: 'POST', body: form });
    expect(photo.status).toBe(400);
    const noFile = new FormData();
    noFile.set('chat_id', '1234');
    expect(await (await fetch(`${fake.url}/bot${TOKEN}/sendPhoto`, { method: 'POST', body: noFile })).json()).toMatchObject({
      description: 'Bad Request: there is no photo in the request',
    });
  });

  it('posts without the secret header when no secret is set, and refuses a bad secret_token', async () => {
    const bodies: IncomingHttpHeaders[] = [];
    const server = createServer((request, response) => {
      bodies.push(request.headers);
      request.resume();
      request.on('end', () => response.end());
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      fake.setWebhook({ url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/` });
      await fake.customerWrites({ chatId: 99, text: 'x' });
      expect(bodies[0]['x-telegram-bot-api-secret-token']).toBeUndefined();
      const refused = await post(`/bot${TOKEN}/setWebhook`, { url: 'https://example.test/hook', secret_token: 'no spaces allowed' });
      expect(refused.status).toBe(400);
    } finally {
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });
});
