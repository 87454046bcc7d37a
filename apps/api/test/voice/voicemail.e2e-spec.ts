import { randomUUID } from 'node:crypto';
import type { VoiceCallEvent, VoiceRecordingView } from '@centralita/contracts';
import type { Queue } from 'bullmq';
import { eventually } from '../../../../test/support/eventually';
import { wav } from '../../../../test/support/wav';
import { createStaff, createTenant } from '../support/realtime';
import { bearer, type TestApp } from '../support/test-app';
import {
  binary,
  createPhoneLine,
  createTrunk,
  englishTenant,
  postCallEvents,
  startVoiceTestApp,
  storeRecording,
  type VoiceTestApp,
} from './support/voice-test-app';

/**
 * The IVR's voicemail destination through the API (issue 22 item 1): the worker's call.voicemail, call.ended
 * {reason: 'voicemail'} and call.recorded {kind: 'voicemail'}, posted on the real voice-call-events queue, close the
 * caller's phone conversation on the voicemail's line with the 'voicemail' reason (not an abandon), write "Voicemail
 * left (N s)" in its history, and list the message as a voicemail recording that plays; the conversations report
 * finds it with its voicemail filter.
 */
describe('IVR voicemail: the conversation closes with the voicemail and the message plays (e2e)', () => {
  let voice: VoiceTestApp;
  let t: TestApp;
  let events: Queue<VoiceCallEvent>;

  beforeAll(async () => {
    voice = await startVoiceTestApp('voicemail');
    ({ t, events } = voice);
  });

  afterAll(() => voice?.close());

  /** Posts one call's events as the worker does and waits until the API applied them all. */
  async function call(tenantId: string, bodies: Record<string, unknown>[]): Promise<{ callId: string; conversationId: string }> {
    const callId = randomUUID();
    const list = bodies.map((body, index) => ({ callId, tenantId, seq: index + 1, at: Date.now(), ...body }) as unknown as VoiceCallEvent);
    return { callId, conversationId: await postCallEvents(voice, list) };
  }

  it('closes the conversation on the voicemail line with the voicemail result, and plays the message as a voicemail', async () => {
    const tenant = await createTenant(t.dataSource);
    const tenantId = tenant.client.id;
    await englishTenant(t, tenant);
    // The IVR's calls enter on the first phone line; the voicemail belongs to another one.
    const entryLine = await createPhoneLine(t, tenant, `Entry ${randomUUID().slice(0, 6)}`);
    const voicemailLine = await createPhoneLine(t, tenant, `Sales ${randomUUID().slice(0, 6)}`);
    await t.dataSource.query(`UPDATE attention_lines SET created_at = created_at - interval '1 hour' WHERE id = $1`, [entryLine]);
    const trunkId = await createTrunk(t, tenant);
    const supervisor = await createStaff(t, tenant, 'SUPER');
    await createStaff(t, tenant, 'AGENT', [voicemailLine]);

    const bytes = wav(4.2);
    const fileId = await storeRecording(voice, tenantId, bytes);
    const ivrId = randomUUID();
    const started = { type: 'call.started', trunkId, from: '+34600111222', to: '+34910000999', ivrId };
    const { callId, conversationId } = await call(tenantId, [
      started,
      { type: 'ivr.step', ivrId, nodeId: 'main', nodeName: 'Main menu', digit: null },
      { type: 'call.voicemail', attentionLineId: voicemailLine, path: ['Main menu'] },
      { type: 'call.ended', by: 'caller', reason: 'voicemail' },
      { type: 'call.recorded', fileId, durationMs: 4200, agentId: null, kind: 'voicemail' },
    ]);
    expect(conversationId).toBeTruthy();

    // Closed, on the voicemail's line, with the voicemail reason: no abandon anywhere.
    const [conversation] = (await t.dataSource.query(
      `SELECT status, attention_line_id, snapshot->'context'->>'closeReason' AS reason FROM conversations WHERE id = $1`,
      [conversationId],
    )) as { status: string; attention_line_id: string; reason: string }[];
    expect(conversation).toEqual({ status: 'Closed', attention_line_id: voicemailLine, reason: 'voicemail' });
    const [voiceCall] = (await t.dataSource.query(`SELECT stage, end_reason, abandon_stage, ended_by FROM voice_calls WHERE id = $1`, [
      callId,
    ])) as Record<string, unknown>[];
    expect(voiceCall).toEqual({ stage: 'ended', end_reason: 'voicemail', abandon_stage: null, ended_by: 'caller' });
    const abandons = (await t.dataSource.query(
      `SELECT count(*)::int AS n FROM transition_log WHERE entity_id = $1 AND event = 'conversation.abandoned'`,
      [conversationId],
    )) as { n: number }[];
    expect(abandons[0]!.n).toBe(0);

    // The history says it in the tenant's language, with the message's length.
    const texts = (
      (await t.dataSource.query(`SELECT text FROM messages WHERE conversation_id = $1 ORDER BY sequence`, [conversationId])) as {
        text: string;
      }[]
    ).map((row) => row.text);
    expect(texts).toContain('Voicemail left (4 s)');
    expect(texts.some((text) => text.startsWith('Call ended'))).toBe(false);

    // Listed as a voicemail (no agent) and playable from the conversation detail.
    const listed = (await t.http().get(`/api/voice/conversations/${conversationId}/recordings`).set(bearer(supervisor.token)).expect(200))
      .body.data as VoiceRecordingView[];
    expect(listed).toEqual([expect.objectContaining({ callId, kind: 'voicemail', agentId: null, durationMs: 4200, from: '+34600111222' })]);
    const audio = await t.http().get(listed[0]!.url).buffer(true).parse(binary).expect(200);
    expect(audio.headers['content-type']).toBe('audio/wav');
    expect(Buffer.compare(audio.body as Buffer, bytes)).toBe(0);

    // The conversations report finds it with the voicemail filter; a call abandoned in the same IVR is not a voicemail.
    const abandoned = await call(tenantId, [
      { ...started, from: '+34600333444' },
      { type: 'call.abandoned', stage: 'ivr' },
    ]);
    const window = { from: new Date(Date.now() - 3_600_000).toISOString(), to: new Date(Date.now() + 3_600_000).toISOString() };
    const report = async (query: Record<string, string>) =>
      (
        (
          await t
            .http()
            .get('/api/reports/conversations')
            .query({ ...window, ...query })
            .set(bearer(supervisor.token))
            .expect(200)
        ).body.data.items as { id: string; line: string }[]
      ).map((row) => row.id);
    expect(await report({ voicemail: 'true' })).toEqual([conversationId]);
    expect(await report({ voicemail: 'true', attentionLineId: voicemailLine })).toEqual([conversationId]);
    expect(await report({ voicemail: 'true', attentionLineId: entryLine })).toEqual([]);
    expect((await report({})).sort()).toEqual([conversationId, abandoned.conversationId].sort());
    await t
      .http()
      .get('/api/reports/conversations')
      .query({ ...window, voicemail: 'maybe' })
      .set(bearer(supervisor.token))
      .expect(400);
  });

  it('refuses a recording event of an unknown kind, and links nothing', async () => {
    const tenant = await createTenant(t.dataSource);
    const fileId = await storeRecording(voice, tenant.client.id, wav(0.2));
    const callId = randomUUID();
    const bad = { callId, tenantId: tenant.client.id, seq: 1, at: Date.now(), type: 'call.recorded', fileId, durationMs: 200 };
    const refused = await events.add('call.recorded', { ...bad, agentId: null, kind: 'music' } as unknown as VoiceCallEvent, {
      jobId: `voice.${callId}.1`,
    });
    await eventually(async () => expect(await refused.getState()).toMatch(/completed|failed/));
    const rows = (await t.dataSource.query(`SELECT id FROM voice_recordings WHERE file_id = $1`, [fileId])) as unknown[];
    expect(rows).toEqual([]);
  });
});
