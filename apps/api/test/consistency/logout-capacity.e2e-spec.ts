import type { AgentView } from '@centralita/contracts';
import { eventually } from '../../../../test/support/eventually';
import { createCampaign, createLine, createStaff, createTenant, data, type StaffMember } from '../support/realtime';
import { bearer, startTestApp, type TestApp } from '../support/test-app';
import { expectGaplessLogs, expectHoldingsAgree, mostHeldAtOnce, queueCustomer, tenantLog } from './consistency';

const CAPACITY = 3;
const ROUNDS = 8;

/**
 * Issue 18, 6(a): an agent who logs out holding Active conversations and logs straight back in
 * (here through the other API process) while customers keep arriving must never hold more than
 * their capacity. The logout hands the conversations back to the queue in its own transaction, so
 * what the presence holds and what is Active with the agent never differ.
 */
describe('logout and re-login while holding conversations, two API processes', () => {
  let a: TestApp;
  let b: TestApp;
  const savedLimit = process.env.RATE_LIMIT_WEBCHAT_START_IP;

  beforeAll(async () => {
    // Every customer comes from 127.0.0.1.
    process.env.RATE_LIMIT_WEBCHAT_START_IP = '100000';
    [a, b] = await Promise.all([startTestApp(), startTestApp()]);
  });
  afterAll(async () => {
    await Promise.all([a.close(), b.close()]);
    process.env.RATE_LIMIT_WEBCHAT_START_IP = savedLimit;
  });

  it(`never exceeds capacity ${CAPACITY} over ${ROUNDS} rounds, in the conversations table or in the log`, async () => {
    const tenant = await createTenant(a.dataSource);
    const tenantId = tenant.client.id;
    const line = await createLine(a.dataSource, tenant, 'Churn');
    const campaignId = await createCampaign(a.dataSource, tenant, CAPACITY);
    const agent: StaffMember = await createStaff(a, tenant, 'AGENT', [line]);
    const login = (t: TestApp) => t.http().post('/api/agent/presence/login').set(bearer(agent.token)).send({ campaignId });
    const heldNow = async () =>
      Number(
        (
          await a.dataSource.query(`SELECT count(*)::int AS n FROM conversations WHERE agent_id = $1 AND status = 'Active'`, [agent.userId])
        )[0].n,
      );

    // What the table says, sampled all along.
    let sampling = true;
    let mostSampled = 0;
    const sampler = (async () => {
      while (sampling) {
        mostSampled = Math.max(mostSampled, await heldNow());
        await new Promise((resolve) => setTimeout(resolve, 5));
      }
    })();

    data<AgentView>(await login(a));
    let customers = 0;
    const arrive = (t: TestApp, count: number) =>
      Promise.all(Array.from({ length: count }, () => queueCustomer(t, line, `C${customers++}`)));
    await arrive(a, CAPACITY);

    for (let round = 0; round < ROUNDS; round++) {
      // Full: the agent holds CAPACITY conversations, and more customers wait.
      await eventually(async () => expect(await heldNow()).toBe(CAPACITY), { timeoutMs: 20_000, intervalMs: 20 });
      const [first, second] = round % 2 === 0 ? [a, b] : [b, a];
      const arrivals = arrive(second, CAPACITY);
      const loggedOut = data<AgentView>(await first.http().post('/api/agent/presence/logout').set(bearer(agent.token)));
      expect(loggedOut).toMatchObject({ status: 'loggedOut', activeCount: 0 });
      expect(data<AgentView>(await login(second))).toMatchObject({ status: 'available' });
      await arrivals;
    }
    await eventually(async () => expect(await heldNow()).toBe(CAPACITY), { timeoutMs: 20_000, intervalMs: 20 });
    sampling = false;
    await sampler;

    expect(mostHeldAtOnce(await tenantLog(a.dataSource, tenantId)).get(agent.userId)).toBe(CAPACITY);
    expect(mostSampled).toBeLessThanOrEqual(CAPACITY);
    await expectHoldingsAgree(a.dataSource, tenantId);
    await expectGaplessLogs(a.dataSource, tenantId);
    // The logout rows name what they handed back; each was re-queued by the same transaction.
    const logouts = (await tenantLog(a.dataSource, tenantId)).filter((row) => row.event === 'agent.loggedOut');
    expect(logouts).toHaveLength(ROUNDS);
    for (const row of logouts) expect(row.data?.conversationIds).toHaveLength(CAPACITY);
  }, 180_000);
});
