import { randomBytes, randomInt } from 'node:crypto';
import type { BotSummaryView, ChannelAccountView } from '@centralita/contracts';
import { startTelegramFake, type TelegramFake } from '../../../../test/fakes/telegram';
import { eventually as eventuallyWithin } from '../../../../test/support/eventually';
import {
  accountConversations,
  agentCloses,
  agentOnline,
  agentSends,
  channelDesk,
  channelSuite,
  connectChannelAccount,
  conversationMessages,
  startChannelApi,
  startChannelSendWorker,
  stopChild,
  webhookUrlOf,
  type ChannelDesk,
} from '../channels/support/channel-e2e';
import { createUser } from '../support/factories';
import type { ChildWorker } from '../support/processes';
import { createTenant, data, type Received, type StaffSocket } from '../support/realtime';
import { bearer, login, type TestApp } from '../support/test-app';

jest.setTimeout(90_000);
const STARTUP_TIMEOUT_MS = 120_000;
const eventually = <T>(assertion: () => T | Promise<T>) => eventuallyWithin(assertion, { timeoutMs: 20_000, intervalMs: 50 });

const tag = randomBytes(3).toString('hex');
const HOURS_ANSWER = `Atendemos de lunes a viernes de 9 a 18 (${tag}).`;
const REFUND_ANSWER = `Refunds take five business days (${tag}).`;
const SECRET_ANSWER = `The vault code of the other tenant is 4321 (${tag}).`;

/**
 * The bot on a messaging channel, end to end: the Telegram Bot API fake posts the customer's
 * updates to the API's webhook, the bot's answers leave through the real worker's channel send to
 * the fake. The greeting carries the line's menu as an inline keyboard ("talk to a person" and the
 * topics); the customer's taps come back as callback queries, which the platform answers.
 */
describe('the bot on Telegram (issue 23)', () => {
  const token = `${randomInt(1_000_000_000, 9_000_000_000)}:AAH${randomBytes(24).toString('base64url')}`;
  let fake: TelegramFake;
  let t: TestApp;
  let worker: ChildWorker | undefined;
  let desk: ChannelDesk;
  let account: ChannelAccountView;
  let staff: { socket: StaffSocket; received: Received[] } | undefined;

  beforeAll(async () => {
    fake = await startTelegramFake({ token });
    const suite = channelSuite('bot', { TELEGRAM_API_URL: fake.url });
    await Promise.all([startChannelApi(suite).then((started) => (t = started)), startChannelSendWorker(suite).then((w) => (worker = w))]);
    desk = await channelDesk(t);
    account = await connectChannelAccount(t, desk, {
      kind: 'telegram',
      name: `Bot ${tag}`,
      externalAccountId: String(fake.bot.id),
      secrets: { botToken: token },
    });
    fake.setWebhook({ url: webhookUrlOf(t, account), secretToken: account.verifyToken });
    const qna = (admin: string, question: string, answer: string) =>
      t.http().post('/api/qna').set(bearer(admin)).send({ question, answer }).expect(200);
    await qna(desk.adminToken, '¿Cuál es el horario de atención de la tienda?', HOURS_ANSWER);
    await qna(desk.adminToken, 'How do I get a refund for my order?', REFUND_ANSWER);
    // Another tenant's knowledge, which this tenant's bot must never give.
    const other = await createTenant(t.dataSource);
    const otherAdmin = await createUser(t.dataSource, other, { role: 'ADMIN' });
    await qna(
      (await login(t, otherAdmin.email, otherAdmin.password)).accessToken,
      'What is the vault code of the warehouse?',
      SECRET_ANSWER,
    );
    data(await t.http().put(`/api/bot/lines/${desk.lineId}`).set(bearer(desk.adminToken)).send({ botEnabled: true }));
  }, STARTUP_TIMEOUT_MS);

  afterAll(async () => {
    staff?.socket.close();
    await stopChild(worker);
    await t?.close();
    await fake?.close();
  });

  const sentTo = (chat: number) => fake.sent.filter((sent) => sent.chatId === String(chat)).map((sent) => sent.text ?? '');
  const sentMessages = (chat: number) => fake.sent.filter((sent) => sent.chatId === String(chat));

  it('answers in Spanish and English, says it does not know, hands off on a tap of "talk to a person", and is silent once a person has it', async () => {
    const chat = randomInt(100_000_000, 900_000_000);
    await fake.customerWrites({ chatId: chat, firstName: 'Lucía', text: '¿Cuál es el horario de la tienda?' });
    // Greeting (with the line's menu as buttons) then the answer, through the worker to Telegram.
    await eventually(() => expect(sentTo(chat)).toEqual([expect.stringContaining('Soy el asistente virtual'), HOURS_ANSWER]));
    const greeting = sentMessages(chat)[0]!;
    expect(greeting.text).not.toContain('0 ·');
    expect(greeting.inlineKeyboard).toEqual([
      [{ text: 'Hablar con persona', callback_data: 'bot:person' }],
      [{ text: 'Ventas', callback_data: 'bot:topic:sales' }],
      [{ text: 'Soporte', callback_data: 'bot:topic:support' }],
      [{ text: 'Facturación', callback_data: 'bot:topic:billing' }],
    ]);
    // Answers carry no keyboard.
    expect(sentMessages(chat)[1]!.inlineKeyboard).toBeUndefined();
    const [conversation] = await accountConversations(t.dataSource, account.id);
    expect(conversation).toMatchObject({ status: 'Transitory', contact: String(chat) });

    await fake.customerWrites({ chatId: chat, firstName: 'Lucía', text: 'How do I get a refund?' });
    await eventually(() => expect(sentTo(chat).at(-1)).toBe(REFUND_ANSWER));
    await fake.customerWrites({ chatId: chat, firstName: 'Lucía', text: 'What is the vault code of the warehouse?' });
    await eventually(() => expect(sentTo(chat).at(-1)).toMatch(/don't know/));
    expect(sentTo(chat).join('\n')).not.toContain('4321');

    // The "talk to a person" button: the tap is answered (the app's spinner stops), the bot says so
    // and the machine queues it; the agent logs in and takes it.
    const { queryId } = await fake.customerTaps({ chatId: chat, messageId: greeting.messageId, data: 'bot:person' });
    await eventually(() => expect(fake.answeredCallbacks).toContainEqual({ queryId }));
    // In the language of the conversation so far (its last question was English).
    await eventually(() => expect(sentTo(chat).at(-1)).toBe("I'm passing you to a person. Please wait a moment."));
    await eventually(async () => expect((await accountConversations(t.dataSource, account.id))[0]!.status).toBe('LiningUp'));
    staff = await agentOnline(t, desk);
    await eventually(async () => expect((await accountConversations(t.dataSource, account.id))[0]).toMatchObject({ status: 'Active' }));

    // The agent sees the whole transcript and what the bot collected.
    const transcript = await conversationMessages(t, desk.agent.token, conversation!.id);
    expect(transcript.filter((message) => message.senderKind === 'bot').map((message) => message.text)).toEqual(sentTo(chat));
    // The tap is the customer's message, saying the button's label.
    expect(transcript.filter((message) => message.senderKind === 'customer').map((message) => message.text)).toEqual([
      '¿Cuál es el horario de la tienda?',
      'How do I get a refund?',
      'What is the vault code of the warehouse?',
      'Hablar con persona',
    ]);
    const summary = data<BotSummaryView>(await t.http().get(`/api/bot/conversations/${conversation!.id}`).set(bearer(desk.agent.token)));
    expect(summary).toMatchObject({ handoffReason: 'request', turns: 4, unanswered: ['What is the vault code of the warehouse?'] });

    // The bot never speaks again in this conversation: only the agent's message reaches the customer.
    const before = sentTo(chat).length;
    await fake.customerWrites({ chatId: chat, firstName: 'Lucía', text: '¿Cuál es el horario de la tienda?' });
    await eventually(async () =>
      expect((await conversationMessages(t, desk.agent.token, conversation!.id)).filter((m) => m.senderKind === 'customer')).toHaveLength(
        5,
      ),
    );
    await agentSends(t, desk.agent.token, conversation!.id, 'Hola Lucía, soy Marta');
    await eventually(() => expect(sentTo(chat).at(-1)).toBe('Hola Lucía, soy Marta'));
    expect(sentTo(chat)).toHaveLength(before + 1);
    const bots = (await conversationMessages(t, desk.agent.token, conversation!.id)).filter((m) => m.senderKind === 'bot');
    expect(bots).toHaveLength(before);
    // A late tap on the old keyboard is only the customer's words now: the bot stays silent.
    await fake.customerTaps({ chatId: chat, messageId: greeting.messageId, data: 'bot:topic:sales' });
    await eventually(async () =>
      expect((await conversationMessages(t, desk.agent.token, conversation!.id)).filter((m) => m.senderKind === 'customer')).toHaveLength(
        6,
      ),
    );
    expect(sentTo(chat)).toHaveLength(before + 1);
    await agentCloses(t, desk.agent.token, conversation!.id);
  });

  it("offers a topic's submenus as buttons on a tap, and queues a submenu choice as the menu would", async () => {
    const chat = randomInt(100_000_000, 900_000_000);
    await fake.customerWrites({ chatId: chat, firstName: 'Pablo', text: 'hola' });
    await eventually(() => expect(sentMessages(chat)).toHaveLength(1));
    const greeting = sentMessages(chat)[0]!;
    await fake.customerTaps({ chatId: chat, messageId: greeting.messageId, data: 'bot:topic:billing' });
    await eventually(() => expect(sentMessages(chat)).toHaveLength(2));
    const submenu = sentMessages(chat)[1]!;
    expect(submenu.text).toMatch(/^Facturación/);
    expect(submenu.inlineKeyboard).toEqual([
      [{ text: 'Factura', callback_data: 'bot:menu:billing:invoice' }],
      [{ text: 'Pago', callback_data: 'bot:menu:billing:payment' }],
      [{ text: 'Reembolso', callback_data: 'bot:menu:billing:refund' }],
      [{ text: 'Hablar con persona', callback_data: 'bot:person' }],
    ]);
    const conversation = (await accountConversations(t.dataSource, account.id)).find((one) => one.contact === String(chat))!;
    expect(conversation.status).toBe('Transitory');

    await fake.customerTaps({ chatId: chat, messageId: submenu.messageId, data: 'bot:menu:billing:refund' });
    await eventually(async () => {
      const [row] = (await t.dataSource.query(
        `SELECT status, snapshot->'context'->>'queryTypeId' AS query_type_id, snapshot->'context'->>'submenuId' AS submenu_id
         FROM conversations WHERE id = $1`,
        [conversation.id],
      )) as { status: string; query_type_id: string; submenu_id: string }[];
      expect(row).toMatchObject({ query_type_id: 'billing', submenu_id: 'refund' });
      expect(['LiningUp', 'Active']).toContain(row!.status);
    });
    await eventually(() => expect(sentTo(chat).at(-1)).toMatch(/persona/));
    const summary = data<BotSummaryView>(await t.http().get(`/api/bot/conversations/${conversation.id}`).set(bearer(desk.adminToken)));
    expect(summary).toMatchObject({ handoffReason: 'menu', turns: 3 });
  });
});
