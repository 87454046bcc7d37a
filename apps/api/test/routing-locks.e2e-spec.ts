import { randomUUID } from 'node:crypto';
import type { DataSource, QueryRunner } from 'typeorm';
import { MachineHostService } from '../src/modules/machine-host/machine-host.service';
import { RoutingService } from '../src/modules/routing/routing.service';
import { eventually } from '../../../test/support/eventually';
import { createTenant, createUser, type TestTenant } from './support/factories';
import { createLine } from './support/realtime';
import { startTestApp, type TestApp } from './support/test-app';

/** A web-chat customer who has chosen the menu: created and queued (LiningUp) on `lineId` in one transaction. */
async function queueCustomer(host: MachineHostService, tenantId: string, lineId: string): Promise<string> {
  const id = randomUUID();
  await host.transaction(async (manager, outbox) => {
    const created = await host.createConversation(
      manager,
      { id, tenantId, channel: 'webchat', entryLineId: lineId, customerName: 'Customer', customerEmail: null, visitorId: null },
      { kind: 'customer' },
    );
    const queued = await host.dispatchConversation(
      manager,
      id,
      { type: 'conversation.menuCompleted', queryTypeId: 'q', submenuId: 's', attentionLineId: lineId, pollId: null },
      { kind: 'customer' },
    );
    outbox.push(...created.outboxIds, ...queued.outboxIds);
  });
  return id;
}

/** Agents logged in one after the other (so each is idle since later than the one before), with the capacity given. */
async function loggedInAgents(t: TestApp, tenant: TestTenant, capacities: number[]): Promise<string[]> {
  const host = t.app.get(MachineHostService);
  const ids: string[] = [];
  for (const capacity of capacities) {
    const { user } = await createUser(t.dataSource, tenant, { role: 'AGENT' });
    await host.transaction((manager) => host.ensureAgent(manager, user.id, tenant.client.id, capacity, ['break']));
    await host.dispatch('agent', user.id, { type: 'agent.loggedIn', capacity }, { kind: 'agent', id: user.id });
    ids.push(user.id);
  }
  return ids;
}

async function serve(dataSource: DataSource, tenant: TestTenant, lineId: string, agentIds: string[]): Promise<void> {
  for (const agentId of agentIds)
    await dataSource.query(`INSERT INTO agent_attention_lines (user_id, attention_line_id, tenant_id) VALUES ($1, $2, $3)`, [
      agentId,
      lineId,
      tenant.client.id,
    ]);
}

/** Who holds each conversation (null while it waits). */
async function holders(dataSource: DataSource, conversationIds: string[]): Promise<(string | null)[]> {
  const rows = (await dataSource.query(`SELECT id, agent_id, status FROM conversations WHERE id = ANY($1)`, [conversationIds])) as {
    id: string;
    agent_id: string | null;
    status: string;
  }[];
  return conversationIds.map((id) => {
    const row = rows.find((candidate) => candidate.id === id);
    return row?.status === 'Active' ? row.agent_id : null;
  });
}

/** Backends waiting for a lock the session `holderPid` holds. */
async function waitingOn(dataSource: DataSource, holderPid: number): Promise<number> {
  const [{ waiting }] = (await dataSource.query(
    `SELECT count(*)::int AS waiting FROM pg_stat_activity WHERE $1::int = ANY(pg_blocking_pids(pid))`,
    [holderPid],
  )) as { waiting: number }[];
  return waiting;
}

/** A transaction of its own holding the agent's presence row, as a presence step or another line's router would. */
async function holdAgentRow(dataSource: DataSource, agentId: string): Promise<{ runner: QueryRunner; pid: number }> {
  const runner = dataSource.createQueryRunner();
  await runner.connect();
  await runner.startTransaction();
  await runner.query(`SELECT 1 FROM agent_presence WHERE user_id = $1 FOR UPDATE`, [agentId]);
  const [{ pid }] = (await runner.query(`SELECT pg_backend_pid() AS pid`)) as { pid: number }[];
  return { runner, pid };
}

async function release(held: { runner: QueryRunner }): Promise<void> {
  if (held.runner.isTransactionActive) await held.runner.commitTransaction();
  await held.runner.release();
}

describe('routing and agent rows held by other transactions', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await startTestApp();
  });

  afterAll(async () => {
    await t.close();
  });

  it('a round does not wait for an agent row another transaction holds: the next agent in the policy order gets the customer', async () => {
    const tenant = await createTenant(t.dataSource);
    const line = await createLine(t.dataSource, tenant, 'Held agent');
    const [first, second] = await loggedInAgents(t, tenant, [1, 1]);
    await serve(t.dataSource, tenant, line, [first, second]);
    // The agent idle the longest, whom the line's policy would pick, is held elsewhere.
    const held = await holdAgentRow(t.dataSource, first);
    try {
      const customer = await queueCustomer(t.app.get(MachineHostService), tenant.client.id, line);
      let routed = false;
      const routing = t.app
        .get(RoutingService)
        .routeLine(line)
        .finally(() => (routed = true));
      // Whichever comes first: the round is done, or some backend is blocked behind the held row
      // (what a round locking every agent of the line does until the holder lets go).
      const blocked = (async () => {
        while (!routed) {
          if ((await waitingOn(t.dataSource, held.pid)) > 0) return true;
          await new Promise((resolve) => setTimeout(resolve, 10));
        }
        return false;
      })();
      expect(
        await Promise.race([routing.then(() => 'routed'), blocked.then((waited) => (waited ? 'waited for the held agent' : 'routed'))]),
      ).toBe('routed');
      expect(await holders(t.dataSource, [customer])).toEqual([second]);
      // Still holding the row: nothing waited on it.
      expect(await waitingOn(t.dataSource, held.pid)).toBe(0);
    } finally {
      await release(held);
    }
    const [agent] = await t.dataSource.query(`SELECT active_count FROM agent_presence WHERE user_id = $1`, [first]);
    expect(agent.active_count).toBe(0);
  });

  it('an agent with room skipped while held is not lost: a round left with customers waits for them, then serves', async () => {
    const tenant = await createTenant(t.dataSource);
    const line = await createLine(t.dataSource, tenant, 'Held agent, two customers');
    const [first, second] = await loggedInAgents(t, tenant, [1, 1]);
    await serve(t.dataSource, tenant, line, [first, second]);
    // A holder that frees no room and asks for no routing (another line's router leaving the agent
    // room): only the round itself can come back for this agent.
    const held = await holdAgentRow(t.dataSource, first);
    const host = t.app.get(MachineHostService);
    let customers: string[];
    let routing: Promise<number>;
    try {
      customers = [await queueCustomer(host, tenant.client.id, line), await queueCustomer(host, tenant.client.id, line)];
      routing = t.app.get(RoutingService).routeLine(line);
      // The free agent gets the first customer without waiting; the round then waits for the held one.
      await eventually(async () => expect(new Set(await holders(t.dataSource, customers))).toEqual(new Set([second, null])));
      await eventually(async () => expect(await waitingOn(t.dataSource, held.pid)).toBeGreaterThan(0));
    } finally {
      await release(held);
    }
    await routing;
    expect(new Set(await holders(t.dataSource, customers))).toEqual(new Set([second, first]));
  });

  it('a round locks its candidates in the line policy order: least occupied, or idle the longest', async () => {
    const tenant = await createTenant(t.dataSource);
    const host = t.app.get(MachineHostService);
    const router = t.app.get(RoutingService);
    // `busier` gets a conversation first (half full, idle since then), `fresher` one later (a fifth full).
    const [busier, fresher] = await loggedInAgents(t, tenant, [2, 5]);
    for (const agent of [busier, fresher]) {
      const warmUp = await createLine(t.dataSource, tenant, `Warm-up ${agent}`);
      await serve(t.dataSource, tenant, warmUp, [agent]);
      const customer = await queueCustomer(host, tenant.client.id, warmUp);
      await router.routeLine(warmUp);
      expect(await holders(t.dataSource, [customer])).toEqual([agent]);
    }
    const leastOccupied = await createLine(t.dataSource, tenant, 'Least occupied', { policy: 'least-occupied' });
    const longestIdle = await createLine(t.dataSource, tenant, 'Longest idle', { policy: 'longest-idle' });
    for (const line of [leastOccupied, longestIdle]) await serve(t.dataSource, tenant, line, [busier, fresher]);

    // One customer each: a round locks one candidate, the first in its line's order.
    const toLeastOccupied = await queueCustomer(host, tenant.client.id, leastOccupied);
    await router.routeLine(leastOccupied);
    expect(await holders(t.dataSource, [toLeastOccupied])).toEqual([fresher]);
    const toLongestIdle = await queueCustomer(host, tenant.client.id, longestIdle);
    await router.routeLine(longestIdle);
    expect(await holders(t.dataSource, [toLongestIdle])).toEqual([busier]);
  });
});
