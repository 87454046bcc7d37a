import { randomUUID } from 'node:crypto';
import { type ConversationView, type Envelope, type QueueStatusRow, type VoiceCallEvent, type VoiceCommand } from '@centralita/contracts';
import type { Queue } from 'bullmq';
import { eventually } from '../../../../test/support/eventually';
import { APP_CONFIG, type AppConfig } from '../../src/config/app-config';
import { MachineHostService } from '../../src/modules/machine-host/machine-host.service';
import type { Board } from '../../src/modules/conversations/supervisor.service';
import type { VoiceCallView } from '../../src/modules/voice/voice-calls.service';
import { VoiceEventsService } from '../../src/modules/voice/voice-events.service';
import { createUser, type TestTenant } from '../support/factories';
import { createStaff, createTenant, openConversation, type StaffMember } from '../support/realtime';
import { bearer, type TestApp } from '../support/test-app';
import { createIvr, createPhoneLine, createTrunk, englishTenant, startVoiceTestApp, type VoiceTestApp } from './support/voice-test-app';

/**
 * The API side of inbound voice: events posted onto the real `voice-call-events` queue, as the
 * worker's voice server posts them, become the caller's conversation on the phone channel; commands
 * back to the worker are read from the real `voice-commands` queue (nothing consumes it here).
 */
type Event = VoiceCallEvent;
type EventBody<T extends Event['type']> = Omit<Extract<Event, { type: T }>, 'callId' | 'tenantId' | 'seq' | 'at' | 'type'>;

describe('inbound voice: the caller’s conversation (e2e)', () => {
  let voice: VoiceTestApp;
  let t: TestApp;
  let events: Queue<Event>;
  let commands: Queue<VoiceCommand>;

  beforeAll(async () => {
    // Own queues, and no outbox poller: other suites' rows are not ours to deliver on our prefix.
    // VOICE_CONNECT_ENABLED is on by default: this file's callers are offered to nobody unless a test turns it on.
    voice = await startVoiceTestApp('voice', { connectEnabled: false });
    ({ t, events, commands } = voice);
  });

  afterAll(() => voice?.close());

  /** A tenant (English, so the history lines are asserted in English) with a phone line, a trunk, an IVR and a supervisor. */
  async function phoneTenant(): Promise<{ tenant: TestTenant; lineId: string; trunkId: string; ivrId: string; supervisor: StaffMember }> {
    const tenant = await createTenant(t.dataSource);
    await englishTenant(t, tenant);
    const lineId = await createPhoneLine(t, tenant);
    const trunkId = await createTrunk(t, tenant);
    const ivrId = await createIvr(t, tenant);
    const supervisor = await createStaff(t, tenant, 'SUPER');
    return { tenant, lineId, trunkId, ivrId, supervisor };
  }

  /** A call of `tenantId`: its events numbered as the worker numbers them, posted with the worker's job ids. */
  function call(tenantId: string, callId = randomUUID()) {
    let seq = 0;
    const make = <T extends Event['type']>(type: T, body: EventBody<T>, at = Date.now()): Event =>
      ({ type, callId, tenantId, seq: ++seq, at, ...body }) as unknown as Event;
    return {
      callId,
      make,
      post: async (...list: Event[]) => {
        await events.addBulk(
          list.map((event) => ({
            name: event.type,
            data: event,
            opts: { jobId: `voice.${event.callId}.${event.seq}`, attempts: 5, backoff: { type: 'exponential' as const, delay: 100 } },
          })),
        );
      },
    };
  }

  const callRow = async (callId: string) =>
    ((await t.dataSource.query(`SELECT * FROM voice_calls WHERE id = $1`, [callId])) as Record<string, unknown>[])[0];
  const conversationOf = async (callId: string) =>
    (
      (await t.dataSource.query(
        `SELECT c.id, c.channel, c.status, c.attention_line_id, c.snapshot->'context'->>'closeReason' AS close_reason,
                k.channel AS contact_channel, k.external_id AS contact_number
         FROM voice_calls v JOIN conversations c ON c.id = v.conversation_id LEFT JOIN contacts k ON k.id = c.contact_id WHERE v.id = $1`,
        [callId],
      )) as {
        id: string;
        channel: string;
        status: string;
        attention_line_id: string | null;
        close_reason: string | null;
        contact_channel: string;
        contact_number: string;
      }[]
    )[0];
  const history = async (conversationId: string) =>
    (
      (await t.dataSource.query(`SELECT text FROM messages WHERE conversation_id = $1 AND sender_kind = 'system' ORDER BY sequence`, [
        conversationId,
      ])) as { text: string }[]
    ).map((row) => row.text);
  const transitions = async (conversationId: string) =>
    (
      (await t.dataSource.query(
        `SELECT from_state, to_state, event FROM transition_log WHERE entity_type = 'conversation' AND entity_id = $1 ORDER BY version`,
        [conversationId],
      )) as { from_state: string | null; to_state: string; event: string }[]
    ).map((row) => `${row.event}:${row.to_state}`);
  const commandsFor = async (callId: string) =>
    (await commands.getJobs(['waiting', 'delayed', 'active', 'completed', 'failed'])).filter((job) => job.data.callId === callId);

  /** An agent logged in and available, serving `lineId`, with no conversation. */
  async function availableAgent(tenant: TestTenant, lineId: string, softphone?: { authUser: string; domain: string }): Promise<string> {
    const { user } = await createUser(t.dataSource, tenant, { role: 'AGENT' });
    await t.dataSource.query(`INSERT INTO agent_attention_lines (user_id, attention_line_id, tenant_id) VALUES ($1, $2, $3)`, [
      user.id,
      lineId,
      tenant.client.id,
    ]);
    if (softphone) {
      await t.dataSource.query(
        `INSERT INTO softphone_configs (client_id, ws_url, domain) VALUES ($1, 'wss://sip.test/ws', $2) ON CONFLICT (client_id) DO NOTHING`,
        [tenant.client.id, softphone.domain],
      );
      await t.dataSource.query(`INSERT INTO softphone_accounts (user_id, client_id, extension, auth_user) VALUES ($1, $2, $3, $4)`, [
        user.id,
        tenant.client.id,
        softphone.authUser,
        softphone.authUser,
      ]);
    }
    const host = t.app.get(MachineHostService);
    await host.transaction(async (manager, outbox) => {
      await host.ensureAgent(manager, user.id, tenant.client.id, 3, ['break']);
      const result = await host.dispatchAgent(manager, user.id, { type: 'agent.loggedIn' }, { kind: 'agent', id: user.id });
      outbox.push(...result.outboxIds);
    });
    return user.id;
  }

  it('opens the caller’s conversation on the phone channel, walks the IVR into the queue, and offers it to nobody while calls cannot be connected', async () => {
    const { tenant, lineId, trunkId, ivrId, supervisor } = await phoneTenant();
    const agentId = await availableAgent(tenant, lineId, { authUser: 'agent-one', domain: 'voice.test' });
    const c = call(tenant.client.id);
    await c.post(
      c.make('call.started', { trunkId, from: '+34 911 222 333', to: '+34910000000', ivrId }),
      c.make('ivr.step', { ivrId, nodeId: 'n1', nodeName: 'Welcome', digit: null }),
      c.make('ivr.step', { ivrId, nodeId: 'n2', nodeName: 'Sales', digit: '1' }),
      c.make('call.queued', { attentionLineId: lineId, path: ['Welcome', 'Sales'] }),
    );

    const conversation = await eventually(async () => {
      const found = await conversationOf(c.callId);
      expect(found).toMatchObject({ channel: 'phone', status: 'LiningUp', attention_line_id: lineId });
      return found;
    });
    expect(conversation).toMatchObject({ contact_channel: 'phone', contact_number: '+34911222333' });
    expect(await callRow(c.callId)).toMatchObject({ stage: 'queue', last_seq: 4, trunk_id: trunkId, ivr_id: ivrId, abandon_stage: null });
    expect(await history(conversation.id)).toEqual([
      'Incoming call from +34 911 222 333 to +34910000000',
      'IVR: Welcome',
      'IVR: Sales (key 1)',
    ]);
    // The machine took it Transitory → LiningUp through the menu step a chat takes.
    expect(await transitions(conversation.id)).toEqual(['xstate.init:Transitory', 'conversation.menuCompleted:LiningUp']);

    // The supervisor's board shows the caller waiting on the line, like a chat.
    const board = await t.http().get('/api/supervisor/board').set(bearer(supervisor.token));
    expect(board.status).toBe(200);
    const onBoard = (board.body as Envelope<Board>).data!.conversations.find((row) => row.id === conversation.id);
    expect(onBoard).toMatchObject<Partial<ConversationView>>({ channel: 'phone', status: 'LiningUp', attentionLineId: lineId });
    const queue = (board.body as Envelope<Board>).data!.queues.find((row) => row.attentionLineId === lineId);
    expect(queue?.waiting).toBe(1);

    // The call as the console reads it; another tenant's supervisor gets 404.
    const read = await t.http().get(`/api/voice/conversations/${conversation.id}/call`).set(bearer(supervisor.token));
    expect(read.status).toBe(200);
    expect((read.body as Envelope<VoiceCallView>).data).toMatchObject({
      callId: c.callId,
      from: '+34 911 222 333',
      to: '+34910000000',
      stage: 'queue',
      attentionLineId: lineId,
      ivrPath: [
        { nodeId: 'n1', nodeName: 'Welcome', digit: null },
        { nodeId: 'n2', nodeName: 'Sales', digit: '1' },
      ],
    });
    const other = await phoneTenant();
    expect((await t.http().get(`/api/voice/conversations/${conversation.id}/call`).set(bearer(other.supervisor.token))).status).toBe(404);

    // Calls cannot be connected (VOICE_CONNECT_ENABLED off): the free agent with a softphone gets the chat
    // queued behind the caller, never the caller, and no 'connect' is sent.
    const chat = await openConversation(t, tenant, lineId);
    await t.app
      .get(MachineHostService)
      .dispatch(
        'conversation',
        chat,
        { type: 'conversation.menuCompleted', queryTypeId: 'q', submenuId: 's', attentionLineId: lineId, pollId: null },
        { kind: 'customer' },
      );
    await eventually(async () => {
      const [row] = (await t.dataSource.query(`SELECT status, agent_id FROM conversations WHERE id = $1`, [chat])) as {
        status: string;
        agent_id: string;
      }[];
      expect(row).toEqual({ status: 'Active', agent_id: agentId });
    });
    expect((await conversationOf(c.callId)).status).toBe('LiningUp');
    expect(await commandsFor(c.callId)).toEqual([]);
  });

  it('records an abandon in the queue and one in the IVR apart, counts both on the dashboards, and hangs up neither', async () => {
    const { tenant, lineId, trunkId, ivrId, supervisor } = await phoneTenant();
    const from = Date.now() - 1000;
    const queued = call(tenant.client.id);
    await queued.post(
      queued.make('call.started', { trunkId, from: '+34600111222', to: '+34910000000', ivrId: null }),
      queued.make('call.queued', { attentionLineId: lineId, path: [] }),
      queued.make('call.abandoned', { stage: 'queue' }),
    );
    const inIvr = call(tenant.client.id);
    await inIvr.post(
      inIvr.make('call.started', { trunkId, from: '+34600333444', to: '+34910000000', ivrId }),
      inIvr.make('ivr.step', { ivrId, nodeId: 'n1', nodeName: 'Welcome', digit: null }),
      inIvr.make('call.abandoned', { stage: 'ivr' }),
    );

    await eventually(async () => {
      expect(await callRow(queued.callId)).toMatchObject({ stage: 'ended', abandon_stage: 'queue', last_seq: 3 });
      expect(await callRow(inIvr.callId)).toMatchObject({ stage: 'ended', abandon_stage: 'ivr', last_seq: 3 });
    });
    const fromQueue = await conversationOf(queued.callId);
    const fromIvr = await conversationOf(inIvr.callId);
    expect(fromQueue).toMatchObject({ status: 'Closed', close_reason: 'abandoned', contact_number: '+34600111222' });
    expect(fromIvr).toMatchObject({ status: 'Closed', close_reason: 'abandoned', contact_number: '+34600333444' });
    // The queue abandon left LiningUp (the dashboards count it offered and abandoned); the IVR one never queued.
    expect(await transitions(fromQueue.id)).toEqual([
      'xstate.init:Transitory',
      'conversation.menuCompleted:LiningUp',
      'conversation.abandoned:Closed',
    ]);
    expect(await transitions(fromIvr.id)).toEqual(['xstate.init:Transitory', 'conversation.abandoned:Closed']);
    expect((await history(fromQueue.id)).at(-1)).toBe('The caller hung up while waiting in the queue');
    expect((await history(fromIvr.id)).at(-1)).toBe('The caller hung up in the IVR');
    expect([...(await commandsFor(queued.callId)), ...(await commandsFor(inIvr.callId))]).toEqual([]);

    // The queue dashboard by channel: the phone row counts the queued call offered and abandoned like a chat,
    // and the IVR abandon apart (it never reached a queue).
    const dashboard = await t
      .http()
      .get('/api/dashboards/queues')
      .query({ by: 'channel', from, to: Date.now() + 60_000 })
      .set(bearer(supervisor.token));
    expect(dashboard.status).toBe(200);
    const rows = (dashboard.body as Envelope<QueueStatusRow[]>).data!;
    expect(rows.find((row) => row.key === 'phone')).toMatchObject({ offered: 1, abandoned: 1, answered: 0, abandonedInIvr: 1 });
    expect(rows.find((row) => row.key === 'webchat')).not.toHaveProperty('abandonedInIvr');
    // A line filter leaves the IVR figure out rather than guess it.
    const byLine = await t
      .http()
      .get('/api/dashboards/queues')
      .query({ by: 'channel', from, to: Date.now() + 60_000, attentionLineId: lineId })
      .set(bearer(supervisor.token));
    expect((byLine.body as Envelope<QueueStatusRow[]>).data!.find((row) => row.key === 'phone')).not.toHaveProperty('abandonedInIvr');
  });

  it('applies a call’s events in the worker’s order whatever order they arrive in, and a repeat once', async () => {
    const { tenant, lineId, trunkId, ivrId } = await phoneTenant();
    const c = call(tenant.client.id);
    const started = c.make('call.started', { trunkId, from: '+34600555666', to: '+34910000000', ivrId });
    const step = c.make('ivr.step', { ivrId, nodeId: 'n2', nodeName: 'Support', digit: '2' });
    const queued = c.make('call.queued', { attentionLineId: lineId, path: ['Support'] });
    const service = t.app.get(VoiceEventsService);

    // The last event first: held (the call is known only by its id so far), nothing opened.
    expect(await service.apply(queued)).toBe('held');
    expect(await callRow(c.callId)).toMatchObject({ last_seq: 0, conversation_id: null });
    expect(await service.apply(step)).toBe('held');
    // The first one releases the others, in order.
    expect(await service.apply(started)).toBe('ready');
    expect(await callRow(c.callId)).toMatchObject({ last_seq: 3, pending_events: [], stage: 'queue' });
    // Re-delivered (a stalled job run twice, or posted again under another id): nothing moves.
    expect(await service.apply(step)).toBe('duplicate');
    await c.post({ ...started }, { ...queued });
    await events.add(queued.type, queued, { jobId: `voice.${c.callId}.3.again` });
    const conversation = await conversationOf(c.callId);
    expect(conversation.status).toBe('LiningUp');
    await eventually(async () => {
      const counts = await events.getJobCounts('waiting', 'active', 'delayed');
      expect(counts.waiting + counts.active + counts.delayed).toBe(0);
    });
    expect(await callRow(c.callId)).toMatchObject({ last_seq: 3 });
    expect(await history(conversation.id)).toEqual(['Incoming call from +34600555666 to +34910000000', 'IVR: Support (key 2)']);
    expect(await transitions(conversation.id)).toEqual(['xstate.init:Transitory', 'conversation.menuCompleted:LiningUp']);
  });

  it('refuses another tenant’s call id and never queues a call on another tenant’s line', async () => {
    const mine = await phoneTenant();
    const theirs = await phoneTenant();
    const c = call(mine.tenant.client.id);
    await c.post(
      c.make('call.started', { trunkId: mine.trunkId, from: '+34600777888', to: '+34910000000', ivrId: null }),
      // Another tenant's line, trunk and IVR ids are never linked to this call.
      c.make('call.queued', { attentionLineId: theirs.lineId, path: [] }),
    );
    await eventually(async () => expect(await callRow(c.callId)).toMatchObject({ last_seq: 2 }));
    expect(await callRow(c.callId)).toMatchObject({ attention_line_id: null, stage: 'new' });
    expect((await conversationOf(c.callId)).status).toBe('Transitory');

    // The same call id reported for another tenant: refused, the call untouched.
    const service = t.app.get(VoiceEventsService);
    const spoof = { ...c.make('call.abandoned', { stage: 'ivr' }), tenantId: theirs.tenant.client.id } as Event;
    expect(await service.apply(spoof)).toBe('refused');
    expect(await callRow(c.callId)).toMatchObject({ last_seq: 2, client_id: mine.tenant.client.id, ended_at: null });
    // An unknown tenant, or a malformed event, is refused too (never a retry loop).
    expect(await service.apply({ ...spoof, tenantId: randomUUID() })).toBe('refused');
    expect(await service.apply({ ...spoof, callId: 'not-a-uuid' } as Event)).toBe('refused');
    // Its supervisor cannot close it (404) and the call is not hung up.
    const conversationId = (await conversationOf(c.callId)).id;
    const close = await t
      .http()
      .post(`/api/supervisor/conversations/${conversationId}/close`)
      .set(bearer(theirs.supervisor.token))
      .send({ disposition: 'spam' });
    expect(close.status).toBe(404);
    expect(await commandsFor(c.callId)).toEqual([]);
  });

  it('hangs up a live call when a supervisor closes its conversation, and not one that has ended', async () => {
    const { tenant, lineId, trunkId, supervisor } = await phoneTenant();
    const live = call(tenant.client.id);
    await live.post(
      live.make('call.started', { trunkId, from: '+34600999000', to: '+34910000000', ivrId: null }),
      live.make('call.queued', { attentionLineId: lineId, path: [] }),
    );
    const conversation = await eventually(async () => {
      const found = await conversationOf(live.callId);
      expect(found.status).toBe('LiningUp');
      return found;
    });
    const closed = await t
      .http()
      .post(`/api/supervisor/conversations/${conversation.id}/close`)
      .set(bearer(supervisor.token))
      .send({ disposition: 'spam', reason: 'spam' });
    expect(closed.status).toBe(200);
    const jobs = await eventually(async () => {
      const found = await commandsFor(live.callId);
      expect(found).toHaveLength(1);
      return found;
    });
    expect(jobs[0].name).toBe('hangUp');
    expect(jobs[0].data).toEqual({ type: 'hangUp', tenantId: tenant.client.id, callId: live.callId, reason: 'spam' });

    // The worker then reports the end: the conversation is already closed, nothing more is sent.
    await live.post(live.make('call.ended', { by: 'system', reason: 'hangup' }));
    await eventually(async () => expect(await callRow(live.callId)).toMatchObject({ stage: 'ended', ended_by: 'system', last_seq: 3 }));
    expect(await commandsFor(live.callId)).toHaveLength(1);
  });

  it('with calls connectable, offers a caller only to a free agent with a softphone and sends connect with their SIP URI', async () => {
    const config = t.app.get<AppConfig>(APP_CONFIG);
    const { tenant, lineId, trunkId, supervisor } = await phoneTenant();
    const from = Date.now() - 1000;
    // Longest idle first: the agent without a softphone is the policy's first pick, and is passed over.
    const noSoftphone = await availableAgent(tenant, lineId);
    const withSoftphone = await availableAgent(tenant, lineId, { authUser: 'ana lópez', domain: 'voice.test' });
    config.voiceConnectEnabled = true;
    try {
      const c = call(tenant.client.id);
      await c.post(
        c.make('call.started', { trunkId, from: '+34611000111', to: '+34910000000', ivrId: null }),
        c.make('call.queued', { attentionLineId: lineId, path: [] }),
      );
      const conversation = await eventually(async () => {
        const found = await conversationOf(c.callId);
        expect(found.status).toBe('Active');
        return found;
      });
      const [row] = (await t.dataSource.query(`SELECT agent_id FROM conversations WHERE id = $1`, [conversation.id])) as {
        agent_id: string;
      }[];
      expect(row.agent_id).toBe(withSoftphone);
      expect(row.agent_id).not.toBe(noSoftphone);
      const jobs = await eventually(async () => {
        const found = await commandsFor(c.callId);
        expect(found).toHaveLength(1);
        return found;
      });
      expect(jobs[0].data).toEqual({
        type: 'connect',
        tenantId: tenant.client.id,
        callId: c.callId,
        conversationId: conversation.id,
        agentId: withSoftphone,
        agentSipUri: 'sip:ana%20l%C3%B3pez@voice.test',
      });

      // The caller hangs up after talking: the conversation closes with the call, and nothing is hung up twice.
      await c.post(c.make('call.connected', { agentId: withSoftphone }), c.make('call.ended', { by: 'caller', reason: 'hangup' }));
      await eventually(async () => expect((await conversationOf(c.callId)).status).toBe('Closed'));
      expect(await callRow(c.callId)).toMatchObject({ stage: 'ended', agent_id: withSoftphone, ended_by: 'caller', abandon_stage: null });
      expect((await callRow(c.callId)).connected_at).not.toBeNull();
      expect((await commandsFor(c.callId)).map((job) => job.name)).toEqual(['connect']);

      // The phone row of the dashboards: offered and answered, with a speed of answer (queued → the agent's phone answering).
      const dashboard = await t
        .http()
        .get('/api/dashboards/queues')
        .query({ by: 'channel', from, to: Date.now() + 60_000 })
        .set(bearer(supervisor.token));
      const phone = (dashboard.body as Envelope<QueueStatusRow[]>).data!.find((item) => item.key === 'phone');
      expect(phone).toMatchObject({ offered: 1, answered: 1, abandoned: 0, abandonedInIvr: 0 });
      expect(phone?.averageSpeedOfAnswerMs).toEqual(expect.any(Number));
    } finally {
      config.voiceConnectEnabled = false;
    }
  });

  it('puts the conversation back in the queue when the agent’s phone does not take the call (call.connectFailed), and connects again', async () => {
    const config = t.app.get<AppConfig>(APP_CONFIG);
    const { tenant, lineId, trunkId } = await phoneTenant();
    await availableAgent(tenant, lineId, { authUser: 'first', domain: 'voice.test' });
    await availableAgent(tenant, lineId, { authUser: 'second', domain: 'voice.test' });
    config.voiceConnectEnabled = true;
    try {
      const c = call(tenant.client.id);
      await c.post(
        c.make('call.started', { trunkId, from: '+34611000222', to: '+34910000000', ivrId: null }),
        c.make('call.queued', { attentionLineId: lineId, path: [] }),
      );
      const [first] = await eventually(async () => {
        const found = await commandsFor(c.callId);
        expect(found).toHaveLength(1);
        return found;
      });
      const busyAgent = (first.data as { agentId: string }).agentId;
      await c.post(c.make('call.connectFailed', { agentId: busyAgent, reason: 'busy' }));
      // Back in the line's queue and routed again: a second connect for the same call.
      const jobs = await eventually(async () => {
        const found = (await commandsFor(c.callId)).sort((a, b) => a.timestamp - b.timestamp);
        expect(found).toHaveLength(2);
        return found;
      });
      expect((jobs[0].data as { agentId: string }).agentId).toBe(busyAgent);
      expect(jobs.map((job) => job.name)).toEqual(['connect', 'connect']);
      expect(jobs[1].data).toMatchObject({ type: 'connect', callId: c.callId });
      const conversation = await conversationOf(c.callId);
      expect(conversation.status).toBe('Active');
      const [row] = (await t.dataSource.query(`SELECT agent_id FROM conversations WHERE id = $1`, [conversation.id])) as {
        agent_id: string;
      }[];
      expect(row.agent_id).toBe((jobs[1].data as { agentId: string }).agentId);
      expect(await callRow(c.callId)).toMatchObject({ stage: 'queue', ended_at: null });
    } finally {
      config.voiceConnectEnabled = false;
    }
  });
});
