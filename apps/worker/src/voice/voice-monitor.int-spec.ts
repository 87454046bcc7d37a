import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { VoiceCallEvent, VoiceCommand, VoiceMonitorMode } from '@centralita/contracts';
import { eventually } from '../../../../test/support/eventually';
import { findKamailio, startKamailio, type RunningKamailio } from '../../../../test/support/kamailio';
import { freeUdpPort, rtpengineBinary, startRtpengine, type RunningRtpengine } from '../../../../test/support/rtpengine';
import { SipTestAgent } from './testing/sip-test-agent';
import { SipTestCaller, rms, toneShare } from './testing/sip-test-caller';
import type { VoiceConfig } from './voice-config';
import type { VoiceEventSink } from './voice-events';
import { VoiceServer } from './voice-server';

/**
 * Supervisor monitoring with real SIP and real media (issue #22 item 4): a caller (tone A), an agent's phone (tone B)
 * and a supervisor's phone (tone C), the last two registered at a real kamailio, a real rtpengine, and the worker's
 * mixer. What each phone hears is decoded and checked per 100 ms window for energy at each party's frequency:
 * listen — the supervisor hears A and B, nobody hears C; whisper — the agent hears C, the caller does not;
 * barge — everybody hears everybody; stop — the caller and the agent are bridged directly again.
 * The supervisors' browser softphone (WebRTC) is not exercised here (plain RTP/AVP, VOICE_AGENT_MEDIA=rtp).
 */
const RTPENGINE = rtpengineBinary();
let KAMAILIO = true;
try {
  findKamailio();
} catch {
  KAMAILIO = false;
}
if (!RTPENGINE || !KAMAILIO)
  console.warn(
    'voice-monitor.int-spec: rtpengine or kamailio is not installed (rtpengine-daemon, kamailio): the monitoring tests are skipped',
  );
const describeMonitor = RTPENGINE && KAMAILIO ? describe : describe.skip;

const TENANT = '00000000-0000-4000-8000-000000000001';
const NUMBER = '+34910000020';
const TONE = { caller: 700, agent: 1500, supervisor: 1100 } as const;
type Party = keyof typeof TONE;
/** A window carries a party when a fair share of its power is at that party's frequency (a mix of two gives ~0.5 each). */
const CARRIES = 0.2;

describeMonitor('VoiceServer supervisor monitoring (real SIP through kamailio + rtpengine + the worker mixer)', () => {
  let rtpengine: RunningRtpengine;
  let kamailio: RunningKamailio;
  let server: VoiceServer;
  let dir: string;
  let sipPort = 0;
  const events: VoiceCallEvent[] = [];
  const phones: { close(): Promise<void> }[] = [];

  const sink: VoiceEventSink = {
    publish: (event) => void events.push(event),
    flush: async () => undefined,
    close: async () => undefined,
  };

  const callEvents = (from: string) => {
    const started = events.find((event) => event.type === 'call.started' && event.from === from);
    return started ? events.filter((event) => event.callId === started.callId) : [];
  };
  const callIdOf = (from: string) => callEvents(from)[0]!.callId;
  const monitorEvents = (from: string) =>
    callEvents(from).flatMap((event) => (event.type === 'call.monitor' ? [`${event.state} ${event.mode} ${event.reason}`] : []));

  /** How many 100 ms windows heard since `from` carry each party's tone. */
  const heard = (phone: { samples(from: number, to: number): Int16Array }, from: number) => {
    const counts: Record<Party, number> = { caller: 0, agent: 0, supervisor: 0 };
    for (let at = from; at + 100 <= Date.now(); at += 100) {
      const window = phone.samples(at, at + 100);
      if (rms(window) < 200) continue;
      for (const party of Object.keys(TONE) as Party[]) if (toneShare(window, TONE[party]) > CARRIES) counts[party] += 1;
    }
    return counts;
  };

  const newPhone = async (user: string, hz: number) => {
    const phone = await SipTestAgent.create(user, await freeUdpPort('127.0.0.4'), hz);
    phones.push(phone);
    expect((await phone.register(kamailio.udp)).status).toBe(200);
    return phone;
  };

  /** A caller connected to an agent's phone, both talking. */
  const connectedCall = async (from: string, agentUser: string, telephoneEvent: number | null = null) => {
    const agent = await newPhone(agentUser, TONE.agent);
    agent.telephoneEvent = telephoneEvent;
    const caller = await SipTestCaller.create(await freeUdpPort('127.0.0.2'));
    phones.push(caller);
    caller.setTone(TONE.caller);
    expect((await caller.invite({ host: '127.0.0.1', port: sipPort }, { to: NUMBER, from })).status).toBe(200);
    await eventually(() => expect(callEvents(from).map((event) => event.type)).toContain('call.queued'));
    await server.command({
      type: 'connect',
      tenantId: TENANT,
      callId: callIdOf(from),
      conversationId: '00000000-0000-4000-8000-0000000000c2',
      agentId: 'agent-1',
      agentSipUri: `sip:${agentUser}@127.0.0.1`,
    });
    await eventually(() => expect(callEvents(from).map((event) => event.type)).toContain('call.connected'));
    return { caller, agent };
  };

  const command = (from: string, body: DistributiveOmit<Extract<VoiceCommand, { type: `monitor${string}` }>, 'tenantId' | 'callId'>) =>
    server.command({ ...body, tenantId: TENANT, callId: callIdOf(from) } as VoiceCommand);

  beforeAll(async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'centralita-voice-monitor-'));
    const dtmfPort = await freeUdpPort();
    rtpengine = await startRtpengine({ dtmfLogDest: { host: '127.0.0.1', port: dtmfPort } });
    kamailio = await startKamailio({ udpHost: '127.0.0.3' });
    sipPort = await freeUdpPort();
    const config: VoiceConfig = {
      sipHost: '127.0.0.1',
      sipPublicHost: '127.0.0.1',
      sipPort,
      rtpengine: rtpengine.ng,
      dtmfListen: { host: '127.0.0.1', port: dtmfPort },
      mediaDir: path.join(dir, 'media'),
      outboundProxy: kamailio.udp,
      agentMedia: 'rtp',
      agentRingSeconds: 5,
    };
    server = new VoiceServer(config, {
      resolveNumber: async (called) => {
        const number = called.startsWith('+') ? called : `+${called}`;
        return number === NUMBER
          ? { number, tenantId: TENANT, trunkId: 'trunk-1', ivrId: null, attentionLineId: 'line-direct', language: 'es' }
          : null;
      },
      loadIvr: async () => null,
      promptFile: async () => null,
      events: sink,
    });
    await server.start();
  });

  afterAll(async () => {
    await server?.stop();
    for (const phone of phones) await phone.close().catch(() => undefined);
    await kamailio?.stop();
    await rtpengine?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('listen, whisper and barge give each phone exactly what the mode says, and stop bridges caller and agent directly again', async () => {
    const from = '+34600000201';
    const { caller, agent } = await connectedCall(from, 'agent-m1');
    const supervisor = await newPhone('supervisor-m1', TONE.supervisor);

    // Listen: the supervisor's phone rings through kamailio with the caller's number and hears both sides.
    await command(from, { type: 'monitor', supervisorId: 'sup-1', supervisorSipUri: 'sip:supervisor-m1@127.0.0.1', mode: 'listen' });
    await eventually(() => expect(monitorEvents(from)).toEqual(['started listen answered']));
    expect(supervisor.requests.find((request) => request.method === 'INVITE')!.headers.from.uri).toContain(from);
    /** Once the worker reports `mode` running: what each phone heard over the next ≥ 1.5 s. */
    const phase = async (mode: VoiceMonitorMode) => {
      await eventually(() => expect(monitorEvents(from).at(-1)).toMatch(new RegExp(`^(started|changed) ${mode} `)));
      const at = Date.now() + 200; // the mixer's first frames and rtpengine's switch settle within a few packets
      await eventually(
        () => {
          const bySupervisor = heard(supervisor, at);
          expect(bySupervisor.caller).toBeGreaterThanOrEqual(15);
          expect(bySupervisor.agent).toBeGreaterThanOrEqual(15);
          expect(heard(caller, at).agent).toBeGreaterThanOrEqual(15);
          expect(heard(agent, at).caller).toBeGreaterThanOrEqual(15);
        },
        { timeoutMs: 6000 },
      );
      return { caller: heard(caller, at), agent: heard(agent, at), supervisor: heard(supervisor, at) };
    };

    const listen = await phase('listen');
    expect(listen.caller.supervisor).toBe(0);
    expect(listen.agent.supervisor).toBe(0);

    // Whisper: the agent hears the supervisor, the caller does not (and the supervisor still hears both).
    await command(from, { type: 'monitor.mode', supervisorId: 'sup-1', mode: 'whisper' });
    const whisper = await phase('whisper');
    expect(whisper.agent.supervisor).toBeGreaterThanOrEqual(15);
    expect(whisper.caller.supervisor).toBe(0);

    // Barge: everybody hears everybody.
    await command(from, { type: 'monitor.mode', supervisorId: 'sup-1', mode: 'barge' });
    const barge = await phase('barge');
    expect(barge.agent.supervisor).toBeGreaterThanOrEqual(15);
    expect(barge.caller.supervisor).toBeGreaterThanOrEqual(15);

    // Stop: the supervisor's phone gets a BYE; caller and agent go on hearing each other, nobody hears the supervisor.
    await command(from, { type: 'monitor.stop', supervisorId: 'sup-1' });
    await eventually(() => expect(supervisor.requests.some((request) => request.method === 'BYE')).toBe(true));
    expect(monitorEvents(from)).toEqual(['started listen answered', 'changed whisper mode', 'changed barge mode', 'ended barge stopped']);
    const stoppedAt = Date.now() + 200;
    await eventually(
      () => {
        expect(heard(caller, stoppedAt).agent).toBeGreaterThanOrEqual(15);
        expect(heard(agent, stoppedAt).caller).toBeGreaterThanOrEqual(15);
      },
      { timeoutMs: 6000 },
    );
    expect(heard(caller, stoppedAt).supervisor).toBe(0);
    expect(heard(agent, stoppedAt).supervisor).toBe(0);

    // Monitoring again on the same call (the mixer's rtpengine tags are reused): whisper from the start.
    await command(from, { type: 'monitor', supervisorId: 'sup-1', supervisorSipUri: 'sip:supervisor-m1@127.0.0.1', mode: 'whisper' });
    const again = await phase('whisper');
    expect(again.agent.supervisor).toBeGreaterThanOrEqual(15);
    expect(again.caller.supervisor).toBe(0);

    expect((await caller.hangUp()).status).toBe(200);
    await eventually(() => expect(monitorEvents(from).at(-1)).toBe('ended whisper callEnded'));
    await eventually(() => expect(server.activeCalls).toBe(0));
  });

  it('relays RFC 4733 keys between the caller and the agent while monitored, as the direct bridge does', async () => {
    const from = '+34600000203';
    const { caller, agent } = await connectedCall(from, 'agent-m3', 101);
    const supervisor = await newPhone('supervisor-m3', TONE.supervisor);
    supervisor.telephoneEvent = 101;

    // Bridged directly, rtpengine relays the caller's key to the agent's phone.
    await caller.pressRtp('4');
    await eventually(() => expect(keysHeard(agent)).toEqual(['4']));

    await command(from, { type: 'monitor', supervisorId: 'sup-3', supervisorSipUri: 'sip:supervisor-m3@127.0.0.1', mode: 'listen' });
    await eventually(() => expect(monitorEvents(from)).toEqual(['started listen answered']));
    // The mixer is in the path once the supervisor hears both sides.
    const at = Date.now() + 200;
    await eventually(() => expect(heard(supervisor, at).agent).toBeGreaterThanOrEqual(5), { timeoutMs: 6000 });

    await caller.pressRtp('7');
    await eventually(() => expect(keysHeard(agent)).toEqual(['4', '7']));
    await agent.pressRtp('9');
    await eventually(() => expect(keysHeard(caller)).toEqual(['9']));
    // Whisper too: the keys still go between caller and agent only; the supervisor gets none of them.
    await command(from, { type: 'monitor.mode', supervisorId: 'sup-3', mode: 'whisper' });
    await eventually(() => expect(monitorEvents(from).at(-1)).toBe('changed whisper mode'));
    await caller.pressRtp('2');
    await eventually(() => expect(keysHeard(agent)).toEqual(['4', '7', '2']));
    expect(keysHeard(supervisor)).toEqual([]);
    // Each relayed event is one event on the agent's stream: the marker on its first packet, one timestamp throughout.
    const relayed = agent.heard.filter((packet) => packet.payloadType === 101 && packet.payload[0] === 2);
    expect(relayed.length).toBeGreaterThanOrEqual(4);
    // The keys are not taken as IVR input, and the call is still connected and monitored.
    expect(callEvents(from).map((event) => event.type)).not.toContain('ivr.step');
    expect(monitorEvents(from)).toEqual(['started listen answered', 'changed whisper mode']);

    expect((await caller.hangUp()).status).toBe(200);
    await eventually(() => expect(server.activeCalls).toBe(0));
  });

  it('ends the supervisor’s leg with the call, and reports a supervisor whose phone is not registered', async () => {
    const from = '+34600000202';
    const { caller } = await connectedCall(from, 'agent-m2');
    const supervisor = await newPhone('supervisor-m2', TONE.supervisor);

    await command(from, { type: 'monitor', supervisorId: 'sup-2', supervisorSipUri: 'sip:nobody-registered@127.0.0.1', mode: 'whisper' });
    await eventually(() => expect(monitorEvents(from)).toEqual(['failed whisper unavailable']));

    await command(from, { type: 'monitor', supervisorId: 'sup-2', supervisorSipUri: 'sip:supervisor-m2@127.0.0.1', mode: 'whisper' });
    await eventually(() => expect(monitorEvents(from)).toContain('started whisper answered'));
    expect((await caller.hangUp()).status).toBe(200);
    await eventually(() => expect(supervisor.requests.some((request) => request.method === 'BYE')).toBe(true));
    // The BYE may reach the supervisor's phone before the worker has emitted the monitor's end.
    await eventually(() =>
      expect(monitorEvents(from)).toEqual(['failed whisper unavailable', 'started whisper answered', 'ended whisper callEnded']),
    );
    expect(callEvents(from).at(-1)).toMatchObject({ type: 'call.ended', by: 'caller' });
    await eventually(() => expect(server.activeCalls).toBe(0));
  });
});

/** The RFC 4733 keys a phone heard, in order (one per event: its end packets, sent three times, count once). */
function keysHeard(phone: { heard: { payloadType: number; payload: Buffer }[] }, payloadType = 101): string[] {
  const keys: string[] = [];
  let ended = true;
  for (const packet of phone.heard) {
    if (packet.payloadType !== payloadType || packet.payload.length < 4) continue;
    const end = (packet.payload[1]! & 0x80) !== 0;
    if (end && !ended) keys.push('0123456789*#'[packet.payload[0]!] ?? '?');
    ended = end;
  }
  return keys;
}

type DistributiveOmit<T, K extends PropertyKey> = T extends unknown ? Omit<T, K> : never;
