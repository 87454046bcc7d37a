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
import { createSuiteDatabase, type SuiteDatabase } from '../support/suite-database';
import { bearer, startTestApp, type TestApp } from '../support/test-app';

const GRACE_SECONDS = 2;
const HEARTBEAT_MS = 300;
// Its own presence registry and queues. The registry's Redis keys live under the queue prefix, and
// every API process of the run (other suites' too, with the default 60 s grace) sweeps the dead
// processes it finds there and times the grace of their agents by its own setting: in a full run
// another suite's process could take this suite's SIGKILLed process and arm a 60 s grace.
const PREFIX = `${process.env.QUEUE_PREFIX ?? 'centralita'}-presence`;

/**
 * Issue 18, item 4 and 6(c): an agent's presence is connected while any of their staff sockets on
 * any API process is. B is a separate operating-system process; A runs in the test's process.
 */
describe('agent presence across API processes', () => {
  let a: TestApp;
  let b: { url: string; child: ChildWorker };
  // Known as soon as it is spawned, so a boot that fails or times out does not leave it running.
  let second: ChildWorker | undefined;
  const sockets: StaffSocket[] = [];
  const settings = {
    DISCONNECT_GRACE_SECONDS: String(GRACE_SECONDS),
    PRESENCE_HEARTBEAT_MS: String(HEARTBEAT_MS),
    // This suite's rows go by the fast path (the pollers' timing is not part of what it shows).
    OUTBOX_POLL_MS: '3600000',
  };
  // A and B are a deployment of their own: their queue prefix and database (suite-database.ts).
  let database: SuiteDatabase | undefined;
  const saved = Object.fromEntries(Object.keys(settings).map((name) => [name, process.env[name]]));

  // Two API processes booting on a loaded two-core machine take longer than the default hook budget.
  beforeAll(async () => {
    Object.assign(process.env, settings);
    database = await createSuiteDatabase();
    const child = spawnChild('api.child.ts', { ...process.env, QUEUE_PREFIX: PREFIX, DATABASE_URL: database.url });
    second = child;
    a = await startTestApp({ queuePrefix: PREFIX, databaseUrl: database.url });
    await child.ready;
    const url = /listening (\S+)/.exec(child.output())?.[1];
    if (!url) throw new Error(`the second API printed no URL:\n${child.output()}`);
    b = { url, child };
  }, 120_000);

  afterAll(async () => {
    for (const socket of sockets) socket.close();
    if (second && second.child.exitCode === null && second.child.signalCode === null) {
      second.child.kill('SIGTERM');
      await second.exited;
    }
    await a?.close();
    await database?.drop();
    for (const [name, value] of Object.entries(saved)) {
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
    }
  }, 60_000);

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
    await eventually(async () => expect(await disconnectedAt(agent)).toBeNull(), { timeoutMs: 20_000, intervalMs: 50 });
    // A close handled late logs one more disconnect and then its reconnect: the pairs match once it has landed.
    await eventually(
      async () => {
        const log = await events(agent);
        expect(log.filter((event) => event === 'agent.disconnected').length).toBe(
          log.filter((event) => event === 'agent.reconnected').length,
        );
      },
      { timeoutMs: 20_000, intervalMs: 50 },
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
  }, 90_000);

  it('disconnect then reconnect on the other process: the disconnect and the reconnect are both logged', async () => {
    const { agent } = await loggedInAgent();
    const first = await connectStaff(a.url, agent.token);
    first.close();
    await eventually(async () => expect(await disconnectedAt(agent)).not.toBeNull(), { timeoutMs: 20_000, intervalMs: 20 });
    sockets.push(await connectStaff(b.url, agent.token));
    await eventually(async () => expect(await disconnectedAt(agent)).toBeNull(), { timeoutMs: 20_000, intervalMs: 20 });
    expect((await events(agent)).slice(-2)).toEqual(['agent.disconnected', 'agent.reconnected']);
    await new Promise((resolve) => setTimeout(resolve, (GRACE_SECONDS + 1) * 1000));
    expect(await presence(agent)).toMatchObject({ status: 'available', pauseReasonId: null });
  }, 90_000);

  it('an agent whose only API process is SIGKILLed goes through the grace, is paused auto_away and leaves the routing pool', async () => {
    const { agent, line } = await loggedInAgent();
    // The agent's only socket is on B.
    const socket = await connectStaff(b.url, agent.token);
    sockets.push(socket);
    expect(await presence(agent)).toMatchObject({ status: 'available' });

    const killedAt = Date.now();
    b.child.child.kill('SIGKILL');
    await b.child.exited;

    // Unloaded this takes the liveness TTL (3 heartbeats), a sweep and the grace: about 3.5 s. On a
    // loaded machine each of those steps waits its turn for a core, so the budget only bounds a hang;
    // that the agent really went through the grace is read from the transition log below.
    await eventually(async () => expect(await presence(agent)).toMatchObject({ status: 'paused', pauseReasonId: 'auto_away' }), {
      timeoutMs: 45_000,
      intervalMs: 100,
    });
    const log = (await a.dataSource.query(
      `SELECT event, at_ms::float8 AS "atMs" FROM transition_log WHERE entity_type = 'agent' AND entity_id = $1 ORDER BY version`,
      [agent.userId],
    )) as { event: string; atMs: number }[];
    const [disconnected, expired] = log.slice(-2);
    expect([disconnected.event, expired.event]).toEqual(['agent.disconnected', 'agent.disconnectGraceExpired']);
    // Declared disconnected only once its process was gone, and paused no sooner than a whole grace later.
    expect(disconnected.atMs).toBeGreaterThanOrEqual(killedAt);
    expect(expired.atMs - disconnected.atMs).toBeGreaterThanOrEqual(GRACE_SECONDS * 1000);

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
  }, 90_000);
});
