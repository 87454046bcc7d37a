import { randomInt } from 'node:crypto';
import { channelEndpointsFromEnv, createChannelRegistry } from '@centralita/channels';
import {
  QUEUES,
  type ChannelAccountView,
  type ChannelTemplateView,
  type MessageCampaignBoardPush,
  type MessageCampaignView,
} from '@centralita/contracts';
import { ConfigCrypto } from '@centralita/contracts/server';
import { Worker } from 'bullmq';
import type { DataSource } from 'typeorm';
import type { Socket } from 'socket.io-client';
import { eventually as eventuallyWithin } from '../../../../test/support/eventually';
import type { WhatsAppFake } from '../../../../test/fakes/whatsapp-cloud';
import { runMessageCampaign } from '../../../worker/src/message-campaigns/message-campaign-run';
import { createDataSource } from '../../src/database/data-source';
import { campaignBoardChanged } from '../../src/modules/message-campaigns/campaign-board-signal';
import { MessageCampaignTimerSweeper } from '../../src/modules/message-campaigns/message-campaign-timer-sweeper.service';
import { connectStaff, data, record, type Received } from '../support/realtime';
import type { TestApp } from '../support/test-app';
import {
  channelDesk,
  channelSuite,
  startChannelApi,
  webhookUrlOf,
  type ChannelDesk,
  type ChannelSuite,
} from '../channels/support/channel-e2e';
import { campaignHttp, connectWhatsAppAccount, insertPhoneList, startCampaignWhatsAppFake, submitAndApprove } from './campaign-fixtures';

/**
 * Issue 21, schedules and safety: a campaign scheduled ahead starts by itself, one outside its
 * sending window waits (parked, nothing sent) and resumes at the opening, its end time skips the
 * unsent, Meta's number-quality webhook pauses it, and the board is pushed live over the staff
 * socket. Time is the test's: the API's timer sweeper is swept at chosen instants (sweep(now)) and
 * the campaign runs (the worker's runMessageCampaign, in this process, on the suite's queue) read
 * the same clock, all of it in 2027 so the real-time sweeps of the API never fire these deadlines.
 */
jest.setTimeout(180_000);
const eventually = <T>(assertion: () => T | Promise<T>, timeoutMs = 30_000) => eventuallyWithin(assertion, { timeoutMs, intervalMs: 100 });

/** Monday 4 January 2027; Madrid is on CET (UTC+1), so 08:00 UTC is 09:00 there. */
const MONDAY = '2027-01-04';
const utc = (time: string) => Date.parse(`${MONDAY}T${time}Z`);
const WORKDAY = { mon: [{ from: '09:00', to: '21:00' }], tue: [{ from: '09:00', to: '21:00' }] };

describe('Message campaign schedules, sending windows, quality pause and live board', () => {
  let wa: WhatsAppFake;
  let api: TestApp;
  let desk: ChannelDesk;
  let account: ChannelAccountView;
  let worker: Worker;
  let workerDb: DataSource;
  let suite: ChannelSuite;
  let sweeper: MessageCampaignTimerSweeper;
  let socket: Socket;
  let received: Received[];
  /** The clock the campaign runs read (the sweeper is handed its instants explicitly). */
  let clock = utc('06:00:00');
  const runs: { campaignId: string; outcome: string }[] = [];
  const prefix = `347${randomInt(100, 999)}`;
  const phoneOf = (index: number) => `+${prefix}${String(index).padStart(5, '0')}`;

  beforeAll(async () => {
    wa = await startCampaignWhatsAppFake();
    suite = channelSuite('mc-schedule', { META_GRAPH_URL: wa.url, META_GRAPH_VERSION: wa.graphVersion });
    api = await startChannelApi(suite);
    sweeper = api.app.get(MessageCampaignTimerSweeper);
    desk = await channelDesk(api);
    account = await connectWhatsAppAccount(api, desk, wa, 'Campañas programadas');
    // The worker's own pool, as in production: it outlives an API restart.
    workerDb = await createDataSource(process.env.DATABASE_URL!).initialize();
    const deps = {
      db: workerDb,
      registry: createChannelRegistry(channelEndpointsFromEnv()),
      crypto: new ConfigCrypto({ ...process.env, NODE_ENV: 'test' }),
      reconcileAfterMs: 3000,
      now: () => clock,
    };
    // The worker's campaign consumer, on this suite's prefix only, with the test's clock.
    worker = new Worker(
      QUEUES.messageCampaigns,
      async (job) => {
        const outcome = await runMessageCampaign(deps, job.data as { tenantId: string; campaignId: string });
        runs.push({ campaignId: (job.data as { campaignId: string }).campaignId, outcome });
        return outcome;
      },
      {
        connection: { url: process.env.REDIS_URL ?? 'redis://127.0.0.1:6379', maxRetriesPerRequest: null },
        prefix: suite.queuePrefix,
        concurrency: 4,
      },
    );
    await worker.waitUntilReady();
    socket = await connectStaff(api.url, desk.adminToken);
    received = record(socket);
  }, 120_000);

  afterAll(async () => {
    socket?.close();
    await worker?.close();
    await workerDb?.destroy();
    await api?.close();
    await wa?.close();
  });

  const http = campaignHttp(() => ({ api, desk }));
  const { post, board } = http;
  const sendsTo = (phones: string[]) => wa.sent.filter((message) => message.type === 'template' && phones.includes(message.to));
  const pushes = (id: string) =>
    received
      .filter((one) => one.event === 'messageCampaign.board' && (one.data as MessageCampaignBoardPush).id === id)
      .map((one) => one.data as MessageCampaignBoardPush);
  /**
   * The board the console shows: the API's and the worker's pushes may cross on the way, so it keeps
   * the newest reading (`at`), not the last to arrive (useLiveMessageCampaigns).
   */
  const shownBoard = (id: string) =>
    pushes(id).reduce<MessageCampaignBoardPush | undefined>((newest, push) => (newest && newest.at > push.at ? newest : push), undefined);

  const phoneList = (phones: string[]) => insertPhoneList(api, desk.tenantId, `Lista ${randomInt(1e6, 9e6)}`, phones);

  let template: ChannelTemplateView;
  const approvedTemplate = async (): Promise<ChannelTemplateView> => {
    if (template) return template;
    const name = `aviso_${randomInt(1e6, 9e6)}`;
    const draft = data<ChannelTemplateView>(
      await post('/api/message-templates', {
        accountId: account.id,
        name,
        language: 'es',
        category: 'UTILITY',
        body: { text: 'Hola {{1}}, su pedido está listo.', examples: ['Ana'] },
      }),
    );
    template = (await submitAndApprove(http, wa, draft, eventually)).approved;
    return template;
  };

  const campaign = async (phones: string[], extra: Record<string, unknown>): Promise<MessageCampaignView> => {
    const response = await post('/api/message-campaigns', {
      name: `Aviso ${randomInt(1e6, 9e6)}`,
      accountId: account.id,
      templateId: (await approvedTemplate()).id,
      phoneListId: await phoneList(phones),
      parameterMapping: { header: [], body: [{ source: 'name' }] },
      ratePerSecond: 10,
      ...extra,
    });
    expect(response.status).toBe(200);
    return data<MessageCampaignView>(response);
  };

  it('refuses a bad schedule naming the field (400)', async () => {
    const listId = await phoneList([phoneOf(1)]);
    const base = { name: 'Mal', accountId: account.id, templateId: (await approvedTemplate()).id, phoneListId: listId };
    const bad = async (extra: Record<string, unknown>, field: string) => {
      const response = await post('/api/message-campaigns', { ...base, parameterMapping: { body: [{ source: 'name' }] }, ...extra });
      expect(response.status).toBe(400);
      expect(JSON.stringify(response.body)).toContain(field);
    };
    await bad({ startsAt: 'el lunes' }, 'startsAt');
    await bad({ endsAt: '2020-01-01T00:00:00Z' }, 'endsAt');
    await bad({ callingWindows: { mon: [{ from: '21:00', to: '09:00' }] } }, 'callingWindows.mon');
  });

  it('a campaign scheduled ahead starts by itself; outside its window it waits, sending nothing, and resumes at the opening', async () => {
    const phones = [1, 2, 3, 4, 5].map((index) => phoneOf(100 + index));
    const created = await campaign(phones, { startsAt: new Date(utc('07:00:00')).toISOString(), callingWindows: WORKDAY });
    const scheduled = data<MessageCampaignView>(await post(`/api/message-campaigns/${created.id}/start`));
    expect(scheduled).toMatchObject({ status: 'scheduled', startsAt: '2027-01-04T07:00:00.000Z', counts: { total: 0 } });

    // The API that scheduled it goes away; another one fires its start: the deadline is the row.
    socket.close();
    await api.close();
    api = await startChannelApi(suite);
    sweeper = api.app.get(MessageCampaignTimerSweeper);
    wa.setWebhookUrl(webhookUrlOf(api, account));
    socket = await connectStaff(api.url, desk.adminToken);
    received = record(socket);

    // Not yet: a sweep a second before its start leaves it scheduled.
    await sweeper.sweep(utc('06:59:59'));
    expect((await board(created.id)).status).toBe('scheduled');

    // Its start (08:00 in Madrid, an hour before the window): it starts, and waits for the window, parked.
    clock = utc('07:00:01');
    await sweeper.sweep(clock);
    const waiting = await eventually(async () => {
      const view = await board(created.id);
      expect(view).toMatchObject({ status: 'running', idleReason: 'outside_sending_window', idleUntil: '2027-01-04T08:00:00.000Z' });
      return view;
    });
    expect(waiting.counts).toMatchObject({ total: 5, queued: 5, sending: 0 });
    expect(runs.find((run) => run.campaignId === created.id)?.outcome).toBe('waiting');
    expect(sendsTo(phones)).toHaveLength(0);
    // The board said so over the socket.
    await eventually(() => expect(pushes(created.id).some((push) => push.idleReason === 'outside_sending_window')).toBe(true));

    // The window opens: the sweeper resumes it and everyone gets the message once.
    clock = utc('08:00:01');
    await sweeper.sweep(clock);
    const finished = await eventually(async () => {
      const view = await board(created.id);
      expect(view.status).toBe('finished');
      return view;
    });
    expect(finished).toMatchObject({ idleReason: null, idleUntil: null, counts: { total: 5, sent: 5, queued: 0 } });
    expect(new Set(sendsTo(phones).map((message) => message.to)).size).toBe(5);
    expect(sendsTo(phones)).toHaveLength(5);
    // The worker's own finish push is an outbox row its API delivers once stale; in this test run
    // every suite's API shares the database and may deliver it to its own queue prefix, where this
    // suite's socket never hears it (production's processes share one prefix). The API's own
    // re-read, which any later change of the campaign asks for, shows the final board too.
    campaignBoardChanged(created.id);
    await eventually(() => expect(shownBoard(created.id)).toMatchObject({ status: 'finished', counts: { sent: 5 } }));
  });

  it('ends at its end time: the recipients still waiting are skipped with the reason', async () => {
    const phones = [1, 2, 3].map((index) => phoneOf(200 + index));
    clock = utc('05:00:00');
    const created = await campaign(phones, { endsAt: new Date(utc('07:30:00')).toISOString(), callingWindows: WORKDAY });
    await post(`/api/message-campaigns/${created.id}/start`);
    await eventually(async () => expect((await board(created.id)).idleReason).toBe('outside_sending_window'));
    await sweeper.sweep(utc('07:29:59'));
    expect((await board(created.id)).status).toBe('running');
    await sweeper.sweep(utc('07:30:00'));
    const ended = await board(created.id);
    expect(ended).toMatchObject({ status: 'finished', skipped: { campaign_ended: 3 }, counts: { skipped: 3, queued: 0 } });
    expect(sendsTo(phones)).toHaveLength(0);
    // Its resume deadline went with it: the window's opening starts nothing.
    await sweeper.sweep(utc('08:00:01'));
    expect((await board(created.id)).status).toBe('finished');
    expect(sendsTo(phones)).toHaveLength(0);
  });

  it('the number flagged by Meta pauses its running campaigns, saying why, and nothing more is sent; the tier becomes the daily limit', async () => {
    const phones = Array.from({ length: 60 }, (_, index) => phoneOf(300 + index));
    const created = await campaign(phones, { ratePerSecond: 2 });
    await post(`/api/message-campaigns/${created.id}/start`);
    await eventually(() => expect(sendsTo(phones).length).toBeGreaterThanOrEqual(2));
    // Live: the worker's sends reach the board over the socket.
    await eventually(() => expect(pushes(created.id).some((push) => push.status === 'running' && push.counts.sent > 0)).toBe(true));

    const deliveries = await wa.qualityUpdate('FLAGGED', { currentLimit: 'TIER_1K' });
    expect(deliveries.at(-1)?.status).toBe(200);
    const paused = await eventually(async () => {
      const view = await board(created.id);
      expect(view.status).toBe('paused');
      return view;
    });
    expect(paused).toMatchObject({ pausedReason: 'quality_flagged', pausedDetail: expect.stringContaining('FLAGGED') });
    await eventually(() => expect(shownBoard(created.id)).toMatchObject({ status: 'paused', pausedReason: 'quality_flagged' }));
    // The run saw the pause and ended; after that nothing more goes out.
    await eventually(() => expect(runs.filter((run) => run.campaignId === created.id).map((run) => run.outcome)).toContain('paused'));
    const atPause = sendsTo(phones).length;
    const settled = await board(created.id);
    expect(settled.counts.sending).toBe(0);
    expect(settled.counts.sent).toBe(atPause);
    expect(atPause).toBeLessThan(60);

    // A downgrade: its new tier becomes the account's daily limit (the run paces by it); unlimited lifts it.
    await wa.qualityUpdate('DOWNGRADE', { oldLimit: 'TIER_1K', currentLimit: 'TIER_250' });
    const dailyLimit = async () =>
      (
        (await api.dataSource.query(`SELECT settings->>'dailyLimit' AS limit FROM channel_accounts WHERE id = $1`, [account.id])) as {
          limit: string | null;
        }[]
      )[0]!.limit;
    await eventually(async () => expect(await dailyLimit()).toBe('250'));
    await wa.qualityUpdate('UPGRADE', { oldLimit: 'TIER_250', currentLimit: 'TIER_UNLIMITED' });
    await eventually(async () => expect(await dailyLimit()).toBeNull());
    expect(sendsTo(phones)).toHaveLength(atPause);
  });
});
