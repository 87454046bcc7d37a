import {
  deliverStaffBatch,
  type AgentView,
  type ConversationView,
  type JoinAck,
  type MessageView,
  type QueuePositionView,
  type StartChatResult,
  type SurveyView,
} from '@centralita/contracts';
import { timeInStates, type TransitionRecord } from '@centralita/domain';
import { eventually as eventuallyWithin } from '../../../test/support/eventually';
import {
  connectStaff,
  connectVisitor,
  createCampaign,
  createPoll,
  createLine,
  connectBatchedStaff,
  createStaff,
  createTenant,
  data,
  record,
  type Received,
  type StaffMember,
  type StaffSocket,
  type VisitorSocket,
} from './support/realtime';
import { bearer, startTestApp, type TestApp } from './support/test-app';

const updatesOf = (received: Received[], conversationId: string): ConversationView[] =>
  received
    .filter((entry) => entry.event === 'conversation.updated' && (entry.data as ConversationView).id === conversationId)
    .map((entry) => entry.data as ConversationView);

// Routing and timers run on queues: generous deadlines keep the suite steady on a loaded machine.
jest.setTimeout(60_000);
const eventually = <T>(assertion: () => T | Promise<T>, options: { timeoutMs?: number; intervalMs?: number } = {}) =>
  eventuallyWithin(assertion, { intervalMs: 50, ...options, timeoutMs: Math.max(options.timeoutMs ?? 0, 20_000) });

describe('real-time conversation flow', () => {
  let t: TestApp;
  let lineA: string;
  let lineB: string;
  let campaignId: string;
  let survey: Awaited<ReturnType<typeof createPoll>>;
  let agent1: StaffMember;
  let agent2: StaffMember;
  let supervisor: StaffMember;
  let outsider: StaffMember;
  const sockets: { close: () => void }[] = [];

  beforeAll(async () => {
    t = await startTestApp();
    const tenant = await createTenant(t.dataSource);
    survey = await createPoll(t.dataSource, tenant);
    lineA = await createLine(t.dataSource, tenant, 'Sales', { pollId: survey.pollId });
    lineB = await createLine(t.dataSource, tenant, 'Billing', { pollId: survey.pollId });
    campaignId = await createCampaign(t.dataSource, tenant, 2);
    agent1 = await createStaff(t, tenant, 'AGENT', [lineA]);
    agent2 = await createStaff(t, tenant, 'AGENT', [lineB]);
    supervisor = await createStaff(t, tenant, 'SUPER');
    outsider = await createStaff(t, await createTenant(t.dataSource), 'SUPER');
  });

  afterAll(async () => {
    for (const socket of sockets) socket.close();
    await t.close();
  });

  async function staff(member: StaffMember, batched = false): Promise<{ socket: StaffSocket; received: Received[] }> {
    const socket = await (batched ? connectBatchedStaff : connectStaff)(t.url, member.token);
    sockets.push(socket);
    // As the console does: a batch is handed to the same listeners (record's onAny too), push by push.
    if (batched) socket.on('batch', (pushes) => deliverStaffBatch(socket, pushes));
    return { socket, received: record(socket) };
  }

  async function startChat(name = 'Ada Lovelace'): Promise<StartChatResult & { socket: VisitorSocket; received: Received[] }> {
    const started = data<StartChatResult>(
      await t
        .http()
        .post('/api/webchat/conversations')
        .send({ attentionLineId: lineA, name: `  ${name} `, email: 'ada@example.com' }),
    );
    const socket = await connectVisitor(t.url, started.visitorToken);
    sockets.push(socket);
    return { ...started, socket, received: record(socket) };
  }

  it('carries a chat from the queue through a transfer to the survey, pushing every version to the supervisor', async () => {
    // The supervisor's board as the console opens it: tenant-wide pushes in batches.
    const board = await staff(supervisor, true);
    const desk1 = await staff(agent1);
    const desk2 = await staff(agent2);

    const visitor = await startChat();
    const id = visitor.conversation.id;
    expect(visitor.conversation).toMatchObject({ status: 'Transitory', version: 1, customerName: 'Ada Lovelace' });
    const auth = bearer(visitor.visitorToken);

    // Menu completed: the conversation queues on line A, where nobody is logged in yet.
    const queued = data<ConversationView>(
      await t.http().post('/api/webchat/conversation/menu').set(auth).send({ queryTypeId: 'sales', submenuId: 'new' }),
    );
    expect(queued).toMatchObject({ status: 'LiningUp', attentionLineId: lineA, version: 2 });
    await eventually(() =>
      expect(visitor.received.find((entry) => entry.event === 'queue.position')?.data).toMatchObject({
        conversationId: id,
        position: 1,
      } satisfies Partial<QueuePositionView>),
    );

    // Agent 1 becomes available and receives it.
    const loggedIn = data<AgentView>(await t.http().post('/api/agent/presence/login').set(bearer(agent1.token)).send({ campaignId }));
    expect(loggedIn).toMatchObject({ capacity: 2 });
    await eventually(() => expect(updatesOf(desk1.received, id).at(-1)).toMatchObject({ status: 'Active', agentId: agent1.userId }));

    // Messages both ways.
    const hello = data<MessageView>(
      await t.http().post('/api/webchat/conversation/messages').set(auth).send({ text: '  Hello there  ', clientMessageId: 'm-1' }),
    );
    expect(hello).toMatchObject({ text: 'Hello there', sequence: 1, senderKind: 'customer' });
    const again = data<MessageView>(
      await t.http().post('/api/webchat/conversation/messages').set(auth).send({ text: 'Hello there', clientMessageId: 'm-1' }),
    );
    expect(again.id).toBe(hello.id);
    await eventually(() =>
      expect(desk1.received.filter((entry) => entry.event === 'message.created').map((entry) => (entry.data as MessageView).text)).toEqual([
        'Hello there',
      ]),
    );
    const reply = data<MessageView>(
      await t.http().post(`/api/agent/conversations/${id}/messages`).set(bearer(agent1.token)).send({ text: 'How can I help?' }),
    );
    expect(reply).toMatchObject({ sequence: 2, senderKind: 'agent', senderId: agent1.userId });
    await eventually(() =>
      expect(
        visitor.received.filter((entry) => entry.event === 'message.created').map((entry) => (entry.data as MessageView).text),
      ).toEqual(['Hello there', 'How can I help?']),
    );

    // Agent 1 transfers it to line B; agent 2 logs in there and takes it.
    const transferred = data<ConversationView>(
      await t.http().post(`/api/agent/conversations/${id}/transfer`).set(bearer(agent1.token)).send({ attentionLineId: lineB }),
    );
    expect(transferred).toMatchObject({ status: 'LiningUp', attentionLineId: lineB, agentId: null });
    await eventually(async () =>
      expect(data<AgentView>(await t.http().get('/api/agent/presence').set(bearer(agent1.token)))).toMatchObject({
        activeCount: 0,
        status: 'available',
      }),
    );
    await t.http().post('/api/agent/presence/login').set(bearer(agent2.token)).send({ campaignId }).expect(200);
    await eventually(() => expect(updatesOf(desk2.received, id).at(-1)).toMatchObject({ status: 'Active', agentId: agent2.userId }));

    // Agent 2 closes it; the line has a poll, so the customer is surveyed and the answer closes it.
    const closed = data<ConversationView>(
      await t.http().post(`/api/agent/conversations/${id}/close`).set(bearer(agent2.token)).send({ disposition: 'sold' }),
    );
    expect(closed).toMatchObject({ status: 'Inquest', disposition: 'sold', closeReason: 'resolved' });
    // The customer is asked the line's poll; an answer that does not fit its question is refused and nothing is stored.
    const asked = data<SurveyView>(await t.http().get('/api/webchat/conversation/survey').set(auth).expect(200));
    expect(asked.questions.map((question) => [question.id, question.responseType])).toEqual([
      [survey.scaleQuestionId, 'scale'],
      [survey.textQuestionId, 'text'],
    ]);
    const refused = await t
      .http()
      .post('/api/webchat/conversation/survey')
      .set(auth)
      .send({ questionId: survey.scaleQuestionId, answer: '11', last: false });
    expect(refused.status).toBe(400);
    expect(refused.body.errorMessage).toBe('answer must be a whole number from 0 to 10');
    const stranger = await t.http().post('/api/webchat/conversation/survey').set(auth).send({ questionId: 'q1', answer: '5', last: true });
    expect(stranger.body.errorMessage).toBe('questionId is not a question of this survey');
    expect(await t.dataSource.query(`SELECT count(*)::int AS n FROM poll_responses WHERE conversation_id = $1`, [id])).toEqual([{ n: 0 }]);
    data<ConversationView>(
      await t
        .http()
        .post('/api/webchat/conversation/survey')
        .set(auth)
        .send({ questionId: survey.scaleQuestionId, answer: '9', last: false }),
    );
    const answered = data<ConversationView>(
      await t
        .http()
        .post('/api/webchat/conversation/survey')
        .set(auth)
        .send({ questionId: survey.textQuestionId, answer: 'Quick and <b>kind</b>', last: true }),
    );
    expect(answered.status).toBe('Closed');
    expect(
      await t.dataSource.query(`SELECT question_id, value FROM poll_responses WHERE conversation_id = $1 ORDER BY created_at, value`, [id]),
    ).toEqual([
      { question_id: survey.scaleQuestionId, value: '9' },
      { question_id: survey.textQuestionId, value: 'Quick and <b>kind</b>' },
    ]);

    // The supervisor saw every version that changed what the board shows, once, in order; a
    // customer's message only touches the conversation, so it reaches the desk and not the tenant.
    const final = answered.version;
    const steps: { version: number; event: string }[] = await t.dataSource.query(
      `SELECT version, event FROM transition_log WHERE entity_type = 'conversation' AND entity_id = $1 ORDER BY version`,
      [id],
    );
    const touchedAt = steps.filter((step) => step.event === 'conversation.messageReceived').map((step) => step.version);
    expect(touchedAt).toHaveLength(1);
    expect(updatesOf(desk1.received, id).map((view) => view.version)).toContain(touchedAt[0]);
    await eventually(() => expect(updatesOf(board.received, id).at(-1)?.version).toBe(final));
    const seen = updatesOf(board.received, id).map((view) => view.version);
    expect(seen).toEqual([...new Set(seen)].sort((a, b) => a - b));
    expect(seen).not.toContain(touchedAt[0]);
    const transitions = steps.filter((step) => !['conversation.messageReceived', 'conversation.surveyAnswered'].includes(step.event));
    expect(seen).toEqual(expect.arrayContaining(transitions.map((step) => step.version)));
    const statuses = updatesOf(board.received, id)
      .map((view) => view.status)
      .filter((status, i, all) => status !== all[i - 1]);
    expect(statuses).toEqual(['Transitory', 'LiningUp', 'Active', 'LiningUp', 'Active', 'Inquest', 'Closed']);
    const agentUpdates = board.received.filter((entry) => entry.event === 'agent.updated').map((entry) => entry.data as AgentView);
    expect(agentUpdates.some((view) => view.agentId === agent2.userId && view.activeCount === 1)).toBe(true);

    // The log gives the exact time in each state, and the API computes the same.
    const rows: { from_state: string | null; to_state: string; event: string; at_ms: string; actor_kind: 'agent' }[] =
      await t.dataSource.query(
        `SELECT from_state, to_state, event, at_ms, actor_kind FROM transition_log WHERE entity_type = 'conversation' AND entity_id = $1 ORDER BY version`,
        [id],
      );
    expect(rows).toHaveLength(final);
    const records: TransitionRecord[] = rows.map((row) => ({
      from: row.from_state,
      to: row.to_state,
      event: row.event,
      at: Number(row.at_ms),
      actor: { kind: row.actor_kind },
    }));
    const expected = timeInStates(records, records[0].at, records.at(-1)!.at);
    const total = Object.values(expected).reduce<number>((sum, ms) => sum + (ms ?? 0), 0);
    expect(total).toBe(records.at(-1)!.at - records[0].at);
    const api = data<{ msInState: Record<string, number> }>(
      await t.http().get(`/api/supervisor/conversations/${id}/transitions`).set(bearer(supervisor.token)),
    );
    expect(api.msInState).toEqual(expected);
    expect(Object.keys(api.msInState).sort()).toEqual(expect.arrayContaining(['Active', 'Inquest', 'LiningUp']));
  });

  it('relays typing both ways and records delivery and reading', async () => {
    const desk = await staff(agent1);
    const visitor = await startChat('Annie');
    const id = visitor.conversation.id;
    const auth = bearer(visitor.visitorToken);
    // Agent 1 is logged in by the first test; logging in again is refused, which is fine here.
    await t.http().post('/api/agent/presence/login').set(bearer(agent1.token)).send({ campaignId });
    await t.http().post('/api/webchat/conversation/menu').set(auth).send({ queryTypeId: 'q', submenuId: 's' }).expect(200);
    await eventually(async () =>
      expect(
        data<ConversationView[]>(await t.http().get('/api/agent/conversations').set(bearer(agent1.token))).map((view) => view.id),
      ).toContain(id),
    );
    expect(await new Promise<JoinAck>((resolve) => desk.socket.emit('join', { kind: 'conversation', id }, resolve))).toEqual({
      ok: true,
      room: `conversation:${id}`,
    });

    visitor.socket.emit('typing', { typing: true });
    await eventually(() =>
      expect(desk.received.find((entry) => entry.event === 'typing')?.data).toEqual({
        conversationId: id,
        senderKind: 'customer',
        typing: true,
      }),
    );
    desk.socket.emit('typing', { conversationId: id, typing: true });
    await eventually(() =>
      expect(visitor.received.find((entry) => entry.event === 'typing')?.data).toEqual({
        conversationId: id,
        senderKind: 'agent',
        typing: true,
      }),
    );

    const sent = data<MessageView>(
      await t.http().post(`/api/agent/conversations/${id}/messages`).set(bearer(agent1.token)).send({ text: 'Welcome' }),
    );
    expect(sent.deliveredAt).toBeNull();
    const fetched = data<MessageView[]>(await t.http().get('/api/webchat/conversation/messages').set(auth));
    expect(fetched.map((message) => message.text)).toEqual(['Welcome']);
    expect(
      data<{ read: number }>(await t.http().post('/api/webchat/conversation/read').set(auth).send({ upToSequence: sent.sequence })),
    ).toEqual({ read: 1 });
    await eventually(() =>
      expect(desk.received.find((entry) => entry.event === 'message.read')?.data).toEqual({
        conversationId: id,
        readerKind: 'customer',
        upToSequence: sent.sequence,
      }),
    );
    const [stored] = await t.dataSource.query(`SELECT delivered_at, read_at FROM messages WHERE id = $1`, [sent.id]);
    expect(stored).toEqual({ delivered_at: expect.any(Date), read_at: expect.any(Date) });

    // Reconnecting with the visitor token gives the same conversation and its history.
    const again = data<{ conversation: ConversationView; messages: MessageView[] }>(
      await t.http().get('/api/webchat/conversation').set(auth),
    );
    expect(again.conversation).toMatchObject({ id, status: 'Active' });
    expect(again.messages.map((message) => message.sequence)).toEqual([1]);
  });

  it('refuses over-long and empty messages with 400 and stores nothing', async () => {
    const visitor = await startChat('Grace');
    const auth = bearer(visitor.visitorToken);
    const long = await t
      .http()
      .post('/api/webchat/conversation/messages')
      .set(auth)
      .send({ text: 'x'.repeat(501) });
    expect(long.status).toBe(400);
    expect(long.body).toMatchObject({ errorCode: 'validation', errorMessage: 'text must be at most 500 characters' });
    const empty = await t.http().post('/api/webchat/conversation/messages').set(auth).send({ text: '   ' });
    expect(empty.status).toBe(400);
    expect(empty.body).toMatchObject({ errorCode: 'validation', errorMessage: 'text must not be empty' });
    const exact = await t
      .http()
      .post('/api/webchat/conversation/messages')
      .set(auth)
      .send({ text: 'y'.repeat(500) });
    expect(exact.status).toBe(200);
    const [{ count }] = await t.dataSource.query(`SELECT count(*)::int AS count FROM messages WHERE conversation_id = $1`, [
      visitor.conversation.id,
    ]);
    expect(count).toBe(1);
  });

  it('refuses a start without a valid name or email', async () => {
    const response = await t.http().post('/api/webchat/conversations').send({ attentionLineId: lineA, name: '', email: 'not-an-email' });
    expect(response.status).toBe(400);
    expect(Object.keys(response.body.data.fields).sort()).toEqual(['email', 'name']);
  });

  it('requires both a query type and a submenu', async () => {
    const visitor = await startChat('Hedy');
    const response = await t
      .http()
      .post('/api/webchat/conversation/menu')
      .set(bearer(visitor.visitorToken))
      .send({ queryTypeId: 'sales', submenuId: ' ' });
    expect(response.status).toBe(400);
    expect(response.body.errorMessage).toBe('submenuId is required');
  });

  it('refuses an illegal event with 409 naming the event and the state, and writes nothing', async () => {
    const visitor = await startChat('Barbara');
    const before = await t.dataSource.query(`SELECT version FROM conversations WHERE id = $1`, [visitor.conversation.id]);
    const response = await t
      .http()
      .post('/api/webchat/conversation/survey')
      .set(bearer(visitor.visitorToken))
      .send({ questionId: 'q1', answer: '5', last: true });
    expect(response.status).toBe(409);
    expect(response.body).toMatchObject({
      errorCode: 'illegal_transition',
      errorMessage: 'conversation.surveyAnswered is not allowed while the conversation is Transitory',
    });
    const after = await t.dataSource.query(`SELECT version FROM conversations WHERE id = $1`, [visitor.conversation.id]);
    expect(after).toEqual(before);
    const [{ count }] = await t.dataSource.query(`SELECT count(*)::int AS count FROM transition_log WHERE entity_id = $1`, [
      visitor.conversation.id,
    ]);
    expect(count).toBe(1);
  });

  it("refuses a visitor joining another visitor's conversation", async () => {
    const first = await startChat('Katherine');
    const second = await startChat('Dorothy');
    const answer = await new Promise<JoinAck>((resolve) =>
      second.socket.emit('join', { kind: 'conversation', id: first.conversation.id }, resolve),
    );
    expect(answer).toEqual({ ok: false, errorCode: 'forbidden', errorMessage: 'A visitor may only join its own conversation' });
    // And it receives nothing of the other conversation.
    await t.http().post('/api/webchat/conversation/messages').set(bearer(first.visitorToken)).send({ text: 'private' }).expect(200);
    await eventually(() => expect(first.received.some((entry) => entry.event === 'message.created')).toBe(true));
    expect(second.received.some((entry) => entry.event === 'message.created')).toBe(false);
  });

  it("refuses staff joining another tenant's rooms", async () => {
    const visitor = await startChat('Mary');
    const { socket } = await staff(outsider);
    const join = (room: { kind: 'tenant' | 'line' | 'conversation'; id: string }) =>
      new Promise<JoinAck>((resolve) => socket.emit('join', room, resolve));
    expect(await join({ kind: 'conversation', id: visitor.conversation.id })).toMatchObject({ ok: false, errorCode: 'not_found' });
    expect(await join({ kind: 'line', id: lineA })).toMatchObject({ ok: false, errorCode: 'not_found' });
    expect(await join({ kind: 'tenant', id: visitor.conversation.tenantId })).toMatchObject({ ok: false, errorCode: 'not_found' });
  });

  it('refuses sockets without a valid token of the right kind', async () => {
    await expect(connectStaff(t.url, 'not-a-token')).rejects.toThrow();
    // An access token is not a visitor token.
    await expect(connectVisitor(t.url, agent1.token)).rejects.toThrow('The visitor token is invalid or has expired');
  });
});
