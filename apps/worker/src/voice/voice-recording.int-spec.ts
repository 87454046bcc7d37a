import { randomUUID } from 'node:crypto';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { VoiceCallEvent } from '@centralita/contracts';
import { PostgresFileStore } from '@centralita/contracts/server';
import type { DataSource } from 'typeorm';
import { createDataSource } from '../../../api/src/database/data-source';
import { createTenant } from '../../../api/test/support/factories';
import { eventually } from '../../../../test/support/eventually';
import { freeUdpPort, rtpengineBinary, startRtpengine, type RunningRtpengine } from '../../../../test/support/rtpengine';
import { CallRecordings, expireCallRecordings, loadRecordingPolicy } from './call-recording';
import { SipTestAgent } from './testing/sip-test-agent';
import { SipTestCaller, rms, toneShare } from './testing/sip-test-caller';
import type { VoiceConfig } from './voice-config';
import type { VoiceEventSink } from './voice-events';
import { VOICE_TONES } from './voice-media-files';
import { VoiceServer } from './voice-server';

/**
 * Call recording with the real media engine: rtpengine records the bridged call as a pcap (--recording-method=pcap),
 * the voice server decodes it when the call ends into a stereo WAV (caller left, agent right) stored in the real file
 * store (PostgreSQL large objects) and reports call.recorded. The tenant's settings come from platform_settings; the
 * announcement is heard by the caller before the agent. The retention sweep deletes what is older than the tenant's days.
 */
const RTPENGINE = rtpengineBinary();
if (!RTPENGINE) console.warn('voice-recording.int-spec: rtpengine is not installed (rtpengine-daemon): skipped');
const describeRecording = RTPENGINE ? describe : describe.skip;

/** What each party "says": apart from each other and from the platform's 440/523/659 Hz sounds. */
const CALLER_HZ = 700;
const AGENT_HZ = 1500;
const SUPERVISOR_HZ = 1100;

describeRecording('call recording (real rtpengine pcap, real file store)', () => {
  let ds: DataSource;
  let store: PostgresFileStore;
  let rtpengine: RunningRtpengine;
  let server: VoiceServer;
  let dir: string;
  let recordingDir: string;
  let sipPort = 0;
  let recordedTenant: string;
  let unrecordedTenant: string;
  const numbers = new Map<string, string>();
  const events: VoiceCallEvent[] = [];
  const callers: SipTestCaller[] = [];
  const agents: SipTestAgent[] = [];
  const sink: VoiceEventSink = { publish: (event) => void events.push(event), flush: async () => undefined, close: async () => undefined };

  const saveSettings = (tenantId: string, settings: Record<string, unknown>) =>
    ds.query(
      `INSERT INTO platform_settings (client_id, settings) VALUES ($1, $2::jsonb)
       ON CONFLICT (client_id) DO UPDATE SET settings = EXCLUDED.settings`,
      [tenantId, JSON.stringify(settings)],
    );
  const callEvents = (from: string) => {
    const started = events.find((event) => event.type === 'call.started' && event.from === from);
    return started ? events.filter((event) => event.callId === started.callId) : [];
  };
  const types = (from: string) => callEvents(from).map((event) => event.type);

  /** A queued caller (saying CALLER_HZ) connected to an agent's phone (saying AGENT_HZ) by the 'connect' command. */
  const connectedCall = async (from: string, to: string) => {
    const caller = await SipTestCaller.create(await freeUdpPort('127.0.0.2'));
    callers.push(caller);
    caller.setTone(CALLER_HZ);
    const agent = await SipTestAgent.create(`agent-${from.slice(-3)}`, await freeUdpPort('127.0.0.4'), AGENT_HZ);
    agents.push(agent);
    expect((await caller.invite({ host: '127.0.0.1', port: sipPort }, { to, from })).status).toBe(200);
    await eventually(() => expect(types(from)).toEqual(['call.started', 'call.queued']));
    const started = callEvents(from)[0]!;
    const connectAt = Date.now();
    await server.command({
      type: 'connect',
      tenantId: started.tenantId,
      callId: started.callId,
      conversationId: randomUUID(),
      agentId: randomUUID(),
      // No proxy in this suite: the INVITE goes to the phone's own address.
      agentSipUri: agent.contact,
    });
    await eventually(() => expect(types(from)).toContain('call.connected'), { timeoutMs: 10_000 });
    return { caller, agent, connectAt, callId: started.callId };
  };

  /** 100 ms frames of what the caller heard from `from` on: the dominant sound of each. */
  const heardByCaller = (caller: SipTestCaller, from: number) => {
    const out: string[] = [];
    for (let at = from; at + 100 <= Date.now(); at += 100) {
      const frame = caller.samples(at, at + 100);
      if (rms(frame) < 200) out.push('silence');
      else if (toneShare(frame, AGENT_HZ) > 0.5) out.push('agent');
      else if (VOICE_TONES.hold.some((hz) => toneShare(frame, hz) > 0.5)) out.push('hold');
      else out.push('speech');
    }
    return out;
  };

  beforeAll(async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'centralita-voice-recording-'));
    recordingDir = path.join(dir, 'spool');
    ds = createDataSource(process.env.DATABASE_URL!);
    await ds.initialize();
    store = new PostgresFileStore((text, values) => ds.query(text, values));
    recordedTenant = (await createTenant(ds)).client.id;
    unrecordedTenant = (await createTenant(ds)).client.id;
    await ds.query(`UPDATE clients SET language = 'en' WHERE id = $1`, [recordedTenant]);
    await saveSettings(recordedTenant, { callRecording: true, announceCallRecording: true, callRecordingRetentionDays: 30 });
    await saveSettings(unrecordedTenant, { callRecording: false });
    numbers.set('+34910000201', recordedTenant);
    numbers.set('+34910000202', unrecordedTenant);

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
    };
    const query = (sql: string, params: unknown[]) => ds.query(sql, params);
    const log = { log: () => undefined, warn: (message: string) => console.warn(message) };
    server = new VoiceServer(config, {
      resolveNumber: async (called) => {
        const number = called.startsWith('+') ? called : `+${called}`;
        const tenantId = numbers.get(number);
        return tenantId ? { number, tenantId, trunkId: randomUUID(), ivrId: null, attentionLineId: randomUUID(), language: 'en' } : null;
      },
      loadIvr: async () => null,
      promptFile: async () => null,
      events: sink,
      recordings: new CallRecordings(recordingDir, config.mediaDir, {
        policy: (tenantId) => loadRecordingPolicy({ query }, tenantId),
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
    for (const agent of agents) await agent.close().catch(() => undefined);
    await rtpengine?.stop();
    await ds?.destroy();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('announces the recording to the caller before the agent, and stores both sides of the talk as a stereo WAV', async () => {
    const from = '+34600000201';
    const { caller, agent, connectAt } = await connectedCall(from, '+34910000201');

    // The caller heard the spoken announcement (not hold music, not a tone) and only then the agent.
    await eventually(
      () => expect(heardByCaller(caller, connectAt).filter((frame) => frame === 'agent').length).toBeGreaterThanOrEqual(15),
      {
        timeoutMs: 8000,
      },
    );
    const heard = heardByCaller(caller, connectAt);
    const firstAgent = heard.indexOf('agent');
    expect(heard.slice(0, firstAgent).filter((frame) => frame === 'speech').length).toBeGreaterThanOrEqual(10);
    expect(heard.slice(firstAgent + 5).filter((frame) => frame === 'speech').length).toBeLessThanOrEqual(2);
    // …and the agent heard the caller once bridged.
    await eventually(() => expect(toneShare(agent.samples(Date.now() - 1000, Date.now()), CALLER_HZ)).toBeGreaterThan(0.5));

    expect((await caller.hangUp()).status).toBe(200);
    await eventually(() => expect(types(from)).toEqual(['call.started', 'call.queued', 'call.connected', 'call.ended', 'call.recorded']), {
      timeoutMs: 15_000,
    });
    const recorded = callEvents(from).at(-1) as Extract<VoiceCallEvent, { type: 'call.recorded' }>;
    expect(recorded.seq).toBe(5);
    expect(recorded.durationMs).toBeGreaterThan(1200);

    // The stored file: RIFF/WAVE, PCM, 2 channels at 8 kHz, 16 bits; the caller's tone on the left, the agent's on the right.
    const file = await store.open(recordedTenant, recorded.fileId);
    expect(file).not.toBeNull();
    const chunks: Buffer[] = [];
    for await (const chunk of file!.stream) chunks.push(chunk as Buffer);
    const wav = Buffer.concat(chunks);
    expect(wav.toString('ascii', 0, 4)).toBe('RIFF');
    expect(wav.toString('ascii', 8, 12)).toBe('WAVE');
    expect([wav.readUInt16LE(20), wav.readUInt16LE(22), wav.readUInt32LE(24), wav.readUInt16LE(34)]).toEqual([1, 2, 8000, 16]);
    const frames = (wav.length - 44) / 4;
    expect(Math.round((frames / 8000) * 1000)).toBe(recorded.durationMs);
    const channel = (side: 0 | 1, start: number, length: number) => {
      const out = new Int16Array(length);
      for (let index = 0; index < length; index += 1) out[index] = wav.readInt16LE(44 + (start + index) * 4 + side * 2);
      return out;
    };
    // Every 100 ms window of the recording: whose tone it carries on each side.
    const windows = { callerLeft: 0, agentRight: 0, agentLeft: 0, callerRight: 0 };
    for (let start = 0; start + 800 <= frames; start += 800) {
      const left = channel(0, start, 800);
      const right = channel(1, start, 800);
      if (rms(left) > 200 && toneShare(left, CALLER_HZ) > 0.8) windows.callerLeft += 1;
      if (rms(right) > 200 && toneShare(right, AGENT_HZ) > 0.8) windows.agentRight += 1;
      if (rms(left) > 200 && toneShare(left, AGENT_HZ) > 0.3) windows.agentLeft += 1;
      if (rms(right) > 200 && toneShare(right, CALLER_HZ) > 0.3) windows.callerRight += 1;
    }
    const total = Math.floor(frames / 800);
    // Most of the talk on each side (a test phone starved of CPU on a loaded CI machine stalls for a
    // few hundred ms, and rtpengine then records a real gap), and never the other party's tone.
    expect(windows.callerLeft).toBeGreaterThanOrEqual(Math.ceil(total * 0.7));
    expect(windows.agentRight).toBeGreaterThanOrEqual(Math.ceil(total * 0.7));
    expect(windows).toMatchObject({ agentLeft: 0, callerRight: 0 });

    // rtpengine's pcap and metadata are gone once stored.
    await eventually(() => expect(readdirSync(path.join(recordingDir, 'pcaps'))).toEqual([]));
    expect(readdirSync(path.join(recordingDir, 'metadata'))).toEqual([]);
  });

  it('mixes a barging supervisor into the agent’s channel for as long as the barge-in lasts, never into the caller’s', async () => {
    const from = '+34600000203';
    const { caller, callId } = await connectedCall(from, '+34910000201');
    await eventually(
      () => expect(heardByCaller(caller, Date.now() - 1000).filter((frame) => frame === 'agent').length).toBeGreaterThan(5),
      {
        timeoutMs: 10_000,
      },
    );
    const supervisor = await SipTestAgent.create(`supervisor-${from.slice(-3)}`, await freeUdpPort('127.0.0.4'), SUPERVISOR_HZ);
    agents.push(supervisor);
    const tenantId = callEvents(from)[0]!.tenantId;
    const monitorStates = () =>
      callEvents(from).flatMap((event) => (event.type === 'call.monitor' ? [`${event.state} ${event.mode}`] : []));
    /** 100 ms windows the caller heard since `at` in which the supervisor's pitch has a fair share. */
    const supervisorHeard = (at: number) => {
      let count = 0;
      for (let start = at; start + 100 <= Date.now(); start += 100) {
        const window = caller.samples(start, start + 100);
        if (rms(window) > 200 && toneShare(window, SUPERVISOR_HZ) > 0.2) count += 1;
      }
      return count;
    };

    // Listening first (not heard by the caller, so not recorded), then barging in, then listening again.
    await server.command({
      type: 'monitor',
      tenantId,
      callId,
      supervisorId: 'sup-r',
      supervisorSipUri: supervisor.contact,
      mode: 'listen',
    });
    await eventually(() => expect(monitorStates()).toEqual(['started listen']), { timeoutMs: 10_000 });
    await eventually(() => expect(toneShare(supervisor.samples(Date.now() - 1000, Date.now()), AGENT_HZ)).toBeGreaterThan(0.2));
    await server.command({ type: 'monitor.mode', tenantId, callId, supervisorId: 'sup-r', mode: 'barge' });
    const bargeFrom = Date.now();
    await eventually(() => expect(supervisorHeard(bargeFrom)).toBeGreaterThanOrEqual(15), { timeoutMs: 10_000 });
    await server.command({ type: 'monitor.mode', tenantId, callId, supervisorId: 'sup-r', mode: 'listen' });
    const bargeTo = Date.now();
    await eventually(() =>
      expect(heardByCaller(caller, bargeTo + 300).filter((frame) => frame === 'agent').length).toBeGreaterThanOrEqual(10),
    );
    expect(supervisorHeard(bargeTo + 300)).toBe(0);
    expect(monitorStates()).toEqual(['started listen', 'changed barge', 'changed listen']);

    expect((await caller.hangUp()).status).toBe(200);
    await eventually(() => expect(types(from)).toContain('call.recorded'), { timeoutMs: 15_000 });
    const recorded = callEvents(from).find((event) => event.type === 'call.recorded') as Extract<VoiceCallEvent, { type: 'call.recorded' }>;
    const file = await store.open(recordedTenant, recorded.fileId);
    const chunks: Buffer[] = [];
    for await (const chunk of file!.stream) chunks.push(chunk as Buffer);
    const wav = Buffer.concat(chunks);
    const frames = (wav.length - 44) / 4;
    const channel = (side: 0 | 1, start: number) => {
      const out = new Int16Array(800);
      for (let index = 0; index < 800; index += 1) out[index] = wav.readInt16LE(44 + (start + index) * 4 + side * 2);
      return out;
    };
    const windows = { supervisorRight: 0, supervisorLeft: 0, agentRight: 0 };
    for (let start = 0; start + 800 <= frames; start += 800) {
      const left = channel(0, start);
      const right = channel(1, start);
      if (rms(right) > 200 && toneShare(right, SUPERVISOR_HZ) > 0.2) windows.supervisorRight += 1;
      if (rms(left) > 200 && toneShare(left, SUPERVISOR_HZ) > 0.1) windows.supervisorLeft += 1;
      if (rms(right) > 200 && toneShare(right, AGENT_HZ) > 0.2) windows.agentRight += 1;
    }
    // The supervisor is in the agent's channel while barging (and only then: not while listening before or after),
    // the agent all along, and the caller's channel holds the caller alone.
    expect(windows.supervisorRight).toBeGreaterThanOrEqual(10);
    expect(windows.supervisorRight).toBeLessThanOrEqual(Math.ceil((bargeTo - bargeFrom) / 100) + 3);
    expect(windows.supervisorLeft).toBe(0);
    expect(windows.agentRight).toBeGreaterThanOrEqual(Math.ceil(Math.floor(frames / 800) * 0.7));
  });

  it('records nothing for a tenant that has recording off', async () => {
    const from = '+34600000202';
    const { caller, connectAt } = await connectedCall(from, '+34910000202');
    // No announcement: the agent is heard at once.
    await eventually(() => expect(heardByCaller(caller, connectAt).filter((frame) => frame === 'agent').length).toBeGreaterThanOrEqual(5));
    expect(heardByCaller(caller, connectAt).filter((frame) => frame === 'speech').length).toBeLessThanOrEqual(2);
    expect((await caller.hangUp()).status).toBe(200);
    await eventually(() => expect(types(from)).toContain('call.ended'));
    // Whether a call is recorded is decided when it ends (no recording started: no job, no event).
    expect(types(from)).toEqual(['call.started', 'call.queued', 'call.connected', 'call.ended']);
    expect(readdirSync(path.join(recordingDir, 'pcaps'))).toEqual([]);
  });

  it('deletes recordings older than their tenant’s retention days (default 90), file and row', async () => {
    const put = async (tenantId: string, ageDays: number) => {
      const upload = await store.create(tenantId, 'call-recording');
      await new Promise<void>((resolve, reject) => upload.stream.on('error', reject).end(Buffer.from('RIFF'), resolve));
      const callId = randomUUID();
      await ds.query(`INSERT INTO voice_calls (id, client_id) VALUES ($1, $2)`, [callId, tenantId]);
      await ds.query(
        `INSERT INTO voice_recordings (client_id, call_id, file_id, duration_ms, created_at) VALUES ($1, $2, $3, 1000, now() - make_interval(days => $4))`,
        [tenantId, callId, upload.id, ageDays],
      );
      return upload.id;
    };
    // recordedTenant keeps 30 days; unrecordedTenant saved no retention: 90.
    const old30 = await put(recordedTenant, 40);
    const young30 = await put(recordedTenant, 10);
    const old90 = await put(unrecordedTenant, 100);
    const young90 = await put(unrecordedTenant, 40);
    while ((await expireCallRecordings({ query: (sql, params) => ds.query(sql, params) }, store)) > 0);
    const left = (await ds.query(`SELECT file_id FROM voice_recordings WHERE file_id = ANY($1::uuid[])`, [
      [old30, young30, old90, young90],
    ])) as {
      file_id: string;
    }[];
    expect(left.map((row) => row.file_id).sort()).toEqual([young30, young90].sort());
    expect(await store.open(recordedTenant, old30)).toBeNull();
    expect(await store.open(unrecordedTenant, old90)).toBeNull();
    expect(await store.open(recordedTenant, young30)).not.toBeNull();
  });
});
