import { eventually } from '../../../../test/support/eventually';
import { createCampaign, createLine, createStaff, createTenant, data, type StaffMember } from '../support/realtime';
import { bearer, startTestApp, type TestApp } from '../support/test-app';
import { queueCustomer, tenantLog } from './consistency';

/**
 * Issue 18, 6 (what an integrator misses): agent log rows name the conversation they assign or
 * release, and a step's time is taken once its rows are locked, so a lock wait cannot put it
 * before steps that committed ahead of it.
 */
describe('agent log rows and step times', () => {
  let t: TestApp;
  const savedLimit = process.env.RATE_LIMIT_WEBCHAT_START_IP;

  beforeAll(async () => {
    process.env.RATE_LIMIT_WEBCHAT_START_IP = '100000';
    t = await startTestApp();
  });
  afterAll(async () => {
    await t.close();
    process.env.RATE_LIMIT_WEBCHAT_START_IP = savedLimit;
  });

  async function activeWith(agent: StaffMember, line: string): Promise<string> {
    const id = await queueCustomer(t, line, 'Ada');
    await eventually(async () => {
      const [row] = await t.dataSource.query(`SELECT status, agent_id FROM conversations WHERE id = $1`, [id]);
      expect(row).toEqual({ status: 'Active', agent_id: agent.userId });
    });
    return id;
  }

  it('names the conversation on the agent rows of an assignment and of the release when it is closed', async () => {
    const tenant = await createTenant(t.dataSource);
    const line = await createLine(t.dataSource, tenant, 'Named');
    const campaignId = await createCampaign(t.dataSource, tenant, 2);
    const agent = await createStaff(t, tenant, 'AGENT', [line]);
    await t.http().post('/api/agent/presence/login').set(bearer(agent.token)).send({ campaignId }).expect(200);
    const id = await activeWith(agent, line);
    await t.http().post(`/api/agent/conversations/${id}/close`).set(bearer(agent.token)).send({ disposition: 'solved' }).expect(200);

    const expected = [
      ['xstate.init', null],
      ['agent.loggedIn', null],
      ['agent.conversationAssigned', { conversationId: id }],
      ['agent.conversationReleased', { conversationId: id }],
    ];
    const rows = (await tenantLog(t.dataSource, tenant.client.id)).filter((row) => row.entity_type === 'agent');
    expect(rows.map((row) => [row.event, row.data])).toEqual(expected);
    // An integrator reads the same through the supervisor's transitions endpoint.
    const supervisor = await createStaff(t, tenant, 'SUPER');
    const { transitions } = data<{ transitions: { event: string; data: unknown }[] }>(
      await t.http().get(`/api/supervisor/agents/${agent.userId}/transitions`).set(bearer(supervisor.token)),
    );
    expect(transitions.map((entry) => [entry.event, entry.data])).toEqual(expected);
  });

  it('times a close after the wait for the agent’s row, not before it', async () => {
    const tenant = await createTenant(t.dataSource);
    const line = await createLine(t.dataSource, tenant, 'Waited');
    const campaignId = await createCampaign(t.dataSource, tenant, 2);
    const agent = await createStaff(t, tenant, 'AGENT', [line]);
    await t.http().post('/api/agent/presence/login').set(bearer(agent.token)).send({ campaignId }).expect(200);
    const id = await activeWith(agent, line);

    // Another transaction holds the agent's row while the close comes in.
    const blocker = t.dataSource.createQueryRunner();
    await blocker.connect();
    await blocker.startTransaction();
    let releasedAt = 0;
    try {
      await blocker.query(`SELECT 1 FROM agent_presence WHERE user_id = $1 FOR UPDATE`, [agent.userId]);
      const closing = t.http().post(`/api/agent/conversations/${id}/close`).set(bearer(agent.token)).send({ disposition: 'solved' });
      const answered = closing.then((response) => response);
      await eventually(async () => {
        const [{ waiting }] = await t.dataSource.query(
          `SELECT count(*)::int AS waiting FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'`,
        );
        expect(waiting).toBeGreaterThan(0);
      });
      releasedAt = Date.now();
      await blocker.commitTransaction();
      expect((await answered).status).toBe(200);
    } finally {
      if (blocker.isTransactionActive) await blocker.rollbackTransaction();
      await blocker.release();
    }

    const rows = await tenantLog(t.dataSource, tenant.client.id);
    const closed = rows.find((row) => row.entity_id === id && row.event === 'conversation.closed')!;
    const released = rows.find((row) => row.entity_id === agent.userId && row.event === 'agent.conversationReleased')!;
    expect(Number(closed.at_ms)).toBeGreaterThanOrEqual(releasedAt);
    expect(Number(released.at_ms)).toBeGreaterThanOrEqual(releasedAt);
  });
});
