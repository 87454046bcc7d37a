import type { ConversationView } from '@centralita/contracts';
import { eventually } from '../../../../test/support/eventually';
import { createCampaign, createLine, createStaff, createTenant, type StaffMember } from '../support/realtime';
import { bearer, startTestApp, type TestApp } from '../support/test-app';
import { expectGaplessLogs, expectHoldingsAgree, queueCustomer, tenantLog } from './consistency';

const ROUNDS = 30;
const HELD = 2;

/**
 * Issue 18, 6(b): two agents transferring conversations to each other at the same moment each lock
 * the conversation, then both agents. Locked in one global order (conversations, then agents by
 * id) neither waits for the other in a cycle: no deadlock, so no 500.
 */
describe('simultaneous cross transfers between two agents, two API processes', () => {
  let a: TestApp;
  let b: TestApp;
  const savedLimit = process.env.RATE_LIMIT_WEBCHAT_START_IP;

  beforeAll(async () => {
    process.env.RATE_LIMIT_WEBCHAT_START_IP = '100000';
    [a, b] = await Promise.all([startTestApp(), startTestApp()]);
  });
  afterAll(async () => {
    await Promise.all([a.close(), b.close()]);
    process.env.RATE_LIMIT_WEBCHAT_START_IP = savedLimit;
  });

  it(`answers every one of ${ROUNDS} rounds of both-way transfers with 200, and every conversation ends with exactly one agent`, async () => {
    const tenant = await createTenant(a.dataSource);
    const tenantId = tenant.client.id;
    const line = await createLine(a.dataSource, tenant, 'Swap');
    const campaignId = await createCampaign(a.dataSource, tenant, 5);
    const x: StaffMember = await createStaff(a, tenant, 'AGENT', [line]);
    const y: StaffMember = await createStaff(a, tenant, 'AGENT', [line]);
    for (const agent of [x, y]) await a.http().post('/api/agent/presence/login').set(bearer(agent.token)).send({ campaignId }).expect(200);
    const ids = await Promise.all(Array.from({ length: 2 * HELD }, (_, i) => queueCustomer(i % 2 ? a : b, line, `C${i}`)));
    const holdings = async () => {
      const rows = (await a.dataSource.query(`SELECT id, agent_id FROM conversations WHERE id = ANY($1) AND status = 'Active'`, [ids])) as {
        id: string;
        agent_id: string;
      }[];
      return {
        [x.userId]: rows.filter((row) => row.agent_id === x.userId).map((row) => row.id),
        [y.userId]: rows.filter((row) => row.agent_id === y.userId).map((row) => row.id),
      };
    };
    await eventually(async () => {
      const held = await holdings();
      expect(held[x.userId].length + held[y.userId].length).toBe(2 * HELD);
      expect(held[x.userId].length).toBeGreaterThan(0);
      expect(held[y.userId].length).toBeGreaterThan(0);
    });

    const statuses: number[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      const held = await holdings();
      const give = (t: TestApp, from: StaffMember, to: StaffMember, which: number) =>
        t
          .http()
          .post(`/api/agent/conversations/${held[from.userId][which % held[from.userId].length]}/transfer`)
          .set(bearer(from.token))
          .send({ agentId: to.userId });
      const answers = await Promise.all([give(a, x, y, round), give(b, y, x, round + 1)]);
      statuses.push(...answers.map((answer) => answer.status));
      for (const answer of answers) {
        expect(answer.status).toBe(200);
        expect((answer.body as { data: ConversationView }).data.status).toBe('Active');
      }
    }
    expect(statuses.filter((status) => status >= 500)).toEqual([]);

    const held = await holdings();
    expect(held[x.userId].length + held[y.userId].length).toBe(2 * HELD);
    await expectHoldingsAgree(a.dataSource, tenantId);
    await expectGaplessLogs(a.dataSource, tenantId);
    // Each transfer booked the receiver and released the giver, and their log rows say which conversation.
    const log = await tenantLog(a.dataSource, tenantId);
    const transfers = log.filter((row) => row.event === 'conversation.transferred');
    expect(transfers).toHaveLength(2 * ROUNDS);
    const agentRows = log.filter((row) => row.entity_type === 'agent');
    for (const transfer of transfers) {
      const receiver = transfer.data!.agentId!;
      const giver = receiver === x.userId ? y.userId : x.userId;
      const named = (agentId: string, event: string) =>
        agentRows.filter((row) => row.entity_id === agentId && row.event === event && row.data?.conversationId === transfer.entity_id);
      expect(named(receiver, 'agent.conversationAssigned').length).toBeGreaterThan(0);
      expect(named(giver, 'agent.conversationReleased').length).toBeGreaterThan(0);
    }
    const assigned = agentRows.filter((row) => row.event === 'agent.conversationAssigned');
    const released = agentRows.filter((row) => row.event === 'agent.conversationReleased');
    // Routing's first assignments plus one per transfer; one release per transfer.
    expect(assigned).toHaveLength(2 * HELD + 2 * ROUNDS);
    expect(released).toHaveLength(2 * ROUNDS);
    for (const row of [...assigned, ...released]) expect(ids).toContain(row.data?.conversationId);
  }, 180_000);
});
