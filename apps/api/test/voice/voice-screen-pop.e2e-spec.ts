import { randomUUID } from 'node:crypto';
import type { Envelope, VoiceCallEvent, VoiceScreenPop } from '@centralita/contracts';
import type { VoiceCallView } from '../../src/modules/voice/voice-calls.service';
import { VoiceEventsService } from '../../src/modules/voice/voice-events.service';
import { createStaff, createTenant, data, type StaffMember } from '../support/realtime';
import type { TestTenant } from '../support/factories';
import { bearer, type TestApp } from '../support/test-app';
import { createIvr, createPhoneLine, createTrunk, startVoiceTestApp, type VoiceTestApp } from './support/voice-test-app';

/**
 * The screen pop of a ringing inbound call (GET /api/voice/conversations/:id/screen-pop): the worker's events applied as
 * the queue consumer applies them; the pop shows the walk with the key that left the IVR, the line, the wait and the
 * caller's contact (a named phone contact keeps its name across calls), to the assigned agent and supervisors only.
 */
type EventBody<T extends VoiceCallEvent['type']> = Omit<
  Extract<VoiceCallEvent, { type: T }>,
  'callId' | 'tenantId' | 'seq' | 'at' | 'type'
>;

describe('inbound call screen pop (e2e)', () => {
  let voice: VoiceTestApp;
  let t: TestApp;

  beforeAll(async () => {
    // Nobody is offered the caller: the test assigns the conversation itself.
    voice = await startVoiceTestApp('voicepop', { connectEnabled: false });
    t = voice.t;
  });

  afterAll(() => voice?.close());

  async function phoneTenant() {
    const tenant = await createTenant(t.dataSource);
    const lineName = `Ventas ${randomUUID().slice(0, 6)}`;
    const lineId = await createPhoneLine(t, tenant, lineName);
    const trunkId = await createTrunk(t, tenant);
    const ivrId = await createIvr(t, tenant);
    const agent = await createStaff(t, tenant, 'AGENT', [lineId]);
    const colleague = await createStaff(t, tenant, 'AGENT', [lineId]);
    const supervisor = await createStaff(t, tenant, 'SUPER');
    return { tenant, lineId, lineName, trunkId, ivrId, agent, colleague, supervisor };
  }

  /** One call's events, numbered as the worker numbers them, applied in order. */
  function call(tenant: TestTenant) {
    const callId = randomUUID();
    let seq = 0;
    return {
      callId,
      apply: async <T extends VoiceCallEvent['type']>(type: T, body: EventBody<T>, at = Date.now()) => {
        const event = { type, callId, tenantId: tenant.client.id, seq: ++seq, at, ...body } as unknown as VoiceCallEvent;
        expect(await t.app.get(VoiceEventsService).apply(event)).toBe('ready');
      },
    };
  }

  const conversationOf = async (callId: string) =>
    ((await t.dataSource.query(`SELECT conversation_id FROM voice_calls WHERE id = $1`, [callId])) as { conversation_id: string }[])[0]!
      .conversation_id;
  const history = async (conversationId: string) =>
    (
      (await t.dataSource.query(`SELECT text FROM messages WHERE conversation_id = $1 AND sender_kind = 'system' ORDER BY sequence`, [
        conversationId,
      ])) as { text: string }[]
    ).map((row) => row.text);
  const pop = (conversationId: string, who: StaffMember) =>
    t.http().get(`/api/voice/conversations/${conversationId}/screen-pop`).set(bearer(who.token));

  it('shows the assigned agent the number, line, IVR path with the exit key, wait and the named contact', async () => {
    const { tenant, lineId, lineName, trunkId, ivrId, agent, colleague, supervisor } = await phoneTenant();
    const number = `+3466${String(Date.now()).slice(-7)}`;
    await t.dataSource.query(
      `INSERT INTO contacts (tenant_id, channel, channel_account_id, external_id, name) VALUES ($1, 'phone', 'pstn', $2, 'Marta Ruiz')`,
      [tenant.client.id, number],
    );
    const c = call(tenant);
    const queuedAt = Date.now() - 42_000;
    await c.apply('call.started', { trunkId, from: number, to: '+34910000000', ivrId }, queuedAt - 10_000);
    await c.apply('ivr.step', { ivrId, nodeId: 'n1', nodeName: 'Menú principal', digit: null });
    await c.apply('ivr.step', { ivrId, nodeId: 'n2', nodeName: 'Comercial', digit: '2' });
    await c.apply(
      'call.queued',
      { attentionLineId: lineId, path: ['Menú principal', 'Comercial'], exit: { digit: '1', label: null } },
      queuedAt,
    );
    const conversationId = await conversationOf(c.callId);
    await t.dataSource.query(`UPDATE conversations SET agent_id = $2 WHERE id = $1`, [conversationId, agent.userId]);

    const shown = data<VoiceScreenPop>(await pop(conversationId, agent));
    expect(shown).toMatchObject({
      callId: c.callId,
      conversationId,
      from: number,
      to: '+34910000000',
      lineId,
      lineName,
      ivrPath: [
        { name: 'Menú principal', digit: null },
        { name: 'Comercial', digit: '2' },
        { name: lineName, digit: '1' },
      ],
      queuedAt: new Date(queuedAt).toISOString(),
      contact: { name: 'Marta Ruiz', externalId: number },
    });
    // A supervisor sees it too; a colleague the call was not given to, and another tenant, do not.
    expect(data<VoiceScreenPop>(await pop(conversationId, supervisor)).callId).toBe(c.callId);
    expect((await pop(conversationId, colleague)).status).toBe(404);
    const other = await phoneTenant();
    expect((await pop(conversationId, other.supervisor)).status).toBe(404);
    expect((await pop(randomUUID(), agent)).status).toBe(404);
    expect((await pop('not-an-id', agent)).status).toBe(400);

    // The conversation's history has the exit key too, after the nodes' lines.
    expect((await history(conversationId)).slice(1)).toEqual([
      'IVR: Menú principal',
      'IVR: Comercial (tecla 2)',
      `IVR: ${lineName} (tecla 1)`,
    ]);

    // The supervisor's call view keeps listing the nodes walked only.
    const view = await t.http().get(`/api/voice/conversations/${conversationId}/call`).set(bearer(supervisor.token));
    expect((view.body as Envelope<VoiceCallView>).data!.ivrPath.map((step) => step.nodeName)).toEqual(['Menú principal', 'Comercial']);
  });

  it('names the exit by the option label, and shows no IVR path for a number that goes straight to a line', async () => {
    const { tenant, lineId, trunkId, ivrId, agent } = await phoneTenant();
    const labelled = call(tenant);
    await labelled.apply('call.started', { trunkId, from: '+34 600 000 001', to: '+34910000001', ivrId });
    await labelled.apply('ivr.step', { ivrId, nodeId: 'n1', nodeName: 'Menu', digit: null });
    await labelled.apply('call.queued', { attentionLineId: lineId, path: ['Menu'], exit: { digit: '3', label: 'Facturas' } });
    const first = await conversationOf(labelled.callId);
    await t.dataSource.query(`UPDATE conversations SET agent_id = $2 WHERE id = $1`, [first, agent.userId]);
    expect(data<VoiceScreenPop>(await pop(first, agent)).ivrPath).toEqual([
      { name: 'Menu', digit: null },
      { name: 'Facturas', digit: '3' },
    ]);
    // The intake's contact for a new number is named after the number.
    expect(data<VoiceScreenPop>(await pop(first, agent)).contact).toMatchObject({ name: '+34600000001', externalId: '+34600000001' });

    const direct = call(tenant);
    await direct.apply('call.started', { trunkId, from: '+34 600 000 002', to: '+34910000002', ivrId: null });
    await direct.apply('call.queued', { attentionLineId: lineId, path: [] });
    const second = await conversationOf(direct.callId);
    await t.dataSource.query(`UPDATE conversations SET agent_id = $2 WHERE id = $1`, [second, agent.userId]);
    expect(data<VoiceScreenPop>(await pop(second, agent))).toMatchObject({ ivrPath: [], from: '+34 600 000 002' });
    expect(await history(first)).toContain('IVR: Facturas (tecla 3)');
    expect((await history(second)).filter((text) => text.startsWith('IVR'))).toEqual([]);
  });
});
