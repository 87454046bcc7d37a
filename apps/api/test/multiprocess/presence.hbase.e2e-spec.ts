import type { AgentView } from '@centralita/contracts';
import { eventually } from '../../../../test/support/eventually';
import { queueCustomer } from '../consistency/consistency';
import { RoutingService } from '../../src/modules/routing/routing.service';
import { spawnChild, type ChildWorker } from '../support/processes';
import {
  connectStaff,
  createCampaign,
  createLine,
  createStaff,
  createTenant,
  data,
  type StaffMember,
  type StaffSocket,
} from '../support/realtime';
import { bearer, startTestApp, type TestApp } from '../support/test-app';

const GRACE_SECONDS = 2;
const HEARTBEAT_MS = 300;

/**
 * Issue 18, item 4 and 6(c): an agent's presence is connected while any of their staff sockets on
 * any API process is. B is a separate operating-system process; A runs in the test's process.
 */
describe('agent presence across API processes', () => {
  let a: TestApp;
  let b: { url: string; child: ChildWorker };
  const sockets: StaffSocket[] = [];
  const saved = { grace: process.env.DISCONNECT_GRACE_SECONDS, heartbeat: process.env.PRESENCE_HEARTBEAT_MS };

  beforeAll(async () => {
    process.env.DISCONNECT_GRACE_SECONDS = String(GRACE_SECONDS);
    process.env.PRESENCE_HEARTBEAT_MS = String(HEARTBEAT_MS);
    const child = spawnChild('api.child.ts', { ...process.env });
    a = await startTestApp();
    await child.ready;
    const url = /listening (\S+)/.exec(child.output())?.[1];
    if (!url) throw new Error(`the second API printed no URL:\n${child.output()}`);
    b = { url, child };
  });

  afterAll(async () => {
    for (const socket of sockets) socket.close();
    if (b && b.child.child.exitCode === null && b.child.child.signalCode === null) {
      b.child.child.kill('SIGTERM');
      await b.child.exited;
    }
    await a?.close();
    process.env.DISCONNECT_GRACE_SECONDS = saved.grace;
    process.env.PRESENCE_HEARTBEAT_MS = saved.heartbeat;
  });

  async function loggedInAgent(): Promise<{ agent: StaffMember; line: string; tenantId: string }> {
    const tenant = await createTenant(a.dataSource);
    const line = await createLine(a.dataSource, tenant, 'Presence');
    const campaignId = await createCampaign(a.dataSource, tenant, 3);
    const agent = await createStaff(a, tenant, 'AGENT', [line]);
    data<AgentView>(await a.http().post('/api/agent/presence/login').set(bearer(agent.token)).send({ campaignId }));
    return { agent, line, tenantId: tenant.client.id };
  }

  const presence = async (agent: StaffMember) => data<AgentView>(await a.http().get('/api/agent/presence').set(bearer(agent.token)));
  const disconnectedAt = async (agent: StaffMember): Promise<unknown> =>
    (
      (await a.dataSource.query(`SELECT snapshot->'context'->'disconnectedAt' AS at FROM agent_presence WHERE user_id = $1`, [
        agent.userId,
      ])) as { at: unknown }[]
    )[0].at;
  const events = async (agent: StaffMember): Promise<string[]> =>
    (
      (await a.dataSource.query(`SELECT event FROM transition_log WHERE entity_type = 'agent' AND entity_id = $1 ORDER BY version`, [
        agent.userId,
      ])) as { event: string }[]
    ).map((row) => row.event);

  it('a desk that closes on one process and reopens on the other within the grace stays connected, with the reconnect logged', async () => {
    const rounds = 6;
    const { agent } = await loggedInAgent();
    let socket = await connectStaff(a.url, agent.token);
    for (let round = 0; round < rounds; round++) {
      // The next desk opens on the other process while the first one's close is still being handled.
      const next = connectStaff(round % 2 === 0 ? b.url : a.url, agent.token);
      socket.close();
      socket = await next;
      sockets.push(socket);
    }
    // Every step has landed once the log stops growing and says connected.
    await eventually(async () => expect(await disconnectedAt(agent)).toBeNull(), { timeoutMs: 5000, intervalMs: 50 });
    // A close handled late logs one more disconnect and then its reconnect: the pairs match once it has landed.
    await eventually(
      async () => {
        const log = await events(agent);
        expect(log.filter((event) => event === 'agent.disconnected').length).toBe(
          log.filter((event) => event === 'agent.reconnected').length,
        );
      },
      { timeoutMs: 5000, intervalMs: 50 },
    );
    // Past the grace (and the timer's slack), still available: no auto_away while connected. A late
    // close may still log one more disconnect, but always with its reconnect after it.
    await new Promise((resolve) => setTimeout(resolve, (GRACE_SECONDS + 1) * 1000));
    expect(await presence(agent)).toMatchObject({ status: 'available', pauseReasonId: null });
    expect(await disconnectedAt(agent)).toBeNull();
    const after = await events(agent);
    expect(after.filter((event) => event === 'agent.disconnected').length).toBe(
      after.filter((event) => event === 'agent.reconnected').length,
    );
    expect(after.at(-1)).not.toBe('agent.disconnected');
    expect(after).not.toContain('agent.disconnectGraceExpired');
  });

  it('disconnect then reconnect on the other process: the disconnect and the reconnect are both logged', async () => {
    const { agent } = await loggedInAgent();
    const first = await connectStaff(a.url, agent.token);
    first.close();
    await eventually(async () => expect(await disconnectedAt(agent)).not.toBeNull(), { timeoutMs: 5000, intervalMs: 20 });
    sockets.push(await connectStaff(b.url, agent.token));
    await eventually(async () => expect(await disconnectedAt(agent)).toBeNull(), { timeoutMs: 5000, intervalMs: 20 });
    expect((await events(agent)).slice(-2)).toEqual(['agent.disconnected', 'agent.reconnected']);
    await new Promise((resolve) => setTimeout(resolve, (GRACE_SECONDS + 1) * 1000));
    expect(await presence(agent)).toMatchObject({ status: 'available', pauseReasonId: null });
  });

  it('an agent whose only API process is SIGKILLed goes through the grace, is paused auto_away and leaves the routing pool', async () => {
    const { agent, line } = await loggedInAgent();
    // The agent's only socket is on B.
    const socket = await connectStaff(b.url, agent.token);
    sockets.push(socket);
    expect(await presence(agent)).toMatchObject({ status: 'available' });

    b.child.child.kill('SIGKILL');
    await b.child.exited;

    await eventually(async () => expect(await presence(agent)).toMatchObject({ status: 'paused', pauseReasonId: 'auto_away' }), {
      timeoutMs: HEARTBEAT_MS * 6 + GRACE_SECONDS * 1000 + 6000,
      intervalMs: 100,
    });
    const log = await events(agent);
    expect(log.slice(-2)).toEqual(['agent.disconnected', 'agent.disconnectGraceExpired']);

    // No longer in the pool: a customer on the agent's only line keeps waiting after a routing sweep.
    const customer = await queueCustomer(a, line, 'Waiting');
    // Its own line only: a whole sweep would also route other suites' rows of this run's shared database.
    await a.app.get(RoutingService).routeLine(line);
    const [row] = (await a.dataSource.query(`SELECT status, agent_id FROM conversations WHERE id = $1`, [customer])) as {
      status: string;
      agent_id: string | null;
    }[];
    expect(row).toEqual({ status: 'LiningUp', agent_id: null });
    expect(await presence(agent)).toMatchObject({ activeCount: 0 });
  });
});
