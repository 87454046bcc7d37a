import { QUEUES, type AgentView, type ConversationView, type NoteView, type StartChatResult } from '@centralita/contracts';
import { Queue } from 'bullmq';
import { eventually as eventuallyWithin } from '../../../test/support/eventually';
import {
  connectStaff,
  connectVisitor,
  createCampaign,
  createLine,
  createStaff,
  createTenant,
  data,
  record,
  type StaffMember,
} from './support/realtime';
import { bearer, startTestApp, type TestApp } from './support/test-app';

// Routing and timers run on queues: generous deadlines keep the suite steady on a loaded machine.
jest.setTimeout(60_000);
const eventually = <T>(assertion: () => T | Promise<T>, options: { timeoutMs?: number; intervalMs?: number } = {}) =>
  eventuallyWithin(assertion, { intervalMs: 50, ...options, timeoutMs: Math.max(options.timeoutMs ?? 0, 20_000) });

describe('agent desk, supervisor and timers', () => {
  let t: TestApp;
  let timers: Queue;
  let line: string;
  let quickLine: string;
  let campaignId: string;
  let agent: StaffMember;
  let other: StaffMember;
  let supervisor: StaffMember;
  let foreignSupervisor: StaffMember;

  const savedGrace = process.env.DISCONNECT_GRACE_SECONDS;
  let tenantRef: Awaited<ReturnType<typeof createTenant>>;

  beforeAll(async () => {
    process.env.DISCONNECT_GRACE_SECONDS = '1';
    t = await startTestApp();
    timers = new Queue(QUEUES.machineTimers, { connection: { url: process.env.REDIS_URL! }, prefix: process.env.QUEUE_PREFIX });
    const tenant = await createTenant(t.dataSource);
    tenantRef = tenant;
    line = await createLine(t.dataSource, tenant, 'Support');
    quickLine = await createLine(t.dataSource, tenant, 'Quick');
    await t.dataSource.query(`UPDATE attention_line_routing SET queue_timeout_seconds = 1 WHERE attention_line_id = $1`, [quickLine]);
    campaignId = await createCampaign(t.dataSource, tenant, 1);
    agent = await createStaff(t, tenant, 'AGENT', [line]);
    other = await createStaff(t, tenant, 'AGENT', [line]);
    supervisor = await createStaff(t, tenant, 'SUPER');
    foreignSupervisor = await createStaff(t, await createTenant(t.dataSource), 'SUPER');
  });

  afterAll(async () => {
    await timers.close();
    await t.close();
    process.env.DISCONNECT_GRACE_SECONDS = savedGrace;
  });

  async function queued(attentionLineId: string, name: string): Promise<StartChatResult> {
    const started = data<StartChatResult>(await t.http().post('/api/webchat/conversations').send({ attentionLineId, name }));
    await t
      .http()
      .post('/api/webchat/conversation/menu')
      .set(bearer(started.visitorToken))
      .send({ queryTypeId: 'q', submenuId: 's' })
      .expect(200);
    return started;
  }

  const conversation = async (id: string): Promise<ConversationView> =>
    data<ConversationView[]>(await t.http().get('/api/supervisor/conversations?showAll=true').set(bearer(supervisor.token))).find(
      (view) => view.id === id,
    )!;

  it('closes a conversation nobody took when its line’s queue timeout fires', async () => {
    const started = await queued(quickLine, 'Impatient');
    await eventually(
      async () => expect(await conversation(started.conversation.id)).toMatchObject({ status: 'Closed', closeReason: 'queue_timeout' }),
      {
        timeoutMs: 8000,
        intervalMs: 100,
      },
    );
  });

  it('offers the tenant’s pause reasons and refuses one it does not offer, changing nothing', async () => {
    const reasons = data<{ code: string }[]>(await t.http().get('/api/agent/pause-reasons').set(bearer(agent.token)));
    expect(reasons.map((reason) => reason.code)).toEqual(['break', 'lunch', 'training', 'meeting']);
    await t.http().post('/api/agent/presence/login').set(bearer(agent.token)).send({ campaignId }).expect(200);
    const before = data<AgentView>(await t.http().get('/api/agent/presence').set(bearer(agent.token)));
    const refused = await t.http().post('/api/agent/presence/pause').set(bearer(agent.token)).send({ reasonId: 'nap' });
    expect(refused.status).toBe(409);
    expect(refused.body).toMatchObject({
      errorCode: 'illegal_transition',
      errorMessage: 'agent.paused is not allowed while the agent is available',
    });
    expect(data<AgentView>(await t.http().get('/api/agent/presence').set(bearer(agent.token))).version).toBe(before.version);
    const paused = data<AgentView>(await t.http().post('/api/agent/presence/pause').set(bearer(agent.token)).send({ reasonId: 'lunch' }));
    expect(paused).toMatchObject({ status: 'paused', pauseReasonId: 'lunch', version: before.version + 1 });
    expect(data<AgentView>(await t.http().post('/api/agent/presence/available').set(bearer(agent.token)))).toMatchObject({
      status: 'available',
    });
  });

  it('assigns on arrival, cancels the queue timer, and puts a force-logged-out agent’s chat back in the queue', async () => {
    const started = await queued(line, 'Ada');
    const id = started.conversation.id;
    await eventually(async () => expect(await conversation(id)).toMatchObject({ status: 'Active', agentId: agent.userId }));
    const [{ snapshot }] = await t.dataSource.query(`SELECT snapshot FROM conversations WHERE id = $1`, [id]);
    await eventually(async () => expect(await timers.getJob(`cqt.${id}.${snapshot.context.queuedAt}`)).toBeUndefined());
    await eventually(async () => expect(await timers.getJob(`cin.${id}.${snapshot.context.lastActivityAt}`)).toBeDefined());

    // Private notes reach staff only.
    const visitor = await connectVisitor(t.url, started.visitorToken);
    const seen = record(visitor);
    const note = data<NoteView>(
      await t.http().post(`/api/conversations/${id}/notes`).set(bearer(supervisor.token)).send({ text: 'VIP customer' }),
    );
    expect(data<NoteView[]>(await t.http().get(`/api/conversations/${id}/notes`).set(bearer(agent.token)))).toEqual([note]);
    expect((await t.http().get(`/api/conversations/${id}/notes`).set(bearer(other.token))).status).toBe(404);
    expect((await t.http().get(`/api/conversations/${id}/notes`).set(bearer(foreignSupervisor.token))).status).toBe(404);

    // Another tenant's supervisor cannot see or move it.
    expect((await t.http().post(`/api/supervisor/agents/${agent.userId}/logout`).set(bearer(foreignSupervisor.token))).status).toBe(404);
    expect(
      data<ConversationView[]>(await t.http().get('/api/supervisor/conversations?showAll=true').set(bearer(foreignSupervisor.token))),
    ).toEqual([]);
    // Agents cannot supervise.
    expect((await t.http().get('/api/supervisor/agents').set(bearer(agent.token))).status).toBe(403);

    // Force logout: the chat goes back to the line, and the other agent gets it.
    const forced = data<AgentView>(await t.http().post(`/api/supervisor/agents/${agent.userId}/logout`).set(bearer(supervisor.token)));
    expect(forced).toMatchObject({ status: 'loggedOut', activeCount: 0 });
    await t.http().post('/api/agent/presence/login').set(bearer(other.token)).send({ campaignId }).expect(200);
    await eventually(async () => expect(await conversation(id)).toMatchObject({ status: 'Active', agentId: other.userId }));
    expect(seen.some((entry) => entry.event === 'note.created')).toBe(false);
    visitor.close();

    // The board shows the load; filters narrow the list.
    const board = data<(AgentView & { timeInStateMs: number })[]>(
      await t.http().get('/api/supervisor/agents').set(bearer(supervisor.token)),
    );
    expect(board.find((row) => row.agentId === other.userId)).toMatchObject({ status: 'busy', activeCount: 1, capacity: 1 });
    const byAgent = data<ConversationView[]>(
      await t.http().get(`/api/supervisor/conversations?agentId=${other.userId}`).set(bearer(supervisor.token)),
    );
    expect(byAgent.map((view) => view.id)).toEqual([id]);
    const queues = data<{ attentionLineId: string; waiting: number }[]>(
      await t.http().get('/api/supervisor/queues').set(bearer(supervisor.token)),
    );
    expect(queues.find((view) => view.attentionLineId === line)).toMatchObject({ waiting: 0 });

    // An agent cannot write to a chat that is not theirs; the supervisor closes it.
    const intruder = await t.http().post(`/api/agent/conversations/${id}/messages`).set(bearer(agent.token)).send({ text: 'hi' });
    expect(intruder.status).toBe(409);
    const closed = data<ConversationView>(
      await t.http().post(`/api/supervisor/conversations/${id}/close`).set(bearer(supervisor.token)).send({ disposition: 'spam' }),
    );
    expect(closed).toMatchObject({ status: 'Closed', disposition: 'spam' });
  });

  it('refuses a transfer to an agent with no room, writing nothing', async () => {
    const started = await queued(line, 'Grace');
    await eventually(async () =>
      expect(await conversation(started.conversation.id)).toMatchObject({ status: 'Active', agentId: other.userId }),
    );
    await t.http().post('/api/agent/presence/login').set(bearer(agent.token)).send({ campaignId }).expect(200);
    await t.http().post('/api/agent/presence/pause').set(bearer(agent.token)).send({ reasonId: 'break' }).expect(200);
    const refused = await t
      .http()
      .post(`/api/agent/conversations/${started.conversation.id}/transfer`)
      .set(bearer(other.token))
      .send({ agentId: agent.userId });
    expect(refused.status).toBe(409);
    expect(refused.body.errorMessage).toBe('agent.conversationAssigned is not allowed while the agent is paused');
    expect(await conversation(started.conversation.id)).toMatchObject({ status: 'Active', agentId: other.userId });
    await t.http().post('/api/agent/presence/available').set(bearer(agent.token)).expect(200);
    const moved = data<ConversationView>(
      await t
        .http()
        .post(`/api/agent/conversations/${started.conversation.id}/transfer`)
        .set(bearer(other.token))
        .send({ agentId: agent.userId }),
    );
    expect(moved).toMatchObject({ status: 'Active', agentId: agent.userId });
  });

  it('pauses an agent as auto-away when their last socket stays gone past the grace period', async () => {
    const member = await createStaff(t, tenantRef, 'AGENT', [quickLine]);
    await t.http().post('/api/agent/presence/login').set(bearer(member.token)).send({ campaignId }).expect(200);
    const socket = await connectStaff(t.url, member.token);
    socket.close();
    await eventually(
      async () =>
        expect(data<AgentView>(await t.http().get('/api/agent/presence').set(bearer(member.token)))).toMatchObject({
          status: 'paused',
          pauseReasonId: 'auto_away',
        }),
      { timeoutMs: 8000, intervalMs: 100 },
    );
  });
});
