import { randomBytes, randomInt } from 'node:crypto';
import type { ChannelAccountView, MessageView, ChannelKindView } from '@centralita/contracts';
import request from 'supertest';
import { startTelegramFake, type TelegramFake } from '../../../../test/fakes/telegram';
import { eventually } from '../../../../test/support/eventually';
import { createUser } from '../support/factories';
import { createTenant, data } from '../support/realtime';
import { bearer, login } from '../support/test-app';
import {
  agentSends,
  agentSendsFile,
  answeredConversation,
  channelTenant,
  closeHeld,
  connectAccount,
  conversationsOf,
  deliveryOf,
  deskMessages,
  downloadBytes,
  messagesOf,
  startChannelStack,
  STACK_START_MS,
  webhookUrlOn,
  type ChannelStack,
  type ChannelTenant,
} from './support/telegram-x-e2e';

jest.setTimeout(60_000);

const PNG = Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), Buffer.from('IHDR-agent-photo-bytes')]);
const JPEG = Buffer.concat([Buffer.from([0xff, 0xd8, 0xff, 0xe0]), randomBytes(3000), Buffer.from([0xff, 0xd9])]);

/**
 * Telegram end to end over real PostgreSQL and Redis: the Bot API fake (test/fakes/telegram.ts)
 * posts updates to the API's webhook as Telegram does, the API queues the customer to the agent,
 * and the real worker's channel-send processor calls the fake. A second API process receives the
 * same updates (Telegram may retry into another instance behind the load balancer).
 */
describe('Telegram channel end to end (API, worker, Bot API fake)', () => {
  // A bot id of this run's own: accounts are unique by (kind, bot id) across the shared database.
  const token = `${randomInt(1_000_000_000, 9_000_000_000)}:AAH${randomBytes(24).toString('base64url')}`;
  let fake: TelegramFake;
  let stack: ChannelStack;
  let who: ChannelTenant;
  let account: ChannelAccountView;
  let nextChat = randomInt(100_000_000, 900_000_000);
  const newChat = () => nextChat++;

  beforeAll(async () => {
    fake = await startTelegramFake({ token, webhookRetryDelaysMs: [50, 100, 200] });
    stack = await startChannelStack({ TELEGRAM_API_URL: fake.url });
    who = await channelTenant(stack.a);
    account = await connectAccount(stack.a, who, {
      kind: 'telegram',
      externalAccountId: String(fake.bot.id),
      secrets: { botToken: token },
    });
  }, STACK_START_MS);
  afterAll(async () => {
    await stack?.close();
    await fake?.close();
  });

  const a = () => stack.a;
  const sql = <T>(text: string, values: unknown[]) => a().dataSource.query(text, values) as Promise<T[]>;
  /** Points the fake at API process A, as the registration would at the public URL. */
  const deliverToA = () => fake.setWebhook({ url: webhookUrlOn(a().url, account), secretToken: account.verifyToken });
  const postUpdate = (baseUrl: string, body: string, secret: string | null = account.verifyToken) => {
    const call = request(baseUrl).post(`/api/channels/telegram/${account.id}/webhook`).set('Content-Type', 'application/json');
    if (secret !== null) void call.set('X-Telegram-Bot-Api-Secret-Token', secret);
    return call.send(body);
  };
  /** Raw events stored for one update: Telegram's update_id is the delivery id (channel-webhooks.service's deliveryKey). */
  const eventsOfUpdate = async (updateId: string) =>
    (
      await sql<{ n: number }>(`SELECT count(*)::int AS n FROM channel_events WHERE account_id = $1 AND delivery_key = $2`, [
        account.id,
        `id:${updateId}`,
      ])
    )[0]!.n;

  describe('webhook registration (POST /api/channel-accounts/:id/register-webhook)', () => {
    const register = (id: string, token: string) => a().http().post(`/api/channel-accounts/${id}/register-webhook`).set(bearer(token));

    it("calls setWebhook with the account's webhook URL and its verify token as secret_token", async () => {
      // The console offers the action for kinds whose adapter can register (Telegram), not others.
      const kinds = (await a().http().get('/api/channel-kinds').set(bearer(who.admin)).expect(200)).body.data as ChannelKindView[];
      expect(kinds.find((kind) => kind.kind === 'telegram')?.registersWebhook).toBe(true);
      expect(kinds.find((kind) => kind.kind === 'whatsapp')?.registersWebhook).toBe(false);
      const response = await register(account.id, who.admin);
      expect(response.status).toBe(200);
      expect(response.body.data).toEqual({ ok: true, message: account.webhookUrl });
      expect(fake.webhook).toEqual({
        url: account.webhookUrl,
        secretToken: account.verifyToken,
        allowedUpdates: ['message', 'edited_message', 'my_chat_member', 'callback_query'],
      });
      expect(fake.calls.filter((call) => call.method === 'setWebhook').map((call) => call.status)).toEqual([200]);
    });

    it("answers Telegram's refusal as ok:false with its reason", async () => {
      // A well-formed token of another bot: Telegram answers 401 Unauthorized.
      const stranger = `${fake.bot.id + 1}:AAH${randomBytes(24).toString('base64url')}`;
      await a()
        .http()
        .put(`/api/channel-accounts/${account.id}`)
        .set(bearer(who.admin))
        .send({ secrets: { botToken: stranger } })
        .expect(200);
      try {
        const response = await register(account.id, who.admin);
        expect(response.status).toBe(200);
        expect(response.body.data).toEqual({ ok: false, message: 'Unauthorized' });
      } finally {
        await a()
          .http()
          .put(`/api/channel-accounts/${account.id}`)
          .set(bearer(who.admin))
          .send({ secrets: { botToken: token } })
          .expect(200);
      }
    });

    it("answers 400 for a kind without registration, 404 for another tenant's account, 403 to an agent", async () => {
      const whatsapp = await connectAccount(a(), who, {
        kind: 'whatsapp',
        externalAccountId: `pn-${randomBytes(6).toString('hex')}`,
        settings: { wabaId: 'waba-1' },
        secrets: { accessToken: 'token', appSecret: 'secret' },
      });
      const unsupported = await register(whatsapp.id, who.admin);
      expect(unsupported.status).toBe(400);
      expect(unsupported.body.errorMessage).toMatch(/whatsapp webhooks cannot be registered from here/);

      const other = await createTenant(a().dataSource);
      const otherAdmin = await createUser(a().dataSource, other, { role: 'ADMIN' });
      const stranger = (await login(a(), otherAdmin.email, otherAdmin.password)).accessToken;
      expect((await register(account.id, stranger)).status).toBe(404);
      expect((await register(account.id, who.agent.token)).status).toBe(403);
      expect((await register('not-a-uuid', who.admin)).status).toBe(400);
      expect(fake.calls.filter((call) => call.method === 'setWebhook')).toHaveLength(2);
    });
  });

  describe('conversations', () => {
    beforeAll(() => deliverToA());
    afterEach(() => closeHeld(a(), who));

    it('customer writes → queued → the agent gets it → replies text and a photo → sendMessage and sendPhoto → sent → closed', async () => {
      const chat = newChat();
      const written = await fake.customerWrites({ chatId: chat, firstName: 'Ana', lastName: 'Pérez', text: 'Hola, necesito ayuda' });
      expect(written.delivery!.attempts).toEqual([200]);
      const conversationId = await answeredConversation(a(), who, account.id, String(chat));
      const desk = await deskMessages(a(), who, conversationId);
      expect(desk).toEqual([expect.objectContaining({ senderKind: 'customer', text: 'Hola, necesito ayuda' })]);
      const [stored] = await messagesOf(a(), conversationId);
      expect(stored!.external_id).toBe(`${chat}:${written.messageId}`);

      const text = data<MessageView>(await agentSends(a(), who, conversationId, 'Buenas, Ana: ¿en qué le ayudo?'));
      expect(text.deliveryStatus).toBe('pending');
      const textSent = await deliveryOf(a(), text.id, 'sent');
      const onTelegram = fake.sent.find((sent) => sent.method === 'sendMessage' && sent.chatId === String(chat));
      expect(onTelegram).toMatchObject({ text: 'Buenas, Ana: ¿en qué le ayudo?' });
      expect(textSent.provider_message_id).toBe(`${chat}:${onTelegram!.messageId}`);

      const photo = data<MessageView>(
        await agentSendsFile(a(), who, conversationId, { bytes: PNG, name: 'plano.png', type: 'image/png' }, 'El plano'),
      );
      expect(photo).toMatchObject({ deliveryStatus: 'pending', attachments: [expect.objectContaining({ kind: 'image' })] });
      const photoSent = await deliveryOf(a(), photo.id, 'sent');
      const photoOnTelegram = fake.sent.find((sent) => sent.method === 'sendPhoto' && sent.chatId === String(chat));
      expect(photoOnTelegram).toMatchObject({
        caption: 'El plano',
        file: { field: 'photo', fileName: 'plano.png', mimeType: 'image/png' },
      });
      expect(Buffer.compare(photoOnTelegram!.file!.bytes, PNG)).toBe(0);
      expect(photoSent.provider_message_id).toBe(`${chat}:${photoOnTelegram!.messageId}`);
      // Multipart to /bot<token>/sendPhoto: the fake answers 401 to any other token in the path.
      const upload = fake.calls.find((call) => call.method === 'sendPhoto' && call.params.chat_id === String(chat));
      expect(upload).toMatchObject({ httpMethod: 'POST', status: 200, files: ['photo'] });
      expect(upload!.contentType).toMatch(/^multipart\/form-data; boundary=/);

      // Telegram has no receipts: the desk shows 'sent', never delivered or read.
      await eventually(async () => {
        const statuses = (await deskMessages(a(), who, conversationId))
          .filter((m) => m.senderKind === 'agent')
          .map((m) => m.deliveryStatus);
        expect(statuses).toEqual(['sent', 'sent']);
      });

      data(
        await a()
          .http()
          .post(`/api/agent/conversations/${conversationId}/close`)
          .set(bearer(who.agent.token))
          .send({ disposition: 'done' }),
      );
      await eventually(async () => expect((await conversationsOf(a(), account.id, String(chat)))[0]!.status).toBe('Closed'));
    });

    it("stores a customer's photo: getFile, download, and the same bytes served to the agent", async () => {
      const chat = newChat();
      const getFilesBefore = fake.calls.filter((call) => call.method === 'getFile').length;
      await fake.customerWrites({ chatId: chat, firstName: 'Luis', photo: JPEG, caption: 'Mire la factura' });
      const conversationId = await answeredConversation(a(), who, account.id, String(chat));
      const [message] = await eventually(async () => {
        const desk = await deskMessages(a(), who, conversationId);
        expect(desk).toEqual([
          expect.objectContaining({
            senderKind: 'customer',
            text: 'Mire la factura',
            attachments: [expect.objectContaining({ kind: 'image', mimeType: 'image/jpeg', size: JPEG.length })],
          }),
        ]);
        return desk;
      });
      expect(fake.calls.filter((call) => call.method === 'getFile').length).toBe(getFilesBefore + 1);
      const downloaded = await downloadBytes(a().url, message!.attachments[0]!.url, who.agent.token);
      expect(downloaded.status).toBe(200);
      expect(Buffer.compare(downloaded.body as Buffer, JPEG)).toBe(0);
    });

    it('a customer who blocks the bot (my_chat_member kicked) is opted out: the next send is refused 409 contact_opted_out', async () => {
      const chat = newChat();
      await fake.customerWrites({ chatId: chat, firstName: 'Marta', text: 'Hola' });
      const conversationId = await answeredConversation(a(), who, account.id, String(chat));
      const blocked = await fake.customerBlocks(chat);
      expect(blocked.delivery!.attempts).toEqual([200]);
      await eventually(async () =>
        expect((await conversationsOf(a(), account.id, String(chat)))[0]).toMatchObject({
          opted_out_at: expect.any(Date),
          opt_out_reason: 'blocked',
        }),
      );
      const refused = await agentSends(a(), who, conversationId, '¿Sigue ahí?');
      expect(refused.status).toBe(409);
      expect(refused.body).toMatchObject({ errorCode: 'contact_opted_out' });
      expect((await messagesOf(a(), conversationId)).filter((m) => m.sender_kind === 'agent')).toEqual([]);
    });

    it('a send Telegram answers 403 "bot was blocked by the user" fails with that reason and opts the contact out', async () => {
      const chat = newChat();
      await fake.customerWrites({ chatId: chat, firstName: 'Iker', text: 'Una pregunta' });
      const conversationId = await answeredConversation(a(), who, account.id, String(chat));
      // Blocked at Telegram, the update not (yet) delivered: the platform learns it from the send.
      await fake.customerBlocks(chat, { deliver: false });
      const sent = data<MessageView>(await agentSends(a(), who, conversationId, 'Dígame'));
      const failed = await deliveryOf(a(), sent.id, 'failed');
      expect(failed.delivery_error).toBe('Forbidden: bot was blocked by the user');
      expect((await conversationsOf(a(), account.id, String(chat)))[0]).toMatchObject({
        opted_out_at: expect.any(Date),
        opt_out_reason: 'blocked',
      });
      const next = await agentSends(a(), who, conversationId, '¿Hola?');
      expect(next.status).toBe(409);
      expect(next.body).toMatchObject({ errorCode: 'contact_opted_out' });
    });

    it('a send Telegram answers 429 with retry_after is retried after it and ends sent', async () => {
      const chat = newChat();
      await fake.customerWrites({ chatId: chat, firstName: 'Nora', text: 'Hola' });
      const conversationId = await answeredConversation(a(), who, account.id, String(chat));
      fake.failNext(1, { status: 429, retryAfter: 1, methods: ['sendMessage'] });
      const sent = data<MessageView>(await agentSends(a(), who, conversationId, 'Un momento, por favor'));
      await deliveryOf(a(), sent.id, 'sent', 20_000);
      const attempts = fake.calls.filter((call) => call.method === 'sendMessage' && call.params.chat_id === String(chat));
      expect(attempts.map((call) => [call.status, call.description])).toEqual([
        [429, 'Too Many Requests: retry after 1'],
        [200, undefined],
      ]);
      expect(fake.sent.filter((one) => one.chatId === String(chat)).map((one) => one.text)).toEqual(['Un momento, por favor']);
    });

    it('one update posted to two API processes at once and re-delivered 5 times: one event, one message, one conversation', async () => {
      const chat = newChat();
      const action = await fake.customerWrites({ chatId: chat, firstName: 'Olga', text: 'Solo una vez' }, { deliver: false });
      const updateId = String(action.update.update_id);
      const both = await Promise.all([postUpdate(a().url, action.body), postUpdate(stack.urlB, action.body)]);
      expect(both.map((response) => response.status)).toEqual([200, 200]);
      const again = await fake.deliver(action.update, { times: 5 });
      expect(again.attempts).toEqual([200, 200, 200, 200, 200]);
      expect(await eventsOfUpdate(updateId)).toBe(1);
      const conversationId = await answeredConversation(a(), who, account.id, String(chat));
      await eventually(async () =>
        expect(await messagesOf(a(), conversationId)).toEqual([
          expect.objectContaining({ sender_kind: 'customer', text: 'Solo una vez', external_id: `${chat}:${action.messageId}` }),
        ]),
      );
      expect(await conversationsOf(a(), account.id, String(chat))).toHaveLength(1);
    });

    it('refuses a wrong or missing secret header with 401 and stores nothing', async () => {
      const chat = newChat();
      const action = await fake.customerWrites({ chatId: chat, firstName: 'Pablo', text: 'Intruso' }, { deliver: false });
      const updateId = String(action.update.update_id);
      expect((await postUpdate(a().url, action.body, 'not-the-secret')).status).toBe(401);
      expect((await postUpdate(stack.urlB, action.body, null)).status).toBe(401);
      expect((await postUpdate(a().url, action.body, `${account.verifyToken}x`)).status).toBe(401);
      expect(await eventsOfUpdate(updateId)).toBe(0);
      const contacts = await sql<{ n: number }>(
        `SELECT count(*)::int AS n FROM contacts WHERE channel_account_id = $1 AND external_id = $2`,
        [account.id, String(chat)],
      );
      expect(contacts[0]!.n).toBe(0);
    });
  });
});
