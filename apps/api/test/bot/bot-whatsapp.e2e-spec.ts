import { randomInt } from 'node:crypto';
import type { BotSummaryView, ChannelAccountView } from '@centralita/contracts';
import { startWhatsAppFake, type WhatsAppFake } from '../../../../test/fakes/whatsapp-cloud';
import { eventually as eventuallyWithin } from '../../../../test/support/eventually';
import {
  accountConversations,
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
import type { ChildWorker } from '../support/processes';
import { data } from '../support/realtime';
import { bearer, type TestApp } from '../support/test-app';

jest.setTimeout(90_000);
const STARTUP_TIMEOUT_MS = 120_000;
const eventually = <T>(assertion: () => T | Promise<T>) => eventuallyWithin(assertion, { timeoutMs: 20_000, intervalMs: 50 });

/**
 * The bot's menu on WhatsApp, end to end through the Cloud API fake (which checks Meta's limits on
 * interactive messages): the menu's four options go as a list (more than three reply buttons), and
 * the customer's list_reply taps drive the bot like the widget's menu.
 */
describe('the bot on WhatsApp: the menu as interactive messages (issue 23)', () => {
  let wa: WhatsAppFake;
  let t: TestApp;
  let worker: ChildWorker | undefined;
  let desk: ChannelDesk;
  let account: ChannelAccountView;

  beforeAll(async () => {
    wa = await startWhatsAppFake({
      phoneNumberId: String(randomInt(100_000_000_000, 999_999_999_999)),
      wabaId: String(randomInt(100_000_000_000, 999_999_999_999)),
    });
    const suite = channelSuite('botwa', { META_GRAPH_URL: wa.url, META_GRAPH_VERSION: wa.graphVersion });
    await Promise.all([startChannelApi(suite).then((started) => (t = started)), startChannelSendWorker(suite).then((w) => (worker = w))]);
    desk = await channelDesk(t);
    account = await connectChannelAccount(t, desk, {
      kind: 'whatsapp',
      name: 'Bot WhatsApp',
      externalAccountId: wa.phoneNumberId,
      settings: { wabaId: wa.wabaId },
      secrets: { accessToken: wa.accessToken, appSecret: wa.appSecret },
    });
    wa.setWebhookUrl(webhookUrlOf(t, account));
    data(await t.http().put(`/api/bot/lines/${desk.lineId}`).set(bearer(desk.adminToken)).send({ botEnabled: true }));
  }, STARTUP_TIMEOUT_MS);

  afterAll(async () => {
    await stopChild(worker);
    await t?.close();
    await wa?.close();
  });

  const sentTo = (phone: string) => wa.sent.filter((message) => message.to === phone);

  it('greets with a list, answers a topic with its options as a list, and queues the chosen option', async () => {
    const phone = `3469${randomInt(1_000_000, 9_999_999)}`;
    await wa.customerWrites({ from: phone, name: 'Marta', text: 'Hola, buenas' });
    await eventually(() => expect(sentTo(phone)).toHaveLength(1));
    const greeting = sentTo(phone)[0]!;
    // Four options: more than WhatsApp's three reply buttons, so a list.
    expect(greeting).toMatchObject({ type: 'interactive', interactive: { kind: 'list', listButton: '☰' } });
    expect(greeting.interactive!.body).toContain('asistente virtual');
    expect(greeting.interactive!.options).toEqual([
      { id: 'bot:person', title: 'Hablar con persona' },
      { id: 'bot:topic:sales', title: 'Ventas' },
      { id: 'bot:topic:support', title: 'Soporte' },
      { id: 'bot:topic:billing', title: 'Facturación' },
    ]);

    await wa.customerTaps(greeting.id, 'bot:topic:support');
    await eventually(() => expect(sentTo(phone)).toHaveLength(2));
    const submenu = sentTo(phone)[1]!;
    // Three submenus and a person: four again, a list; the prompt names the topic.
    expect(submenu.interactive).toMatchObject({ kind: 'list', body: expect.stringMatching(/^Soporte/) });
    expect(submenu.interactive!.options.map((option) => option.id)).toEqual([
      'bot:menu:support:technical',
      'bot:menu:support:account',
      'bot:menu:support:order',
      'bot:person',
    ]);
    const [conversation] = (await accountConversations(t.dataSource, account.id)).filter((one) => one.contact === phone);
    expect(conversation!.status).toBe('Transitory');

    await wa.customerTaps(submenu.id, 'bot:menu:support:order');
    await eventually(async () => {
      const [row] = (await t.dataSource.query(
        `SELECT status, snapshot->'context'->>'queryTypeId' AS query_type_id, snapshot->'context'->>'submenuId' AS submenu_id
         FROM conversations WHERE id = $1`,
        [conversation!.id],
      )) as { status: string; query_type_id: string; submenu_id: string }[];
      expect(row).toMatchObject({ status: 'LiningUp', query_type_id: 'support', submenu_id: 'order' });
    });
    // The bot says it passes them on (plain text), and the taps are the customer's words in the transcript.
    await eventually(() => expect(sentTo(phone).at(-1)).toMatchObject({ type: 'text', text: expect.stringMatching(/persona/) }));
    const transcript = await conversationMessages(t, desk.adminToken, conversation!.id);
    expect(transcript.filter((message) => message.senderKind === 'customer').map((message) => message.text)).toEqual([
      'Hola, buenas',
      'Soporte',
      'Mi pedido',
    ]);
    const summary = data<BotSummaryView>(await t.http().get(`/api/bot/conversations/${conversation!.id}`).set(bearer(desk.adminToken)));
    expect(summary).toMatchObject({ handoffReason: 'menu', turns: 3 });

    // Handed off, the bot is silent: a late tap on the old list is only the customer's words.
    const before = sentTo(phone).length;
    await wa.customerTaps(greeting.id, 'bot:person');
    await eventually(async () =>
      expect(
        (await conversationMessages(t, desk.adminToken, conversation!.id)).filter((message) => message.senderKind === 'customer'),
      ).toHaveLength(4),
    );
    expect(sentTo(phone)).toHaveLength(before);
  });
});
