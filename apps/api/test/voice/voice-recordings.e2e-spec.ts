import { randomUUID } from 'node:crypto';
import { VOICE_RECORDING_MISSING_MESSAGE, type VoiceCallEvent, type VoiceRecordingView } from '@centralita/contracts';
import type { FileStore } from '@centralita/contracts/server';
import { wav as toneWav } from '../../../../test/support/wav';
import { FILE_STORE } from '../../src/modules/files/files.module';
import type { TestTenant } from '../support/factories';
import { createStaff, createTenant, type StaffMember } from '../support/realtime';
import { bearer, type TestApp } from '../support/test-app';
import {
  binary,
  createPhoneLine,
  createTrunk,
  postCallEvents,
  startVoiceTestApp,
  storeRecording,
  type VoiceTestApp,
} from './support/voice-test-app';

/**
 * Call recordings through the API (issue 22 item 3): the worker's call.recorded, posted on the real voice-call-events
 * queue after a stored WAV, links the recording to the call's conversation; staff who may see the conversation list
 * it and play it through a signed URL (Range requests, audio/wav, nosniff) or download it; another tenant gets 404,
 * and audio that is gone answers the spec's message.
 */
type Event = VoiceCallEvent;

/** A small valid stereo WAV whose bytes are all different enough to tell ranges apart (a second tone on the right). */
const wav = (seconds: number) => toneWav(seconds, { rightHz: 1500 });

describe('inbound call recordings: list, play, download (e2e)', () => {
  let voice: VoiceTestApp;
  let t: TestApp;
  let store: FileStore;

  beforeAll(async () => {
    voice = await startVoiceTestApp('voicerec');
    t = voice.t;
    store = t.app.get<FileStore>(FILE_STORE);
  });

  afterAll(() => voice?.close());

  async function phoneTenant(): Promise<{
    tenant: TestTenant;
    lineId: string;
    trunkId: string;
    supervisor: StaffMember;
    agent: StaffMember;
  }> {
    const tenant = await createTenant(t.dataSource);
    const lineId = await createPhoneLine(t, tenant);
    return {
      tenant,
      lineId,
      trunkId: await createTrunk(t, tenant),
      supervisor: await createStaff(t, tenant, 'SUPER'),
      agent: await createStaff(t, tenant, 'AGENT', [lineId]),
    };
  }

  const storeWav = (tenantId: string, bytes: Buffer) => storeRecording(voice, tenantId, bytes);

  /** A connected call that ended and was recorded, as the worker reports it; resolves with its conversation. */
  async function recordedCall(
    setup: Awaited<ReturnType<typeof phoneTenant>>,
    fileId: string,
  ): Promise<{ callId: string; conversationId: string }> {
    const callId = randomUUID();
    const tenantId = setup.tenant.client.id;
    let seq = 0;
    const make = (body: Record<string, unknown>): Event => ({ callId, tenantId, seq: ++seq, at: Date.now(), ...body }) as unknown as Event;
    const list = [
      make({ type: 'call.started', trunkId: setup.trunkId, from: '+34600123456', to: '+34910000000', ivrId: null }),
      make({ type: 'call.queued', attentionLineId: setup.lineId, path: [] }),
      make({ type: 'call.connected', agentId: setup.agent.userId }),
      make({ type: 'call.ended', by: 'caller', reason: 'hangUp' }),
      make({ type: 'call.recorded', fileId, durationMs: 1500, agentId: setup.agent.userId }),
    ];
    return { callId, conversationId: await postCallEvents(voice, list) };
  }

  const list = async (token: string, conversationId: string, status = 200) =>
    (await t.http().get(`/api/voice/conversations/${conversationId}/recordings`).set(bearer(token)).expect(status)).body.data as
      VoiceRecordingView[] | null;

  it('lists the call’s recording for the supervisor, and plays it whole, by range and as a download', async () => {
    const setup = await phoneTenant();
    const bytes = wav(1.5);
    const fileId = await storeWav(setup.tenant.client.id, bytes);
    const { callId, conversationId } = await recordedCall(setup, fileId);

    const [recording] = (await list(setup.supervisor.token, conversationId))!;
    expect(recording).toMatchObject({ callId, conversationId, agentId: setup.agent.userId, from: '+34600123456', durationMs: 1500 });
    expect(recording!.url).toMatch(new RegExp(`^/api/voice/recordings/${recording!.id}/audio\\?t=[^&]+&e=\\d+&s=[\\w-]+$`));
    expect(recording!.downloadUrl).toBe(`${recording!.url}&download=1`);
    // An agent the conversation never reached does not see it (the desk's visibility rule).
    await list(setup.agent.token, conversationId, 404);

    const whole = await t.http().get(recording!.url).buffer(true).parse(binary).expect(200);
    expect(whole.headers['content-type']).toBe('audio/wav');
    expect(whole.headers['x-content-type-options']).toBe('nosniff');
    expect(whole.headers['accept-ranges']).toBe('bytes');
    expect(whole.headers['content-disposition']).toMatch(/^inline; filename="call-recording-/);
    expect(Buffer.compare(whole.body as Buffer, bytes)).toBe(0);

    // What an <audio> element asks while seeking: a middle range, an open-ended one, a suffix; past the end is 416.
    const middle = await t.http().get(recording!.url).set('Range', 'bytes=1000-1999').buffer(true).parse(binary).expect(206);
    expect(middle.headers['content-range']).toBe(`bytes 1000-1999/${bytes.length}`);
    expect(middle.headers['content-length']).toBe('1000');
    expect(Buffer.compare(middle.body as Buffer, bytes.subarray(1000, 2000))).toBe(0);
    const tail = await t
      .http()
      .get(recording!.url)
      .set('Range', `bytes=${bytes.length - 10}-`)
      .buffer(true)
      .parse(binary)
      .expect(206);
    expect(Buffer.compare(tail.body as Buffer, bytes.subarray(bytes.length - 10))).toBe(0);
    const suffix = await t.http().get(recording!.url).set('Range', 'bytes=-44').buffer(true).parse(binary).expect(206);
    expect(Buffer.compare(suffix.body as Buffer, bytes.subarray(bytes.length - 44))).toBe(0);
    const beyond = await t.http().get(recording!.url).set('Range', `bytes=${bytes.length}-`).expect(416);
    expect(beyond.headers['content-range']).toBe(`bytes */${bytes.length}`);

    const download = await t.http().get(recording!.downloadUrl).buffer(true).parse(binary).expect(200);
    expect(download.headers['content-disposition']).toBe(`attachment; filename="call-recording-${recording!.id}.wav"`);

    // The case the conversation is linked to lists it in the conversation's transcript, as audio.
    const made = (
      await t
        .http()
        .post('/api/cases')
        .set(bearer(setup.supervisor.token))
        .send({ subject: 'Call review', description: 'Recorded call', conversationId })
        .expect(200)
    ).body.data as { id: string };
    const transcript = (
      await t.http().get(`/api/cases/${made.id}/conversations/${conversationId}/transcript`).set(bearer(setup.supervisor.token)).expect(200)
    ).body.data as { recordings: { id: string; kind: string; url: string }[] };
    expect(transcript.recordings).toEqual([expect.objectContaining({ id: recording!.id, kind: 'audio' })]);
    await t.http().get(transcript.recordings[0]!.url).expect(200);
  });

  it('answers 404 to another tenant, to a tampered or expired link, and the spec’s message when the audio is gone', async () => {
    const a = await phoneTenant();
    const b = await phoneTenant();
    const fileId = await storeWav(a.tenant.client.id, wav(0.5));
    const { conversationId } = await recordedCall(a, fileId);
    const [recording] = (await list(a.supervisor.token, conversationId))!;

    // Another tenant's supervisor: the conversation does not exist for them.
    await list(b.supervisor.token, conversationId, 404);
    // The link signed for tenant A does not open with tenant B's id, another signature, or once expired.
    await t
      .http()
      .get(recording!.url.replace(`t=${a.tenant.client.id}`, `t=${b.tenant.client.id}`))
      .expect(404);
    await t
      .http()
      .get(recording!.url.replace(/s=[\w-]+$/, 's=AAAA'))
      .expect(404);
    await t
      .http()
      .get(recording!.url.replace(/e=\d+/, `e=${Math.floor(Date.now() / 1000) - 1}`))
      .expect(404);

    // A call.recorded naming another tenant's file links nothing.
    const foreign = await storeWav(b.tenant.client.id, wav(0.2));
    const other = await recordedCall(a, foreign);
    expect(await list(a.supervisor.token, other.conversationId)).toEqual([]);

    // The audio is gone (the retention sweep removes the file, and its row with it): the spec's message, keyed for the console.
    await store.remove(fileId);
    const gone = await t.http().get(recording!.url).expect(404);
    expect(gone.body).toMatchObject({ errorMessage: VOICE_RECORDING_MISSING_MESSAGE, data: { messageKey: 'audioNotFound' } });
    expect(await list(a.supervisor.token, conversationId)).toEqual([]);
  });
});
