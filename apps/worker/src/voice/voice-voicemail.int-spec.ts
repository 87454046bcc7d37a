import { randomUUID } from 'node:crypto';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { IvrTree, VoiceCallEvent } from '@centralita/contracts';
import { PostgresFileStore } from '@centralita/contracts/server';
import type { DataSource } from 'typeorm';
import { createDataSource } from '../../../api/src/database/data-source';
import { createTenant } from '../../../api/test/support/factories';
import { eventually } from '../../../../test/support/eventually';
import { freeUdpPort, rtpengineBinary, startRtpengine, type RunningRtpengine } from '../../../../test/support/rtpengine';
import { CallRecordings, loadRecordingPolicy } from './call-recording';
import { SipTestCaller, hasToneWindow, rms, toneShare } from './testing/sip-test-caller';
import type { VoiceConfig } from './voice-config';
import type { VoiceEventSink } from './voice-events';
import { VOICE_TONES } from './voice-media-files';
import { VoiceServer } from './voice-server';

/**
 * The IVR's voicemail destination with the real media engine: the caller walks the menu with an RFC 4733 key, hears
 * the beep, speaks (a tone) and ends the message with '#', by hanging up, or not at all (the maximum length ends it).
 * rtpengine records the caller's side as a pcap, the server decodes it into the real file store (PostgreSQL large
 * objects) and reports call.recorded {kind: 'voicemail'}; the stored WAV is checked window by window.
 */
const RTPENGINE = rtpengineBinary();
if (!RTPENGINE) console.warn('voice-voicemail.int-spec: rtpengine is not installed (rtpengine-daemon): skipped');
const describeVoicemail = RTPENGINE ? describe : describe.skip;

/** What the caller says: apart from the platform's prompt (440), hold (523/659) and beep (1000) tones. */
const CALLER_HZ = 700;
/** Short enough for the "nobody ends it" case; the '#' and hang-up cases finish well before it. */
const MAX_SECONDS = 8;
const LINE = randomUUID();

describeVoicemail('VoiceServer voicemail (real rtpengine pcap, real file store)', () => {
  let ds: DataSource;
  let store: PostgresFileStore;
  let rtpengine: RunningRtpengine;
  let server: VoiceServer;
  let dir: string;
  let recordingDir: string;
  let sipPort = 0;
  let tenantId: string;
  const events: VoiceCallEvent[] = [];
  const callers: SipTestCaller[] = [];
  const sink: VoiceEventSink = { publish: (event) => void events.push(event), flush: async () => undefined, close: async () => undefined };
  const tree: IvrTree = {
    rootNodeId: 'main',
    nodes: [
      {
        id: 'main',
        name: 'Leave a message',
        promptText: 'Press 9 to leave a message after the tone',
        promptAudioUrl: null,
        timeoutSeconds: 10,
        maxRetries: 0,
        fallback: { type: 'hangup', targetId: null },
        options: [{ digit: '9', label: null, destination: { type: 'voicemail', targetId: LINE } }],
      },
    ],
  };

  const callEvents = (from: string) => {
    const started = events.find((event) => event.type === 'call.started' && event.from === from);
    return started ? events.filter((event) => event.callId === started.callId) : [];
  };
  const types = (from: string) => callEvents(from).map((event) => event.type);
  /** Whether the caller heard `hz` for 100 ms since `from` (the beep comes after the prompt goes on for a while). */
  const heardTone = (caller: SipTestCaller, hz: number, from: number) => hasToneWindow(caller.samples(from, Date.now()), hz);

  /** A caller saying CALLER_HZ who pressed 9 at the prompt and heard the voicemail beep. */
  const atTheBeep = async (from: string) => {
    const caller = await SipTestCaller.create(await freeUdpPort('127.0.0.2'));
    callers.push(caller);
    caller.setTone(CALLER_HZ);
    const answered = Date.now();
    expect((await caller.invite({ host: '127.0.0.1', port: sipPort }, { to: '+34910000301', from })).status).toBe(200);
    await eventually(() => expect(heardTone(caller, VOICE_TONES.prompt, answered)).toBe(true));
    const pressed = Date.now();
    await caller.pressRtp('9');
    await eventually(() => expect(types(from)).toEqual(['call.started', 'ivr.step', 'call.voicemail']));
    await eventually(() => expect(heardTone(caller, VOICE_TONES.beep, pressed)).toBe(true));
    return caller;
  };

  const storedWav = async (fileId: string) => {
    const file = await store.open(tenantId, fileId);
    expect(file).not.toBeNull();
    const chunks: Buffer[] = [];
    for await (const chunk of file!.stream) chunks.push(chunk as Buffer);
    return Buffer.concat(chunks);
  };

  /** 100 ms windows of the left (caller) channel that carry the caller's tone, and of the right channel that carry anything. */
  const windows = (wav: Buffer) => {
    expect(wav.toString('ascii', 0, 4)).toBe('RIFF');
    expect([wav.readUInt16LE(20), wav.readUInt16LE(22), wav.readUInt32LE(24), wav.readUInt16LE(34)]).toEqual([1, 2, 8000, 16]);
    const frames = (wav.length - 44) / 4;
    const side = (channel: 0 | 1, start: number) => {
      const out = new Int16Array(800);
      for (let index = 0; index < 800; index += 1) out[index] = wav.readInt16LE(44 + (start + index) * 4 + channel * 2);
      return out;
    };
    const result = { total: 0, callerTone: 0, rightSound: 0 };
    for (let start = 0; start + 800 <= frames; start += 800) {
      result.total += 1;
      const left = side(0, start);
      if (rms(left) > 200 && toneShare(left, CALLER_HZ) > 0.8) result.callerTone += 1;
      if (rms(side(1, start)) > 200) result.rightSound += 1;
    }
    return result;
  };

  beforeAll(async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'centralita-voicemail-'));
    recordingDir = path.join(dir, 'spool');
    ds = createDataSource(process.env.DATABASE_URL!);
    await ds.initialize();
    store = new PostgresFileStore((text, values) => ds.query(text, values));
    tenantId = (await createTenant(ds)).client.id;
    const dtmfPort = await freeUdpPort();
    rtpengine = await startRtpengine({ dtmfLogDest: { host: '127.0.0.1', port: dtmfPort }, recordingDir });
    sipPort = await freeUdpPort();
    const config: VoiceConfig = {
      sipHost: '127.0.0.1',
      sipPublicHost: '127.0.0.1',
      sipPort,
      rtpengine: rtpengine.ng,
      dtmfListen: { host: '127.0.0.1', port: dtmfPort },
      mediaDir: path.join(dir, 'media'),
      outboundProxy: null,
      agentMedia: 'rtp',
      agentRingSeconds: 5,
      recordingDir,
      voicemailMaxSeconds: MAX_SECONDS,
    };
    const query = (sql: string, params: unknown[]) => ds.query(sql, params);
    const log = { log: () => undefined, warn: (message: string) => console.warn(message) };
    server = new VoiceServer(config, {
      resolveNumber: async (called) =>
        called.replace(/^\+?/, '+') === '+34910000301'
          ? { number: '+34910000301', tenantId, trunkId: randomUUID(), ivrId: 'ivr-vm', attentionLineId: null, language: 'en' }
          : null,
      loadIvr: async (tenant, ivrId) => (tenant === tenantId && ivrId === 'ivr-vm' ? { tree, version: 1, language: 'en' } : null),
      // No prompt audio: the prompt plays the generated tone.
      promptFile: async () => null,
      events: sink,
      recordings: new CallRecordings(recordingDir, config.mediaDir, {
        policy: (tenant) => loadRecordingPolicy({ query }, tenant),
        store,
        log,
      }),
      log,
    });
    await server.start();
  });

  afterAll(async () => {
    for (const caller of callers) await caller.close().catch(() => undefined);
    await server?.stop();
    await rtpengine?.stop();
    await ds?.destroy();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('records what the caller says after the beep until they press #, then hangs up and stores the message', async () => {
    const from = '+34600000301';
    const caller = await atTheBeep(from);
    const beepHeard = Date.now();
    // Two seconds of message after the beep, then '#'.
    await eventually(() => expect(Date.now() - beepHeard).toBeGreaterThanOrEqual(2000), { timeoutMs: 5000 });
    await caller.pressRtp('#');
    await caller.waitForBye();
    await eventually(() => expect(types(from)).toEqual(['call.started', 'ivr.step', 'call.voicemail', 'call.ended', 'call.recorded']), {
      timeoutMs: 15_000,
    });
    const [, , voicemail, ended, recorded] = callEvents(from);
    expect(voicemail).toMatchObject({ attentionLineId: LINE, path: ['Leave a message'] });
    expect(ended).toMatchObject({ by: 'system', reason: 'voicemail' });
    expect(recorded).toMatchObject({ kind: 'voicemail', agentId: null });
    const { durationMs, fileId } = recorded as Extract<VoiceCallEvent, { type: 'call.recorded' }>;
    // The message (from the beep to '#'), well under the maximum length.
    expect(durationMs).toBeGreaterThanOrEqual(1800);
    expect(durationMs).toBeLessThan(MAX_SECONDS * 1000);

    // The caller's tone fills the left channel; nothing is on the right (no agent); the beep is not in it.
    const wav = windows(await storedWav(fileId));
    expect(wav.total).toBeGreaterThanOrEqual(18);
    // Most of the message (a CPU-starved test phone on a loaded machine leaves real gaps).
    expect(wav.callerTone).toBeGreaterThanOrEqual(Math.ceil(wav.total * 0.7));
    expect(wav.rightSound).toBe(0);
    const [row] = (await ds.query(`SELECT kind FROM stored_files WHERE id = $1`, [fileId])) as { kind: string }[];
    expect(row?.kind).toBe('call-recording');
    await eventually(() => expect(readdirSync(path.join(recordingDir, 'pcaps'))).toEqual([]));
  });

  it('keeps the message of a caller who hangs up instead of pressing #: a voicemail, not an abandon', async () => {
    const from = '+34600000302';
    const caller = await atTheBeep(from);
    const beepHeard = Date.now();
    await eventually(() => expect(Date.now() - beepHeard).toBeGreaterThanOrEqual(1500), { timeoutMs: 5000 });
    expect((await caller.hangUp()).status).toBe(200);
    await eventually(() => expect(types(from)).toEqual(['call.started', 'ivr.step', 'call.voicemail', 'call.ended', 'call.recorded']), {
      timeoutMs: 15_000,
    });
    expect(callEvents(from)[3]).toMatchObject({ by: 'caller', reason: 'voicemail' });
    const recorded = callEvents(from)[4] as Extract<VoiceCallEvent, { type: 'call.recorded' }>;
    expect(recorded.kind).toBe('voicemail');
    const wav = windows(await storedWav(recorded.fileId));
    expect(wav.callerTone).toBeGreaterThanOrEqual(Math.max(10, Math.ceil(wav.total * 0.7)));
  });

  it('ends a message that reaches the maximum length with a BYE of its own', async () => {
    const from = '+34600000303';
    const caller = await atTheBeep(from);
    const beepHeard = Date.now();
    await caller.waitForBye();
    // No sooner than the maximum (less the beep heard late by this process).
    expect(Date.now() - beepHeard).toBeGreaterThanOrEqual(MAX_SECONDS * 1000 - 1000);
    await eventually(() => expect(types(from)).toEqual(['call.started', 'ivr.step', 'call.voicemail', 'call.ended', 'call.recorded']), {
      timeoutMs: 15_000,
    });
    expect(callEvents(from)[3]).toMatchObject({ by: 'system', reason: 'voicemail' });
    const recorded = callEvents(from)[4] as Extract<VoiceCallEvent, { type: 'call.recorded' }>;
    expect(recorded.durationMs).toBeGreaterThanOrEqual((MAX_SECONDS - 1) * 1000);
    expect(recorded.durationMs).toBeLessThanOrEqual((MAX_SECONDS + 2) * 1000);
  }, 40_000);
});
