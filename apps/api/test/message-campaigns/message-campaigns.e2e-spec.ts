import { randomInt } from 'node:crypto';
import type { ChannelAccountView, ChannelTemplateView, ConversationView, MessageCampaignView } from '@centralita/contracts';
import { eventually as eventuallyWithin } from '../../../../test/support/eventually';
import type { WhatsAppFake } from '../../../../test/fakes/whatsapp-cloud';
import type { ChildWorker } from '../support/processes';
import { data } from '../support/realtime';
import { bearer, type TestApp } from '../support/test-app';
import {
  accountConversations,
  agentOnline,
  agentSends,
  channelDesk,
  channelSuite,
  conversationUpdates,
  startChannelApi,
  startChannelSendWorker,
  stopChild,
  type ChannelDesk,
  type ChannelSuite,
} from '../channels/support/channel-e2e';
import {
  CAMPAIGN_WORKER_ENV,
  campaignHttp,
  connectWhatsAppAccount,
  insertPhoneList,
  startCampaignWhatsAppFake,
  submitAndApprove,
} from './campaign-fixtures';

/**
 * Issue 21 end to end: WhatsApp message campaigns against the Cloud API fake, the real API (webhooks,
 * intake) and the real worker (the campaign's sends) in a child process, on PostgreSQL and Redis.
 * Every count is of this suite's own campaign rows (other suites share the database).
 */
jest.setTimeout(240_000);
const STARTUP_TIMEOUT_MS = 120_000;
const eventually = <T>(assertion: () => T | Promise<T>, timeoutMs = 60_000) => eventuallyWithin(assertion, { timeoutMs, intervalMs: 200 });

describe('Message campaigns (WhatsApp templates to a phone list)', () => {
  let wa: WhatsAppFake;
  let suite: ChannelSuite;
  let api: TestApp;
  let worker: ChildWorker | undefined;
  let desk: ChannelDesk;
  let account: ChannelAccountView;
  /** A prefix no other suite's phones share: +34 6 then 3 random digits, then a 5-digit row number. */
  const prefix = `346${randomInt(100, 999)}`;
  const phoneOf = (index: number) => `+${prefix}${String(index).padStart(5, '0')}`;

  beforeAll(async () => {
    wa = await startCampaignWhatsAppFake();
    suite = channelSuite('campaigns', { META_GRAPH_URL: wa.url, META_GRAPH_VERSION: wa.graphVersion });
    await Promise.all([
      startChannelApi(suite).then((started) => (api = started)),
      startChannelSendWorker(suite, CAMPAIGN_WORKER_ENV).then((started) => (worker = started)),
    ]);
    desk = await channelDesk(api);
    account = await connectWhatsAppAccount(api, desk, wa, 'Campañas WhatsApp');
  }, STARTUP_TIMEOUT_MS);

  afterAll(async () => {
    await stopChild(worker);
    await api?.close();
    await wa?.close();
  });

  const http = campaignHttp(() => ({ api, desk }));
  const { post, get, board } = http;
  /** A phone list of `count` rows (line = row number) written as an import would. */
  const phoneList = (name: string, phones: string[]) => insertPhoneList(api, desk.tenantId, name, phones);

  const approvedTemplate = async (name: string): Promise<ChannelTemplateView> => {
    const draft = data<ChannelTemplateView>(
      await post('/api/message-templates', {
        accountId: account.id,
        name,
        language: 'es',
        category: 'UTILITY',
        header: { format: 'TEXT', text: 'Recordatorio' },
        body: { text: 'Hola {{1}}, tu cita es el {{2}}.', examples: ['Ana', '12 de mayo'] },
        footer: 'Centralita',
        buttons: [{ type: 'QUICK_REPLY', text: 'Confirmar' }],
      }),
    );
    expect(draft.status).toBe('DRAFT');
    const { submitted, approved } = await submitAndApprove(http, wa, draft, eventually);
    expect(data<ChannelTemplateView>(submitted)).toMatchObject({ status: 'PENDING', providerTemplateId: expect.any(String) });
    return approved;
  };

  const campaignSends = (phones: Set<string>) => wa.sent.filter((message) => message.type === 'template' && phones.has(message.to));

  it('refuses a template Meta would refuse, naming the problem (400), and another tenant never sees it (404)', async () => {
    const bad = await post('/api/message-templates', {
      accountId: account.id,
      name: 'Citas Mayo',
      language: 'es',
      category: 'UTILITY',
      body: { text: 'Hola {{1}}', examples: ['Ana'] },
    });
    expect(bad.status).toBe(400);
    expect(JSON.stringify(bad.body)).toContain('lowercase letters');
    const noExample = await post('/api/message-templates', {
      accountId: account.id,
      name: 'citas_sin_ejemplo',
      language: 'es',
      category: 'UTILITY',
      body: { text: 'Hola {{1}} y {{3}}', examples: ['Ana'] },
    });
    expect(noExample.status).toBe(400);
    expect(JSON.stringify(noExample.body)).toContain('without gaps');
    const other = await channelDesk(api);
    const template = await approvedTemplate(`tenant_check_${randomInt(1e6, 9e6)}`);
    const foreign = await api.http().get(`/api/message-templates/${template.id}`).set(bearer(other.adminToken));
    expect(foreign.status).toBe(404);
    const preview = data<{ header: string; body: string; footer: string; buttons: string[] }>(
      await post(`/api/message-templates/${template.id}/preview`, { body: ['Luis', 'martes'] }),
    );
    expect(preview).toEqual({
      header: 'Recordatorio',
      body: 'Hola Luis, tu cita es el martes.',
      footer: 'Centralita',
      buttons: ['Confirmar'],
    });
  });

  it('sends an approved template to a 1,000-row list with exact counts, out-of-order and duplicate statuses, skips with reasons, and a reply an agent answers', async () => {
    const template = await approvedTemplate(`citas_${randomInt(1e6, 9e6)}`);
    const phones = Array.from({ length: 1000 }, (_, index) => phoneOf(index + 1));
    phones[9] = '12345'; // invalid
    const blacklisted = phones[19]!;
    const optedOut = phones[29]!;
    await api.dataSource.query(`INSERT INTO do_not_call (tenant_id, phone, reason) VALUES ($1, $2, 'pidió no ser contactado')`, [
      desk.tenantId,
      blacklisted,
    ]);
    await wa.customerPreference({ waId: optedOut.slice(1) }, 'stop');
    await eventually(async () => {
      const rows = (await api.dataSource.query(
        `SELECT 1 FROM contacts WHERE channel_account_id = $1 AND external_id = $2 AND opted_out_at IS NOT NULL`,
        [account.id, optedOut.slice(1)],
      )) as unknown[];
      expect(rows).toHaveLength(1);
    });
    const listId = await phoneList(`Campaña ${prefix}`, phones);
    const campaign = data<MessageCampaignView>(
      await post('/api/message-campaigns', {
        name: 'Recordatorio de citas',
        accountId: account.id,
        templateId: template.id,
        phoneListId: listId,
        parameterMapping: { header: [], body: [{ source: 'name' }, { source: 'fixed', value: '12 de mayo' }] },
        ratePerSecond: 100,
      }),
    );
    expect(campaign.status).toBe('draft');

    // Meta's statuses beat its answers (the `sent` webhook is delivered before the send is answered);
    // two throughput refusals and one permanent refusal on the way.
    wa.setAutoSentStatus(true, { beforeAnswer: true });
    wa.failNext(2, 'throughput', { path: '/messages' });
    wa.failNext(
      1,
      { status: 400, code: 131009, message: '(#131009) Parameter value is not valid', details: 'Parameter value is not valid' },
      { path: '/messages' },
    );
    const started = data<MessageCampaignView>(await post(`/api/message-campaigns/${campaign.id}/start`));
    expect(started.status).toBe('running');
    expect(started.counts.total).toBe(1000);
    expect(started.skipped).toEqual({ invalid_phone: 1, blacklisted: 1, opted_out: 1 });

    const finished = await eventually(async () => {
      const view = await board(campaign.id);
      expect(view.status).toBe('finished');
      return view;
    }, 120_000);
    wa.setAutoSentStatus(false);
    expect(finished.counts).toMatchObject({ total: 1000, queued: 0, sending: 0, sent: 996, failed: 1, skipped: 3 });
    const failed = data<{ items: { errorCode: string; errorText: string }[] }>(
      await get(`/api/message-campaigns/${campaign.id}/recipients?status=failed`),
    );
    expect(failed.items[0]).toMatchObject({ errorCode: '131009' });

    const sends = campaignSends(new Set(phones));
    // 997 sendable phones: 996 accepted by Meta, each exactly once (the refused one was never accepted).
    expect(sends).toHaveLength(996);
    expect(new Set(sends.map((message) => message.to)).size).toBe(996);
    expect(sends[0]!.template).toMatchObject({ bodyParameters: [expect.stringMatching(/^Cliente \d+$/), '12 de mayo'] });
    expect(sends[0]!.body.biz_opaque_callback_data).toEqual(expect.any(String));

    // delivered for all, read for half, shuffled, in batches, each batch delivered twice; then a failure after delivered.
    const ids = sends.map((message) => message.id);
    const readIds = new Set(ids.slice(0, 500));
    for (let start = 0; start < ids.length; start += 100) {
      const chunk = ids.slice(start, start + 100);
      await wa.pushReceipts(
        chunk.filter((id) => readIds.has(id)),
        { statuses: ['read', 'delivered'], order: 'shuffled', batch: true, duplicates: 1 },
      );
      await wa.pushReceipts(
        chunk.filter((id) => !readIds.has(id)),
        { statuses: ['delivered', 'sent'], order: 'shuffled', batch: true, duplicates: 1 },
      );
    }
    await eventually(async () => expect((await board(campaign.id)).counts).toMatchObject({ sent: 0, delivered: 496, read: 500 }));
    await wa.pushFailure(ids[995]!, { code: 131026, title: 'Message undeliverable', details: 'Message Undeliverable.' });
    await wa.pushFailure(ids[0]!); // after read: ignored
    const settled = await eventually(async () => {
      const view = await board(campaign.id);
      expect(view.counts).toMatchObject({ sent: 0, delivered: 495, read: 500, failed: 2, skipped: 3, total: 1000 });
      return view;
    });
    expect(settled.status).toBe('finished');

    // A recipient replies: the reply opens a conversation on the account's line, linked to the campaign, and an agent answers it.
    const replier = sends[42]!.to;
    await wa.customerWrites({ from: replier.slice(1), name: 'Cliente 43', text: 'Confirmo la cita' });
    const conversation = await eventually(async () => {
      const found = (await accountConversations(api.dataSource, account.id)).find((one) => one.contact === replier.slice(1));
      expect(found).toBeDefined();
      return found!;
    });
    await eventually(async () => {
      // Any failure of the intake would show here (and be retried) rather than as a silent 0.
      const errors = (await api.dataSource.query(`SELECT last_error FROM channel_events WHERE account_id = $1 AND last_error IS NOT NULL`, [
        account.id,
      ])) as unknown[];
      expect({ replied: (await board(campaign.id)).counts.replied, errors }).toEqual({ replied: 1, errors: [] });
    });
    const [linked] = (await api.dataSource.query(
      `SELECT conversation_id FROM message_campaign_recipients WHERE campaign_id = $1 AND phone = $2`,
      [campaign.id, replier],
    )) as { conversation_id: string }[];
    expect(linked!.conversation_id).toBe(conversation.id);
    const online = await agentOnline(api, desk);
    try {
      await eventually(() =>
        expect(conversationUpdates(online.received, conversation.id).at(-1)).toMatchObject<Partial<ConversationView>>({ status: 'Active' }),
      );
      await agentSends(api, desk.agent.token, conversation.id, 'Gracias, la esperamos.');
      await eventually(() =>
        expect(wa.sent.find((message) => message.to === replier.slice(1) && message.type === 'text')?.text).toBe('Gracias, la esperamos.'),
      );
    } finally {
      online.socket.close();
    }

    const csv = await get(`/api/message-campaigns/${campaign.id}/results.csv`);
    expect(csv.status).toBe(200);
    expect(
      String(csv.text ?? csv.body)
        .split('\r\n')
        .filter(Boolean),
    ).toHaveLength(1001);
  });

  it('pauses itself when its template is paused, saying why, and stops sending at once when stopped', async () => {
    const template = await approvedTemplate(`pausa_${randomInt(1e6, 9e6)}`);
    const phones = Array.from({ length: 60 }, (_, index) => phoneOf(2000 + index));
    const campaign = data<MessageCampaignView>(
      await post('/api/message-campaigns', {
        name: 'Pausa',
        accountId: account.id,
        templateId: template.id,
        phoneListId: await phoneList(`Pausa ${prefix}`, phones),
        parameterMapping: { header: [], body: [{ source: 'name' }, { source: 'phone' }] },
        ratePerSecond: 5,
      }),
    );
    await post(`/api/message-campaigns/${campaign.id}/start`);
    await eventually(() => expect(campaignSends(new Set(phones)).length).toBeGreaterThanOrEqual(5));
    await wa.reviewTemplate(template.name, 'es', 'PAUSED', 'Low quality');
    const paused = await eventually(async () => {
      const view = await board(campaign.id);
      expect(view.status).toBe('paused');
      return view;
    });
    expect(paused.pausedReason).toBe('template_paused');
    expect(paused.pausedDetail).toContain('Low quality');
    const sentWhenPaused = await eventually(async () => {
      const count = campaignSends(new Set(phones)).length;
      const view = await board(campaign.id);
      expect(view.counts.sending).toBe(0);
      return count;
    });
    expect(sentWhenPaused).toBeLessThan(60);
    // Resuming needs an approved template: refused while paused (409, the reason named).
    const refused = await post(`/api/message-campaigns/${campaign.id}/start`);
    expect(refused.status).toBe(409);
    // Meta reinstates it later (its webhook's `time` differs: not a re-delivery of the first approval).
    wa.clock.advance(60_000);
    await wa.reviewTemplate(template.name, 'es', 'APPROVED');
    await eventually(async () =>
      expect(data<ChannelTemplateView>(await get(`/api/message-templates/${template.id}`)).status).toBe('APPROVED'),
    );
    await post(`/api/message-campaigns/${campaign.id}/start`);
    await eventually(() => expect(campaignSends(new Set(phones)).length).toBeGreaterThan(sentWhenPaused));
    const stopped = data<MessageCampaignView>(await post(`/api/message-campaigns/${campaign.id}/stop`));
    expect(stopped.status).toBe('stopped');
    const atStop = await eventually(async () => {
      expect((await board(campaign.id)).counts.sending).toBe(0);
      return campaignSends(new Set(phones)).length;
    });
    // One more second of a running campaign would send 5 more: none go out after the stop settled.
    await new Promise((resolve) => setTimeout(resolve, 1500));
    expect(campaignSends(new Set(phones)).length).toBe(atStop);
    expect(new Set(campaignSends(new Set(phones)).map((message) => message.to)).size).toBe(atStop);
    expect((await post(`/api/message-campaigns/${campaign.id}/start`)).status).toBe(409);
  });

  it('a worker SIGKILLed mid-campaign: the next worker resumes, no recipient gets the message twice and none is skipped', async () => {
    const template = await approvedTemplate(`reinicio_${randomInt(1e6, 9e6)}`);
    const phones = Array.from({ length: 300 }, (_, index) => phoneOf(3000 + index));
    const phoneSet = new Set(phones);
    const campaign = data<MessageCampaignView>(
      await post('/api/message-campaigns', {
        name: 'Reinicio',
        accountId: account.id,
        templateId: template.id,
        phoneListId: await phoneList(`Reinicio ${prefix}`, phones),
        parameterMapping: { header: [], body: [{ source: 'name' }, { source: 'fixed', value: 'lunes' }] },
        ratePerSecond: 50,
      }),
    );
    // Meta reports every accepted message; the answers to sends after the 120th never come: the worker dies waiting for them.
    wa.setAutoSentStatus(true);
    wa.holdAnswers(120);
    await post(`/api/message-campaigns/${campaign.id}/start`);
    await eventually(() => expect(campaignSends(phoneSet).length).toBeGreaterThan(120));
    worker!.child.kill('SIGKILL');
    await worker!.exited;
    const before = campaignSends(phoneSet).length;
    const [inFlight] = (await api.dataSource.query(
      `SELECT count(*)::int AS n FROM message_campaign_recipients WHERE campaign_id = $1 AND status IN ('queued', 'sending')`,
      [campaign.id],
    )) as { n: number }[];
    expect(inFlight!.n).toBeGreaterThan(0);
    wa.holdAnswers(Number.POSITIVE_INFINITY);
    worker = await startChannelSendWorker(suite, CAMPAIGN_WORKER_ENV);

    const finished = await eventually(async () => {
      const view = await board(campaign.id);
      expect(view.status).toBe('finished');
      return view;
    }, 120_000);
    wa.setAutoSentStatus(false);
    expect(finished.counts).toMatchObject({ total: 300, queued: 0, sending: 0, failed: 0, skipped: 0 });
    expect(finished.counts.sent + finished.counts.delivered + finished.counts.read).toBe(300);
    const sends = campaignSends(phoneSet);
    expect(sends.length).toBeGreaterThan(before);
    expect(sends).toHaveLength(300);
    expect(new Set(sends.map((message) => message.to)).size).toBe(300);
  });
});
