import { newerView, type QueuePositionView, type StartChatResult } from '@centralita/contracts';
import { eventually } from '../../../test/support/eventually';
import type { QueuePublishThrottle } from '../src/modules/routing/queue-publisher';
import { RoutingService } from '../src/modules/routing/routing.service';
import { connectVisitor, createCampaign, createLine, createStaff, createTenant, data, type VisitorSocket } from './support/realtime';
import { bearer, startTestApp, type TestApp } from './support/test-app';

const CUSTOMERS = 12;
const INTERVAL_MS = 400;
/** Customers whose conversation turns out to be a messaging channel's (no widget listens). */
const MESSAGING = new Set([6, 9]);

/**
 * Issue 18 item 5: a line's queue pushes are paced (QUEUE_PUBLISH_INTERVAL_MS) however many
 * routing changes come, every customer still ends told their true position, and customers of a
 * messaging channel are neither pushed to nor remembered.
 */
describe('paced queue pushes', () => {
  let t: TestApp;
  const sockets: VisitorSocket[] = [];
  const saved = { ...process.env };

  beforeAll(async () => {
    process.env.QUEUE_PUBLISH_INTERVAL_MS = String(INTERVAL_MS);
    process.env.RATE_LIMIT_WEBCHAT_START_IP = '100000';
    // The sweeper would add requests of its own; this test counts the burst's.
    process.env.ROUTING_SWEEP_MS = '600000';
    t = await startTestApp();
  });
  afterAll(async () => {
    for (const socket of sockets) socket.close();
    await t?.close();
    for (const name of ['QUEUE_PUBLISH_INTERVAL_MS', 'RATE_LIMIT_WEBCHAT_START_IP', 'ROUTING_SWEEP_MS'])
      if (saved[name] === undefined) delete process.env[name];
      else process.env[name] = saved[name];
  });

  it('a burst of routing changes costs at most ceil(duration / interval) + 1 pushes, and everyone ends told their position', async () => {
    const tenant = await createTenant(t.dataSource);
    const line = await createLine(t.dataSource, tenant, 'Paced');
    const campaignId = await createCampaign(t.dataSource, tenant, 3);
    const agent = await createStaff(t, tenant, 'AGENT', [line]);

    // When the line's pushes were asked for and when they ran.
    const routing = t.app.get(RoutingService);
    const requests: number[] = [];
    const publishes: number[] = [];
    const requestPush = routing.publishQueueSoon.bind(routing);
    const publish = routing.publishQueue.bind(routing);
    jest.spyOn(routing, 'publishQueueSoon').mockImplementation((id) => {
      if (id === line) requests.push(Date.now());
      requestPush(id);
    });
    jest.spyOn(routing, 'publishQueue').mockImplementation((id) => {
      if (id === line) publishes.push(Date.now());
      return publish(id);
    });
    const throttle = (routing as unknown as { publishing: QueuePublishThrottle }).publishing;

    const customers: { id: string; pushes: QueuePositionView[] }[] = [];
    for (let index = 0; index < CUSTOMERS; index++) {
      const started = data<StartChatResult>(
        await t
          .http()
          .post('/api/webchat/conversations')
          .send({ attentionLineId: line, name: `C${index}` }),
      );
      const socket = await connectVisitor(t.url, started.visitorToken);
      sockets.push(socket);
      const pushes: QueuePositionView[] = [];
      socket.on('queue.position', (view) => pushes.push(view));
      await t
        .http()
        .post('/api/webchat/conversation/menu')
        .set(bearer(started.visitorToken))
        .send({ queryTypeId: 'q', submenuId: 's' })
        .expect(200);
      customers.push({ id: started.conversation.id, pushes });
    }
    await eventually(() => expect(throttle.pending).toBe(0), { timeoutMs: 10_000, intervalMs: 20 });

    // Two of them turn out to be a messaging channel's: from now on nobody listens for their position.
    const messaging = customers.filter((_, index) => MESSAGING.has(index));
    await t.dataSource.query(`UPDATE conversations SET channel = 'telegram' WHERE id = ANY($1)`, [messaging.map((one) => one.id)]);
    const heardBefore = messaging.map((one) => one.pushes.length);

    // The agent takes three from the head, then closes two, taking two more: everyone behind moves.
    await t.http().post('/api/agent/presence/login').set(bearer(agent.token)).send({ campaignId }).expect(200);
    for (let round = 0; round < 2; round++) {
      const active = await eventually(
        async () => {
          const rows = (await t.dataSource.query(
            `SELECT id FROM conversations WHERE attention_line_id = $1 AND status = 'Active' AND agent_id = $2 ORDER BY id`,
            [line, agent.userId],
          )) as { id: string }[];
          expect(rows).toHaveLength(3);
          return rows;
        },
        { timeoutMs: 10_000, intervalMs: 20 },
      );
      await t
        .http()
        .post(`/api/agent/conversations/${active[0].id}/close`)
        .set(bearer(agent.token))
        .send({ disposition: 'sold' })
        .expect(200);
    }

    await eventually(
      async () => {
        expect(throttle.pending).toBe(0);
        const waiting = (await t.dataSource.query(
          `SELECT id, channel FROM conversations WHERE attention_line_id = $1 AND status = 'LiningUp' ORDER BY priority DESC, queued_at, id`,
          [line],
        )) as { id: string; channel: string }[];
        expect(waiting).toHaveLength(CUSTOMERS - 5);
        const [{ told }] = (await t.dataSource.query(`SELECT told FROM realtime_view_versions WHERE view_key = $1`, [`line:${line}`])) as {
          told: Record<string, string>;
        }[];
        // What the line remembers telling is exactly its waiting widget visitors' true positions.
        const visitors = waiting.map((row, index) => ({ ...row, position: index + 1 })).filter((row) => row.channel === 'webchat');
        expect(Object.keys(told).sort()).toEqual(visitors.map((row) => row.id).sort());
        for (const visitor of visitors) {
          expect(told[visitor.id]).toMatch(new RegExp(`^${visitor.position}/`));
          // And what the visitor keeps (the highest version) says the same.
          let held: QueuePositionView | null = null;
          for (const push of customers.find((one) => one.id === visitor.id)!.pushes) if (newerView(held, push)) held = push;
          expect(held).toMatchObject({ conversationId: visitor.id, position: visitor.position });
        }
      },
      { timeoutMs: 10_000, intervalMs: 50 },
    );

    // The messaging customers moved up the queue without a push.
    expect(messaging.map((one) => one.pushes.length)).toEqual(heardBefore);

    // Pacing: pushes start at least an interval apart, so they are at most ceil(duration / interval) + 1.
    expect(publishes.length).toBeGreaterThan(1);
    for (let index = 1; index < publishes.length; index++)
      expect(publishes[index] - publishes[index - 1]).toBeGreaterThanOrEqual(INTERVAL_MS - 2);
    const duration = requests.at(-1)! - requests[0]!;
    expect(publishes.length).toBeLessThanOrEqual(Math.ceil(duration / INTERVAL_MS) + 1);
    expect(publishes.length).toBeLessThan(requests.length);
  });

  // Last: it shuts the app down.
  it('on shutdown pushes the change still waiting for its interval, while the connections are open', async () => {
    const tenant = await createTenant(t.dataSource);
    const line = await createLine(t.dataSource, tenant, 'Paced shutdown');
    // The first test's widgets would reconnect while the app closes.
    for (const socket of sockets.splice(0)) socket.close();
    const routing = t.app.get(RoutingService);
    jest.restoreAllMocks();
    const publish = routing.publishQueue.bind(routing);
    const pushed: string[] = [];
    jest.spyOn(routing, 'publishQueue').mockImplementation(async (id) => {
      await publish(id);
      if (id === line) pushed.push('done');
    });
    routing.publishQueueSoon(line);
    await eventually(() => expect(pushed).toEqual(['done']));
    // A change within the interval: its push waits for the interval's end, which the shutdown comes before.
    routing.publishQueueSoon(line);
    await t.close();
    expect(pushed).toEqual(['done', 'done']);
  });
});
