import { randomUUID } from 'node:crypto';
import { type Envelope, type VoiceCallEvent, type VoiceCommand } from '@centralita/contracts';
import { handledCalls, timeInStates, type AgentStatus } from '@centralita/domain';
import type { Queue } from 'bullmq';
import { eventually } from '../../../../test/support/eventually';
import type { Board } from '../../src/modules/conversations/supervisor.service';
import { MachineHostService } from '../../src/modules/machine-host/machine-host.service';
import { RoutingService } from '../../src/modules/routing/routing.service';
import type { TestTenant } from '../support/factories';
import { createStaff, openConversation, type StaffMember } from '../support/realtime';
import { bearer, type TestApp } from '../support/test-app';
import { createPhoneTenant, createSoftphoneAgent, startVoiceTestApp, type VoiceTestApp } from './support/voice-test-app';

/**
 * Blended agents (issue 22 item 2) and the API side of connect (item 3): call events posted onto
 * the real `voice-call-events` queue as the worker's voice server posts them, with calls
 * connectable (VOICE_CONNECT_ENABLED on for these tests), chats given by the real router, and the
 * agent's one presence read from its row, the supervisor's board and the transition log.
 */
type Event = VoiceCallEvent;
type EventBody<T extends Event['type']> = Omit<Extract<Event, { type: T }>, 'callId' | 'tenantId' | 'seq' | 'at' | 'type'>;

describe('blended agents: one presence for calls and chats, by the line’s rules (e2e)', () => {
  let t: TestApp;
  let events: Queue<Event>;
  let commands: Queue<VoiceCommand>;
  let voice: VoiceTestApp;

  beforeAll(async () => {
    // After-call work of one second.
    voice = await startVoiceTestApp('blended', { afterCallWorkSeconds: 1 });
    ({ t, events, commands } = voice);
  });

  afterAll(() => voice?.close());

  /** An English tenant with a phone line of the given blended rules, a trunk and a supervisor. */
  async function phoneTenant(rules: {
    chatsDuringCall: number;
    offerCallsWithChats: boolean;
  }): Promise<{ tenant: TestTenant; lineId: string; trunkId: string; supervisor: StaffMember }> {
    const { tenant, lineId, trunkId } = await createPhoneTenant(t, `Blended ${randomUUID().slice(0, 6)}`);
    await t.dataSource.query(
      `UPDATE attention_line_routing SET chats_during_call = $2, offer_calls_with_chats = $3 WHERE attention_line_id = $1`,
      [lineId, rules.chatsDuringCall, rules.offerCallsWithChats],
    );
    return { tenant, lineId, trunkId, supervisor: await createStaff(t, tenant, 'SUPER') };
  }

  /** Agents' session tokens, by user id. */
  const tokens = new Map<string, string>();

  /** An agent with a softphone, logged in (capacity 3) and available, serving `lineId`. */
  async function agent(tenant: TestTenant, lineId: string, name: string): Promise<string> {
    const staff = await createSoftphoneAgent(t, tenant, lineId, { name, extension: (userId) => `ext-${userId.slice(0, 8)}` });
    tokens.set(staff.userId, staff.token);
    return staff.userId;
  }

  function call(tenantId: string, callId = randomUUID()) {
    let seq = 0;
    const make = <T extends Event['type']>(type: T, body: EventBody<T>): Event =>
      ({ type, callId, tenantId, seq: ++seq, at: Date.now(), ...body }) as unknown as Event;
    return {
      callId,
      post: async <T extends Event['type']>(type: T, body: EventBody<T>) => {
        const event = make(type, body);
        await events.add(event.type, event, { jobId: `voice.${event.callId}.${event.seq}`, attempts: 5 });
        // Applied before the next step, as the worker's numbering would have it anyway.
        await eventually(async () => expect(await callRow(callId)).toMatchObject({ last_seq: event.seq }));
      },
    };
  }

  /** A web chat of the tenant entering `lineId`'s queue. */
  async function chat(tenant: TestTenant, lineId: string): Promise<string> {
    const id = await openConversation(t, tenant, lineId);
    await t.app
      .get(MachineHostService)
      .dispatch(
        'conversation',
        id,
        { type: 'conversation.menuCompleted', queryTypeId: 'q', submenuId: 's', attentionLineId: lineId, pollId: null },
        { kind: 'customer' },
      );
    return id;
  }

  const callRow = async (callId: string) =>
    ((await t.dataSource.query(`SELECT * FROM voice_calls WHERE id = $1`, [callId])) as Record<string, unknown>[])[0];
  const conversation = async (id: string) =>
    (
      (await t.dataSource.query(`SELECT status, agent_id FROM conversations WHERE id = $1`, [id])) as {
        status: string;
        agent_id: string | null;
      }[]
    )[0];
  const callConversation = async (callId: string) => (await callRow(callId))?.conversation_id as string;
  const presence = async (agentId: string) =>
    (
      (await t.dataSource.query(`SELECT status, active_count FROM agent_presence WHERE user_id = $1`, [agentId])) as {
        status: string;
        active_count: number;
      }[]
    )[0];
  const connects = async (callId: string) =>
    (await commands.getJobs(['waiting', 'delayed', 'active', 'completed', 'failed']))
      .filter((job) => job.data.callId === callId && job.data.type === 'connect')
      .sort((a, b) => a.timestamp - b.timestamp)
      .map((job) => (job.data as { agentId: string }).agentId);
  const history = async (conversationId: string) =>
    (
      (await t.dataSource.query(`SELECT text FROM messages WHERE conversation_id = $1 AND sender_kind = 'system' ORDER BY sequence`, [
        conversationId,
      ])) as { text: string }[]
    ).map((row) => row.text);
  const agentLog = async (agentId: string) =>
    (await t.dataSource.query(
      `SELECT from_state, to_state, event, at_ms::float AS at, data FROM transition_log WHERE entity_type = 'agent' AND entity_id = $1 ORDER BY version`,
      [agentId],
    )) as { from_state: AgentStatus | null; to_state: AgentStatus; event: string; at: number; data: Record<string, unknown> | null }[];

  it('keeps one presence through a chat and a call: in call on connect, chats during the call up to the line’s limit, after-call work, then back', async () => {
    const { tenant, lineId, trunkId, supervisor } = await phoneTenant({ chatsDuringCall: 1, offerCallsWithChats: true });
    const ana = await agent(tenant, lineId, 'Ana');

    // A chat first: Ana holds it (busy).
    const firstChat = await chat(tenant, lineId);
    await eventually(async () => expect(await conversation(firstChat)).toEqual({ status: 'Active', agent_id: ana }));

    // A call: the line offers calls to agents holding chats, so Ana's phone is rung.
    const c = call(tenant.client.id);
    await c.post('call.started', { trunkId, from: '+34611222333', to: '+34910000000', ivrId: null });
    await c.post('call.queued', { attentionLineId: lineId, path: [] });
    await eventually(async () => expect(await connects(c.callId)).toEqual([ana]));
    const phoneConversation = await callConversation(c.callId);
    expect(await conversation(phoneConversation)).toEqual({ status: 'Active', agent_id: ana });

    // Ana answers. Her browser's softphone reports the answer too, maybe first: the platform's call
    // event books it (with the call's line), so the softphone's report leaves her presence as it is.
    const early = await t
      .http()
      .post('/api/softphone/presence/call-started')
      .set(bearer(tokens.get(ana)!))
      .send({});
    expect(early.status).toBe(200);
    expect((await presence(ana)).status).toBe('busy');
    await c.post('call.connected', { agentId: ana });
    expect(await presence(ana)).toEqual({ status: 'inCall', active_count: 2 });
    const board = await t.http().get('/api/supervisor/board').set(bearer(supervisor.token));
    expect(board.status).toBe(200);
    expect((board.body as Envelope<Board>).data!.agents.filter((row) => row.agentId === ana).map((row) => row.status)).toEqual(['inCall']);

    // A second chat: Ana already holds one chat, the line's limit during a call: it waits, though she has capacity.
    const secondChat = await chat(tenant, lineId);
    expect(await t.app.get(RoutingService).routeLine(lineId)).toBe(0);
    expect(await conversation(secondChat)).toEqual({ status: 'LiningUp', agent_id: null });

    // She finishes the first chat during the call: the second one comes to her, and she stays in call.
    await t.app
      .get(MachineHostService)
      .dispatch('conversation', firstChat, { type: 'conversation.closed', reason: 'resolved' }, { kind: 'agent', id: ana });
    await eventually(async () => expect(await conversation(secondChat)).toEqual({ status: 'Active', agent_id: ana }));
    expect(await presence(ana)).toEqual({ status: 'inCall', active_count: 2 });

    // The caller hangs up: after-call work, then (AFTER_CALL_WORK_SECONDS = 1) back to work, busy with the chat.
    await c.post('call.ended', { by: 'caller', reason: 'hangup' });
    expect(await conversation(phoneConversation)).toMatchObject({ status: 'Closed' });
    await eventually(async () => expect(await presence(ana)).toEqual({ status: 'busy', active_count: 1 }), { timeoutMs: 10_000 });

    // The transition log, alone, tells the story and the exact time in each state.
    const log = await agentLog(ana);
    const changes = log.filter((row) => row.from_state !== row.to_state).map((row) => `${row.event}:${row.to_state}`);
    expect(changes).toEqual([
      'xstate.init:loggedOut',
      'agent.loggedIn:available',
      'agent.conversationAssigned:busy',
      'agent.callStarted:inCall',
      'agent.callEnded:afterCallWork',
      'agent.afterCallWorkEnded:busy',
    ]);
    const entering = (state: AgentStatus) => log.find((row) => row.to_state === state && row.from_state !== state)!;
    // The row entering the call carries the call's line and channel (per-line call handle time).
    expect(entering('inCall').data).toMatchObject({ attentionLineId: lineId, channel: 'phone' });
    // Chats given and let go during the call are rows of their own that do not leave inCall.
    const duringCall = log.filter((row) => row.from_state === 'inCall' && row.to_state === 'inCall').map((row) => row.event);
    expect(duringCall).toEqual(['agent.conversationReleased', 'agent.conversationAssigned', 'agent.conversationReleased']);
    const start = log[0].at;
    const end = log.at(-1)!.at;
    const times = timeInStates(
      log.map((row) => ({ from: row.from_state, to: row.to_state, event: row.event, at: row.at, actor: { kind: 'system' as const } })),
      start,
      end,
    );
    expect(times.inCall).toBe(entering('afterCallWork').at - entering('inCall').at);
    expect(times.afterCallWork).toBe(log.at(-1)!.at - entering('afterCallWork').at);
    expect(times.afterCallWork).toBeGreaterThanOrEqual(1000);
    expect(Object.values(times).reduce((sum, ms) => sum + (ms ?? 0), 0)).toBe(end - start);
    // The same rows give the call's handle time on its line (the KPI reader the dashboards use).
    const calls = handledCalls(
      log.map((row) => ({
        entityId: ana,
        tenantId: tenant.client.id,
        from: row.from_state,
        to: row.to_state,
        event: row.event,
        at: row.at,
        actor: { kind: 'system' as const },
        data: row.data ?? undefined,
      })),
      { from: start, to: end + 1 },
    );
    expect(calls).toEqual([
      expect.objectContaining({
        kind: 'inboundCall',
        attentionLineId: lineId,
        channel: 'phone',
        talkMs: times.inCall,
        afterCallWorkMs: times.afterCallWork,
      }),
    ]);
  });

  it('does not offer a call to an agent holding chats unless the line says so, and gives chats nobody on a call when it allows none', async () => {
    const { tenant, lineId, trunkId } = await phoneTenant({ chatsDuringCall: 0, offerCallsWithChats: false });
    const bea = await agent(tenant, lineId, 'Bea');
    const held = await chat(tenant, lineId);
    await eventually(async () => expect(await conversation(held)).toEqual({ status: 'Active', agent_id: bea }));

    const c = call(tenant.client.id);
    await c.post('call.started', { trunkId, from: '+34611444555', to: '+34910000000', ivrId: null });
    await c.post('call.queued', { attentionLineId: lineId, path: [] });
    const phoneConversation = await callConversation(c.callId);
    expect(await t.app.get(RoutingService).routeLine(lineId)).toBe(0);
    expect(await conversation(phoneConversation)).toEqual({ status: 'LiningUp', agent_id: null });
    expect(await connects(c.callId)).toEqual([]);

    // Her chat done, she holds nothing: the call is offered to her at once.
    await t.app
      .get(MachineHostService)
      .dispatch('conversation', held, { type: 'conversation.closed', reason: 'resolved' }, { kind: 'agent', id: bea });
    await eventually(async () => expect(await connects(c.callId)).toEqual([bea]));
    await c.post('call.connected', { agentId: bea });
    expect((await presence(bea)).status).toBe('inCall');

    // On the call, with no chats allowed during calls: a new chat waits for her.
    const waiting = await chat(tenant, lineId);
    expect(await t.app.get(RoutingService).routeLine(lineId)).toBe(0);
    expect(await conversation(waiting)).toEqual({ status: 'LiningUp', agent_id: null });
    await c.post('call.ended', { by: 'agent', reason: 'hangup' });
    await eventually(async () => expect(await conversation(waiting)).toEqual({ status: 'Active', agent_id: bea }), { timeoutMs: 10_000 });
  });

  it('connects an IVR’s agent destination to that agent only; after the agent’s phone fails, offers the call to others first and not back to them at once', async () => {
    const { tenant, lineId, trunkId } = await phoneTenant({ chatsDuringCall: 0, offerCallsWithChats: false });
    // Carla is the line's longest idle agent; the IVR sends the caller to Dora.
    const carla = await agent(tenant, lineId, 'Carla');
    const dora = await agent(tenant, lineId, 'Dora');
    const toDora = call(tenant.client.id);
    await toDora.post('call.started', { trunkId, from: '+34611666777', to: '+34910000000', ivrId: null });
    await toDora.post('call.toAgent', { agentId: dora, path: ['Main', 'Dora'] });
    await eventually(async () => expect(await connects(toDora.callId)).toEqual([dora]));
    expect(await callRow(toDora.callId)).toMatchObject({ stage: 'agent', requested_agent_id: dora, attention_line_id: lineId });

    // Dora's phone is busy: the call is hers only, so it waits (the back-off), and the history says why.
    await toDora.post('call.connectFailed', { agentId: dora, reason: 'busy' });
    const doraConversation = await callConversation(toDora.callId);
    expect(await t.app.get(RoutingService).routeLine(lineId)).toBe(0);
    expect(await conversation(doraConversation)).toEqual({ status: 'LiningUp', agent_id: null });
    expect(await connects(toDora.callId)).toEqual([dora]);
    expect((await history(doraConversation)).at(-1)).toBe('Dora’s phone was busy: the call goes back to the queue');
    expect(Object.keys((await callRow(toDora.callId)).failed_agents as object)).toEqual([dora]);

    // A line call whose first agent does not answer goes to the other agent, never back to the first meanwhile.
    await t.dataSource.query(`UPDATE voice_calls SET ended_at = now(), stage = 'ended' WHERE id = $1`, [toDora.callId]);
    await t.app
      .get(MachineHostService)
      .dispatch('conversation', doraConversation, { type: 'conversation.closed', reason: 'test' }, { kind: 'system' });
    const c = call(tenant.client.id);
    await c.post('call.started', { trunkId, from: '+34611888999', to: '+34910000000', ivrId: null });
    await c.post('call.queued', { attentionLineId: lineId, path: [] });
    const [first] = await eventually(async () => {
      const sent = await connects(c.callId);
      expect(sent).toHaveLength(1);
      return sent;
    });
    const other = first === carla ? dora : carla;
    await c.post('call.connectFailed', { agentId: first, reason: 'noAnswer' });
    await eventually(async () => expect(await connects(c.callId)).toEqual([first, other]));
    // The second one does not answer either: both have failed within the back-off, nobody is rung.
    await c.post('call.connectFailed', { agentId: other, reason: 'noAnswer' });
    expect(await t.app.get(RoutingService).routeLine(lineId)).toBe(0);
    expect(await connects(c.callId)).toEqual([first, other]);
    const names = { [carla]: 'Carla', [dora]: 'Dora' };
    expect((await history(await callConversation(c.callId))).slice(-2)).toEqual([
      `${names[first]} did not answer the call: it goes back to the queue`,
      `${names[other]} did not answer the call: it goes back to the queue`,
    ]);
  });
});
