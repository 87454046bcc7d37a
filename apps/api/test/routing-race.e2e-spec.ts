import { randomUUID } from 'node:crypto';
import { MachineHostService } from '../src/modules/machine-host/machine-host.service';
import { RoutingService } from '../src/modules/routing/routing.service';
import { eventually } from '../../../test/support/eventually';
import { createUser } from './support/factories';
import { createLine, createTenant } from './support/realtime';
import { startTestApp, type TestApp } from './support/test-app';

const AGENTS = 30;
const CAPACITY = 5;
const CONVERSATIONS = 1000;
const RACES = 1000;
/** Per process: each race holds a pooled connection (10 per process) for its transaction. */
const PARALLEL = 8;

/** Runs `tasks` with at most `limit` in flight at once, all of them started by the time it returns. */
async function pooled(tasks: (() => Promise<unknown>)[], limit: number): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: limit }, async () => {
      while (next < tasks.length) await tasks[next++]();
    }),
  );
}

/** A web-chat customer who has chosen the menu: created and queued (LiningUp) on `lineId` in one transaction. */
function queueCustomer(host: MachineHostService, tenantId: string, lineId: string, customerName: string, id = randomUUID()): Promise<void> {
  return host.transaction(async (manager, outbox) => {
    const created = await host.createConversation(
      manager,
      { id, tenantId, channel: 'webchat', entryLineId: lineId, customerName, customerEmail: null, visitorId: null },
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
}

describe('routing across two API processes', () => {
  let a: TestApp;
  let b: TestApp;

  beforeAll(async () => {
    [a, b] = await Promise.all([startTestApp(), startTestApp()]);
  });

  afterAll(async () => {
    await Promise.all([a.close(), b.close()]);
  });

  it(`never exceeds capacity nor assigns twice across ${RACES} concurrent races`, async () => {
    const tenant = await createTenant(a.dataSource);
    const lines = [
      await createLine(a.dataSource, tenant, 'Race one'),
      await createLine(a.dataSource, tenant, 'Race two', { policy: 'least-occupied' }),
    ];
    const hostA = a.app.get(MachineHostService);
    const hostB = b.app.get(MachineHostService);

    // Customers queue on both lines, half through each process.
    const ids = Array.from({ length: CONVERSATIONS }, () => randomUUID());
    await pooled(
      ids.map((id, index) => () => queueCustomer(index % 2 === 0 ? hostA : hostB, tenant.client.id, lines[index % 2], `C${index}`, id)),
      2 * PARALLEL,
    );

    // Agents serving both lines log in through either process while both routers race.
    const agents = await Promise.all(Array.from({ length: AGENTS }, () => createUser(a.dataSource, tenant, { role: 'AGENT' })));
    for (const { user } of agents) {
      for (const lineId of lines) {
        await a.dataSource.query(`INSERT INTO agent_attention_lines (user_id, attention_line_id, tenant_id) VALUES ($1, $2, $3)`, [
          user.id,
          lineId,
          tenant.client.id,
        ]);
      }
    }
    const routers = [a.app.get(RoutingService), b.app.get(RoutingService)];
    const races = (router: RoutingService, offset: number) =>
      pooled(
        Array.from({ length: RACES / 2 }, (_, index) => () => router.routeLine(lines[(index + offset) % 2])),
        PARALLEL,
      );
    await Promise.all([
      races(routers[0], 0),
      races(routers[1], 1),
      ...agents.map(({ user }, index) => {
        const host = index % 2 === 0 ? hostA : hostB;
        return host.transaction(async (manager, outbox) => {
          await host.ensureAgent(manager, user.id, tenant.client.id, CAPACITY, ['break']);
          const result = await host.dispatchAgent(manager, user.id, { type: 'agent.loggedIn' }, { kind: 'agent', id: user.id });
          outbox.push(...result.outboxIds);
        });
      }),
    ]);

    // Every slot is filled (more customers than slots): nothing waits while an agent has room.
    await eventually(
      async () => {
        const [{ active }] = await a.dataSource.query(
          `SELECT count(*)::int AS active FROM conversations WHERE tenant_id = $1 AND status = 'Active'`,
          [tenant.client.id],
        );
        expect(active).toBe(AGENTS * CAPACITY);
      },
      { timeoutMs: 60_000, intervalMs: 200 },
    );

    const presence: {
      user_id: string;
      active_count: number;
      capacity: number;
      snapshot: { context: { activeConversationIds: string[] } };
    }[] = await a.dataSource.query(`SELECT user_id, active_count, capacity, snapshot FROM agent_presence WHERE tenant_id = $1`, [
      tenant.client.id,
    ]);
    const held = presence.flatMap((agent) => agent.snapshot.context.activeConversationIds);
    expect(new Set(held).size).toBe(held.length);
    for (const agent of presence) {
      expect(agent.active_count).toBeLessThanOrEqual(agent.capacity);
      const owned: { id: string }[] = await a.dataSource.query(`SELECT id FROM conversations WHERE agent_id = $1 AND status = 'Active'`, [
        agent.user_id,
      ]);
      expect(owned.map((row) => row.id).sort()).toEqual([...agent.snapshot.context.activeConversationIds].sort());
    }
    const twice = await a.dataSource.query(
      `SELECT entity_id FROM transition_log WHERE tenant_id = $1 AND event = 'conversation.assigned' GROUP BY entity_id HAVING count(*) > 1`,
      [tenant.client.id],
    );
    expect(twice).toEqual([]);
  }, 240_000);

  it('with more agents than waiting customers, the agents idle the longest get the work, over several routing passes', async () => {
    const tenant = await createTenant(a.dataSource);
    const line = await createLine(a.dataSource, tenant, 'Many agents');
    const host = a.app.get(MachineHostService);
    // 60 agents with room for one each; 30 customers take two routing passes (20 per transaction).
    const agents = await Promise.all(Array.from({ length: 60 }, () => createUser(a.dataSource, tenant, { role: 'AGENT' })));
    for (const { user } of agents) {
      await host.transaction((manager) => host.ensureAgent(manager, user.id, tenant.client.id, 1, ['break']));
      await host.dispatch('agent', user.id, { type: 'agent.loggedIn', capacity: 1 }, { kind: 'agent', id: user.id });
    }
    // 30 customers wait before any agent serves the line.
    for (let i = 0; i < 30; i++) await queueCustomer(host, tenant.client.id, line, `C${i}`);
    // Who should get them: the 30 idle the longest (ties by id), as selectAgent orders them.
    const ranked = (await a.dataSource.query(
      `SELECT user_id FROM agent_presence WHERE tenant_id = $1 ORDER BY (snapshot->'context'->>'idleSince')::bigint, user_id`,
      [tenant.client.id],
    )) as { user_id: string }[];
    await a.dataSource.query(
      `INSERT INTO agent_attention_lines (user_id, attention_line_id, tenant_id) SELECT user_id, $1, tenant_id FROM agent_presence WHERE tenant_id = $2`,
      [line, tenant.client.id],
    );

    await a.app.get(RoutingService).routeLine(line);
    const served = (await a.dataSource.query(`SELECT agent_id FROM conversations WHERE attention_line_id = $1 AND status = 'Active'`, [
      line,
    ])) as { agent_id: string }[];
    expect(served).toHaveLength(30);
    expect(served.map((row) => row.agent_id).sort()).toEqual(
      ranked
        .slice(0, 30)
        .map((row) => row.user_id)
        .sort(),
    );
  });

  it('an agent given several customers in one routing batch takes them as consecutive steps, each logged and pushed', async () => {
    const tenant = await createTenant(a.dataSource);
    const line = await createLine(a.dataSource, tenant, 'One agent, five customers');
    const host = a.app.get(MachineHostService);
    const { user } = await createUser(a.dataSource, tenant, { role: 'AGENT' });
    await host.transaction((manager) => host.ensureAgent(manager, user.id, tenant.client.id, 5, ['break']));
    await host.dispatch('agent', user.id, { type: 'agent.loggedIn', capacity: 5 }, { kind: 'agent', id: user.id });
    // Six wait: the batch plans five steps of the same agent (one statement each, in order) and
    // stops at the sixth, for whom nobody has room.
    const ids = Array.from({ length: 6 }, () => randomUUID());
    for (const [i, id] of ids.entries()) await queueCustomer(host, tenant.client.id, line, `C${i}`, id);
    await a.dataSource.query(`INSERT INTO agent_attention_lines (user_id, attention_line_id, tenant_id) VALUES ($1, $2, $3)`, [
      user.id,
      line,
      tenant.client.id,
    ]);
    const [{ version: before }] = await a.dataSource.query(`SELECT version FROM agent_presence WHERE user_id = $1`, [user.id]);

    expect(await a.app.get(RoutingService).routeLine(line)).toBe(5);

    const [agent] = await a.dataSource.query(`SELECT version, active_count, status, snapshot FROM agent_presence WHERE user_id = $1`, [
      user.id,
    ]);
    expect([agent.version, agent.active_count, agent.status]).toEqual([before + 5, 5, 'busy']);
    const conversations = (await a.dataSource.query(
      `SELECT id, status, agent_id FROM conversations WHERE id = ANY($1) ORDER BY queued_at, id`,
      [ids],
    )) as { id: string; status: string; agent_id: string | null }[];
    const active = conversations.filter((row) => row.status === 'Active');
    expect(active).toHaveLength(5);
    expect(active.every((row) => row.agent_id === user.id)).toBe(true);
    expect([...agent.snapshot.context.activeConversationIds].sort()).toEqual(active.map((row) => row.id).sort());
    // One log row per step, the agent's with consecutive versions, each conversation assigned once.
    const agentLog = (await a.dataSource.query(
      `SELECT version, event FROM transition_log WHERE entity_id = $1 AND version > $2 ORDER BY version`,
      [user.id, before],
    )) as { version: number; event: string }[];
    expect(agentLog.map((row) => [row.version, row.event])).toEqual(
      [1, 2, 3, 4, 5].map((step) => [before + step, 'agent.conversationAssigned']),
    );
    const assigned = await a.dataSource.query(
      `SELECT entity_id FROM transition_log WHERE entity_id = ANY($1) AND event = 'conversation.assigned'`,
      [ids],
    );
    expect(assigned.map((row: { entity_id: string }) => row.entity_id).sort()).toEqual(active.map((row) => row.id).sort());
    // Every step's outbox rows are delivered by the relay (pushes, the assigned conversations' timers).
    await eventually(async () => {
      const [{ pending, written }] = await a.dataSource.query(
        `SELECT count(*) FILTER (WHERE delivered_at IS NULL)::int AS pending, count(*)::int AS written
         FROM outbox WHERE payload::text LIKE '%' || $1 || '%' AND created_at > now() - interval '1 minute'`,
        [user.id],
      );
      // At least the five agent pushes and the five conversations' rows, none left undelivered.
      expect([written >= 10, pending]).toEqual([true, 0]);
    });
  });
});
