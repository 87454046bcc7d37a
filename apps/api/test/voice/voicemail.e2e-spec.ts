import { randomUUID } from 'node:crypto';
import { QUEUES, type VoiceCallEvent, type VoiceRecordingView } from '@centralita/contracts';
import type { FileStore } from '@centralita/contracts/server';
import { Queue } from 'bullmq';
import Redis from 'ioredis';
import type request from 'supertest';
import { eventually } from '../../../../test/support/eventually';
import { FILE_STORE } from '../../src/modules/files/files.module';
import { createLine, createStaff, createTenant } from '../support/realtime';
import { bearer, startTestApp, type TestApp } from '../support/test-app';

/**
 * The IVR's voicemail destination through the API (issue 22 item 1): the worker's call.voicemail, call.ended
 * {reason: 'voicemail'} and call.recorded {kind: 'voicemail'}, posted on the real voice-call-events queue, close the
 * caller's phone conversation on the voicemail's line with the 'voicemail' reason (not an abandon), write "Voicemail
 * left (N s)" in its history, and list the message as a voicemail recording that plays; the conversations report
 * finds it with its voicemail filter.
 */
const PREFIX = `${process.env.QUEUE_PREFIX ?? 'centralita'}-voicemail-${process.pid}`;

const binary: Parameters<request.Test['parse']>[0] = (res, done) => {
  const chunks: Buffer[] = [];
  res.on('data', (chunk: Buffer) => chunks.push(chunk));
  res.on('end', () => done(null, Buffer.concat(chunks)));
};

/** A small stereo 8 kHz WAV: a tone on the left (the caller), silence on the right. */
function wav(seconds: number): Buffer {
  const frames = Math.round(seconds * 8000);
  const header = Buffer.alloc(44);
  header.write('RIFF', 0, 'ascii');
  header.writeUInt32LE(36 + frames * 4, 4);
  header.write('WAVEfmt ', 8, 'ascii');
  header.writeUInt32LE(16, 16);
  header.writeUInt16LE(1, 20);
  header.writeUInt16LE(2, 22);
  header.writeUInt32LE(8000, 24);
  header.writeUInt32LE(32000, 28);
  header.writeUInt16LE(4, 32);
  header.writeUInt16LE(16, 34);
  header.write('data', 36, 'ascii');
  header.writeUInt32LE(frames * 4, 40);
  const pcm = Buffer.alloc(frames * 4);
  for (let index = 0; index < frames; index += 1)
    pcm.writeInt16LE(Math.round(8000 * Math.sin((2 * Math.PI * 700 * index) / 8000)), index * 4);
  return Buffer.concat([header, pcm]);
}

describe('IVR voicemail: the conversation closes with the voicemail and the message plays (e2e)', () => {
  let t: TestApp;
  let redis: Redis;
  let events: Queue<VoiceCallEvent>;
  let store: FileStore;

  beforeAll(async () => {
    const poll = process.env.OUTBOX_POLL_MS;
    process.env.OUTBOX_POLL_MS = '3600000';
    t = await startTestApp({ queuePrefix: PREFIX });
    if (poll === undefined) delete process.env.OUTBOX_POLL_MS;
    else process.env.OUTBOX_POLL_MS = poll;
    redis = new Redis(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379', { maxRetriesPerRequest: null });
    events = new Queue(QUEUES.voiceCallEvents, { connection: redis, prefix: PREFIX });
    store = t.app.get<FileStore>(FILE_STORE);
  });

  afterAll(async () => {
    await events.obliterate({ force: true }).catch(() => undefined);
    await events.close();
    redis.disconnect();
    await t.close();
  });

  /** Posts one call's events as the worker does and waits until the API applied them all. */
  async function call(tenantId: string, bodies: Record<string, unknown>[]): Promise<{ callId: string; conversationId: string }> {
    const callId = randomUUID();
    const list = bodies.map((body, index) => ({ callId, tenantId, seq: index + 1, at: Date.now(), ...body }) as unknown as VoiceCallEvent);
    await events.addBulk(list.map((event) => ({ name: event.type, data: event, opts: { jobId: `voice.${event.callId}.${event.seq}` } })));
    const row = await eventually(async () => {
      const [found] = (await t.dataSource.query(`SELECT last_seq, conversation_id FROM voice_calls WHERE id = $1`, [callId])) as {
        last_seq: number;
        conversation_id: string | null;
      }[];
      expect(found?.last_seq).toBe(list.length);
      return found!;
    });
    return { callId, conversationId: row.conversation_id! };
  }

  it('closes the conversation on the voicemail line with the voicemail result, and plays the message as a voicemail', async () => {
    const tenant = await createTenant(t.dataSource);
    const tenantId = tenant.client.id;
    await t.dataSource.query(`UPDATE clients SET language = 'en' WHERE id = $1`, [tenantId]);
    // The IVR's calls enter on the first phone line; the voicemail belongs to another one.
    const entryLine = await createLine(t.dataSource, tenant, `Entry ${randomUUID().slice(0, 6)}`);
    const voicemailLine = await createLine(t.dataSource, tenant, `Sales ${randomUUID().slice(0, 6)}`);
    await t.dataSource.query(`UPDATE attention_lines SET channel = 'Phone' WHERE id = ANY($1::uuid[])`, [[entryLine, voicemailLine]]);
    await t.dataSource.query(`UPDATE attention_lines SET created_at = created_at - interval '1 hour' WHERE id = $1`, [entryLine]);
    const [trunk] = (await t.dataSource.query(
      `INSERT INTO trunks (client_id, name, host, transport, max_concurrent_calls) VALUES ($1, 'Carrier', 'sip.carrier.test', 'udp', 10) RETURNING id`,
      [tenantId],
    )) as { id: string }[];
    const supervisor = await createStaff(t, tenant, 'SUPER');
    await createStaff(t, tenant, 'AGENT', [voicemailLine]);

    const bytes = wav(4.2);
    const upload = await store.create(tenantId, 'call-recording', { contentType: 'audio/wav' });
    await new Promise<void>((resolve, reject) => upload.stream.on('error', reject).end(bytes, resolve));
    const ivrId = randomUUID();
    const started = { type: 'call.started', trunkId: trunk!.id, from: '+34600111222', to: '+34910000999', ivrId };
    const { callId, conversationId } = await call(tenantId, [
      started,
      { type: 'ivr.step', ivrId, nodeId: 'main', nodeName: 'Main menu', digit: null },
      { type: 'call.voicemail', attentionLineId: voicemailLine, path: ['Main menu'] },
      { type: 'call.ended', by: 'caller', reason: 'voicemail' },
      { type: 'call.recorded', fileId: upload.id, durationMs: 4200, agentId: null, kind: 'voicemail' },
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
    const upload = await store.create(tenant.client.id, 'call-recording', { contentType: 'audio/wav' });
    await new Promise<void>((resolve, reject) => upload.stream.on('error', reject).end(wav(0.2), resolve));
    const callId = randomUUID();
    const bad = { callId, tenantId: tenant.client.id, seq: 1, at: Date.now(), type: 'call.recorded', fileId: upload.id, durationMs: 200 };
    const refused = await events.add('call.recorded', { ...bad, agentId: null, kind: 'music' } as unknown as VoiceCallEvent, {
      jobId: `voice.${callId}.1`,
    });
    await eventually(async () => expect(await refused.getState()).toMatch(/completed|failed/));
    const rows = (await t.dataSource.query(`SELECT id FROM voice_recordings WHERE file_id = $1`, [upload.id])) as unknown[];
    expect(rows).toEqual([]);
  });
});
