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
 * the fake (no buttons on Telegram here: the greeting offers "0" for a person).
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

  it('answers in Spanish and English, says it does not know, hands off on "0", and is silent once a person has it', async () => {
    const chat = randomInt(100_000_000, 900_000_000);
    await fake.customerWrites({ chatId: chat, firstName: 'Lucía', text: '¿Cuál es el horario de la tienda?' });
    // Greeting (with the option for a person) then the answer, through the worker to Telegram.
    await eventually(() => expect(sentTo(chat)).toEqual([expect.stringContaining('0 · Hablar con una persona'), HOURS_ANSWER]));
    const [conversation] = await accountConversations(t.dataSource, account.id);
    expect(conversation).toMatchObject({ status: 'Transitory', contact: String(chat) });

    await fake.customerWrites({ chatId: chat, firstName: 'Lucía', text: 'How do I get a refund?' });
    await eventually(() => expect(sentTo(chat).at(-1)).toBe(REFUND_ANSWER));
    await fake.customerWrites({ chatId: chat, firstName: 'Lucía', text: 'What is the vault code of the warehouse?' });
    await eventually(() => expect(sentTo(chat).at(-1)).toMatch(/don't know/));
    expect(sentTo(chat).join('\n')).not.toContain('4321');

    // "0": a person. The bot says so and the machine queues it; the agent logs in and takes it.
    await fake.customerWrites({ chatId: chat, firstName: 'Lucía', text: '0' });
    await eventually(() => expect(sentTo(chat).at(-1)).toMatch(/persona/));
    await eventually(async () => expect((await accountConversations(t.dataSource, account.id))[0]!.status).toBe('LiningUp'));
    staff = await agentOnline(t, desk);
    await eventually(async () => expect((await accountConversations(t.dataSource, account.id))[0]).toMatchObject({ status: 'Active' }));

    // The agent sees the whole transcript and what the bot collected.
    const transcript = await conversationMessages(t, desk.agent.token, conversation!.id);
    expect(transcript.filter((message) => message.senderKind === 'bot').map((message) => message.text)).toEqual(sentTo(chat));
    expect(transcript.filter((message) => message.senderKind === 'customer')).toHaveLength(4);
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
    await agentCloses(t, desk.agent.token, conversation!.id);
  });
});
