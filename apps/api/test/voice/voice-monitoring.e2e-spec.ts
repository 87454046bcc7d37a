import { randomUUID } from 'node:crypto';
import { QUEUES, type Envelope, type VoiceCallEvent, type VoiceCommand, type VoiceMonitorStatus } from '@centralita/contracts';
import { Queue } from 'bullmq';
import Redis from 'ioredis';
import { eventually } from '../../../../test/support/eventually';
import type { VoiceCallView } from '../../src/modules/voice/voice-calls.service';
import { VoiceEventsService } from '../../src/modules/voice/voice-events.service';
import type { VoiceMonitorView } from '../../src/modules/voice/voice-monitoring.service';
import type { TestTenant } from '../support/factories';
import { connectStaff, createLine, createStaff, createTenant, record, type StaffMember } from '../support/realtime';
import { bearer, startTestApp, type TestApp } from '../support/test-app';

/**
 * Supervisor monitoring's API (issue 22 item 4): POST/PATCH/DELETE /api/voice/conversations/:id/monitor. The call's
 * events are applied as the worker's queue consumer applies them; the commands to the worker are read from the real
 * `voice-commands` queue (nothing consumes it here). The media side is voice-monitor.int-spec.ts in the worker.
 */
const PREFIX = `${process.env.QUEUE_PREFIX ?? 'centralita'}-voice-monitor-${process.pid}`;
type Event = VoiceCallEvent;
type EventBody<T extends Event['type']> = Omit<Extract<Event, { type: T }>, 'callId' | 'tenantId' | 'seq' | 'at' | 'type'>;

describe('supervisor monitoring of a live call (e2e)', () => {
  let t: TestApp;
  let redis: Redis;
  let commands: Queue<VoiceCommand>;

  beforeAll(async () => {
    // A deployment of its own (see suite-database.ts): no other suite's process acts on its calls.
    t = await startTestApp({ queuePrefix: PREFIX }, { ownDatabase: true });
    redis = new Redis(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379', { maxRetriesPerRequest: null });
    commands = new Queue(QUEUES.voiceCommands, { connection: redis, prefix: PREFIX });
  });

  afterAll(async () => {
    await commands.obliterate({ force: true }).catch(() => undefined);
    await commands.close();
    redis.disconnect();
    await t.close();
  });

  const softphone = async (tenant: TestTenant, userId: string, authUser: string) => {
    await t.dataSource.query(
      `INSERT INTO softphone_configs (client_id, ws_url, domain) VALUES ($1, 'wss://sip.test/ws', 'voice.test') ON CONFLICT (client_id) DO NOTHING`,
      [tenant.client.id],
    );
    await t.dataSource.query(`INSERT INTO softphone_accounts (user_id, client_id, extension, auth_user) VALUES ($1, $2, $3, $3)`, [
      userId,
      tenant.client.id,
      authUser,
    ]);
  };

  /** An English tenant with a phone line and an IVR number, a supervisor with a softphone, one without, and an agent. */
  async function phoneTenant() {
    const tenant = await createTenant(t.dataSource);
    await t.dataSource.query(`UPDATE clients SET language = 'en' WHERE id = $1`, [tenant.client.id]);
    const lineId = await createLine(t.dataSource, tenant, `Phone ${randomUUID().slice(0, 6)}`);
    await t.dataSource.query(`UPDATE attention_lines SET channel = 'Phone' WHERE id = $1`, [lineId]);
    const [ivr] = (await t.dataSource.query(
      `INSERT INTO ivrs (client_id, name, draft_tree) VALUES ($1, 'Main', '{"rootNodeId":"n1","nodes":[]}') RETURNING id`,
      [tenant.client.id],
    )) as { id: string }[];
    const supervisor = await createStaff(t, tenant, 'SUPER');
    const tag = randomUUID().slice(0, 8);
    await softphone(tenant, supervisor.userId, `sup-${tag}`);
    const noPhone = await createStaff(t, tenant, 'SUPER');
    const agent = await createStaff(t, tenant, 'AGENT', [lineId]);
    await softphone(tenant, agent.userId, `agent-${tag}`);
    return { tenant, lineId, ivrId: ivr!.id, supervisor, supervisorUri: `sip:sup-${tag}@voice.test`, noPhone, agent };
  }

  /** A call of the tenant whose events are applied in order, as the API's consumer applies the worker's. */
  function call(tenantId: string) {
    const callId = randomUUID();
    let seq = 0;
    const apply = async <T extends Event['type']>(type: T, body: EventBody<T>) =>
      t.app.get(VoiceEventsService).apply({ type, callId, tenantId, seq: ++seq, at: Date.now(), ...body } as unknown as Event);
    return { callId, apply };
  }

  const conversationOf = async (callId: string) =>
    ((await t.dataSource.query(`SELECT conversation_id FROM voice_calls WHERE id = $1`, [callId])) as { conversation_id: string }[])[0]!
      .conversation_id;
  const commandsFor = async (callId: string) =>
    (await commands.getJobs(['waiting', 'delayed', 'active', 'completed', 'failed']))
      .filter((job) => job.data.callId === callId)
      .sort((a, b) => Number(a.timestamp) - Number(b.timestamp) || Number(a.id) - Number(b.id))
      .map((job) => job.data);
  const notes = async (conversationId: string) =>
    (
      (await t.dataSource.query(`SELECT author_id, text FROM conversation_notes WHERE conversation_id = $1 ORDER BY created_at, id`, [
        conversationId,
      ])) as { author_id: string; text: string }[]
    ).map((row) => `${row.author_id}: ${row.text}`);

  const monitor = (method: 'post' | 'patch' | 'delete', conversationId: string, who: StaffMember, body?: object) => {
    const request = t.http()[method](`/api/voice/conversations/${conversationId}/monitor`).set(bearer(who.token));
    return body ? request.send(body) : request;
  };
  const refusal = (response: { body: unknown }) => (response.body as Envelope<{ messageKey?: string }>).data?.messageKey;

  it('lets a supervisor with a softphone start, switch and stop monitoring a connected call, with notes staff see', async () => {
    const { tenant, lineId, ivrId, supervisor, supervisorUri, noPhone, agent } = await phoneTenant();
    const c = call(tenant.client.id);
    await c.apply('call.started', { trunkId: randomUUID(), from: '+34911222333', to: '+34910000000', ivrId });
    await c.apply('call.queued', { attentionLineId: lineId, path: ['Welcome'] });
    const conversationId = await conversationOf(c.callId);
    expect(conversationId).toBeTruthy();

    // What live supervision shows: not connected yet; who has a softphone.
    const status = async (who: StaffMember) =>
      (await t.http().get(`/api/voice/conversations/${conversationId}/monitor`).set(bearer(who.token)))
        .body as Envelope<VoiceMonitorStatus>;
    expect((await status(supervisor)).data).toEqual({
      callId: c.callId,
      connected: false,
      softphone: true,
      supervisorId: null,
      mode: null,
      state: null,
    });
    expect((await status(noPhone)).data).toMatchObject({ connected: false, softphone: false });

    // Not connected yet: 409.
    const early = await monitor('post', conversationId, supervisor, { mode: 'listen' });
    expect(early.status).toBe(409);
    expect(refusal(early)).toBe('monitorCallNotConnected');

    await c.apply('call.connected', { agentId: agent.userId });

    // Agents cannot monitor; a mode that does not exist is a 400; a supervisor without a softphone is told why.
    expect((await monitor('post', conversationId, agent, { mode: 'listen' })).status).toBe(403);
    expect((await monitor('post', conversationId, supervisor, { mode: 'spy' })).status).toBe(400);
    const noSoftphone = await monitor('post', conversationId, noPhone, { mode: 'listen' });
    expect(noSoftphone.status).toBe(409);
    expect(refusal(noSoftphone)).toBe('monitorNoSoftphone');

    const started = await monitor('post', conversationId, supervisor, { mode: 'listen' });
    expect(started.status).toBe(200);
    expect((started.body as Envelope<VoiceMonitorView>).data).toEqual({
      callId: c.callId,
      supervisorId: supervisor.userId,
      mode: 'listen',
      state: 'ringing',
    });
    await eventually(async () =>
      expect(await commandsFor(c.callId)).toEqual([
        {
          type: 'monitor',
          tenantId: tenant.client.id,
          callId: c.callId,
          supervisorId: supervisor.userId,
          supervisorSipUri: supervisorUri,
          mode: 'listen',
        },
      ]),
    );
    // One supervisor at a time; switching before the softphone answered is refused.
    const second = await monitor('post', conversationId, noPhone, { mode: 'barge' });
    expect(second.status).toBe(409);
    expect(refusal(second)).toBe('monitorInUse');
    expect(refusal(await monitor('patch', conversationId, supervisor, { mode: 'whisper' }))).toBe('monitorNotActive');

    // The worker reports the softphone answered: the call shows who monitors it, and a note by the supervisor says so.
    await c.apply('call.monitor', { supervisorId: supervisor.userId, state: 'started', mode: 'listen', reason: 'answered' });
    expect((await status(noPhone)).data).toMatchObject({
      connected: true,
      supervisorId: supervisor.userId,
      mode: 'listen',
      state: 'active',
    });
    const read = await t.http().get(`/api/voice/conversations/${conversationId}/call`).set(bearer(supervisor.token));
    expect((read.body as Envelope<VoiceCallView>).data!.monitor).toEqual({
      supervisorId: supervisor.userId,
      mode: 'listen',
      state: 'active',
    });

    const switched = await monitor('patch', conversationId, supervisor, { mode: 'whisper' });
    expect(switched.status).toBe(200);
    expect((switched.body as Envelope<VoiceMonitorView>).data!.mode).toBe('whisper');
    // Only the monitoring supervisor switches it.
    expect(refusal(await monitor('patch', conversationId, noPhone, { mode: 'barge' }))).toBe('monitorNotActive');
    await c.apply('call.monitor', { supervisorId: supervisor.userId, state: 'changed', mode: 'whisper', reason: 'mode' });

    const stopped = await monitor('delete', conversationId, supervisor);
    expect(stopped.status).toBe(200);
    expect((stopped.body as Envelope<VoiceMonitorView>).data!.state).toBeNull();
    await eventually(async () =>
      expect((await commandsFor(c.callId)).map((command) => command.type)).toEqual(['monitor', 'monitor.mode', 'monitor.stop']),
    );
    expect((await commandsFor(c.callId))[1]).toMatchObject({ type: 'monitor.mode', supervisorId: supervisor.userId, mode: 'whisper' });
    expect(refusal(await monitor('delete', conversationId, supervisor))).toBe('monitorNotActive');
    await c.apply('call.monitor', { supervisorId: supervisor.userId, state: 'ended', mode: 'whisper', reason: 'stopped' });

    const [name] = (await t.dataSource.query(`SELECT name FROM users WHERE id = $1`, [supervisor.userId])) as { name: string }[];
    expect(await notes(conversationId)).toEqual([
      `${supervisor.userId}: ${name!.name} started monitoring the call (listen)`,
      `${supervisor.userId}: ${name!.name} switched the monitoring to: whisper`,
      `${supervisor.userId}: ${name!.name} stopped monitoring the call`,
    ]);
    // Nothing of it is in the conversation's messages (the history a customer-facing transcript is made of).
    const [{ count }] = (await t.dataSource.query(
      `SELECT count(*)::int AS count FROM messages WHERE conversation_id = $1 AND text LIKE '%monitor%'`,
      [conversationId],
    )) as { count: number }[];
    expect(count).toBe(0);

    // Once the call ended it cannot be monitored.
    await c.apply('call.ended', { by: 'caller', reason: 'hangUp' });
    expect(refusal(await monitor('post', conversationId, supervisor, { mode: 'barge' }))).toBe('monitorCallNotConnected');
  });

  it('pushes voiceCall.updated to the tenant’s supervisors when the call connects, is monitored and ends, and not for other steps', async () => {
    const { tenant, lineId, ivrId, supervisor } = await phoneTenant();
    const other = await phoneTenant();
    const socket = await connectStaff(t.url, supervisor.token);
    const otherSocket = await connectStaff(t.url, other.supervisor.token);
    try {
      const received = record(socket);
      const otherReceived = record(otherSocket);
      const pushes = () => received.filter((entry) => entry.event === 'voiceCall.updated').map((entry) => entry.data);
      const c = call(tenant.client.id);
      await c.apply('call.started', { trunkId: randomUUID(), from: '+34911222444', to: '+34910000000', ivrId });
      await c.apply('call.queued', { attentionLineId: lineId, path: [] });
      const conversationId = await conversationOf(c.callId);
      const push = { conversationId, callId: c.callId };
      // Queued: nothing the monitoring bar shows has changed (it is not connected yet).
      await c.apply('call.connected', { agentId: randomUUID() });
      await eventually(() => expect(pushes()).toEqual([push]));
      await c.apply('call.monitor', { supervisorId: supervisor.userId, state: 'started', mode: 'listen', reason: 'answered' });
      await eventually(() => expect(pushes()).toEqual([push, push]));
      await c.apply('call.ended', { by: 'caller', reason: 'hangUp' });
      await eventually(() => expect(pushes()).toEqual([push, push, push]));
      // Another tenant's supervisor hears nothing of it.
      expect(otherReceived.filter((entry) => entry.event === 'voiceCall.updated')).toEqual([]);
    } finally {
      socket.close();
      otherSocket.close();
    }
  });

  it('answers 404 for another tenant’s conversation and for a conversation with no call, and clears a failed start', async () => {
    const ours = await phoneTenant();
    const theirs = await phoneTenant();
    const c = call(theirs.tenant.client.id);
    await c.apply('call.started', { trunkId: randomUUID(), from: '+34911222444', to: '+34910000001', ivrId: theirs.ivrId });
    await c.apply('call.queued', { attentionLineId: theirs.lineId, path: [] });
    await c.apply('call.connected', { agentId: theirs.agent.userId });
    const conversationId = await conversationOf(c.callId);

    for (const method of ['post', 'patch', 'delete'] as const)
      expect((await monitor(method, conversationId, ours.supervisor, method === 'delete' ? undefined : { mode: 'listen' })).status).toBe(
        404,
      );
    expect((await monitor('post', randomUUID(), ours.supervisor, { mode: 'listen' })).status).toBe(404);

    // Their supervisor's softphone did not answer: the call is free to monitor again.
    expect((await monitor('post', conversationId, theirs.supervisor, { mode: 'barge' })).status).toBe(200);
    await c.apply('call.monitor', { supervisorId: theirs.supervisor.userId, state: 'failed', mode: 'barge', reason: 'noAnswer' });
    expect(await notes(conversationId)).toEqual([expect.stringContaining('could not start (noAnswer)')]);
    expect((await monitor('post', conversationId, theirs.supervisor, { mode: 'listen' })).status).toBe(200);
  });
});
