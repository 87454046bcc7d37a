import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { VoiceCallEvent, VoiceCommand } from '@centralita/contracts';
import { eventually } from '../../../../test/support/eventually';
import { findKamailio, startKamailio, type RunningKamailio } from '../../../../test/support/kamailio';
import { freeUdpPort, rtpengineBinary, startRtpengine, type RunningRtpengine } from '../../../../test/support/rtpengine';
import { SipTestAgent } from './testing/sip-test-agent';
import { SipTestCaller, rms, toneShare } from './testing/sip-test-caller';
import type { VoiceConfig } from './voice-config';
import type { VoiceEventSink } from './voice-events';
import { VOICE_TONES } from './voice-media-files';
import { VoiceServer } from './voice-server';

/**
 * Attended (consultative) transfer with real SIP and real media: a caller (700 Hz) connected to agent A's phone
 * (1500 Hz), both registered at a real kamailio with a real rtpengine; 'consult' rings agent B's phone (1800 Hz).
 * Every 100 ms window each phone heard is classified by its dominant tone: during the consultation A and B hear each
 * other and the caller hears only hold music; 'consult.complete' bridges the caller to B and BYEs A; 'consult.cancel'
 * (or B refusing) bridges the caller to A again and B gets its BYE. Plain RTP/AVP phones (VOICE_AGENT_MEDIA=rtp): the
 * browser (WebRTC) softphone is not exercised here.
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
    'voice-consult.int-spec: rtpengine or kamailio is not installed (rtpengine-daemon, kamailio): the consult tests are skipped',
  );
const describeConsult = RTPENGINE && KAMAILIO ? describe : describe.skip;

const TENANT = '00000000-0000-4000-8000-000000000001';
const NUMBER = '+34910000030';
const TONES = { caller: 700, first: 1500, consulted: 1800 } as const;
type Sound = keyof typeof TONES | 'hold' | 'silence' | 'other';

describeConsult('VoiceServer attended transfer (real SIP through kamailio + rtpengine)', () => {
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
  const consultEvents = (from: string) =>
    callEvents(from).flatMap((event) => {
      switch (event.type) {
        case 'call.consultRinging':
        case 'call.consultConnected':
        case 'call.consultCompleted':
          return [`${event.type} ${event.agentId} from ${event.fromAgentId}`];
        case 'call.consultFailed':
        case 'call.consultCancelled':
          return [`${event.type} ${event.agentId} from ${event.fromAgentId} ${event.reason}`];
        default:
          return [];
      }
    });

  /** How many 100 ms windows heard since `from` were dominated by each sound. */
  const heard = (phone: { samples(from: number, to: number): Int16Array }, from: number) => {
    const counts: Record<Sound, number> = { caller: 0, first: 0, consulted: 0, hold: 0, silence: 0, other: 0 };
    for (let at = from; at + 100 <= Date.now(); at += 100) {
      const window = phone.samples(at, at + 100);
      const sound: Sound =
        rms(window) < 200
          ? 'silence'
          : ((Object.keys(TONES) as (keyof typeof TONES)[]).find((party) => toneShare(window, TONES[party]) > 0.5) ??
            (VOICE_TONES.hold.some((hz) => toneShare(window, hz) > 0.5) ? 'hold' : 'other'));
      counts[sound] += 1;
    }
    return counts;
  };

  const newPhone = async (user: string, hz: number, behaviour: SipTestAgent['behaviour'] = 'answer') => {
    const phone = await SipTestAgent.create(user, await freeUdpPort('127.0.0.4'), hz);
    phone.behaviour = behaviour;
    phones.push(phone);
    expect((await phone.register(kamailio.udp)).status).toBe(200);
    return phone;
  };

  /** A caller connected to agent A's phone, both talking. */
  const connectedCall = async (from: string, firstUser: string) => {
    const first = await newPhone(firstUser, TONES.first);
    const caller = await SipTestCaller.create(await freeUdpPort('127.0.0.2'));
    phones.push(caller);
    caller.setTone(TONES.caller);
    expect((await caller.invite({ host: '127.0.0.1', port: sipPort }, { to: NUMBER, from })).status).toBe(200);
    await eventually(() => expect(callEvents(from).map((event) => event.type)).toContain('call.queued'));
    await server.command({
      type: 'connect',
      tenantId: TENANT,
      callId: callIdOf(from),
      conversationId: '00000000-0000-4000-8000-0000000000c3',
      agentId: 'agent-a',
      agentSipUri: `sip:${firstUser}@127.0.0.1`,
    });
    await eventually(() => expect(callEvents(from).map((event) => event.type)).toContain('call.connected'));
    return { caller, first };
  };

  const command = (from: string, body: DistributiveOmit<Extract<VoiceCommand, { type: `consult${string}` }>, 'tenantId' | 'callId'>) =>
    server.command({ ...body, tenantId: TENANT, callId: callIdOf(from) } as VoiceCommand);
  const consult = (from: string, user: string) =>
    command(from, {
      type: 'consult',
      conversationId: '00000000-0000-4000-8000-0000000000c3',
      fromAgentId: 'agent-a',
      agentId: 'agent-b',
      agentSipUri: `sip:${user}@127.0.0.1`,
    });

  /** A consultation in progress: A and B hear each other, the caller only the hold music (and nobody hears the caller). */
  const consulting = async (from: string, phones: { caller: SipTestCaller; first: SipTestAgent; consulted: SipTestAgent }) => {
    await eventually(() =>
      expect(consultEvents(from)).toEqual(['call.consultRinging agent-b from agent-a', 'call.consultConnected agent-b from agent-a']),
    );
    const at = Date.now() + 300; // rtpengine's switch settles within a few packets
    await eventually(
      () => {
        expect(heard(phones.first, at).consulted).toBeGreaterThanOrEqual(10);
        expect(heard(phones.consulted, at).first).toBeGreaterThanOrEqual(10);
        expect(heard(phones.caller, at).hold).toBeGreaterThanOrEqual(10);
      },
      { timeoutMs: 8000 },
    );
    const caller = heard(phones.caller, at);
    expect(caller.first + caller.consulted).toBe(0);
    expect(heard(phones.first, at).caller).toBe(0);
    expect(heard(phones.consulted, at).caller).toBe(0);
  };

  beforeAll(async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'centralita-voice-consult-'));
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

  it('consults agent B while the caller hears hold music, then completes: caller and B talk, A gets its BYE', async () => {
    const from = '+34600000301';
    const { caller, first } = await connectedCall(from, 'agent-c1a');
    const consulted = await newPhone('agent-c1b', TONES.consulted);

    await consult(from, 'agent-c1b');
    await consulting(from, { caller, first, consulted });
    expect(consulted.requests.find((request) => request.method === 'INVITE')!.headers.from.uri).toContain(from);
    expect(first.requests.some((request) => request.method === 'BYE')).toBe(false);

    await command(from, { type: 'consult.complete', agentId: 'agent-b' });
    await eventually(() => expect(consultEvents(from).at(-1)).toBe('call.consultCompleted agent-b from agent-a'));
    await eventually(() => expect(first.requests.some((request) => request.method === 'BYE')).toBe(true));
    const at = Date.now() + 300;
    await eventually(
      () => {
        expect(heard(caller, at).consulted).toBeGreaterThanOrEqual(10);
        expect(heard(consulted, at).caller).toBeGreaterThanOrEqual(10);
      },
      { timeoutMs: 8000 },
    );
    expect(heard(caller, at).hold).toBe(0);
    expect(heard(caller, at).first).toBe(0);
    expect(consulted.requests.some((request) => request.method === 'BYE')).toBe(false);

    // B is now the call's agent: their BYE ends the call.
    expect((await consulted.hangUp()).status).toBe(200);
    await eventually(() => expect(callEvents(from).at(-1)).toMatchObject({ type: 'call.ended', by: 'agent' }));
    await eventually(() => expect(caller.requests.some((request) => request.method === 'BYE')).toBe(true));
    await eventually(() => expect(server.activeCalls).toBe(0));
  });

  it('cancels the consultation: B gets its BYE and the caller talks with A again', async () => {
    const from = '+34600000302';
    const { caller, first } = await connectedCall(from, 'agent-c2a');
    const consulted = await newPhone('agent-c2b', TONES.consulted);

    await consult(from, 'agent-c2b');
    await consulting(from, { caller, first, consulted });

    await command(from, { type: 'consult.cancel', agentId: 'agent-b' });
    await eventually(() => expect(consultEvents(from).at(-1)).toBe('call.consultCancelled agent-b from agent-a cancelled'));
    await eventually(() => expect(consulted.requests.some((request) => request.method === 'BYE')).toBe(true));
    const at = Date.now() + 300;
    await eventually(
      () => {
        expect(heard(caller, at).first).toBeGreaterThanOrEqual(10);
        expect(heard(first, at).caller).toBeGreaterThanOrEqual(10);
      },
      { timeoutMs: 8000 },
    );
    expect(heard(caller, at).hold).toBe(0);
    expect(heard(caller, at).consulted).toBe(0);
    expect(first.requests.some((request) => request.method === 'BYE')).toBe(false);

    // A complete after the cancel changes nothing.
    await command(from, { type: 'consult.complete', agentId: 'agent-b' });
    expect((await caller.hangUp()).status).toBe(200);
    await eventually(() => expect(first.requests.some((request) => request.method === 'BYE')).toBe(true));
    expect(callEvents(from).at(-1)).toMatchObject({ type: 'call.ended', by: 'caller' });
    expect(consultEvents(from).at(-1)).toBe('call.consultCancelled agent-b from agent-a cancelled');
    await eventually(() => expect(server.activeCalls).toBe(0));
  });

  it('takes the consulted agent’s BYE as the end of the consultation: the caller talks with A again', async () => {
    const from = '+34600000304';
    const { caller, first } = await connectedCall(from, 'agent-c4a');
    const consulted = await newPhone('agent-c4b', TONES.consulted);

    await consult(from, 'agent-c4b');
    await consulting(from, { caller, first, consulted });
    expect((await consulted.hangUp()).status).toBe(200);
    await eventually(() => expect(consultEvents(from).at(-1)).toBe('call.consultCancelled agent-b from agent-a hangUp'));
    const at = Date.now() + 300;
    await eventually(
      () => {
        expect(heard(caller, at).first).toBeGreaterThanOrEqual(10);
        expect(heard(first, at).caller).toBeGreaterThanOrEqual(10);
      },
      { timeoutMs: 8000 },
    );
    expect(heard(caller, at).hold).toBe(0);
    expect(callEvents(from).map((event) => event.type)).not.toContain('call.ended');
    expect((await caller.hangUp()).status).toBe(200);
    await eventually(() => expect(server.activeCalls).toBe(0));
  });

  it('hands the caller to B when A hangs up during an answered consultation; A hanging up while B rings ends the call', async () => {
    const from = '+34600000305';
    const { caller, first } = await connectedCall(from, 'agent-c5a');
    const consulted = await newPhone('agent-c5b', TONES.consulted);

    await consult(from, 'agent-c5b');
    await consulting(from, { caller, first, consulted });
    expect((await first.hangUp()).status).toBe(200);
    await eventually(() => expect(consultEvents(from).at(-1)).toBe('call.consultCompleted agent-b from agent-a'));
    const at = Date.now() + 300;
    await eventually(
      () => {
        expect(heard(caller, at).consulted).toBeGreaterThanOrEqual(10);
        expect(heard(consulted, at).caller).toBeGreaterThanOrEqual(10);
      },
      { timeoutMs: 8000 },
    );
    expect(heard(caller, at).hold).toBe(0);
    expect(callEvents(from).map((event) => event.type)).not.toContain('call.ended');
    expect(caller.requests.some((request) => request.method === 'BYE')).toBe(false);
    expect(consulted.requests.some((request) => request.method === 'BYE')).toBe(false);
    // B is the call's agent now: their BYE ends it.
    expect((await consulted.hangUp()).status).toBe(200);
    await eventually(() => expect(callEvents(from).at(-1)).toMatchObject({ type: 'call.ended', by: 'agent' }));
    await eventually(() => expect(caller.requests.some((request) => request.method === 'BYE')).toBe(true));

    // B only rings when A hangs up: the call ends, B's phone stops ringing.
    const from2 = '+34600000306';
    const second = await connectedCall(from2, 'agent-c6a');
    const ringing = await newPhone('agent-c6b', TONES.consulted, 'ring');
    await consult(from2, 'agent-c6b');
    await eventually(() => expect(consultEvents(from2)).toEqual(['call.consultRinging agent-b from agent-a']));
    expect((await second.first.hangUp()).status).toBe(200);
    await eventually(() => expect(callEvents(from2).at(-1)).toMatchObject({ type: 'call.ended', by: 'agent' }));
    expect(consultEvents(from2).at(-1)).toBe('call.consultCancelled agent-b from agent-a callEnded');
    await eventually(() => expect(second.caller.requests.some((request) => request.method === 'BYE')).toBe(true));
    await eventually(() => expect(ringing.requests.some((request) => request.method === 'CANCEL')).toBe(true));
    await eventually(() => expect(server.activeCalls).toBe(0));
  });

  it('reports a consulted agent who is busy and bridges the caller back to A; the caller’s BYE during a consultation ends every leg', async () => {
    const from = '+34600000303';
    const { caller, first } = await connectedCall(from, 'agent-c3a');
    await newPhone('agent-c3busy', TONES.consulted, 'busy');

    await consult(from, 'agent-c3busy');
    await eventually(() =>
      expect(consultEvents(from)).toEqual(['call.consultRinging agent-b from agent-a', 'call.consultFailed agent-b from agent-a busy']),
    );
    const at = Date.now() + 300;
    await eventually(
      () => {
        expect(heard(caller, at).first).toBeGreaterThanOrEqual(10);
        expect(heard(first, at).caller).toBeGreaterThanOrEqual(10);
      },
      { timeoutMs: 8000 },
    );

    // A second consultation, answered, then the caller leaves: both agents' phones get a BYE.
    const consulted = await newPhone('agent-c3b', TONES.consulted);
    await consult(from, 'agent-c3b');
    await eventually(() => expect(consultEvents(from).at(-1)).toBe('call.consultConnected agent-b from agent-a'));
    expect((await caller.hangUp()).status).toBe(200);
    await eventually(() => {
      expect(first.requests.some((request) => request.method === 'BYE')).toBe(true);
      expect(consulted.requests.some((request) => request.method === 'BYE')).toBe(true);
    });
    expect(consultEvents(from).at(-1)).toBe('call.consultCancelled agent-b from agent-a callEnded');
    expect(callEvents(from).at(-1)).toMatchObject({ type: 'call.ended', by: 'caller' });
    await eventually(() => expect(server.activeCalls).toBe(0));
  });
});

type DistributiveOmit<T, K extends PropertyKey> = T extends unknown ? Omit<T, K> : never;
