import { randomInt } from 'node:crypto';
import type { AgentView, ChannelAccountView, MessageView } from '@centralita/contracts';
import { eventually as eventuallyWithin } from '../../../../test/support/eventually';
import { startWhatsAppFake, type WhatsAppFake } from '../../../../test/fakes/whatsapp-cloud';
import { REQUEUE_NOTICE, RequeueNoticeService } from '../../src/modules/conversations/requeue-notice.service';
import type { ChildWorker } from '../support/processes';
import { connectVisitor, data, record, type Received, type StaffSocket, type VisitorSocket } from '../support/realtime';
import { bearer, type TestApp } from '../support/test-app';
import {
  accountConversations,
  agentOnline,
  channelDesk,
  channelSuite,
  connectChannelAccount,
  conversationMessages,
  startChannelApi,
  startChannelSendWorker,
  stopChild,
  webhookUrlOf,
  type ChannelDesk,
} from './support/channel-e2e';

/**
 * Issue 24 item 6: a supervisor logs out an agent who holds a web chat and two WhatsApp
 * conversations. Every conversation goes back to the queue; the web-chat visitor and the WhatsApp
 * customer whose reply window is open are told they keep their place (the WhatsApp one through the
 * real worker's channel send, to the Cloud API fake); the customer whose window closed a day ago is
 * told nothing (free text is not allowed) and the logout still succeeds.
 */
jest.setTimeout(60_000);
const STARTUP_TIMEOUT_MS = 120_000;
const eventually = <T>(assertion: () => T | Promise<T>, timeoutMs = 20_000) => eventuallyWithin(assertion, { timeoutMs, intervalMs: 50 });
const HOUR = 3_600_000;

describe(RequeueNoticeService.name, () => {
  let wa: WhatsAppFake;
  let t: TestApp;
  let worker: ChildWorker | undefined;
  let desk: ChannelDesk;
  let account: ChannelAccountView;
  let staff: { socket: StaffSocket; received: Received[] } | undefined;
  let visitor: VisitorSocket | undefined;

  beforeAll(async () => {
    wa = await startWhatsAppFake({
      phoneNumberId: String(randomInt(100_000_000_000, 999_999_999_999)),
      wabaId: String(randomInt(100_000_000_000, 999_999_999_999)),
      templates: [],
    });
    const suite = channelSuite('requeue', { META_GRAPH_URL: wa.url, META_GRAPH_VERSION: wa.graphVersion });
    await Promise.all([startChannelApi(suite).then((started) => (t = started)), startChannelSendWorker(suite).then((w) => (worker = w))]);
    desk = await channelDesk(t);
    account = await connectChannelAccount(t, desk, {
      kind: 'whatsapp',
      name: `Requeue ${randomInt(1000, 9999)}`,
      externalAccountId: wa.phoneNumberId,
      settings: { wabaId: wa.wabaId },
      secrets: { accessToken: wa.accessToken, appSecret: wa.appSecret },
    });
    wa.setWebhookUrl(webhookUrlOf(t, account));
  }, STARTUP_TIMEOUT_MS);

  afterAll(async () => {
    staff?.socket.close();
    visitor?.close();
    await stopChild(worker);
    await t?.close();
    await wa?.close();
  });

  it('tells the web-chat visitor and the WhatsApp customer in the window, in the tenant language, and no one the channel forbids', async () => {
    // The tenant's language (customers' own are not recorded): the issue's English text.
    await t.dataSource.query(`UPDATE clients SET language = 'en' WHERE id = $1`, [desk.tenantId]);
    const notice = REQUEUE_NOTICE.en;
    expect(notice).toBe('Your agent had to leave; you keep your place in the queue and the next available agent will answer.');

    const started = await t.http().post('/api/webchat/conversations').send({ attentionLineId: desk.lineId, name: 'Visitor' });
    const visitorToken = (started.body as { data: { visitorToken: string; conversation: { id: string } } }).data.visitorToken;
    const webchatId = (started.body as { data: { conversation: { id: string } } }).data.conversation.id;
    await t.http().post('/api/webchat/conversation/menu').set(bearer(visitorToken)).send({ queryTypeId: 'q', submenuId: 's' }).expect(200);
    visitor = await connectVisitor(t.url, visitorToken);
    const visitorReceived = record(visitor);

    const open = `3469${randomInt(1_000_000, 9_999_999)}`;
    const late = `3469${randomInt(1_000_000, 9_999_999)}`;
    await wa.customerWrites({ from: open, text: 'Hola, ¿siguen ahí?' });
    await wa.customerWrites({ from: late, text: 'Escribí ayer', at: new Date(Date.now() - 25 * HOUR) });

    staff = await agentOnline(t, desk);
    const held = await eventually(async () => {
      const rows = (await t.dataSource.query(`SELECT id, status, agent_id FROM conversations WHERE tenant_id = $1`, [desk.tenantId])) as {
        id: string;
        status: string;
        agent_id: string | null;
      }[];
      expect(rows).toHaveLength(3);
      expect(rows.every((row) => row.status === 'Active' && row.agent_id === desk.agent.userId)).toBe(true);
      return rows;
    });
    const whatsapp = await accountConversations(t.dataSource, account.id);
    const openId = whatsapp.find((one) => one.contact === open)!.id;
    const lateId = whatsapp.find((one) => one.contact === late)!.id;
    const sentBefore = wa.sent.length;

    const loggedOut = data<AgentView>(
      await t.http().post(`/api/supervisor/agents/${desk.agent.userId}/logout`).set(bearer(desk.adminToken)),
    );
    expect(loggedOut).toMatchObject({ status: 'loggedOut', activeCount: 0 });
    const requeued = (await t.dataSource.query(`SELECT status, agent_id FROM conversations WHERE id = ANY($1::uuid[])`, [
      held.map((row) => row.id),
    ])) as { status: string; agent_id: string | null }[];
    expect(requeued).toEqual(Array(3).fill({ status: 'LiningUp', agent_id: null }));

    // Web chat: the system message reaches the visitor's socket and stays in the conversation.
    await eventually(() =>
      expect(visitorReceived.filter((entry) => entry.event === 'message.created').map((entry) => entry.data)).toContainEqual(
        expect.objectContaining({ senderKind: 'system', text: notice, conversationId: webchatId }),
      ),
    );
    const visitorMessages = data<MessageView[]>(await t.http().get('/api/webchat/conversation/messages').set(bearer(visitorToken)));
    expect(visitorMessages.filter((message) => message.senderKind === 'system').map((message) => message.text)).toEqual([notice]);

    // WhatsApp, window open: stored pending, sent once by the worker as free text, then 'sent'.
    await eventually(() => expect(wa.sent.slice(sentBefore).filter((message) => message.to === open)).toHaveLength(1));
    expect(wa.sent.slice(sentBefore).find((message) => message.to === open)!.body).toMatchObject({
      to: open,
      type: 'text',
      text: { body: notice },
    });
    const supervisorReads = (id: string) => conversationMessages(t, desk.adminToken, id);
    await eventually(async () =>
      expect((await supervisorReads(openId)).filter((message) => message.senderKind === 'system')).toEqual([
        expect.objectContaining({ text: notice, deliveryStatus: 'sent' }),
      ]),
    );

    // WhatsApp, window closed: nothing stored, nothing sent.
    expect((await supervisorReads(lateId)).map((message) => message.senderKind)).toEqual(['customer']);
    expect(wa.sent.slice(sentBefore).filter((message) => message.to === late)).toEqual([]);
  });
});
