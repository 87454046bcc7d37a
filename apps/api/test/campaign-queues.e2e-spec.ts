import type { CampaignQueueView, StartChatResult } from '@centralita/contracts';
import { eventually } from '../../../test/support/eventually';
import { connectStaff, createCampaign, createLine, createStaff, createTenant, data, record, type Received } from './support/realtime';
import { bearer, startTestApp, type TestApp } from './support/test-app';

const campaignUpdates = (received: Received[], campaignId: string) =>
  received
    .filter((entry) => entry.event === 'campaignQueue.updated')
    .map((entry) => entry.data as CampaignQueueView)
    .filter((view) => view.campaignId === campaignId);

describe('live queues per campaign (e2e)', () => {
  let t: TestApp;
  const sockets: { close: () => void }[] = [];
  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(async () => {
    for (const socket of sockets) socket.close();
    await t.close();
  });

  it("counts the waiting customers of the campaign's lines and the agents logged into it, live", async () => {
    const tenant = await createTenant(t.dataSource);
    const spring = await createCampaign(t.dataSource, tenant, 1);
    const other = await createCampaign(t.dataSource, tenant, 1);
    const sales = await createLine(t.dataSource, tenant, 'Sales', { campaignId: spring });
    const billing = await createLine(t.dataSource, tenant, 'Billing', { campaignId: spring });
    const outside = await createLine(t.dataSource, tenant, 'Outside');
    const agent = await createStaff(t, tenant, 'AGENT', [sales]);
    const supervisor = await createStaff(t, tenant, 'SUPER');
    const socket = await connectStaff(t.url, supervisor.token);
    sockets.push(socket);
    const received = record(socket);

    const queue = async (lineId: string) => {
      const started = data<StartChatResult>(
        await t.http().post('/api/webchat/conversations').send({ attentionLineId: lineId, name: 'Ada' }),
      );
      await t
        .http()
        .post('/api/webchat/conversation/menu')
        .set(bearer(started.visitorToken))
        .send({ queryTypeId: 'sales', submenuId: 'new' })
        .expect(200);
    };
    await queue(sales);
    await queue(billing);
    await queue(outside);

    await eventually(() => expect(campaignUpdates(received, spring).at(-1)).toMatchObject({ waiting: 2, lines: 2, agentsAvailable: 0 }));
    const board = data<{ campaignQueues: CampaignQueueView[] }>(await t.http().get('/api/supervisor/board').set(bearer(supervisor.token)));
    expect(board.campaignQueues.find((view) => view.campaignId === spring)).toMatchObject({ waiting: 2, lines: 2, agentsAvailable: 0 });
    expect(board.campaignQueues.find((view) => view.campaignId === spring)!.longestWaitMs).toBeGreaterThanOrEqual(0);
    expect(board.campaignQueues.find((view) => view.campaignId === other)).toMatchObject({ waiting: 0, lines: 0 });

    // The agent logs into the campaign and takes the Sales customer: one fewer waiting.
    const desk = await connectStaff(t.url, agent.token);
    sockets.push(desk);
    await t.http().post('/api/agent/presence/login').set(bearer(agent.token)).send({ campaignId: spring }).expect(200);
    await eventually(() => expect(campaignUpdates(received, spring).at(-1)).toMatchObject({ waiting: 1 }));
    expect(await t.dataSource.query(`SELECT campaign_id FROM agent_presence WHERE user_id = $1`, [agent.userId])).toEqual([
      { campaign_id: spring },
    ]);

    // A colleague logging into the campaign is available to it at once, and no longer once paused.
    const colleague = await createStaff(t, tenant, 'AGENT', [billing]);
    await t.dataSource.query(`UPDATE campaigns SET allowed_chats_per_agent = 2 WHERE id = $1`, [spring]);
    sockets.push(await connectStaff(t.url, colleague.token));
    await t.http().post('/api/agent/presence/login').set(bearer(colleague.token)).send({ campaignId: spring }).expect(200);
    // The Billing customer goes to the colleague (one slot of two left): waiting 0, one agent available.
    await eventually(() => expect(campaignUpdates(received, spring).at(-1)).toMatchObject({ waiting: 0, agentsAvailable: 1 }));
    await t.http().post('/api/agent/presence/pause').set(bearer(colleague.token)).send({ reasonId: 'break' }).expect(200);
    await eventually(() => expect(campaignUpdates(received, spring).at(-1)).toMatchObject({ waiting: 0, agentsAvailable: 0 }));
  });

  it("never shows another tenant's campaigns", async () => {
    const mine = await createTenant(t.dataSource);
    const theirs = await createTenant(t.dataSource);
    const foreign = await createCampaign(t.dataSource, theirs, 2);
    const supervisor = await createStaff(t, mine, 'SUPER');
    const board = data<{ campaignQueues: CampaignQueueView[] }>(await t.http().get('/api/supervisor/board').set(bearer(supervisor.token)));
    expect(board.campaignQueues.some((view) => view.campaignId === foreign)).toBe(false);
  });
});
