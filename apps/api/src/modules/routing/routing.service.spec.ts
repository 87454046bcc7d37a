import type { QueuePositionView } from '@centralita/contracts';
import type Redis from 'ioredis';
import type { DataSource, EntityManager } from 'typeorm';
import { MachineHostService } from '../machine-host/machine-host.service';
import { FakeMachineRows } from '../machine-host/machine-rows.fake';
import type { OutboxRelay } from '../machine-host/outbox-relay.service';
import type { QueueRegistry } from '../machine-host/queue-registry.service';
import { loadRealtimeConfig } from '../machine-host/realtime-config';
import type { RealtimeService } from '../realtime/realtime.service';
import type { RedisKeys } from '../redis/redis.module';
import { QueueViews } from './queue-views';
import { FakeRoutingRows } from './routing-rows.fake';
import { RoutingService } from './routing.service';

const TENANT = 't1';
const LINE = 'l1';
const MINUTE = 60_000;

describe(RoutingService.name, () => {
  let machine: FakeMachineRows;
  let rows: FakeRoutingRows;
  let host: MachineHostService;
  let routing: RoutingService;
  let views: QueueViews;
  /** What the queue views pushed: staff emits and per-room visitor pushes. */
  let emitted: { event: string; data: unknown }[];
  let perRoom: { event: string; pushes: { room: string; data: QueuePositionView }[] }[];
  const outside = { name: 'outside' } as unknown as EntityManager;

  beforeEach(() => {
    machine = new FakeMachineRows();
    rows = new FakeRoutingRows(machine);
    const dataSource = {
      manager: outside,
      transaction: <T>(work: (manager: EntityManager) => Promise<T>) => work({ name: 'transaction' } as unknown as EntityManager),
    } as unknown as DataSource;
    const config = loadRealtimeConfig({});
    host = new MachineHostService(dataSource, { kick: jest.fn() } as unknown as OutboxRelay, config, machine);
    emitted = [];
    perRoom = [];
    const realtime = {
      emit: (_namespace: string, _rooms: string[], event: string, data: unknown) => emitted.push({ event, data }),
      emitPerRoom: (_namespace: string, event: string, pushes: { room: string; data: QueuePositionView }[]) =>
        perRoom.push({ event, pushes }),
    } as unknown as RealtimeService;
    views = new QueueViews(dataSource, rows, realtime);
    routing = new RoutingService(
      dataSource,
      host,
      { handle: jest.fn() } as unknown as QueueRegistry,
      config,
      { set: jest.fn() } as unknown as Redis,
      { key: (...parts: string[]) => parts.join(':') } as unknown as RedisKeys,
      0,
      rows,
      views,
    );
  });

  afterEach(() => routing.beforeApplicationShutdown());

  /** A logged-in agent of the given lines, ready with `capacity` slots. */
  const readyAgent = async (userId: string, capacity = 1, lines = [LINE]) => {
    await host.ensureAgent(outside, userId, TENANT, capacity, ['lunch']);
    await host.dispatch('agent', userId, { type: 'agent.loggedIn' }, { kind: 'agent', id: userId });
    for (const line of lines) rows.lines.get(line)!.agents.add(userId);
  };

  /** Sets when the agent became idle, as their presence snapshot holds it (what longest-idle orders by). */
  const idleSince = (userId: string, at: number) => {
    machine.agents.get(userId)!.snapshot.context.idleSince = at;
  };

  /** A customer waiting on the line since `queuedAt`, with the menu's priority. */
  const waiting = async (id: string, options: { line?: string; priority?: number; queuedAt?: number; channel?: string } = {}) => {
    const line = options.line ?? LINE;
    await host.createConversation(
      outside,
      {
        id,
        tenantId: TENANT,
        channel: options.channel ?? 'webchat',
        entryLineId: line,
        customerName: id,
        customerEmail: null,
        visitorId: null,
      },
      { kind: 'customer' },
    );
    await host.dispatch(
      'conversation',
      id,
      {
        type: 'conversation.menuCompleted',
        queryTypeId: 'q',
        submenuId: 's',
        attentionLineId: line,
        pollId: null,
        priority: options.priority,
      },
      { kind: 'system' },
    );
    if (options.queuedAt !== undefined) machine.conversations.get(id)!.queued_at = new Date(options.queuedAt);
  };

  /** Gives the agent `count` conversations through a line only they serve. */
  const give = async (userId: string, count: number) => {
    const line = `solo-${userId}`;
    rows.addLine(line, { tenantId: TENANT, agents: [userId] });
    for (let index = 0; index < count; index++) await waiting(`${line}-${index}`, { line });
    expect(await routing.routeLine(line)).toBe(count);
  };

  const agentOf = (conversationId: string) => machine.conversations.get(conversationId)!.agent_id;
  const statusOf = (conversationId: string) => machine.conversations.get(conversationId)!.status;

  beforeEach(() => rows.addLine(LINE, { tenantId: TENANT, name: 'Sales' }));

  it('gives a waiting conversation to the ready agent idle longest', async () => {
    await readyAgent('u1');
    await readyAgent('u2');
    await readyAgent('u3');
    idleSince('u1', 3_000);
    idleSince('u2', 1_000);
    idleSince('u3', 2_000);
    await waiting('c1');

    expect(await routing.routeLine(LINE)).toBe(1);

    expect(machine.conversations.get('c1')).toMatchObject({ status: 'Active', agent_id: 'u2' });
    expect(machine.agents.get('u2')).toMatchObject({ active_count: 1 });
    // One round: the line's lock, then its heads, then one page of candidates (one per head).
    expect(rows.calls.filter((call) => call.endsWith(`:${LINE}`) || call.includes(`:${LINE}:`))).toEqual([
      `lockLine:${LINE}`,
      `lockHeads:${LINE}:20`,
      `lockCandidates:${LINE}:skip:1`,
    ]);
  });

  it.each([
    ['least-occupied', 'u2'],
    ['longest-idle', 'u1'],
  ] as const)('on a %s line gives it to %s', async (policy, expected) => {
    await readyAgent('u1', 2);
    await readyAgent('u2', 3);
    await give('u1', 1);
    await give('u2', 1);
    // u1 has been idle longer, but half of their capacity is in use against a third of u2's.
    idleSince('u1', 1_000);
    idleSince('u2', 2_000);
    rows.lineRoutings.set(LINE, { routing_policy: policy, chats_during_call: 0, offer_calls_with_chats: false });
    // Two heads: the round locks both agents, and picks among them for the first.
    await waiting('c1', { queuedAt: 1 * MINUTE });
    await waiting('c2', { queuedAt: 2 * MINUTE });

    expect(await routing.routeLine(LINE)).toBe(2);

    expect(agentOf('c1')).toBe(expected);
  });

  it('gives nothing to an agent at capacity, paused or logged out', async () => {
    await readyAgent('full');
    await give('full', 1);
    await readyAgent('paused', 3);
    await host.dispatch('agent', 'paused', { type: 'agent.paused', reasonId: 'lunch' }, { kind: 'agent', id: 'paused' });
    await readyAgent('gone', 3);
    await host.dispatch('agent', 'gone', { type: 'agent.loggedOut' }, { kind: 'agent', id: 'gone' });
    await waiting('c1');

    expect(await routing.routeLine(LINE)).toBe(0);

    expect(machine.conversations.get('c1')).toMatchObject({ status: 'LiningUp', agent_id: null });
    expect([...machine.agents.values()].map((row) => [row.user_id, row.status, row.active_count])).toEqual([
      ['full', 'busy', 1],
      ['paused', 'paused', 0],
      ['gone', 'loggedOut', 0],
    ]);
  });

  it('serves the queue by priority, then by time waiting, whatever the ids', async () => {
    await readyAgent('u1');
    await readyAgent('u2');
    idleSince('u1', 1_000);
    idleSince('u2', 2_000);
    // Ids in the opposite order to the queue's: heads are locked in id order, served in queue order.
    await waiting('a-newest', { queuedAt: 3 * MINUTE });
    await waiting('b-oldest', { queuedAt: 1 * MINUTE });
    await waiting('c-urgent', { queuedAt: 5 * MINUTE, priority: 2 });

    expect(await routing.routeLine(LINE)).toBe(2);

    expect(agentOf('c-urgent')).toBe('u1');
    expect(agentOf('b-oldest')).toBe('u2');
    expect(statusOf('a-newest')).toBe('LiningUp');
  });

  it('takes the next page of candidates when those it holds may not take the head or were served this round', async () => {
    // Chats during calls allowed up to one: agents on a call holding a chat are candidates the rule then refuses.
    rows.lineRoutings.set(LINE, { routing_policy: 'longest-idle', chats_during_call: 1, offer_calls_with_chats: false });
    await readyAgent('u1', 3);
    for (const userId of ['u2', 'u3', 'u4']) {
      await readyAgent(userId, 3);
      await give(userId, 1);
      await host.dispatch('agent', userId, { type: 'agent.callStarted' }, { kind: 'system' });
    }
    await readyAgent('u5', 3);
    ['u1', 'u2', 'u3', 'u4', 'u5'].forEach((userId, index) => idleSince(userId, (index + 1) * 1_000));
    await waiting('c1', { queuedAt: 1 * MINUTE });
    await waiting('c2', { queuedAt: 2 * MINUTE });
    rows.calls.length = 0;

    expect(await routing.routeLine(LINE)).toBe(2);

    // Two candidates per head on such a line: u1 to u4 first. c1 goes to u1; for c2 the others are
    // refused and u1 was served, so the round takes the next page, where u5 has been idle longer than u1 now.
    expect(agentOf('c1')).toBe('u1');
    expect(agentOf('c2')).toBe('u5');
    expect(rows.calls.filter((call) => call.startsWith('lockCandidates'))).toEqual([
      `lockCandidates:${LINE}:skip:4`,
      `lockCandidates:${LINE}:skip:4`,
    ]);
  });

  it('gives an agent on a call no more chats in one round than the line allows during calls', async () => {
    rows.lineRoutings.set(LINE, { routing_policy: 'longest-idle', chats_during_call: 1, offer_calls_with_chats: false });
    await readyAgent('u1', 3);
    await host.dispatch('agent', 'u1', { type: 'agent.callStarted' }, { kind: 'system' });
    await waiting('c1', { queuedAt: 1 * MINUTE });
    await waiting('c2', { queuedAt: 2 * MINUTE });

    expect(await routing.routeLine(LINE)).toBe(1);

    expect(agentOf('c1')).toBe('u1');
    expect(statusOf('c2')).toBe('LiningUp');
    expect(machine.agents.get('u1')).toMatchObject({ status: 'inCall', active_count: 1 });
  });

  it('routes again, waiting for them, when it skipped a held agent with room and heads were left', async () => {
    await readyAgent('u1');
    rows.holdElsewhere('u1');
    await waiting('c1');

    expect(await routing.routeLine(LINE)).toBe(1);

    expect(agentOf('c1')).toBe('u1');
    expect(rows.calls.filter((call) => /^(lockCandidates|roomBeyond|lockLine)/.test(call))).toEqual([
      `lockLine:${LINE}`,
      `lockCandidates:${LINE}:skip:1`,
      `roomBeyond:${LINE}`,
      `lockLine:${LINE}`,
      `lockCandidates:${LINE}:wait`,
    ]);
  });

  it('stops after one round when no agent of the line has room, held or not', async () => {
    await waiting('c1');

    expect(await routing.routeLine(LINE)).toBe(0);

    expect(rows.calls.filter((call) => call.startsWith('lockLine'))).toHaveLength(1);
    expect(statusOf('c1')).toBe('LiningUp');
  });

  it('requeue puts conversations still Active back on their line, and leaves the others', async () => {
    await readyAgent('u1', 2);
    await waiting('c1');
    await routing.routeLine(LINE);
    await waiting('c2');
    // c2 is still waiting: u1 is paused before routing reaches it.
    await host.dispatch('agent', 'u1', { type: 'agent.paused', reasonId: 'lunch' }, { kind: 'agent', id: 'u1' });
    const c2Version = machine.conversations.get('c2')!.version;
    machine.reads.length = 0;

    await routing.requeue(['c1', 'c2', 'missing']);

    expect(machine.conversations.get('c1')).toMatchObject({ status: 'LiningUp', agent_id: null, attention_line_id: LINE });
    expect(machine.logOf('c1').at(-1)!.record).toMatchObject({ event: 'conversation.transferred', from: 'Active', to: 'LiningUp' });
    // Not even stepped: only what is still Active with an agent goes back.
    expect(machine.reads.filter((read) => read.endsWith(':c2'))).toEqual([]);
    expect(machine.conversations.get('c2')!.version).toBe(c2Version);
  });

  it('routes the waiting lines of an agent whose presence changed, and refreshes the others and their campaign', async () => {
    rows.addCampaign('k1', TENANT, 'Spring');
    // The campaign holds none of the agent's lines: only the agent's own push covers it.
    rows.addLine('quiet', { tenantId: TENANT });
    await readyAgent('u1', 1, [LINE, 'quiet']);
    rows.agentCampaigns.set('u1', 'k1');
    await waiting('c1');
    const asked = jest.spyOn(routing, 'publishQueueSoon');

    await routing.routeAgent('u1');

    expect(agentOf('c1')).toBe('u1');
    expect(asked.mock.calls.map(([line]) => line).sort()).toEqual([LINE, 'quiet']);
    await new Promise((resolve) => setImmediate(resolve));
    expect(emitted.filter((push) => push.event === 'campaignQueue.updated').map((push) => push.data)).toContainEqual(
      expect.objectContaining({ campaignId: 'k1', lines: 0, agentsAvailable: 0 }),
    );
  });

  it('sweeps every line with someone waiting', async () => {
    rows.addLine('l2', { tenantId: TENANT });
    await readyAgent('u1', 1, ['l2']);
    await waiting('c1', { line: 'l2' });

    await routing.sweep();

    expect(agentOf('c1')).toBe('u1');
  });

  describe('queue views', () => {
    /** A closed conversation of the line handled in `seconds` (assignment to close). */
    const handled = async (id: string, seconds: number) => {
      await waiting(id);
      const row = machine.conversations.get(id)!;
      Object.assign(row, { status: 'Closed', closed_at: new Date(1_000_000 + seconds * 1000) });
      row.snapshot.context.assignedAt = 1_000_000;
    };

    it("ranks the line's waiting customers by priority then time waiting, with their expected wait", async () => {
      await readyAgent('u1', 2);
      await give('u1', 2);
      await handled('h1', 60);
      await handled('h2', 180);
      await waiting('a', { queuedAt: 2 * MINUTE });
      await waiting('b', { queuedAt: 1 * MINUTE });
      await waiting('c', { queuedAt: 3 * MINUTE, priority: 1 });

      const positions = await routing.positions(LINE);

      // Handle time 120 s over 2 slots: 60 s more per place in the queue.
      expect(positions.map((view) => [view.conversationId, view.position, view.estimatedWaitSeconds, view.nobodyServing])).toEqual([
        ['c', 1, 60, false],
        ['b', 2, 120, false],
        ['a', 3, 180, false],
      ]);
    });

    it('says nobody is serving a line whose agents are all away, and estimates no wait', async () => {
      await readyAgent('u1', 2);
      await host.dispatch('agent', 'u1', { type: 'agent.paused', reasonId: 'lunch' }, { kind: 'agent', id: 'u1' });
      await handled('h1', 60);
      await waiting('c1');

      expect(await routing.positions(LINE)).toEqual([
        expect.objectContaining({ position: 1, estimatedWaitSeconds: null, nobodyServing: true }),
      ]);
      expect(await routing.newcomerWait(LINE)).toEqual({ seconds: null, nobodyServing: true });

      await host.dispatch('agent', 'u1', { type: 'agent.resumed' }, { kind: 'agent', id: 'u1' });
      // Ready again but the line is not routed yet: the newcomer is second, 60 s over 2 slots each.
      expect(await routing.newcomerWait(LINE)).toEqual({ seconds: 60, nobodyServing: false });
    });

    it("counts the line's queue: waiting, oldest wait, agents with room", async () => {
      jest.useFakeTimers({ now: 10 * MINUTE, doNotFake: ['setImmediate', 'nextTick'] });
      try {
        await readyAgent('u1', 1);
        await readyAgent('u2', 1);
        await give('u2', 1);
        await waiting('c1', { queuedAt: 4 * MINUTE });
        await waiting('c2', { queuedAt: 7 * MINUTE });

        expect(await routing.lineQueue(LINE)).toEqual({
          attentionLineId: LINE,
          version: 0,
          tenantId: TENANT,
          campaignId: null,
          name: 'Sales',
          waiting: 2,
          longestWaitMs: 6 * MINUTE,
          agentsAvailable: 1,
        });
      } finally {
        jest.useRealTimers();
      }
    });

    it('pushes the line with a new version, and positions only to widget visitors whose place changed', async () => {
      await waiting('w1', { queuedAt: 1 * MINUTE });
      await waiting('m1', { queuedAt: 2 * MINUTE, channel: 'telegram' });
      await waiting('w2', { queuedAt: 3 * MINUTE });

      await routing.publishQueue(LINE);
      await routing.publishQueue(LINE);

      const lines = emitted
        .filter((push) => push.event === 'queue.updated')
        .map((push) => push.data as { version: number; waiting: number });
      expect(lines.map((view) => view.waiting)).toEqual([3, 3]);
      expect(lines[1].version).toBeGreaterThan(lines[0].version);
      // The messaging customer is ranked (w2 is third) but never pushed to; the second push told nobody new.
      expect(perRoom.map((push) => push.pushes.map(({ room, data }) => [room, data.position]))).toEqual([
        [
          ['conversation:w1', 1],
          ['conversation:w2', 3],
        ],
        [],
      ]);
      expect(rows.calls.filter((call) => call.startsWith('storeTold'))).toEqual([`storeTold:line:${LINE}`]);

      // w1 is served: w2 moves up and is told so.
      machine.conversations.get('w1')!.status = 'Active';
      await routing.publishQueue(LINE);
      expect(perRoom.at(-1)!.pushes.map(({ room, data }) => [room, data.position])).toEqual([['conversation:w2', 2]]);
    });
  });
});
