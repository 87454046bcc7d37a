import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { VoiceCallEvent, VoiceCommand } from '@centralita/contracts';
import { eventually } from '../../../../test/support/eventually';
import { findKamailio, startKamailio, type RunningKamailio } from '../../../../test/support/kamailio';
import { freeUdpPort, rtpengineBinary, startRtpengine, type RunningRtpengine } from '../../../../test/support/rtpengine';
import { RtpengineNg } from './rtpengine-ng';
import { platformAnswerSdp, readAudioOffer } from './sdp';
import { SipTestAgent } from './testing/sip-test-agent';
import { SipTestCaller, rms, toneShare } from './testing/sip-test-caller';
import type { VoiceConfig } from './voice-config';
import type { VoiceEventSink } from './voice-events';
import { VOICE_TONES } from './voice-media-files';
import { VoiceServer } from './voice-server';

/**
 * The 'connect' command with real SIP and real media: the voice server rings an agent's phone registered at a real
 * kamailio (the outbound proxy), through kamailio, with an SDP from rtpengine on a new leg of the caller's rtpengine
 * call; the agent's phone (a Node SIP UA on plain RTP/AVP, VOICE_AGENT_MEDIA=rtp) answers and both hear each other
 * (decoded G.711, tone detection both ways). Busy, unregistered and unanswered agents put the caller back on hold music
 * with call.connectFailed; either side's BYE ends both legs. The browser (WebRTC) profile is not exercised here.
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
    'voice-connect.int-spec: rtpengine or kamailio is not installed (rtpengine-daemon, kamailio): the connect tests are skipped',
  );
const describeConnect = RTPENGINE && KAMAILIO ? describe : describe.skip;

const TENANT = '00000000-0000-4000-8000-000000000001';
const NUMBER = '+34910000010';
/** What each party "says": the caller 700 Hz, the agents' phones 1500 Hz and 1800 Hz (apart from the 440/523/659 Hz platform sounds). */
const CALLER_HZ = 700;
const AGENT_HZ = 1500;
const OTHER_AGENT_HZ = 1800;

describeConnect('VoiceServer connect (real SIP through kamailio + rtpengine on loopback)', () => {
  let rtpengine: RunningRtpengine;
  let kamailio: RunningKamailio;
  let server: VoiceServer;
  let dir: string;
  const events: VoiceCallEvent[] = [];
  const callers: SipTestCaller[] = [];
  const agents: SipTestAgent[] = [];

  const sink: VoiceEventSink = {
    publish: (event) => void events.push(event),
    flush: async () => undefined,
    close: async () => undefined,
  };

  const newCaller = async () => {
    const caller = await SipTestCaller.create(await freeUdpPort('127.0.0.2'));
    callers.push(caller);
    return caller;
  };
  const newAgent = async (user: string, hz: number, behaviour: SipTestAgent['behaviour'] = 'answer') => {
    const agent = await SipTestAgent.create(user, await freeUdpPort('127.0.0.4'), hz);
    agent.behaviour = behaviour;
    agents.push(agent);
    expect((await agent.register(kamailio.udp)).status).toBe(200);
    return agent;
  };
  /** The events of the call whose caller presented `from`. */
  const callEvents = (from: string) => {
    const started = events.find((event) => event.type === 'call.started' && event.from === from);
    return started ? events.filter((event) => event.callId === started.callId) : [];
  };
  const summary = (from: string) =>
    callEvents(from).map((event) => {
      switch (event.type) {
        case 'call.queued':
          return `call.queued ${event.attentionLineId}`;
        case 'call.connected':
          return `call.connected ${event.agentId}`;
        case 'call.connectFailed':
          return `call.connectFailed ${event.agentId} ${event.reason}`;
        case 'call.abandoned':
          return `call.abandoned ${event.stage}`;
        case 'call.ended':
          return `call.ended ${event.by} ${event.reason}`;
        default:
          return event.type;
      }
    });
  const callIdOf = (from: string) => callEvents(from)[0]!.callId;
  const connect = (from: string, agentId: string, user: string) =>
    server.command({
      type: 'connect',
      tenantId: TENANT,
      callId: callIdOf(from),
      conversationId: '00000000-0000-4000-8000-0000000000c1',
      agentId,
      // As the API writes it: the softphone's user at the softphone domain; the proxy setting, not this host, routes it.
      agentSipUri: `sip:${user}@127.0.0.1`,
    } satisfies VoiceCommand);

  /** 100 ms frames of what was heard between two instants: the dominant sound of each. */
  const frames = (samples: (from: number, to: number) => Int16Array, from: number, to: number) => {
    const out: string[] = [];
    for (let at = from; at + 100 <= to; at += 100) {
      const frame = samples(at, at + 100);
      if (rms(frame) < 200) out.push('silence');
      else if (toneShare(frame, CALLER_HZ) > 0.5) out.push('caller');
      else if (toneShare(frame, AGENT_HZ) > 0.5) out.push('agent');
      else if (toneShare(frame, OTHER_AGENT_HZ) > 0.5) out.push('otherAgent');
      else if (VOICE_TONES.hold.some((hz) => toneShare(frame, hz) > 0.5)) out.push('hold');
      else out.push('other');
    }
    return out;
  };
  const heardByCaller = (caller: SipTestCaller, from: number, sound: string) =>
    frames((a, b) => caller.samples(a, b), from, Date.now()).filter((frame) => frame === sound).length;
  const heardByAgent = (agent: SipTestAgent, from: number, sound: string) =>
    frames((a, b) => agent.samples(a, b), from, Date.now()).filter((frame) => frame === sound).length;

  /** A caller on NUMBER (straight to a line), queued and hearing hold music, saying CALLER_HZ. */
  const queuedCaller = async (from: string) => {
    const caller = await newCaller();
    caller.setTone(CALLER_HZ);
    expect((await caller.invite({ host: '127.0.0.1', port: server$Port() }, { to: NUMBER, from })).status).toBe(200);
    const at = Date.now();
    await eventually(() => expect(summary(from)).toEqual(['call.started', 'call.queued line-direct']));
    await eventually(() => expect(heardByCaller(caller, at, 'hold')).toBeGreaterThanOrEqual(5), { timeoutMs: 5000 });
    return caller;
  };
  let sipPort = 0;
  const server$Port = () => sipPort;

  beforeAll(async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'centralita-voice-connect-'));
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
      agentRingSeconds: 2,
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
    for (const caller of callers) await caller.close().catch(() => undefined);
    await server?.stop();
    for (const agent of agents) await agent.close().catch(() => undefined);
    await kamailio?.stop();
    await rtpengine?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('rings the agent through kamailio, bridges the media both ways, and the agent’s BYE ends both legs', async () => {
    const agent = await newAgent('agent-a', AGENT_HZ);
    const from = '+34600000101';
    const caller = await queuedCaller(from);

    await connect(from, 'agent-1', 'agent-a');
    await eventually(() => expect(summary(from)).toContain('call.connected agent-1'));
    const connectedAt = Date.now();

    // The INVITE came through kamailio (its Record-Route) with rtpengine's plain RTP offer of the caller's codec,
    // and the caller's number as the From user.
    const invite = agent.requests.find((request) => request.method === 'INVITE')!;
    // (the sip package parses a Record-Route's URI into its parts)
    expect(invite.headers['record-route']).toEqual([
      expect.objectContaining({ uri: expect.objectContaining({ host: kamailio.udp.host, port: kamailio.udp.port }) }),
    ]);
    expect(invite.content).toMatch(/^m=audio \d+ RTP\/AVP 0( \d+)*\r?$/m);
    expect(invite.content).toMatch(/^c=IN IP4 127\.0\.0\.1\r?$/m);
    expect(invite.headers.from.uri).toContain(from);
    // Through kamailio, the phone conversation's id for the console's screen pop.
    expect(invite.headers['x-centralita-conversation']).toBe('00000000-0000-4000-8000-0000000000c1');

    // The caller hears the agent (and no more hold music); the agent hears the caller.
    await eventually(() => expect(heardByCaller(caller, connectedAt, 'agent')).toBeGreaterThanOrEqual(10), { timeoutMs: 5000 });
    await eventually(() => expect(heardByAgent(agent, connectedAt, 'caller')).toBeGreaterThanOrEqual(10), { timeoutMs: 5000 });
    expect(heardByCaller(caller, connectedAt + 300, 'hold')).toBe(0);

    // A caller's re-INVITE while bridged is offered toward the agent's own rtpengine side and answered at once (the
    // agent is not re-INVITEd); both still hear each other afterwards.
    const again = await caller.request('INVITE', { contentType: 'application/sdp', content: caller.offerSdp('PCMU', 101) });
    expect(again.status).toBe(200);
    expect(again.content).toMatch(/^m=audio \d+ RTP\/AVP 0( \d+)*\r?$/m);
    const reInvitedAt = Date.now();
    await eventually(() => expect(heardByCaller(caller, reInvitedAt, 'agent')).toBeGreaterThanOrEqual(10), { timeoutMs: 5000 });
    await eventually(() => expect(heardByAgent(agent, reInvitedAt, 'caller')).toBeGreaterThanOrEqual(10), { timeoutMs: 5000 });
    expect(agent.requests.filter((request) => request.method === 'INVITE')).toHaveLength(1);

    expect((await agent.hangUp()).status).toBe(200);
    await caller.waitForBye();
    await eventually(() => expect(summary(from)).toContain('call.ended agent hangUp'));
    expect(summary(from)).toEqual(['call.started', 'call.queued line-direct', 'call.connected agent-1', 'call.ended agent hangUp']);
    await eventually(() => expect(server.activeCalls).toBe(0));
  });

  it('takes the agent’s hold re-INVITE: the caller hears hold music while held, the agent again after the resume', async () => {
    const agent = await newAgent('agent-h', AGENT_HZ);
    const from = '+34600000105';
    const caller = await queuedCaller(from);
    await connect(from, 'agent-h1', 'agent-h');
    await eventually(() => expect(summary(from)).toContain('call.connected agent-h1'));
    const connectedAt = Date.now();
    await eventually(() => expect(heardByCaller(caller, connectedAt, 'agent')).toBeGreaterThanOrEqual(10), { timeoutMs: 5000 });

    // Hold (sip.js: a=sendonly): answered 200 through rtpengine with the mirror direction, the caller hears the music.
    const hold = await agent.reInvite('sendonly');
    expect(hold.status).toBe(200);
    expect(hold.content).toMatch(/^a=recvonly\r?$/m);
    expect(hold.content).toMatch(/^m=audio \d+ RTP\/AVP 0( \d+)*\r?$/m);
    const heldAt = Date.now();
    await eventually(() => expect(heardByCaller(caller, heldAt, 'hold')).toBeGreaterThanOrEqual(10), { timeoutMs: 5000 });
    expect(heardByCaller(caller, heldAt + 300, 'agent')).toBe(0);

    // Resume (a=sendrecv): the music stops, both hear each other again.
    const resume = await agent.reInvite('sendrecv');
    expect(resume.status).toBe(200);
    expect(resume.content).toMatch(/^a=sendrecv\r?$/m);
    const resumedAt = Date.now();
    await eventually(() => expect(heardByCaller(caller, resumedAt, 'agent')).toBeGreaterThanOrEqual(10), { timeoutMs: 5000 });
    await eventually(() => expect(heardByAgent(agent, resumedAt, 'caller')).toBeGreaterThanOrEqual(10), { timeoutMs: 5000 });
    expect(heardByCaller(caller, resumedAt + 300, 'hold')).toBe(0);
    // Hold and resume are no call events: the conversation side sees one connected call.
    expect(summary(from)).toEqual(['call.started', 'call.queued line-direct', 'call.connected agent-h1']);

    expect((await caller.hangUp()).status).toBe(200);
    await eventually(() => expect(summary(from)).toContain('call.ended caller hangUp'));
    await eventually(() => expect(server.activeCalls).toBe(0));
  });

  it('transfers a connected call: release BYEs the first agent and keeps the caller on hold music, the next agent’s phone rings and hears the caller', async () => {
    const first = await newAgent('agent-t1', AGENT_HZ);
    const second = await newAgent('agent-t2', OTHER_AGENT_HZ);
    const third = await newAgent('agent-t3', AGENT_HZ);
    const from = '+34600000106';
    const caller = await queuedCaller(from);
    await connect(from, 'agent-t1', 'agent-t1');
    await eventually(() => expect(summary(from)).toContain('call.connected agent-t1'));

    // A release for another agent than the connected one changes nothing.
    await server.command({ type: 'release', tenantId: TENANT, callId: callIdOf(from), agentId: 'agent-zz', reason: 'transferred' });
    expect(first.requests.some((request) => request.method === 'BYE')).toBe(false);

    await server.command({ type: 'release', tenantId: TENANT, callId: callIdOf(from), agentId: 'agent-t1', reason: 'transferred' });
    await eventually(() => expect(first.requests.some((request) => request.method === 'BYE')).toBe(true));
    expect(summary(from)).toContain('call.released');
    const releasedAt = Date.now();
    await eventually(() => expect(heardByCaller(caller, releasedAt + 300, 'hold')).toBeGreaterThanOrEqual(10), { timeoutMs: 5000 });
    expect(caller.byeReceived).toBe(false);

    await connect(from, 'agent-t2', 'agent-t2');
    await eventually(() => expect(summary(from)).toContain('call.connected agent-t2'));
    const secondAt = Date.now();
    await eventually(() => expect(heardByCaller(caller, secondAt, 'otherAgent')).toBeGreaterThanOrEqual(10), { timeoutMs: 5000 });
    await eventually(() => expect(heardByAgent(second, secondAt, 'caller')).toBeGreaterThanOrEqual(10), { timeoutMs: 5000 });

    // A transfer straight to an agent whose 'connect' is taken before its 'release': the connected agent is released first.
    await connect(from, 'agent-t3', 'agent-t3');
    await eventually(() => expect(summary(from)).toContain('call.connected agent-t3'));
    expect(second.requests.some((request) => request.method === 'BYE')).toBe(true);
    const thirdAt = Date.now();
    await eventually(() => expect(heardByCaller(caller, thirdAt, 'agent')).toBeGreaterThanOrEqual(10), { timeoutMs: 5000 });
    await eventually(() => expect(heardByAgent(third, thirdAt, 'caller')).toBeGreaterThanOrEqual(10), { timeoutMs: 5000 });

    expect((await third.hangUp()).status).toBe(200);
    await caller.waitForBye();
    await eventually(() => expect(summary(from)).toContain('call.ended agent hangUp'));
    expect(summary(from)).toEqual([
      'call.started',
      'call.queued line-direct',
      'call.connected agent-t1',
      'call.released',
      'call.connected agent-t2',
      'call.released',
      'call.connected agent-t3',
      'call.ended agent hangUp',
    ]);
    await eventually(() => expect(server.activeCalls).toBe(0));
  });

  it('puts the caller back on hold when the agent is busy, connects the next agent, and the caller’s BYE ends both legs', async () => {
    const busy = await newAgent('agent-b', AGENT_HZ, 'busy');
    const other = await newAgent('agent-c', OTHER_AGENT_HZ);
    const from = '+34600000102';
    const caller = await queuedCaller(from);

    await connect(from, 'agent-2', 'agent-b');
    await eventually(() => expect(summary(from)).toContain('call.connectFailed agent-2 busy'));
    expect(busy.requests.filter((request) => request.method === 'INVITE')).toHaveLength(1);
    const failedAt = Date.now();
    await eventually(() => expect(heardByCaller(caller, failedAt + 300, 'hold')).toBeGreaterThanOrEqual(10), { timeoutMs: 5000 });

    await connect(from, 'agent-3', 'agent-c');
    await eventually(() => expect(summary(from)).toContain('call.connected agent-3'));
    const connectedAt = Date.now();
    await eventually(() => expect(heardByCaller(caller, connectedAt, 'otherAgent')).toBeGreaterThanOrEqual(10), { timeoutMs: 5000 });
    await eventually(() => expect(heardByAgent(other, connectedAt, 'caller')).toBeGreaterThanOrEqual(10), { timeoutMs: 5000 });

    expect((await caller.hangUp()).status).toBe(200);
    await eventually(() => expect(other.requests.some((request) => request.method === 'BYE')).toBe(true));
    await eventually(() => expect(summary(from)).toContain('call.ended caller hangUp'));
    expect(summary(from)).toEqual([
      'call.started',
      'call.queued line-direct',
      'call.connectFailed agent-2 busy',
      'call.connected agent-3',
      'call.ended caller hangUp',
    ]);
    await eventually(() => expect(server.activeCalls).toBe(0));
  });

  it('CANCELs an unanswered ring after the ring time, reports an unregistered agent, and CANCELs the ring when the caller leaves', async () => {
    const ringing = await newAgent('agent-d', AGENT_HZ, 'ring');
    const from = '+34600000103';
    const caller = await queuedCaller(from);
    const invites = () => ringing.requests.filter((request) => request.method === 'INVITE').length;
    const cancels = () => ringing.requests.filter((request) => request.method === 'CANCEL').length;

    await connect(from, 'agent-4', 'agent-d');
    await eventually(() => expect(invites()).toBe(1));
    // While it rings the caller still hears hold music.
    const ringingAt = Date.now();
    await eventually(() => expect(heardByCaller(caller, ringingAt, 'hold')).toBeGreaterThanOrEqual(5), { timeoutMs: 3000 });
    await eventually(() => expect(summary(from)).toContain('call.connectFailed agent-4 noAnswer'), { timeoutMs: 6000 });
    expect(cancels()).toBe(1);
    const failedAt = Date.now();
    await eventually(() => expect(heardByCaller(caller, failedAt + 300, 'hold')).toBeGreaterThanOrEqual(5), { timeoutMs: 5000 });

    await connect(from, 'agent-5', 'nobody-registered');
    await eventually(() => expect(summary(from)).toContain('call.connectFailed agent-5 unavailable'));

    await connect(from, 'agent-4', 'agent-d');
    await eventually(() => expect(invites()).toBe(2));
    expect((await caller.hangUp()).status).toBe(200);
    await eventually(() => expect(cancels()).toBe(2));
    await eventually(() => expect(summary(from)).toContain('call.abandoned queue'));
    expect(summary(from)).toEqual([
      'call.started',
      'call.queued line-direct',
      'call.connectFailed agent-4 noAnswer',
      'call.connectFailed agent-5 unavailable',
      'call.abandoned queue',
    ]);
    await eventually(() => expect(server.activeCalls).toBe(0));
  });

  it('offers a browser what WebRTC needs on the agent leg (VOICE_AGENT_MEDIA=webrtc), without a browser', async () => {
    // Only the offer is checked here: no browser answers it in this suite.
    const ng = new RtpengineNg(rtpengine.ng);
    const callId = `webrtc-offer-${Date.now()}`;
    const callerSdp = [
      'v=0',
      'o=caller 1 1 IN IP4 127.0.0.2',
      's=test',
      'c=IN IP4 127.0.0.2',
      't=0 0',
      'm=audio 40000 RTP/AVP 0 101',
      'a=rtpmap:0 PCMU/8000',
      'a=rtpmap:101 telephone-event/8000',
      'a=sendrecv',
      '',
    ].join('\r\n');
    try {
      await ng.offer(callId, 'caller', callerSdp);
      await ng.answer(
        callId,
        'caller',
        'platform',
        platformAnswerSdp(readAudioOffer(callerSdp)!, { address: '127.0.0.1', port: 40002 }, 1),
      );
      const offer = await ng.offerToAgent(callId, 'caller', 'platform', callerSdp, 'webrtc');
      expect(offer).toMatch(/^m=audio \d+ UDP\/TLS\/RTP\/SAVPF 0 101\r?$/m);
      // actpass: the browser, answering, takes the DTLS client role (active).
      expect(offer).toMatch(/^a=setup:actpass\r?$/m);
      expect(offer).toMatch(/^a=fingerprint:sha-256 [0-9A-F:]+\r?$/m);
      expect(offer).toMatch(/^a=ice-ufrag:\S+\r?$/m);
      expect(offer).toMatch(/^a=candidate:\S+ 1 UDP \d+ 127\.0\.0\.1 \d+ typ host/im);
      expect(offer).toMatch(/^a=rtcp-mux\r?$/m);
      expect(offer).toMatch(/^a=mid:\S+\r?$/m);
      expect(offer).not.toMatch(/^a=crypto:/m);
    } finally {
      await ng.delete(callId).catch(() => undefined);
      ng.close();
    }
  });
});
