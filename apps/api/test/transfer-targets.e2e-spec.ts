import type { ConversationContext, ConversationView, StartChatResult, TransferTargets } from '@centralita/contracts';
import { PrincipalCacheService } from '../src/modules/auth/principal-cache.service';
import { eventually } from '../../../test/support/eventually';
import { createCampaign, createLine, createStaff, createTenant, data } from './support/realtime';
import { bearer, startTestApp, type TestApp } from './support/test-app';

describe('GET /api/agent/transfer-targets (e2e)', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(() => t.close());

  it('lists the tenant’s lines and the logged-in colleagues, never the caller or another tenant', async () => {
    const tenant = await createTenant(t.dataSource);
    const support = await createLine(t.dataSource, tenant, 'Support');
    const sales = await createLine(t.dataSource, tenant, 'Sales');
    await createCampaign(t.dataSource, tenant, 3);
    const me = await createStaff(t, tenant, 'AGENT', [support]);
    const colleague = await createStaff(t, tenant, 'AGENT', [sales]);
    const absent = await createStaff(t, tenant, 'AGENT', [sales]);
    const foreign = await createTenant(t.dataSource);
    await createLine(t.dataSource, foreign, 'Foreign line');
    await t.http().post('/api/agent/presence/login').set(bearer(me.token)).send({}).expect(200);
    await t.http().post('/api/agent/presence/login').set(bearer(colleague.token)).send({}).expect(200);

    const targets = data<TransferTargets>(await t.http().get('/api/agent/transfer-targets').set(bearer(me.token)));
    // Each line with how many of its agents have room now and how many customers wait on it.
    expect(targets.lines).toEqual([
      { id: sales, name: 'Sales', agentsAvailable: 1, waiting: 0 },
      { id: support, name: 'Support', agentsAvailable: 1, waiting: 0 },
    ]);
    expect(targets.agents.map((agent) => agent.id)).toEqual([colleague.userId]);
    expect(targets.agents[0]).toMatchObject({ status: expect.any(String), activeCount: 0, capacity: 3 });
    expect(targets.agents.some((agent) => agent.id === absent.userId)).toBe(false);
  });

  it('counts the customers waiting on a line whose agents are all paused', async () => {
    const tenant = await createTenant(t.dataSource);
    const line = await createLine(t.dataSource, tenant, 'Queue');
    await createCampaign(t.dataSource, tenant, 2);
    const agent = await createStaff(t, tenant, 'AGENT', [line]);
    await t.http().post('/api/agent/presence/login').set(bearer(agent.token)).send({}).expect(200);
    await t.http().post('/api/agent/presence/pause').set(bearer(agent.token)).send({ reasonId: 'break' }).expect(200);
    const started = data<StartChatResult>(await t.http().post('/api/webchat/conversations').send({ attentionLineId: line, name: 'Wait' }));
    await t
      .http()
      .post('/api/webchat/conversation/menu')
      .set(bearer(started.visitorToken))
      .send({ queryTypeId: 'support', submenuId: 'technical' })
      .expect(200);
    const targets = data<TransferTargets>(await t.http().get('/api/agent/transfer-targets').set(bearer(agent.token)));
    expect(targets.lines).toEqual([{ id: line, name: 'Queue', agentsAvailable: 0, waiting: 1 }]);
  });

  it('gives the agent holding a chat its line by name, the menu choice and the customer’s earlier chats; others get 404', async () => {
    const tenant = await createTenant(t.dataSource);
    const line = await createLine(t.dataSource, tenant, 'Helpdesk');
    await createCampaign(t.dataSource, tenant, 3);
    const agent = await createStaff(t, tenant, 'AGENT', [line]);
    const colleague = await createStaff(t, tenant, 'AGENT');
    const foreign = await createStaff(t, await createTenant(t.dataSource), 'AGENT');
    const chat = async (name: string) => {
      const started = data<StartChatResult>(
        await t.http().post('/api/webchat/conversations').send({ attentionLineId: line, name, email: 'Repeat@Example.com' }),
      );
      await t
        .http()
        .post('/api/webchat/conversation/menu')
        .set(bearer(started.visitorToken))
        .send({ queryTypeId: 'billing', submenuId: 'refund' })
        .expect(200);
      return started;
    };
    const earlier = await chat('Before');
    await t.http().post('/api/webchat/conversation/leave').set(bearer(earlier.visitorToken)).send({}).expect(200);
    const now = await chat('Now');
    await t.http().post('/api/agent/presence/login').set(bearer(agent.token)).send({}).expect(200);
    await eventually(async () => {
      const mine = data<ConversationView[]>(await t.http().get('/api/agent/conversations').set(bearer(agent.token)));
      expect(mine.map((view) => view.id)).toEqual([now.conversation.id]);
    });

    const context = data<ConversationContext>(
      await t.http().get(`/api/agent/conversations/${now.conversation.id}/context`).set(bearer(agent.token)),
    );
    expect(context).toMatchObject({
      conversationId: now.conversation.id,
      lineName: 'Helpdesk',
      entryLineName: 'Helpdesk',
      queryTypeId: 'billing',
      submenuId: 'refund',
    });
    expect(context.earlier).toEqual([
      expect.objectContaining({ id: earlier.conversation.id, lineName: 'Helpdesk', status: 'Closed', closedAt: expect.any(String) }),
    ]);
    // The customer now sees who answers.
    const visitor = data<{ agentName: string | null }>(await t.http().get('/api/webchat/conversation').set(bearer(now.visitorToken)));
    const [{ name }] = (await t.dataSource.query(`SELECT name FROM users WHERE id = $1`, [agent.userId])) as { name: string }[];
    expect(visitor.agentName).toBe(name);

    for (const stranger of [colleague, foreign]) {
      const refused = await t.http().get(`/api/agent/conversations/${now.conversation.id}/context`).set(bearer(stranger.token));
      expect(refused.status).toBe(404);
    }
  });

  it('is refused to staff without conversations.handle', async () => {
    const tenant = await createTenant(t.dataSource);
    const supervisor = await createStaff(t, tenant, 'SUPER');
    await t.dataSource.query(`UPDATE roles SET permissions = '{dashboard.view}' WHERE id = (SELECT role_id FROM users WHERE id = $1)`, [
      supervisor.userId,
    ]);
    await t.app.get(PrincipalCacheService).refresh(supervisor.userId);
    await t.http().get('/api/agent/transfer-targets').set(bearer(supervisor.token)).expect(403);
  });
});
