import { randomUUID } from 'node:crypto';
import { type VoiceCallEvent, type VoiceCommand } from '@centralita/contracts';
import type { Queue } from 'bullmq';
import { eventually } from '../../../../test/support/eventually';
import type { TestTenant } from '../support/factories';
import { bearer, type TestApp } from '../support/test-app';
import { createPhoneLine, createPhoneTenant, createSoftphoneAgent, startVoiceTestApp, type VoiceTestApp } from './support/voice-test-app';

/**
 * Transfer of a connected phone conversation (issue #22): the desk's transfer (the agent's own POST
 * /api/agent/conversations/:id/transfer) sends the worker `release` for the connected agent (their
 * leg is dropped, the caller waits on hold music) and, to an agent, `connect` for the new one; to a
 * line, routing gives it to that line's agent and sends `connect`. The worker's events, posted on the
 * real `voice-call-events` queue as the voice server posts them, move the agents' presence: the
 * first leaves the call (after-call work) on call.released, the second enters it on call.connected.
 */
type Event = VoiceCallEvent;
type EventBody<T extends Event['type']> = Omit<Extract<Event, { type: T }>, 'callId' | 'tenantId' | 'seq' | 'at' | 'type'>;

describe('inbound voice: transfer of a connected call (e2e)', () => {
  let t: TestApp;
  let events: Queue<Event>;
  let commands: Queue<VoiceCommand>;
  let voice: VoiceTestApp;

  beforeAll(async () => {
    // After-call work long enough to be seen.
    voice = await startVoiceTestApp('transfer', { afterCallWorkSeconds: 60 });
    ({ t, events, commands } = voice);
  });

  afterAll(() => voice?.close());

  const phoneTenant = () => createPhoneTenant(t);

  const tokens = new Map<string, string>();

  /** An agent with a softphone (auth user `user`), logged in and available, serving `lineId`. */
  async function agent(tenant: TestTenant, lineId: string, user: string): Promise<string> {
    const staff = await createSoftphoneAgent(t, tenant, lineId, { extension: () => user });
    tokens.set(staff.userId, staff.token);
    return staff.userId;
  }

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

  it('to another agent: release for the first agent and connect for the second; presence follows the worker’s events', async () => {
    const { tenant, lineId, trunkId } = await phoneTenant();
    const ana = await agent(tenant, lineId, 'ana');
    const { c, conversationId } = await connectedCall(tenant, trunkId, lineId, ana);
    const bea = await agent(tenant, lineId, 'bea');

    const transfer = await t
      .http()
      .post(`/api/agent/conversations/${conversationId}/transfer`)
      .set(bearer(tokens.get(ana)!))
      .send({ agentId: bea });
    expect(transfer.status).toBe(200);
    expect(await conversation(conversationId)).toMatchObject({ status: 'Active', agent_id: bea });
    const sent = await eventually(async () => {
      const list = await commandsOf(c.callId);
      expect(list).toHaveLength(3);
      return list;
    });
    // One transaction writes both; the queue may hold them in either order (the worker releases first either way).
    expect(sent.find((command) => command.type === 'release')).toEqual({
      type: 'release',
      tenantId: tenant.client.id,
      callId: c.callId,
      agentId: ana,
      reason: 'transferred',
    });
    expect(sent.filter((command) => command.type === 'connect')[1]).toEqual({
      type: 'connect',
      tenantId: tenant.client.id,
      callId: c.callId,
      conversationId,
      agentId: bea,
      agentSipUri: 'sip:bea@voice.test',
    });
    // Ana is still on the phone until the worker has dropped her leg.
    expect(await status(ana)).toBe('inCall');

    await c.post('call.released', { agentId: ana, reason: 'transferred' });
    expect(await status(ana)).toBe('afterCallWork');
    expect(await callRow(c.callId)).toMatchObject({ stage: 'queue', agent_id: null, ended_at: null });
    await c.post('call.connected', { agentId: bea });
    expect(await status(bea)).toBe('inCall');
    expect(await callRow(c.callId)).toMatchObject({ stage: 'connected', agent_id: bea });

    // Bea's call ends: her after-call work; the conversation closes with the call; nothing more is sent.
    await c.post('call.ended', { by: 'agent', reason: 'hangUp' });
    expect(await status(bea)).toBe('afterCallWork');
    expect(await conversation(conversationId)).toMatchObject({ status: 'Closed' });
    expect(summary(await commandsOf(c.callId)).sort()).toEqual([`connect ${ana}`, `connect ${bea}`, `release ${ana}`].sort());
  });

  it('to a line: release for the agent, then routing connects the line’s agent; a close sends hangUp, never release', async () => {
    const { tenant, lineId, trunkId } = await phoneTenant();
    const ana = await agent(tenant, lineId, 'ana2');
    const { c, conversationId } = await connectedCall(tenant, trunkId, lineId, ana);
    const otherLine = await createPhoneLine(t, tenant);
    const carla = await agent(tenant, otherLine, 'carla');

    const transfer = await t
      .http()
      .post(`/api/agent/conversations/${conversationId}/transfer`)
      .set(bearer(tokens.get(ana)!))
      .send({ attentionLineId: otherLine });
    expect(transfer.status).toBe(200);
    await eventually(async () =>
      expect(summary(await commandsOf(c.callId))).toEqual([`connect ${ana}`, `release ${ana}`, `connect ${carla}`]),
    );
    expect(await conversation(conversationId)).toMatchObject({ status: 'Active', agent_id: carla, attention_line_id: otherLine });
    await c.post('call.released', { agentId: ana, reason: 'transferred' });
    expect(await status(ana)).toBe('afterCallWork');
    await c.post('call.connected', { agentId: carla });
    expect(await status(carla)).toBe('inCall');

    // Carla closes the conversation while talking: hangUp (the close hook), and no release for her.
    const close = await t
      .http()
      .post(`/api/agent/conversations/${conversationId}/close`)
      .set(bearer(tokens.get(carla)!))
      .send({ disposition: 'resolved' });
    expect(close.status).toBeLessThan(300);
    await eventually(async () =>
      expect(summary(await commandsOf(c.callId))).toEqual([`connect ${ana}`, `release ${ana}`, `connect ${carla}`, 'hangUp']),
    );
  });
});
