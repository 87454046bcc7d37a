import { randomUUID } from 'node:crypto';
import { type VoiceCallEvent, type VoiceCommand } from '@centralita/contracts';
import type { Queue } from 'bullmq';
import { eventually } from '../../../../test/support/eventually';
import { MachineHostService } from '../../src/modules/machine-host/machine-host.service';
import { RoutingService } from '../../src/modules/routing/routing.service';
import type { TestTenant } from '../support/factories';
import { bearer, type TestApp } from '../support/test-app';
import { CONSULT_PENDING_SECONDS } from '../../src/modules/voice/voice-consult.service';
import { createPhoneLine, createPhoneTenant, createSoftphoneAgent, startVoiceTestApp, type VoiceTestApp } from './support/voice-test-app';

/**
 * Attended (consultative) transfer of a connected phone conversation (issue #22 item 2): the connected agent's
 * POST /api/voice/conversations/:id/transfer/consult (a colleague or a line's longest-ready agent) sends the worker
 * `consult`; …/complete sends `consult.complete`; DELETE sends `consult.cancel`. The worker's consultation events,
 * posted on the real `voice-call-events` queue as the voice server posts them, move presence (the consulted agent is
 * in a call from their answer), and on completion the conversation is transferred to the consulted agent by the
 * machine (no `release`, no `connect`) and the first agent goes to after-call work; a cancel changes nothing else.
 */
type Event = VoiceCallEvent;
type EventBody<T extends Event['type']> = Omit<Extract<Event, { type: T }>, 'callId' | 'tenantId' | 'seq' | 'at' | 'type'>;

describe('inbound voice: attended transfer of a connected call (e2e)', () => {
  let t: TestApp;
  let events: Queue<Event>;
  let commands: Queue<VoiceCommand>;
  let voice: VoiceTestApp;

  beforeAll(async () => {
    voice = await startVoiceTestApp('consult', { afterCallWorkSeconds: 60 });
    ({ t, events, commands } = voice);
  });

  afterAll(() => voice?.close());

  const tokens = new Map<string, string>();

  /** An agent with a softphone (auth user `user`), logged in and available, serving `lineId`. */
  async function agent(tenant: TestTenant, lineId: string, user: string, capacity = 3): Promise<string> {
    const staff = await createSoftphoneAgent(t, tenant, lineId, { extension: () => user, capacity });
    tokens.set(staff.userId, staff.token);
    return staff.userId;
  }

  const phoneTenant = () => createPhoneTenant(t);

  function call(tenantId: string, callId = randomUUID()) {
    let seq = 0;
    return {
      callId,
      post: async <T extends Event['type']>(type: T, body: EventBody<T>) => {
        const event = { type, callId, tenantId, seq: ++seq, at: Date.now(), ...body } as unknown as Event;
        await events.add(event.type, event, { jobId: `voice.${event.callId}.${event.seq}`, attempts: 5 });
        await eventually(async () => expect(await callRow(callId)).toMatchObject({ last_seq: event.seq }));
      },
    };
  }

  const callRow = async (callId: string) =>
    ((await t.dataSource.query(`SELECT * FROM voice_calls WHERE id = $1`, [callId])) as Record<string, unknown>[])[0];
  const conversation = async (id: string) =>
    (
      (await t.dataSource.query(`SELECT status, agent_id, attention_line_id FROM conversations WHERE id = $1`, [id])) as {
        status: string;
        agent_id: string | null;
        attention_line_id: string | null;
      }[]
    )[0];
  const activeConversations = async (agentId: string) =>
    (
      (await t.dataSource.query(`SELECT snapshot FROM agent_presence WHERE user_id = $1`, [agentId])) as {
        snapshot: { context: { activeConversationIds: string[] } };
      }[]
    )[0]?.snapshot.context.activeConversationIds;
  const status = async (agentId: string) =>
    ((await t.dataSource.query(`SELECT status FROM agent_presence WHERE user_id = $1`, [agentId])) as { status: string }[])[0]?.status;
  /** The worker's commands of the call, oldest first, as `type agentId`. */
  const commandsOf = async (callId: string) =>
    (await commands.getJobs(['waiting', 'delayed', 'active', 'completed', 'failed']))
      .filter((job) => job.data.callId === callId)
      .sort((a, b) => a.timestamp - b.timestamp || Number(a.id) - Number(b.id))
      .map((job) => job.data);
  const summary = (list: VoiceCommand[]) => list.map((command) => `${command.type} ${'agentId' in command ? command.agentId : ''}`.trim());

  /** A caller queued on `lineId`, connected to `agentId` (the only agent there), who is now in call. */
  async function connectedCall(tenant: TestTenant, trunkId: string, lineId: string, agentId: string) {
    const c = call(tenant.client.id);
    await c.post('call.started', { trunkId, from: '+34611555666', to: '+34910000000', ivrId: null });
    await c.post('call.queued', { attentionLineId: lineId, path: [] });
    await eventually(async () => expect(summary(await commandsOf(c.callId))).toEqual([`connect ${agentId}`]));
    await c.post('call.connected', { agentId });
    expect(await status(agentId)).toBe('inCall');
    const conversationId = (await callRow(c.callId)).conversation_id as string;
    return { c, conversationId };
  }

  const consult = (method: 'get' | 'post' | 'delete', conversationId: string, agentId: string, body?: object, complete = false) => {
    const request = t.http()[method](`/api/voice/conversations/${conversationId}/transfer/consult${complete ? '/complete' : ''}`);
    return (body ? request.send(body) : request).set(bearer(tokens.get(agentId)!));
  };
  const messageKey = (response: { body: unknown }) => (response.body as { data?: { messageKey?: string } }).data?.messageKey;
  const history = async (conversationId: string) =>
    (
      (await t.dataSource.query(`SELECT text FROM messages WHERE conversation_id = $1 AND sender_kind = 'system' ORDER BY sequence`, [
        conversationId,
      ])) as { text: string }[]
    ).map((row) => row.text);
  const names = async (...ids: string[]) =>
    (await t.dataSource.query(`SELECT name FROM users WHERE id = ANY($1::uuid[]) ORDER BY array_position($1::uuid[], id)`, [ids])).map(
      (row: { name: string }) => row.name,
    ) as string[];

  it('consults a colleague, refuses what the state does not allow, and completes: the conversation and the call go to the colleague', async () => {
    const { tenant, lineId, trunkId } = await phoneTenant();
    const ana = await agent(tenant, lineId, 'ana');
    const { c, conversationId } = await connectedCall(tenant, trunkId, lineId, ana);
    const bea = await agent(tenant, lineId, 'bea');
    const [anaName, beaName] = await names(ana, bea);

    // Only the connected agent consults; a complete before any consultation is refused.
    expect(messageKey(await consult('post', conversationId, bea, { agentId: ana }))).toBe('consultNotConnected');
    const early = await consult('post', conversationId, ana, undefined, true);
    expect(early.status).toBe(409);
    expect(messageKey(early)).toBe('consultNotActive');
    expect((await consult('post', conversationId, ana, { agentId: bea, attentionLineId: lineId })).status).toBe(400);

    const started = await consult('post', conversationId, ana, { agentId: bea });
    expect(started.status).toBe(200);
    expect(started.body.data).toEqual({ callId: c.callId, agentId: bea, agentName: beaName, state: 'ringing' });
    await eventually(async () =>
      expect((await commandsOf(c.callId)).find((command) => command.type === 'consult')).toEqual({
        type: 'consult',
        tenantId: tenant.client.id,
        callId: c.callId,
        conversationId,
        fromAgentId: ana,
        agentId: bea,
        agentSipUri: 'sip:bea@voice.test',
      }),
    );
    const again = await consult('post', conversationId, ana, { agentId: bea });
    expect(again.status).toBe(409);
    expect(messageKey(again)).toBe('consultInProgress');
    expect(messageKey(await consult('post', conversationId, ana, undefined, true))).toBe('consultNotActive');

    await c.post('call.consultRinging', { agentId: bea, fromAgentId: ana });
    // Held for the consultation from the ring (consult-followups.e2e below: routing offers her nothing).
    expect(await status(bea)).toBe('inCall');
    await c.post('call.consultConnected', { agentId: bea, fromAgentId: ana });
    // Both agents are on the phone during the consultation; the conversation is still Ana's.
    expect(await status(bea)).toBe('inCall');
    expect(await status(ana)).toBe('inCall');
    expect(await conversation(conversationId)).toMatchObject({ status: 'Active', agent_id: ana });
    expect((await consult('get', conversationId, ana)).body.data).toEqual({
      callId: c.callId,
      agentId: bea,
      agentName: beaName,
      state: 'active',
    });

    const completed = await consult('post', conversationId, ana, undefined, true);
    expect(completed.status).toBe(200);
    expect(completed.body.data).toMatchObject({ agentId: bea, state: 'completing' });
    await eventually(async () =>
      expect(summary(await commandsOf(c.callId))).toEqual([`connect ${ana}`, `consult ${bea}`, `consult.complete ${bea}`]),
    );
    await c.post('call.consultCompleted', { agentId: bea, fromAgentId: ana });
    expect(await conversation(conversationId)).toMatchObject({ status: 'Active', agent_id: bea });
    expect(await callRow(c.callId)).toMatchObject({ stage: 'connected', agent_id: bea, consult_agent_id: null, consult_state: null });
    expect(await status(ana)).toBe('afterCallWork');
    expect(await status(bea)).toBe('inCall');
    // Her slot is booked for the conversation she took (during her call).
    expect(await activeConversations(bea)).toEqual([conversationId]);
    // The machine's transfer sent neither `release` nor `connect`: the worker has already bridged the caller to Bea.
    expect(summary(await commandsOf(c.callId))).toEqual([`connect ${ana}`, `consult ${bea}`, `consult.complete ${bea}`]);
    const lines = await history(conversationId);
    expect(lines).toContain(`${anaName} is consulting ${beaName}: the caller is on hold`);
    expect(lines).toContain(`${beaName} answered the consultation from ${anaName}`);
    expect(lines).toContain(`${anaName} transferred the call to ${beaName} after consulting them`);
    // Now Bea's call: Ana can no longer consult on it.
    expect(messageKey(await consult('post', conversationId, ana, { agentId: bea }))).toBe('consultNotConnected');

    await c.post('call.ended', { by: 'agent', reason: 'hangUp' });
    expect(await status(bea)).toBe('afterCallWork');
  });

  it('consults a line’s ready agent and cancels: the consulted agent is hung up, the call stays with the first agent; a refusal is a history line', async () => {
    const { tenant, lineId, trunkId } = await phoneTenant();
    const ana = await agent(tenant, lineId, 'ana2');
    const { c, conversationId } = await connectedCall(tenant, trunkId, lineId, ana);
    const otherLine = await createPhoneLine(t, tenant);
    // Nobody ready on the other line yet.
    const nobody = await consult('post', conversationId, ana, { attentionLineId: otherLine });
    expect(nobody.status).toBe(409);
    expect(messageKey(nobody)).toBe('consultTargetUnavailable');
    const carla = await agent(tenant, otherLine, 'carla');
    const [anaName, carlaName] = await names(ana, carla);

    const started = await consult('post', conversationId, ana, { attentionLineId: otherLine });
    expect(started.status).toBe(200);
    expect(started.body.data).toMatchObject({ agentId: carla, state: 'ringing' });
    await c.post('call.consultRinging', { agentId: carla, fromAgentId: ana });
    await c.post('call.consultConnected', { agentId: carla, fromAgentId: ana });
    expect(await status(carla)).toBe('inCall');

    const cancelled = await consult('delete', conversationId, ana);
    expect(cancelled.status).toBe(200);
    expect(cancelled.body.data).toMatchObject({ agentId: carla, state: 'cancelling' });
    await eventually(async () =>
      expect(summary(await commandsOf(c.callId))).toEqual([`connect ${ana}`, `consult ${carla}`, `consult.cancel ${carla}`]),
    );
    expect(messageKey(await consult('delete', conversationId, ana))).toBe('consultNotActive');
    await c.post('call.consultCancelled', { agentId: carla, fromAgentId: ana, reason: 'cancelled' });
    // Nothing changed for the conversation and the call; the consulted agent's call ended.
    expect(await conversation(conversationId)).toMatchObject({ status: 'Active', agent_id: ana });
    expect(await callRow(c.callId)).toMatchObject({ stage: 'connected', agent_id: ana, consult_agent_id: null, consult_state: null });
    expect(await status(ana)).toBe('inCall');
    expect(await status(carla)).toBe('afterCallWork');
    expect(await history(conversationId)).toContain(
      `Consultation with ${carlaName} ended without a transfer: the call stays with ${anaName}`,
    );

    // A colleague whose phone is busy: the consultation is over, the call still Ana's, and she may consult again.
    const dora = await agent(tenant, lineId, 'dora');
    const [doraName] = await names(dora);
    expect((await consult('post', conversationId, ana, { agentId: dora })).status).toBe(200);
    await c.post('call.consultRinging', { agentId: dora, fromAgentId: ana });
    await c.post('call.consultFailed', { agentId: dora, fromAgentId: ana, reason: 'busy' });
    expect(await callRow(c.callId)).toMatchObject({ agent_id: ana, consult_agent_id: null, consult_state: null });
    // Never answered: released straight back to ready (no after-call work).
    expect(await status(dora)).toBe('available');
    expect(await history(conversationId)).toContain(`${doraName} could not be consulted (busy): the call stays with ${anaName}`);
    expect((await consult('get', conversationId, ana)).body.data).toEqual({
      callId: c.callId,
      agentId: null,
      agentName: null,
      state: null,
    });

    // The call ends before the worker had the consultation (no consultation event): Dora, held since the ring, is released.
    expect((await consult('post', conversationId, ana, { agentId: dora })).status).toBe(200);
    expect(await status(dora)).toBe('inCall');
    await c.post('call.ended', { by: 'caller', reason: 'hangUp' });
    expect(await callRow(c.callId)).toMatchObject({ stage: 'ended', consult_agent_id: null, consult_state: null });
    expect(await status(dora)).toBe('available');
    expect(await status(ana)).toBe('afterCallWork');
  });

  it('refuses a text in a phone conversation (409 phoneNoText, nothing stored, the agent still in call): the caller reads no text', async () => {
    const { tenant, lineId, trunkId } = await phoneTenant();
    const ana = await agent(tenant, lineId, 'ana7');
    const { conversationId } = await connectedCall(tenant, trunkId, lineId, ana);
    const stored = async () =>
      (
        (await t.dataSource.query(`SELECT count(*)::int AS n FROM messages WHERE conversation_id = $1 AND sender_kind = 'agent'`, [
          conversationId,
        ])) as { n: number }[]
      )[0]!.n;

    const refused = await t
      .http()
      .post(`/api/agent/conversations/${conversationId}/messages`)
      .set(bearer(tokens.get(ana)!))
      .send({ text: 'Hola, ¿me oye?', clientMessageId: randomUUID() });
    expect(refused.status).toBe(409);
    expect(messageKey(refused)).toBe('phoneNoText');
    expect(await stored()).toBe(0);
    expect(await conversation(conversationId)).toMatchObject({ status: 'Active', agent_id: ana });
    expect(await status(ana)).toBe('inCall');
  });

  it('holds the consulted agent from the ring: routing offers them no other call, and a failed ring releases them to ready', async () => {
    const { tenant, lineId, trunkId } = await phoneTenant();
    const ana = await agent(tenant, lineId, 'ana4');
    const { c, conversationId } = await connectedCall(tenant, trunkId, lineId, ana);
    const bea = await agent(tenant, lineId, 'bea4');
    expect((await consult('post', conversationId, ana, { agentId: bea })).status).toBe(200);
    expect(await status(bea)).toBe('inCall');

    // A second caller queued on the line Bea serves (she and Ana are its only agents): nobody is offered it.
    const second = call(tenant.client.id);
    await second.post('call.started', { trunkId, from: '+34611555777', to: '+34910000000', ivrId: null });
    await second.post('call.queued', { attentionLineId: lineId, path: [] });
    const secondConversation = (await callRow(second.callId)).conversation_id as string;
    await t.app.get(RoutingService).routeLine(lineId);
    expect(await conversation(secondConversation)).toMatchObject({ status: 'LiningUp', agent_id: null });
    expect(summary(await commandsOf(second.callId))).toEqual([]);

    // Her phone did not answer: she is ready again at once, and routing gives her the waiting call.
    await c.post('call.consultRinging', { agentId: bea, fromAgentId: ana });
    await c.post('call.consultFailed', { agentId: bea, fromAgentId: ana, reason: 'noAnswer' });
    expect(await callRow(c.callId)).toMatchObject({ agent_id: ana, consult_agent_id: null, consult_state: null });
    await eventually(async () => expect(summary(await commandsOf(second.callId))).toEqual([`connect ${bea}`]));
    expect(await status(ana)).toBe('inCall');
  });

  it('refuses to complete (409 consultTargetFull, no command) while the consulted agent has no room for the conversation', async () => {
    const { tenant, lineId, trunkId } = await phoneTenant();
    const ana = await agent(tenant, lineId, 'ana5');
    const { c, conversationId } = await connectedCall(tenant, trunkId, lineId, ana);
    const bea = await agent(tenant, lineId, 'bea5', 1);
    expect((await consult('post', conversationId, ana, { agentId: bea })).status).toBe(200);
    await c.post('call.consultConnected', { agentId: bea, fromAgentId: ana });
    // Bea (one conversation at most) is given a chat during the consultation (a line allowing chats during calls).
    const chat = randomUUID();
    const host = t.app.get(MachineHostService);
    const step = (input: { type: 'agent.conversationAssigned'; duringCall: true } | { type: 'agent.conversationReleased' }) =>
      host.transaction(async (manager, outbox) => {
        outbox.push(...(await host.dispatchAgent(manager, bea, { ...input, conversationId: chat }, { kind: 'system' })).outboxIds);
      });
    await step({ type: 'agent.conversationAssigned', duringCall: true });

    const full = await consult('post', conversationId, ana, undefined, true);
    expect(full.status).toBe(409);
    expect(messageKey(full)).toBe('consultTargetFull');
    expect(await callRow(c.callId)).toMatchObject({ agent_id: ana, consult_agent_id: bea, consult_state: 'active' });
    expect(summary(await commandsOf(c.callId))).toEqual([`connect ${ana}`, `consult ${bea}`]);

    // Her chat closed: the transfer completes and the conversation is counted in her slot.
    await step({ type: 'agent.conversationReleased' });
    expect((await consult('post', conversationId, ana, undefined, true)).status).toBe(200);
    await c.post('call.consultCompleted', { agentId: bea, fromAgentId: ana });
    expect(await conversation(conversationId)).toMatchObject({ status: 'Active', agent_id: bea });
    expect(await activeConversations(bea)).toEqual([conversationId]);
  });

  it('puts a completing or cancelling consultation the worker never answered back to its last state after the deadline', async () => {
    const { tenant, lineId, trunkId } = await phoneTenant();
    const ana = await agent(tenant, lineId, 'ana6');
    const { c, conversationId } = await connectedCall(tenant, trunkId, lineId, ana);
    const bea = await agent(tenant, lineId, 'bea6');
    const stale = () =>
      t.dataSource.query(`UPDATE voice_calls SET updated_at = now() - make_interval(secs => $2) WHERE id = $1`, [
        c.callId,
        CONSULT_PENDING_SECONDS + 5,
      ]);
    const state = async () => ((await consult('get', conversationId, ana)).body.data as { state: string | null }).state;

    // Cancelled while ringing, no answer from the worker: `cancelling` until the deadline, then `ringing` again.
    expect((await consult('post', conversationId, ana, { agentId: bea })).status).toBe(200);
    expect((await consult('delete', conversationId, ana)).status).toBe(200);
    expect(await state()).toBe('cancelling');
    expect(messageKey(await consult('delete', conversationId, ana))).toBe('consultNotActive');
    await stale();
    expect(await state()).toBe('ringing');

    // Answered, then completed without an answer: `active` again after the deadline, and the desk may act again.
    await c.post('call.consultConnected', { agentId: bea, fromAgentId: ana });
    expect((await consult('post', conversationId, ana, undefined, true)).status).toBe(200);
    expect(await state()).toBe('completing');
    await stale();
    expect(await state()).toBe('active');
    expect((await consult('delete', conversationId, ana)).status).toBe(200);
    await stale();
    expect(await state()).toBe('active');
    expect((await consult('post', conversationId, ana, undefined, true)).status).toBe(200);
    await eventually(async () =>
      expect(summary(await commandsOf(c.callId))).toEqual([
        `connect ${ana}`,
        `consult ${bea}`,
        `consult.cancel ${bea}`,
        `consult.complete ${bea}`,
        `consult.cancel ${bea}`,
        `consult.complete ${bea}`,
      ]),
    );
    await c.post('call.consultCompleted', { agentId: bea, fromAgentId: ana });
    expect(await callRow(c.callId)).toMatchObject({ agent_id: bea, consult_state: null });
  });

  it('answers 404 for another tenant’s conversation and for an unknown agent', async () => {
    const ours = await phoneTenant();
    const ana = await agent(ours.tenant, ours.lineId, 'ana3');
    const { conversationId } = await connectedCall(ours.tenant, ours.trunkId, ours.lineId, ana);
    const theirs = await phoneTenant();
    const eve = await agent(theirs.tenant, theirs.lineId, 'eve');
    expect((await consult('post', conversationId, eve, { agentId: ana })).status).toBe(404);
    expect((await consult('get', conversationId, eve)).status).toBe(404);
    expect((await consult('delete', conversationId, eve)).status).toBe(404);
    expect((await consult('post', conversationId, eve, undefined, true)).status).toBe(404);
    // Another tenant's agent is no colleague.
    expect((await consult('post', conversationId, ana, { agentId: eve })).status).toBe(404);
    expect((await consult('post', conversationId, ana, { attentionLineId: theirs.lineId })).status).toBe(404);
  });
});
