// eslint-disable-next-line @typescript-eslint/triple-slash-reference -- the API's and the tests' programs compile this file too: they must see the declarations of the untyped sip / rtpengine-client
/// <reference path="./vendor.d.ts" />
import { randomBytes, randomUUID } from 'node:crypto';
import { createSocket, type Socket } from 'node:dgram';
import type { VoiceCallEvent, VoiceMonitorMode } from '@centralita/contracts';
import * as sip from 'sip';
import type { AgentMedia, RtpengineNg } from './rtpengine-ng';
import { sdpAudioPort } from './pcap-to-wav';
import { rememberDialog } from './sip-dialog';
import { platformAnswerSdp, type OfferedAudio } from './sdp';
import { alawToLinear, linearToAlaw, linearToUlaw, ulawToLinear } from './g711';

/**
 * Supervisor monitoring of a connected call (issue #22 item 4): listen, whisper, barge.
 *
 * rtpengine 10.5 (Debian 12) cannot do it alone: a 'subscribe request' to the caller and the agent answers one m= line
 * per source (measured: two sendonly sections, nothing mixed), and no ng command adds a second source to the agent's
 * ear. So the worker mixes: while a supervisor monitors, the rtpengine call is re-wired (same call, new tags) so that the
 * caller, the agent and the supervisor each talk to a UDP socket of this mixer through rtpengine. rtpengine keeps the
 * caller's and the agent's ports (their monologues keep their tags), so neither phone is re-INVITEd; the supervisor's
 * phone gets its own leg (INVITE through the outbound proxy, the agents' media profile). Every 20 ms the mixer sums the
 * decoded G.711 frames each party may hear (the mode's plan), encodes and sends them. Switching mode changes only the
 * plan; stopping re-bridges the caller and the agent directly in rtpengine.
 */

/** The rtpengine tags of the mixer's three sides and of the supervisor's phone, within the caller's rtpengine call. */
const MIX_CALLER = 'monitor-caller';
const MIX_AGENT = 'monitor-agent';
const MIX_SUPERVISOR = 'monitor-supervisor';

type Party = 'caller' | 'agent' | 'supervisor';

/** Who hears whom in each mode (the party → the parties summed into its ear). */
export const MONITOR_PLAN: Record<VoiceMonitorMode, Record<Party, Party[]>> = {
  listen: { caller: ['agent'], agent: ['caller'], supervisor: ['caller', 'agent'] },
  whisper: { caller: ['agent'], agent: ['caller', 'supervisor'], supervisor: ['caller', 'agent'] },
  barge: { caller: ['agent', 'supervisor'], agent: ['caller', 'supervisor'], supervisor: ['caller', 'agent'] },
};

const FRAME = 160; // 20 ms at 8 kHz
/** Frames kept per source: absorbs jitter, bounds the delay a late burst can add (100 ms). */
const MAX_QUEUED = 5;

/** What monitoring needs of the voice server. */
export interface MonitoringHost {
  ng: RtpengineNg;
  agentMedia: AgentMedia;
  /** Where the mixer's sockets bind, and the address rtpengine is told to send to. */
  mediaHost: string;
  mediaPublicHost: string;
  /** The SIP identity the supervisor's INVITE comes from and its Route (the outbound proxy), as for agents. */
  self: string;
  route: sip.NameAddr[];
  ringSeconds: number;
  send(message: sip.SipMessage, callback?: (response: sip.SipResponse) => void): void;
  emit(callId: string, event: MonitorEvent): void;
  /** The call as it is now when it is connected to an agent (null otherwise). */
  connected(callId: string): MonitoredCall | null;
  /** Runs work in the call's queue (one at a time with its re-INVITEs, hang-ups and commands). */
  serial(callId: string, work: () => Promise<void>): Promise<void>;
  /** The supervisor starts (on) or stops barging in: the rtpengine port their phone sends to (the call's recording mixes it in). */
  barging?(callId: string, supervisorPort: number, on: boolean): void;
  log: { log(message: string): void; warn(message: string): void };
}

export type MonitorEvent = Omit<Extract<VoiceCallEvent, { type: 'call.monitor' }>, 'callId' | 'tenantId' | 'seq' | 'at'>;

/** The connected call as monitoring sees it: its rtpengine call id and tags, and both parties' SDP. */
export interface MonitoredCall {
  id: string;
  callerTag: string;
  agentTag: string;
  callerSdp: string;
  offer: OfferedAudio;
  agentAnswerSdp: string;
  callerNumber: string;
}

interface SupervisorLeg {
  uri: string;
  sipCallId: string;
  localTag: string;
  tag: string;
  invite: sip.SipMessage;
  state: 'ringing' | 'answered' | 'ended';
  remoteTag: string;
  remoteTarget: string;
  routeSet: sip.NameAddr[];
  cseq: number;
  ringTimer: NodeJS.Timeout | null;
}

interface Session {
  call: MonitoredCall;
  supervisorId: string;
  mode: VoiceMonitorMode;
  leg: SupervisorLeg;
  mixer: Mixer | null;
  /** The rtpengine call is re-wired through the mixer (the direct bridge must be restored at the end). */
  rewired: boolean;
  /** rtpengine's port the supervisor's phone sends to (from the offer it was sent), and whether the host was told of a barge-in. */
  supervisorPort: number | null;
  barging: boolean;
}

export class Monitoring {
  private readonly byCall = new Map<string, Session>();
  private readonly byLeg = new Map<string, Session>();

  constructor(private readonly host: MonitoringHost) {}

  isMonitored(callId: string): boolean {
    return this.byCall.has(callId);
  }

  /**
   * Rings the supervisor's phone (outside the call's queue: a hang-up is not held up by the ringing); when it answers,
   * re-wires the call through the mixer in `mode`, in the call's queue. Resolves once the outcome is known (call.monitor
   * 'started' or 'failed' emitted). One supervisor per call: a second is refused.
   */
  async start(callId: string, supervisorId: string, uri: string, mode: VoiceMonitorMode): Promise<void> {
    const emit = (state: MonitorEvent['state'], reason: string) =>
      this.host.emit(callId, { type: 'call.monitor', supervisorId, state, mode, reason });
    const call = this.host.connected(callId);
    if (!call) return emit('failed', 'notConnected');
    if (this.byCall.has(call.id)) return emit('failed', 'alreadyMonitored');
    let target: sip.SipUri | null = null;
    try {
      target = sip.parseUri(uri);
    } catch {
      target = null;
    }
    if (!target?.host) return emit('failed', 'badUri');
    const mixer = await Mixer.open(this.host.mediaHost, mode);
    const tag = `supervisor-${randomBytes(4).toString('hex')}`;
    let offer: string;
    try {
      offer = await this.host.ng.offerToAgent(
        call.id,
        MIX_SUPERVISOR,
        tag,
        mixerSdp(call.offer, this.host.mediaPublicHost, mixer.port('supervisor')),
        this.host.agentMedia,
      );
    } catch (error) {
      mixer.close();
      this.host.log.warn(`call ${call.id}: offer toward supervisor ${supervisorId}: ${(error as Error).message}`);
      return emit('failed', 'media');
    }
    const leg = this.newLeg(uri, tag, offer, call.callerNumber);
    const session: Session = { call, supervisorId, mode, leg, mixer, rewired: false, supervisorPort: sdpAudioPort(offer), barging: false };
    this.byCall.set(call.id, session);
    this.byLeg.set(leg.sipCallId, session);

    const answer = await this.ring(leg);
    if (this.byCall.get(call.id) !== session) {
      // Stopped (or the call ended) while it rang: stop() has already CANCELled it and reported 'ended'.
      mixer.close();
      if (answer.status < 300) this.bye(leg);
      return;
    }
    if (answer.status >= 300) {
      this.forget(session);
      mixer.close();
      return emit('failed', answer.reason);
    }
    await this.host.serial(call.id, () => this.rewire(session, answer.sdp));
  }

  /** The supervisor answered: their leg, then the caller's and the agent's sides, go to the mixer, which starts. */
  private async rewire(session: Session, supervisorSdp: string): Promise<void> {
    const { supervisorId, mode, leg } = session;
    const mixer = session.mixer!;
    const call = this.host.connected(session.call.id);
    const emit = (state: MonitorEvent['state'], reason: string) =>
      this.host.emit(session.call.id, { type: 'call.monitor', supervisorId, state, mode, reason });
    if (!call || this.byCall.get(call.id) !== session) {
      // The call ended (or was re-negotiated) while the supervisor's phone rang.
      await this.end(session, null);
      return emit('failed', 'notConnected');
    }
    session.call = call;
    const tag = leg.tag;
    try {
      mixer.connect('supervisor', await this.host.ng.answerFromAgent(call.id, MIX_SUPERVISOR, tag, supervisorSdp));
      // The caller's side toward the mixer (rtpengine keeps the caller's ports: no re-INVITE), then the agent's.
      const towardMixer = await this.host.ng.offerToAgent(call.id, call.callerTag, MIX_CALLER, call.callerSdp, 'rtp');
      session.rewired = true;
      mixer.connect('caller', towardMixer);
      await this.host.ng.answerFromAgent(
        call.id,
        call.callerTag,
        MIX_CALLER,
        mixerSdp(call.offer, this.host.mediaPublicHost, mixer.port('caller')),
      );
      await this.host.ng.offerToAgent(
        call.id,
        MIX_AGENT,
        call.agentTag,
        mixerSdp(call.offer, this.host.mediaPublicHost, mixer.port('agent')),
        this.host.agentMedia,
      );
      mixer.connect('agent', await this.host.ng.answerFromAgent(call.id, MIX_AGENT, call.agentTag, call.agentAnswerSdp));
    } catch (error) {
      this.host.log.warn(`call ${call.id}: monitoring media: ${(error as Error).message}`);
      await this.end(session, call);
      return emit('failed', 'media');
    }
    mixer.run();
    this.bargingNow(session);
    this.host.log.log(`call ${call.id}: supervisor ${supervisorId} monitors (${mode})`);
    emit('started', 'answered');
  }

  /** Another mode for the running monitoring: only the mixer's plan changes. */
  setMode(callId: string, supervisorId: string, mode: VoiceMonitorMode): void {
    const session = this.byCall.get(callId);
    if (!session || session.supervisorId !== supervisorId || !session.mixer?.running) return;
    session.mode = mode;
    session.mixer?.setMode(mode);
    this.bargingNow(session);
    this.host.emit(callId, { type: 'call.monitor', supervisorId, state: 'changed', mode, reason: 'mode' });
  }

  /**
   * The supervisor stops (or the call ends): their leg is ended and, while the call lives, the direct bridge restored.
   * Runs in the call's queue (the caller calls it from there). `supervisorId` given: only that supervisor's monitoring.
   */
  async stop(callId: string, reason: string, callEnded = false, supervisorId?: string): Promise<void> {
    const session = this.byCall.get(callId);
    if (!session || (supervisorId && session.supervisorId !== supervisorId)) return;
    await this.end(session, callEnded ? null : session.call);
    this.host.emit(callId, { type: 'call.monitor', supervisorId: session.supervisorId, state: 'ended', mode: session.mode, reason });
  }

  /** Requests in a supervisor's dialog (their BYE): true when it was one. */
  onRequest(request: sip.SipRequest): boolean {
    const session = this.byLeg.get(request.headers['call-id']);
    if (!session) return false;
    const reply = (status: number, reason: string) => {
      const response = sip.makeResponse(request, status, reason);
      response.headers = { ...response.headers, to: { ...request.headers.to, params: { ...request.headers.to.params } } };
      this.host.send(response);
    };
    if (request.method === 'ACK') return true;
    if (request.method === 'BYE') {
      reply(200, 'OK');
      session.leg.state = 'ended';
      void this.host.serial(session.call.id, () => this.stop(session.call.id, 'supervisorHungUp', false, session.supervisorId));
      return true;
    }
    // A hold/unhold re-INVITE of the supervisor's phone is not supported: the media stays as it is.
    reply(request.method === 'INVITE' ? 488 : 200, request.method === 'INVITE' ? 'Not Acceptable Here' : 'OK');
    return true;
  }

  async close(): Promise<void> {
    for (const callId of [...this.byCall.keys()]) await this.stop(callId, 'shutdown', true);
  }

  private async end(session: Session, restore: MonitoredCall | null): Promise<void> {
    this.forget(session);
    this.bargingNow(session, true);
    const leg = session.leg;
    if (leg.state === 'ringing') this.cancel(leg);
    else if (leg.state === 'answered') this.bye(leg);
    leg.state = 'ended';
    session.mixer?.close();
    session.mixer = null;
    if (restore && session.rewired) {
      // The caller and the agent bridged directly again, with the same ports and tags as before monitoring.
      try {
        await this.host.ng.offerToAgent(restore.id, restore.callerTag, restore.agentTag, restore.callerSdp, this.host.agentMedia);
        await this.host.ng.answerFromAgent(restore.id, restore.callerTag, restore.agentTag, restore.agentAnswerSdp);
      } catch (error) {
        this.host.log.warn(`call ${restore.id}: direct bridge after monitoring: ${(error as Error).message}`);
      }
    }
  }

  /** Tells the host when the supervisor's voice starts or stops reaching the caller (barge), once per change. */
  private bargingNow(session: Session, ended = false): void {
    const on = !ended && session.mode === 'barge' && !!session.mixer?.running;
    if (on === session.barging || session.supervisorPort === null) return;
    session.barging = on;
    this.host.barging?.(session.call.id, session.supervisorPort, on);
  }

  private forget(session: Session): void {
    if (this.byCall.get(session.call.id) === session) this.byCall.delete(session.call.id);
    if (this.byLeg.get(session.leg.sipCallId) === session) this.byLeg.delete(session.leg.sipCallId);
    if (session.leg.ringTimer) clearTimeout(session.leg.ringTimer);
    session.leg.ringTimer = null;
  }

  // ---------------------------------------------------------------- the supervisor's SIP leg (a UAC dialog)

  private newLeg(uri: string, tag: string, sdp: string, callerNumber: string): SupervisorLeg {
    const sipCallId = `${randomUUID()}@${this.host.self.split(':')[0]}`;
    const localTag = randomBytes(6).toString('hex');
    const invite: sip.SipMessage = {
      method: 'INVITE',
      uri,
      version: '2.0',
      headers: {
        via: [],
        to: { uri, params: {} },
        // The monitored caller's number, as on the agent's phone: the supervisor sees which call they join.
        from: { uri: `sip:${encodeURIComponent(callerNumber).replace(/%2B/g, '+')}@${this.host.self}`, params: { tag: localTag } },
        'call-id': sipCallId,
        cseq: { method: 'INVITE', seq: 1 },
        contact: [{ uri: `sip:centralita@${this.host.self}`, params: {} }],
        'content-type': 'application/sdp',
        'max-forwards': '70',
        ...(this.host.route.length ? { route: this.host.route } : {}),
      },
      content: sdp,
    };
    return {
      uri,
      sipCallId,
      localTag,
      tag,
      invite,
      state: 'ringing',
      remoteTag: '',
      remoteTarget: uri,
      routeSet: [],
      cseq: 1,
      ringTimer: null,
    };
  }

  /** Sends the INVITE; resolves with the 2xx's SDP, or the refusal's reason (CANCEL after the ring time). */
  private ring(leg: SupervisorLeg): Promise<{ status: number; sdp: string; reason: string }> {
    return new Promise((resolve) => {
      let cancelled: string | null = null;
      leg.ringTimer = setTimeout(() => {
        cancelled = 'noAnswer';
        this.cancel(leg);
      }, this.host.ringSeconds * 1000);
      this.host.send(leg.invite, (response) => {
        if (response.status < 200) return;
        if (response.status < 300) {
          rememberDialog(leg, response);
          this.ack(leg, response);
          if (leg.state !== 'ringing') return;
          if (leg.ringTimer) clearTimeout(leg.ringTimer);
          leg.state = 'answered';
          return resolve({ status: response.status, sdp: response.content ?? '', reason: cancelled ?? 'answered' });
        }
        if (leg.state !== 'ringing') return;
        if (leg.ringTimer) clearTimeout(leg.ringTimer);
        leg.state = 'ended';
        const status = response.status;
        const reason =
          cancelled ??
          (status === 486 || status === 600 || status === 603
            ? 'busy'
            : status === 480 || status === 404
              ? 'unavailable'
              : status === 408
                ? 'noAnswer'
                : `sip${status}`);
        resolve({ status, sdp: '', reason });
      });
    });
  }

  private ack(leg: SupervisorLeg, response: sip.SipResponse): void {
    this.host.send({
      method: 'ACK',
      uri: leg.remoteTarget,
      version: '2.0',
      headers: {
        via: [],
        to: response.headers.to,
        from: leg.invite.headers.from,
        'call-id': leg.sipCallId,
        cseq: { method: 'ACK', seq: 1 },
        'max-forwards': '70',
        ...(leg.routeSet.length ? { route: leg.routeSet.map((entry) => ({ ...entry, params: { ...entry.params } })) } : {}),
      },
    });
  }

  private bye(leg: SupervisorLeg): void {
    leg.cseq += 1;
    this.host.send(
      {
        method: 'BYE',
        uri: leg.remoteTarget,
        version: '2.0',
        headers: {
          via: [],
          to: { uri: leg.uri, params: { tag: leg.remoteTag } },
          from: leg.invite.headers.from,
          'call-id': leg.sipCallId,
          cseq: { method: 'BYE', seq: leg.cseq },
          'max-forwards': '70',
          ...(leg.routeSet.length ? { route: leg.routeSet.map((entry) => ({ ...entry, params: { ...entry.params } })) } : {}),
        },
      },
      () => undefined,
    );
  }

  private cancel(leg: SupervisorLeg): void {
    const invite = leg.invite;
    if (!invite.headers.via?.[0]?.params?.branch) return;
    this.host.send(
      {
        method: 'CANCEL',
        uri: invite.uri,
        version: '2.0',
        headers: {
          via: [invite.headers.via[0]],
          to: { uri: leg.uri, params: {} },
          from: invite.headers.from,
          'call-id': leg.sipCallId,
          cseq: { method: 'CANCEL', seq: 1 },
          'max-forwards': '70',
          ...(this.host.route.length ? { route: this.host.route } : {}),
        },
      },
      () => undefined,
    );
  }
}

/** The mixer's side of one rtpengine leg: the call's G.711 codec (and telephone-event, so rtpengine need not transcode). */
function mixerSdp(offer: OfferedAudio, address: string, port: number): string {
  return platformAnswerSdp(offer, { address, port }, 1);
}

interface Side {
  socket: Socket;
  /** Where rtpengine listens for what this party should hear, the payload type it expects, and its telephone-event type. */
  peer: { host: string; port: number; payloadType: number; alaw: boolean; telephoneEvent: number | null } | null;
  /** Decoded 20 ms frames this party said, oldest first. */
  queue: Int16Array[];
  seq: number;
  timestamp: number;
  ssrc: number;
  /** The RFC 4733 event being relayed to this side: the sender's event timestamp and the one it has in this stream. */
  event: { source: number; timestamp: number } | null;
  /** The RTP stream this party last sent (SSRC, sequence number, timestamp), for the stream the other party hears. */
  sent: { ssrc: number; seq: number; timestamp: number } | null;
}

/**
 * Whose stream each party's ear continues: the agent goes on hearing the caller's SSRC (and the caller the agent's),
 * its sequence numbers and timestamps carried on. A browser (WebRTC) plays an SSRC the SDP did not announce as the
 * track's one stream, and measured with Chromium 156, when rtpengine bridged the caller directly again after
 * monitoring, the caller's SSRC, seen before the mixer's, was not played again: the agent heard silence. With one
 * SSRC throughout, the track never changes stream.
 */
const CONTINUES: Partial<Record<Party, Party>> = { agent: 'caller', caller: 'agent' };

/** Who receives a party's RFC 4733 keys while monitored: the caller's go to the agent and back, as bridged directly. */
const KEYS_TO: Partial<Record<Party, Party>> = { caller: 'agent', agent: 'caller' };

/**
 * A three-party G.711 mixer on UDP: what each party says (its RTP from rtpengine, μ-law or A-law) is decoded into 20 ms
 * frames; every 20 ms each party is sent the sum of the frames the plan lets it hear (clipped to 16 bits), encoded in the
 * codec its leg uses, with an RTP stream of its own. RFC 4733 telephone events of the caller and the agent are relayed
 * to the other at once, in the receiver's stream (its SSRC, sequence and timeline), as rtpengine relays them unmonitored;
 * the supervisor's keys and other payloads are dropped.
 */
export class Mixer {
  private readonly sides: Record<Party, Side>;
  private timer: NodeJS.Timeout | null = null;
  running = false;
  private plan: Record<Party, Party[]>;

  private constructor(sockets: Record<Party, Socket>, mode: VoiceMonitorMode) {
    const side = (socket: Socket): Side => ({
      socket,
      peer: null,
      queue: [],
      seq: randomBytes(2).readUInt16BE(0),
      timestamp: randomBytes(4).readUInt32BE(0),
      ssrc: randomBytes(4).readUInt32BE(0),
      event: null,
      sent: null,
    });
    this.sides = { caller: side(sockets.caller), agent: side(sockets.agent), supervisor: side(sockets.supervisor) };
    this.plan = MONITOR_PLAN[mode];
    for (const party of ['caller', 'agent', 'supervisor'] as const) sockets[party].on('message', (message) => this.onRtp(party, message));
  }

  static async open(host: string, mode: VoiceMonitorMode): Promise<Mixer> {
    const bind = () =>
      new Promise<Socket>((resolve, reject) => {
        const socket = createSocket('udp4');
        socket.on('error', () => undefined);
        socket.once('error', reject);
        socket.bind(0, host, () => resolve(socket));
      });
    return new Mixer({ caller: await bind(), agent: await bind(), supervisor: await bind() }, mode);
  }

  port(party: Party): number {
    return this.sides[party].socket.address().port;
  }

  /** rtpengine's SDP toward this side of the mixer: where to send what the party hears, in which codec. */
  connect(party: Party, sdp: string): void {
    const host = /^c=IN IP4 (\S+)/m.exec(sdp)?.[1];
    const media = /^m=audio (\d+) \S+ ([\d ]+)/m.exec(sdp);
    if (!host || !media) throw new Error(`no audio in rtpengine's SDP toward the mixer's ${party} side`);
    const payloadType =
      media[2]!
        .split(' ')
        .map(Number)
        .find((pt) => pt === 0 || pt === 8) ?? 0;
    const telephoneEvent = Number(/^a=rtpmap:(\d+) telephone-event\/8000/im.exec(sdp)?.[1] ?? NaN);
    this.sides[party].peer = {
      host,
      port: Number(media[1]),
      payloadType,
      alaw: payloadType === 8,
      telephoneEvent: Number.isInteger(telephoneEvent) ? telephoneEvent : null,
    };
  }

  setMode(mode: VoiceMonitorMode): void {
    this.plan = MONITOR_PLAN[mode];
  }

  /** Starts the 20 ms clock (scheduled against the monotonic clock, so timer lateness does not accumulate). */
  run(): void {
    this.running = true;
    const started = performance.now();
    let tick = 0;
    const next = () => {
      tick += 1;
      this.timer = setTimeout(
        () => {
          this.mixOnce();
          next();
        },
        Math.max(0, started + tick * 20 - performance.now()),
      );
    };
    next();
  }

  close(): void {
    this.running = false;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    for (const side of Object.values(this.sides))
      try {
        side.socket.close();
      } catch {
        // already closed
      }
  }

  private onRtp(party: Party, message: Buffer): void {
    if (message.length < 12 || message[0]! >> 6 !== 2) return;
    const payloadType = message[1]! & 0x7f;
    this.sides[party].sent = { ssrc: message.readUInt32BE(8), seq: message.readUInt16BE(2), timestamp: message.readUInt32BE(4) };
    if (payloadType === this.sides[party].peer?.telephoneEvent) return this.relayKey(party, message);
    if (payloadType !== 0 && payloadType !== 8) return;
    const headerLength = 12 + (message[0]! & 0x0f) * 4;
    const payload = message.subarray(headerLength);
    const decode = payloadType === 0 ? ulawToLinear : alawToLinear;
    const queue = this.sides[party].queue;
    for (let offset = 0; offset + FRAME <= payload.length; offset += FRAME) {
      const frame = new Int16Array(FRAME);
      for (let i = 0; i < FRAME; i += 1) frame[i] = decode(payload[offset + i]!);
      queue.push(frame);
    }
    while (queue.length > MAX_QUEUED) queue.shift();
  }

  /**
   * An RFC 4733 packet relayed to the party that gets this party's keys: same payload and marker, the receiver's
   * telephone-event type, SSRC and next sequence number; every packet of one event (one sender timestamp) carries the
   * receiver's timestamp of the moment the event began there.
   */
  private relayKey(party: Party, message: Buffer): void {
    const to = KEYS_TO[party];
    const side = to ? this.sides[to] : null;
    if (!to || !side?.peer || side.peer.telephoneEvent === null || !this.running || !this.continueStream(to)) return;
    const headerLength = 12 + (message[0]! & 0x0f) * 4;
    if (message.length < headerLength + 4) return;
    const source = message.readUInt32BE(4);
    if (side.event?.source !== source) side.event = { source, timestamp: side.timestamp };
    const header = Buffer.alloc(12);
    header[0] = 0x80;
    header[1] = (message[1]! & 0x80) | side.peer.telephoneEvent;
    header.writeUInt16BE(side.seq, 2);
    header.writeUInt32BE(side.event.timestamp >>> 0, 4);
    header.writeUInt32BE(side.ssrc, 8);
    side.seq = (side.seq + 1) & 0xffff;
    side.socket.send(Buffer.concat([header, message.subarray(headerLength, headerLength + 4)]), side.peer.port, side.peer.host);
  }

  /**
   * Puts the stream a party hears on the SSRC of the party it continues (CONTINUES), the first time that party's RTP
   * is seen (and again if its SSRC changes), going on from its sequence number and timestamp. False while that
   * party has sent nothing yet: nothing is sent to this side until then.
   */
  private continueStream(party: Party): boolean {
    const from = CONTINUES[party];
    if (!from) return true;
    const sent = this.sides[from].sent;
    const side = this.sides[party];
    if (!sent) return false;
    if (side.ssrc !== sent.ssrc) {
      side.ssrc = sent.ssrc;
      side.seq = (sent.seq + 1) & 0xffff;
      side.timestamp = (sent.timestamp + FRAME) >>> 0;
      side.event = null;
    }
    return true;
  }

  /** One 20 ms step: each party's next frame taken once, and every party sent the sum of what it may hear. */
  private mixOnce(): void {
    const heard: Partial<Record<Party, Int16Array>> = {};
    for (const party of ['caller', 'agent', 'supervisor'] as const) heard[party] = this.sides[party].queue.shift();
    for (const party of ['caller', 'agent', 'supervisor'] as const) {
      const side = this.sides[party];
      if (!side.peer || !this.continueStream(party)) continue;
      const sum = new Int32Array(FRAME);
      for (const source of this.plan[party]) {
        const frame = heard[source];
        if (frame) for (let i = 0; i < FRAME; i += 1) sum[i]! += frame[i]!;
      }
      const packet = Buffer.alloc(12 + FRAME);
      packet[0] = 0x80;
      packet[1] = side.peer.payloadType;
      packet.writeUInt16BE(side.seq, 2);
      packet.writeUInt32BE(side.timestamp >>> 0, 4);
      packet.writeUInt32BE(side.ssrc, 8);
      const encode = side.peer.alaw ? linearToAlaw : linearToUlaw;
      for (let i = 0; i < FRAME; i += 1) packet[12 + i] = encode(Math.max(-32768, Math.min(32767, sum[i]!)));
      side.seq = (side.seq + 1) & 0xffff;
      side.timestamp = (side.timestamp + FRAME) >>> 0;
      side.socket.send(packet, side.peer.port, side.peer.host);
    }
  }
}
