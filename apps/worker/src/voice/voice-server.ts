// eslint-disable-next-line @typescript-eslint/triple-slash-reference -- the API's and the tests' programs compile this file too: they must see the declarations of the untyped sip / rtpengine-client
/// <reference path="./vendor.d.ts" />
import { randomBytes, randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createServer as createTcpServer } from 'node:net';
import { createSocket, type Socket } from 'node:dgram';
import type {
  IvrTree,
  Language,
  VoiceAbandonStage,
  VoiceCallEvent,
  VoiceCommand,
  VoiceIvrExit,
  VoiceSettings,
} from '@centralita/contracts';
import { ivrKey, ivrTimeout, startIvr, type IvrAction, type IvrStep, type IvrWalkState } from '@centralita/domain';
import * as sip from 'sip';
import type { CallRecordings, RecordingPolicy } from './call-recording';
import { ConsultRelay } from './consult-relay';
import { DtmfListener, type RtpengineDtmf } from './dtmf-listener';
import type { PublishedIvr, ResolvedInboundNumber } from './inbound-numbers';
import { sdpAudioPort, type BargeIn } from './pcap-to-wav';
import { rememberDialog } from './sip-dialog';
import { carrierSourceAllowed } from './source-check';
import { Monitoring, type MonitoredCall } from './monitoring';
import { RtpengineNg } from './rtpengine-ng';
import { answerToAgentOffer, platformAnswerSdp, readAudioOffer, type OfferedAudio } from './sdp';
import { DEFAULT_VOICEMAIL_MAX_SECONDS, type VoiceConfig } from './voice-config';
import type { VoiceEventSink } from './voice-events';
import { ensureVoiceMediaFiles, type VoiceMediaFiles } from './voice-media-files';

/** What the voice server needs from the rest of the platform (the database, the file store, the API's queue). */
export interface VoiceServerDeps {
  resolveNumber(calledNumber: string): Promise<ResolvedInboundNumber | null>;
  loadIvr(tenantId: string, ivrId: string): Promise<PublishedIvr | null>;
  /** A local WAV path for a prompt's audio file id (rendered speech or an uploaded recording); null when unavailable. */
  promptFile(tenantId: string, audioFileId: string): Promise<string | null>;
  /** The line's business hours (business-hours.ts): null while open; closed → the stored audio of its off-hours sentence. */
  lineClosed?(tenantId: string, lineId: string, language: Language): Promise<{ audioFileId: string | null } | null>;
  /** The tenant's hold music and position announcement interval (queue-announcements.ts); absent: built-in music only. */
  voiceSettings?(tenantId: string): Promise<VoiceSettings>;
  /** The caller's place in their line's queue now (1 = next); null while their conversation is not waiting. */
  queuePosition?(tenantId: string, callId: string): Promise<number | null>;
  /** A local WAV of "You are number N in the queue" in `language`; null when it cannot be rendered. */
  announcement?(language: Language, position: number): Promise<string | null>;
  events: VoiceEventSink;
  log?: { log(message: string): void; warn(message: string): void };
  /** Call recording (call-recording.ts); absent or null: no call is recorded. */
  recordings?: CallRecordings | null;
}

/** 'closing': the line the caller was sent to is closed, its off-hours sentence plays before the BYE. */
/** 'connecting': an agent's phone rings (the caller still hears hold music until it answers); 'connected': bridged. */
/** 'voicemail': the caller's message to a line is being recorded (after the beep) until '#', hang-up or the maximum length. */
type Stage = 'answering' | 'ivr' | 'queue' | 'connecting' | 'connected' | 'closing' | 'voicemail' | 'ended';

/** The platform's INVITE to an agent's phone (command 'connect'): a UAC dialog of its own, through the outbound proxy. */
interface AgentLeg {
  agentId: string;
  uri: string;
  sipCallId: string;
  localTag: string;
  invite: sip.SipMessage;
  state: 'ringing' | 'answered' | 'ended';
  /** Set when the platform CANCELs the ringing (ring timeout, caller gone): the reason the final response stands for. */
  cancelReason: string | null;
  ringTimer: NodeJS.Timeout | null;
  /** From the 2xx: the agent's tag, Contact (in-dialog requests go there) and the reversed Record-Route set. */
  remoteTag: string;
  remoteTarget: string;
  routeSet: sip.NameAddr[];
  localCseq: number;
  /** The agent's answer SDP (a caller's re-INVITE is answered against it). */
  answerSdp: string | null;
}

/** The rtpengine tags of a call's two sides: the caller, and the platform (the sink that hears the caller while no agent is bridged). */
const CALLER = 'caller';
const PLATFORM = 'platform';
/**
 * Each agent leg is a side of its own in rtpengine, not the platform sink offered again: rtpengine 10.5 takes the DTLS
 * client role on a side whose remote address it already knows (the sink's, from the INVITE's answer) while still
 * offering actpass, so a browser that answers as the DTLS client (as Chromium does) has its ClientHello refused
 * ("DTLS error: 1 (unexpected message)"). A new side has no remote address yet, so rtpengine waits as the DTLS server.
 */
const agentMediaTag = (leg: { localTag: string }): string => `agent-${leg.localTag}`;
/** The rtpengine tags of a consultation's relay ends (consult-relay.ts), toward the first and the consulted agent's sides. */
const CONSULT_FIRST = 'consult-first';
const CONSULT_OTHER = 'consult-other';
const ALLOW = 'INVITE, ACK, BYE, CANCEL, OPTIONS, INFO';
/** On the agent's INVITE ('connect'): the phone conversation it belongs to, for the console's screen pop. */
export const CONVERSATION_HEADER = 'x-centralita-conversation';
/** RFC 3261 timers: 200 OK retransmitted from T1 doubling up to T2 until the ACK, given up after 64·T1. */
const T1 = 500;
const T2 = 4000;

interface VoiceCall {
  /** Our id for the call (a UUID): the events' callId and rtpengine's call-id. */
  id: string;
  sipCallId: string;
  invite: sip.SipRequest;
  localTag: string;
  /** The caller's Contact (in-dialog requests go there) and the Record-Route set. */
  remoteTarget: string;
  routeSet: sip.NameAddr[];
  /** An INVITE over TCP/TLS: that connection (the flow); requests to the caller go back over it. Absent: UDP. */
  stream?: { protocol: StreamProtocol; flow: sip.Remote };
  localCseq: number;
  tenantId: string;
  stage: Stage;
  seq: number;
  offer: OfferedAudio | null;
  /** The caller's latest offer SDP (the agent leg is offered from it). */
  callerSdp: string;
  /** The agent's leg while 'connecting' or 'connected'. */
  agent: AgentLeg | null;
  /** The SDP sent in the 200 OK (re-INVITEs are answered with the same media). */
  answerSdp: string | null;
  sessionVersion: number;
  acked: boolean;
  okTimer: NodeJS.Timeout | null;
  ackDeadline: NodeJS.Timeout | null;
  cancelled: boolean;
  ivr: { tree: IvrTree; state: IvrWalkState } | null;
  promptTimer: NodeJS.Timeout | null;
  playing: boolean;
  /** What the caller is spoken to in: the IVR's language (the tenant's for a number that goes straight to a line). */
  language: Language;
  /** The tenant's own hold music (local path), read when the caller starts waiting; null/absent: the built-in one. */
  holdMusic?: string | null;
  /** Seconds of music between position announcements in a line's queue (0/absent: none). */
  announceEvery?: number;
  /** The next position announcement; after it the music resumes and the next one is set. */
  announceTimer?: NodeJS.Timeout | null;
  announceResume?: NodeJS.Timeout | null;
  /** A call's keys, timeouts and commands run one at a time, in arrival order. */
  work: Promise<void>;
  /** The tenant's recording policy, read when an agent is first rung (so the answer does not wait for the database). */
  recordingPolicy?: Promise<RecordingPolicy | null>;
  /** Whether the caller has heard that the call is recorded (once per call, whichever agent is rung first). */
  recordingAnnounced?: boolean;
  /** The connected agent put the call on hold (their re-INVITE): the caller hears the hold music until they resume. */
  agentHeld?: boolean;
  /** An attended transfer's consultation: the consulted agent's leg, the relay the two agents talk through, the first agent. */
  consult?: { leg: AgentLeg; relay: ConsultRelay; first: AgentLeg } | null;
  /** Set when rtpengine records the call: the rtpengine ports each side sends to (the pcap's sides) and who answered. */
  recording?: { callerPort: number; agentPorts: number[]; agentId: string | null; kind?: 'voicemail'; bargeIns?: BargeIn[] };
  /** Ends a voicemail at the maximum length (VOICE_VOICEMAIL_MAX_SECONDS). */
  voicemailTimer?: NodeJS.Timeout | null;
}

const userOf = (uri: string | undefined): string => {
  if (!uri) return '';
  try {
    return decodeURIComponent(sip.parseUri(uri).user ?? '');
  } catch {
    return '';
  }
};

/**
 * The inbound SIP user agent server (issue #22): answers carriers' INVITEs for the platform's inbound numbers, anchors
 * the media in rtpengine (offer/answer over ng), walks the number's published IVR (prompts played by rtpengine, keys
 * from rtpengine's RFC 4733 DTMF log or SIP INFO), parks queued callers on hold music, and reports every step on
 * QUEUES.voiceCallEvents. Pure Node over UDP, and TCP/TLS when configured (the `sip` package); production signalling
 * through drachtio is not wired. INVITEs for a trunk's number from a source the trunk does not allow get 403 (source-check.ts).
 */
export class VoiceServer {
  private stack: sip.SipStack | null = null;
  /** SIP over TCP / TLS (VOICE_SIP_TCP_PORT, VOICE_SIP_TLS_PORT): one `sip` stack per transport, beside the UDP one. */
  private streams: { protocol: StreamProtocol; port: number; stack: sip.SipStack }[] = [];
  /** The TCP/TLS connections the stacks accepted (the package keeps them open up to 2 min idle): closed by stop(). */
  private readonly streamSockets = new Set<import('node:net').Socket>();
  private ng: RtpengineNg;
  private readonly dtmf: DtmfListener;
  private sink: Socket | null = null;
  private media: VoiceMediaFiles | null = null;
  private readonly bySipCallId = new Map<string, VoiceCall>();
  private readonly byId = new Map<string, VoiceCall>();
  /** The agents' legs by their SIP Call-ID (the agent's BYE and re-INVITEs arrive in that dialog). */
  private readonly agentLegs = new Map<string, { call: VoiceCall; leg: AgentLeg }>();
  private readonly log: { log(message: string): void; warn(message: string): void };
  /** Recordings being decoded and stored after their call ended (stop() waits for them). */
  private readonly recordingJobs = new Set<Promise<void>>();

  constructor(
    private readonly config: VoiceConfig,
    private readonly deps: VoiceServerDeps,
  ) {
    this.ng = new RtpengineNg(config.rtpengine);
    this.dtmf = new DtmfListener((dtmf) => this.onRtpDtmf(dtmf));
    this.log = deps.log ?? { log: () => undefined, warn: () => undefined };
    this.monitoring = this.monitoringOf(config);
  }

  /** Supervisor monitoring (monitoring.ts) sees the calls through these few hooks only. */
  private readonly monitoring: Monitoring;
  private monitoringOf(config: VoiceConfig): Monitoring {
    return new Monitoring({
      ng: this.ng,
      agentMedia: config.agentMedia,
      mediaHost: config.sipHost,
      mediaPublicHost: config.sipPublicHost,
      self: `${config.sipPublicHost}:${config.sipPort}`,
      route: this.proxyRoute(),
      ringSeconds: config.agentRingSeconds,
      send: (message, callback) => this.send(message, callback),
      emit: (callId, event) => {
        const call = this.byId.get(callId);
        if (call) this.emit(call, event);
      },
      connected: (callId): MonitoredCall | null => {
        const call = this.byId.get(callId);
        if (call?.stage !== 'connected' || !call.agent?.answerSdp || !call.offer || call.consult) return null;
        const { id, callerSdp, offer } = call;
        return {
          id,
          callerTag: CALLER,
          agentTag: agentMediaTag(call.agent),
          callerSdp,
          offer,
          agentAnswerSdp: call.agent.answerSdp,
          callerNumber: callerNumber(call.invite),
        };
      },
      serial: (callId, work) => {
        const call = this.byId.get(callId);
        return call ? this.serial(call, work) : Promise.resolve();
      },
      // A barging supervisor is heard by the caller: the recording mixes their side into the agent's channel then.
      barging: (callId, port, on) => {
        const recording = this.byId.get(callId)?.recording;
        if (!recording) return;
        const bargeIns = (recording.bargeIns ??= []);
        const open = bargeIns.find((barge) => barge.port === port && barge.to === null);
        if (on && !open) bargeIns.push({ port, from: Date.now(), to: null });
        if (!on && open) open.to = Date.now();
      },
      log: this.log,
    });
  }

  /** Calls in progress (answered or being answered). */
  get activeCalls(): number {
    return this.byId.size;
  }

  /** Whether rtpengine answers its ng ping (the phone channel's "connected"). */
  rtpengineUp(): Promise<boolean> {
    return this.ng.ping();
  }

  async start(): Promise<void> {
    this.media = await ensureVoiceMediaFiles(this.config.mediaDir);
    await this.dtmf.listen(this.config.dtmfListen.host, this.config.dtmfListen.port);
    this.sink = createSocket('udp4');
    this.sink.on('message', () => undefined); // what the caller says goes nowhere until an agent leg exists
    this.sink.on('error', () => undefined);
    await new Promise<void>((resolve) => this.sink!.bind(0, this.config.sipHost, resolve));
    // The sip package binds UDP with no error listener: check the port is free first so a clash is a clear start error.
    await assertUdpPortFree(this.config.sipHost, this.config.sipPort);
    this.stack = withUdpErrorsLogged(
      (error) => this.log.warn(`SIP socket: ${error.message}`),
      () =>
        sip.create(
          {
            address: this.config.sipHost,
            port: this.config.sipPort,
            publicAddress: this.config.sipPublicHost,
            udp: true,
            tcp: false,
            logger: { error: (error) => this.log.warn(`SIP: ${error instanceof Error ? error.message : String(error)}`) },
          },
          (request, remote) => this.onRequest(request, remote),
        ),
    );
    await this.startStreams();
    if (!(await this.ng.ping()))
      this.log.warn(
        `rtpengine does not answer at ${this.config.rtpengine.host}:${this.config.rtpengine.port}: calls will get 503 until it does`,
      );
    this.log.log(
      `voice server listening for SIP on udp ${this.config.sipHost}:${this.config.sipPort} (rtpengine ${this.config.rtpengine.host}:${this.config.rtpengine.port})`,
    );
  }

  async stop(): Promise<void> {
    for (const call of [...this.byId.values()]) await this.hangUp(call, 'shutdown').catch(() => undefined);
    this.stack?.destroy();
    this.stack = null;
    for (const stream of this.streams) stream.stack.destroy();
    this.streams = [];
    for (const socket of this.streamSockets) socket.destroy();
    this.streamSockets.clear();
    this.dtmf.close();
    this.sink?.close();
    this.sink = null;
    this.ng.close();
    await Promise.all([...this.recordingJobs]);
    await this.deps.events.flush();
  }

  /** A command from the API (QUEUES.voiceCommands): 'hangUp', or 'connect' (ring the agent's phone and bridge the caller to it). */
  async command(command: VoiceCommand): Promise<void> {
    const call = this.byId.get(command.callId);
    if (!call || call.tenantId !== command.tenantId) {
      this.log.warn(`voice command ${command.type} for unknown call ${command.callId}`);
      return;
    }
    if (command.type === 'hangUp') {
      await this.serial(call, () => this.hangUp(call, command.reason || 'hangUp'));
      return;
    }
    // Not awaited: the supervisor's phone may ring for VOICE_AGENT_RING_SECONDS; call.monitor reports the outcome.
    if (command.type === 'monitor')
      return void this.monitoring.start(call.id, command.supervisorId, command.supervisorSipUri, command.mode);
    if (command.type === 'monitor.mode') return this.monitoring.setMode(call.id, command.supervisorId, command.mode);
    if (command.type === 'monitor.stop')
      return this.serial(call, () => this.monitoring.stop(call.id, 'stopped', false, command.supervisorId));
    if (command.type === 'release') return this.serial(call, () => this.release(call, command.agentId, command.reason || 'transferred'));
    if (command.type === 'consult') return this.serial(call, () => this.consult(call, command));
    if (command.type === 'consult.complete') return this.serial(call, () => this.consultComplete(call, command.agentId));
    if (command.type === 'consult.cancel')
      return this.serial(call, async () => {
        if (call.consult?.leg.agentId === command.agentId) await this.consultOver(call, 'cancelled', 'cancelled');
      });
    await this.serial(call, async () => {
      // A transfer's 'connect' for the next agent may be taken before its 'release' (commands run concurrently).
      if (call.stage === 'connected' && call.agent && call.agent.agentId !== command.agentId)
        await this.release(call, call.agent.agentId, 'transferred');
      await this.connect(call, command.agentId, command.agentSipUri, command.conversationId);
    });
  }

  /** The platform side's media address given to rtpengine: the sink socket at the server's public address. */
  private sinkTarget(): { address: string; port: number } {
    return { address: this.config.sipPublicHost, port: this.sink!.address().port };
  }

  // ---------------------------------------------------------------- SIP

  private send(message: sip.SipMessage, callback?: (response: sip.SipResponse) => void): void {
    if (message.method === undefined && this.streams.length) {
      // A response leaves through the server transaction of its request, kept by the stack (transport) it came in on.
      this.stack?.send(message);
      for (const stream of this.streams) stream.stack.send(message);
      return;
    }
    const call = message.method !== undefined ? this.bySipCallId.get(message.headers['call-id']) : undefined;
    const stream = call?.stream && this.streams.find((entry) => entry.protocol === call.stream!.protocol);
    if (stream && call?.stream) {
      // A request to a caller that came over TCP/TLS goes back over its connection: a first Route to the flow (the sip
      // package's flow URI, dropped before sending) picks it; the caller's own route set follows.
      const flow = { ...stream.stack.encodeFlowUri(call.stream.flow), params: { lr: null } };
      const route = Array.isArray(message.headers.route) ? message.headers.route : [];
      message.headers.route = [{ uri: flow as unknown as string, params: {} }, ...route];
      return stream.stack.send(message, callback);
    }
    this.stack?.send(message, callback);
  }

  /** The platform's own URI for a call's Contact: the port and `transport` of the transport the caller used. */
  private selfUri(user: string, call?: VoiceCall): string {
    const stream = call?.stream && this.streams.find((entry) => entry.protocol === call.stream!.protocol);
    if (!stream) return `sip:${user}@${this.config.sipPublicHost}:${this.config.sipPort}`;
    return `sip:${user}@${this.config.sipPublicHost}:${stream.port};transport=${stream.protocol.toLowerCase()}`;
  }

  /** SIP over TCP and TLS when configured: each transport a `sip` stack of its own (the package binds TCP on its UDP port). */
  private async startStreams(): Promise<void> {
    const { sipTcpPort, sipTls } = this.config;
    const common = {
      address: this.config.sipHost,
      publicAddress: this.config.sipPublicHost,
      udp: false,
      logger: { error: (error: unknown) => this.log.warn(`SIP: ${error instanceof Error ? error.message : String(error)}`) },
    };
    const onRequest = (request: sip.SipRequest, remote: sip.Remote) => this.onRequest(request, remote);
    const track = (socket: import('node:net').Socket) => {
      this.streamSockets.add(socket);
      socket.once('close', () => this.streamSockets.delete(socket));
    };
    if (sipTcpPort) {
      await assertTcpPortFree(this.config.sipHost, sipTcpPort, 'VOICE_SIP_TCP_PORT');
      const stack = withStreamServers(
        (server) => {
          server.on('connection', track);
          server.on('error', (error) => this.log.warn(`SIP over TCP: ${error.message}`));
        },
        () => sip.create({ ...common, port: sipTcpPort, tcp: true }, onRequest),
      );
      this.streams.push({ protocol: 'TCP', port: sipTcpPort, stack });
      this.log.log(`voice server listening for SIP on tcp ${this.config.sipHost}:${sipTcpPort}`);
    }
    if (sipTls) {
      let tls: { cert: Buffer; key: Buffer };
      try {
        tls = { cert: readFileSync(sipTls.cert), key: readFileSync(sipTls.key) };
      } catch (error) {
        throw new Error(`VOICE_SIP_TLS_CERT / VOICE_SIP_TLS_KEY cannot be read: ${(error as Error).message}`);
      }
      await assertTcpPortFree(this.config.sipHost, sipTls.port, 'VOICE_SIP_TLS_PORT');
      const stack = withStreamServers(
        (server) => {
          server.on('secureConnection', track);
          server.on('error', (error) => this.log.warn(`SIP over TLS: ${error.message}`));
          server.on('tlsClientError', (error) => this.log.warn(`SIP over TLS: handshake failed: ${error.message}`));
        },
        () => sip.create({ ...common, port: sipTls.port, tcp: false, tls, tls_port: sipTls.port }, onRequest),
      );
      this.streams.push({ protocol: 'TLS', port: sipTls.port, stack });
      this.log.log(`voice server listening for SIP on tls ${this.config.sipHost}:${sipTls.port}`);
    }
  }

  private respond(
    request: sip.SipRequest,
    status: number,
    reason: string,
    extra: Partial<sip.SipHeaders> = {},
    content?: string,
  ): sip.SipResponse {
    const response = sip.makeResponse(request, status, reason);
    response.headers = { ...response.headers, to: { ...request.headers.to, params: { ...request.headers.to.params } }, ...extra };
    if (content !== undefined) response.content = content;
    return response;
  }

  private onRequest(request: sip.SipRequest, remote: sip.Remote): void {
    if (this.monitoring.onRequest(request)) return; // a supervisor's dialog
    const agent = this.agentLegs.get(request.headers['call-id']);
    if (agent) return this.onAgentRequest(request, agent.call, agent.leg);
    const call = this.bySipCallId.get(request.headers['call-id']);
    switch (request.method) {
      case 'INVITE':
        if (request.headers.to.params.tag) return this.onReInvite(request, call);
        if (call) return; // a retransmission the transaction layer did not absorb
        void this.onInvite(request, remote).catch((error: Error) =>
          this.log.warn(`INVITE ${request.headers['call-id']}: ${error.message}`),
        );
        return;
      case 'ACK':
        if (call && !call.acked) {
          call.acked = true;
          this.clearAnswerTimers(call);
        }
        return;
      case 'BYE':
        if (!call || call.stage === 'answering') return this.send(this.respond(request, 481, 'Call/Transaction Does Not Exist'));
        this.send(this.respond(request, 200, 'OK'));
        void this.serial(call, () => this.callerHungUp(call));
        return;
      case 'CANCEL':
        return this.onCancel(request, call);
      case 'OPTIONS':
        return this.send(
          this.respond(request, 200, 'OK', {
            allow: ALLOW,
            accept: 'application/sdp, application/dtmf-relay, application/dtmf',
          } as Partial<sip.SipHeaders>),
        );
      case 'INFO':
        return this.onInfo(request, call);
      default:
        return this.send(this.respond(request, 405, 'Method Not Allowed', { allow: ALLOW } as Partial<sip.SipHeaders>));
    }
  }

  private async onInvite(invite: sip.SipRequest, remote: sip.Remote): Promise<void> {
    this.send(this.respond(invite, 100, 'Trying'));
    const contact = Array.isArray(invite.headers.contact) ? invite.headers.contact[0]?.uri : undefined;
    const protocol = remote.protocol?.toUpperCase();
    const call: VoiceCall = {
      ...(protocol === 'TCP' || protocol === 'TLS' ? { stream: { protocol, flow: remote } } : {}),
      id: randomUUID(),
      sipCallId: invite.headers['call-id'],
      invite,
      localTag: randomBytes(6).toString('hex'),
      remoteTarget: contact ?? `sip:${remote.address}:${remote.port}`,
      routeSet: (invite.headers['record-route'] ?? []).map((route) => ({ ...route })),
      localCseq: Math.floor(Math.random() * 10_000) + 1,
      tenantId: '',
      stage: 'answering',
      seq: 0,
      offer: null,
      callerSdp: invite.content ?? '',
      agent: null,
      answerSdp: null,
      sessionVersion: 1,
      acked: false,
      okTimer: null,
      ackDeadline: null,
      cancelled: false,
      ivr: null,
      promptTimer: null,
      language: 'es',
      playing: false,
      work: Promise.resolve(),
    };
    this.bySipCallId.set(call.sipCallId, call);
    const refuse = (status: number, reason: string) => {
      this.forget(call);
      if (!call.cancelled) this.send(this.respond(invite, status, reason));
    };

    const called = userOf(invite.uri) || userOf(invite.headers.to.uri);
    let number: ResolvedInboundNumber | null;
    let ivr: PublishedIvr | null = null;
    try {
      number = called ? await this.deps.resolveNumber(called) : null;
      if (number?.ivrId) ivr = await this.deps.loadIvr(number.tenantId, number.ivrId);
    } catch (error) {
      this.log.warn(`INVITE to ${called}: number lookup failed: ${(error as Error).message}`);
      return refuse(503, 'Service Unavailable');
    }
    if (call.cancelled) return; // CANCEL arrived during the lookup: 487 is already sent
    if (!number) return refuse(404, 'Not Found');
    // Carrier source check: only the trunk's allowed sources (else its host) may send calls for its numbers.
    if (!(await carrierSourceAllowed(number, remote.address))) {
      this.log.warn(`INVITE to ${number.number} from ${remote.address} refused: not an allowed source of trunk ${number.trunkId}`);
      return refuse(403, 'Forbidden');
    }
    if (call.cancelled) return;
    if (number.ivrId && !ivr) {
      this.log.warn(`INVITE to ${number.number}: IVR ${number.ivrId} is not published or not active`);
      return refuse(480, 'Temporarily Unavailable');
    }
    call.offer = readAudioOffer(invite.content ?? '');
    if (!call.offer) return refuse(488, 'Not Acceptable Here');
    call.tenantId = number.tenantId;
    call.language = ivr?.language ?? number.language;
    this.byId.set(call.id, call);

    try {
      await this.ng.offer(call.id, CALLER, invite.content!);
      call.answerSdp = await this.ng.answer(
        call.id,
        CALLER,
        PLATFORM,
        platformAnswerSdp(call.offer, this.sinkTarget(), call.sessionVersion),
      );
    } catch (error) {
      this.log.warn(`INVITE to ${number.number}: ${(error as Error).message}`);
      await this.ng.delete(call.id).catch(() => undefined);
      return refuse(503, 'Service Unavailable');
    }
    if (call.cancelled) {
      this.forget(call);
      await this.ng.delete(call.id).catch(() => undefined);
      return;
    }

    const ok = this.respond(
      invite,
      200,
      'OK',
      {
        contact: [{ uri: this.selfUri(userOf(invite.uri) || 'centralita', call), params: {} }],
        // RFC 3261 12.1.1: the dialog's Record-Route set goes back in the 2xx.
        ...(invite.headers['record-route']?.length ? { 'record-route': invite.headers['record-route'] } : {}),
        'content-type': 'application/sdp',
        allow: ALLOW,
      } as Partial<sip.SipHeaders>,
      call.answerSdp,
    );
    ok.headers.to.params.tag = call.localTag;
    this.send(ok);
    this.retransmitOk(call, ok);
    call.stage = number.ivrId ? 'ivr' : 'queue';
    this.emit(call, { type: 'call.started', trunkId: number.trunkId, from: callerNumber(invite), to: number.number, ivrId: number.ivrId });

    await this.serial(call, async () => {
      if (ivr && number.ivrId) {
        call.ivr = { tree: ivr.tree, state: { ivrId: number.ivrId, nodeId: ivr.tree.rootNodeId, attempts: 0, path: [], visitedIvrs: [] } };
        await this.apply(call, startIvr(ivr.tree, number.ivrId), null);
      } else {
        await this.apply(
          call,
          {
            state: { ivrId: '', nodeId: '', attempts: 0, path: [], visitedIvrs: [] },
            action: { type: 'line', attentionLineId: number.attentionLineId! },
          },
          null,
        );
      }
    });
  }

  /** 200 OK over UDP is the UAS's to retransmit (RFC 3261 13.3.1.4): T1 doubling to T2 until the ACK, BYE after 64·T1. */
  private retransmitOk(call: VoiceCall, ok: sip.SipResponse): void {
    const again = (interval: number) => {
      call.okTimer = setTimeout(() => {
        if (call.acked || call.stage === 'ended') return;
        this.send(ok);
        again(Math.min(interval * 2, T2));
      }, interval);
    };
    again(T1);
    call.ackDeadline = setTimeout(() => {
      if (!call.acked && call.stage !== 'ended') void this.serial(call, () => this.hangUp(call, 'noAck'));
    }, 64 * T1);
  }

  private clearAnswerTimers(call: VoiceCall): void {
    if (call.okTimer) clearTimeout(call.okTimer);
    if (call.ackDeadline) clearTimeout(call.ackDeadline);
    call.okTimer = call.ackDeadline = null;
  }

  private onReInvite(request: sip.SipRequest, call: VoiceCall | undefined): void {
    if (!call || call.stage === 'ended' || call.stage === 'answering' || request.headers.to.params.tag !== call.localTag)
      return this.send(this.respond(request, 481, 'Call/Transaction Does Not Exist'));
    void this.serial(call, async () => {
      // Same rtpengine call and tags: rtpengine keeps its ports, so the caller gets the same media back (and a new
      // address of the caller, e.g. after a hold or a network change, is learnt).
      try {
        if (request.content && call.stage === 'connecting') return this.send(this.respond(request, 491, 'Request Pending'));
        // A re-negotiated caller is bridged directly again: monitoring ends (the supervisor may start it anew).
        if (request.content) await this.monitoring.stop(call.id, 'reInvite');
        if (request.content && call.stage === 'connected' && call.agent?.answerSdp && !call.consult) {
          // Bridged: offered again toward the agent's leg and answered with the agent's SDP (the agent is not re-INVITEd:
          // rtpengine keeps the agent side's ports and keys).
          const offer = readAudioOffer(request.content);
          if (!offer) return this.send(this.respond(request, 488, 'Not Acceptable Here'));
          await this.ng.offerToAgent(call.id, CALLER, agentMediaTag(call.agent), request.content, this.config.agentMedia);
          call.offer = offer;
          call.callerSdp = request.content;
          call.answerSdp = await this.ng.answerFromAgent(call.id, CALLER, agentMediaTag(call.agent), call.agent.answerSdp);
        } else if (request.content) {
          const offer = readAudioOffer(request.content);
          if (!offer) return this.send(this.respond(request, 488, 'Not Acceptable Here'));
          await this.ng.offer(call.id, CALLER, request.content);
          call.callerSdp = request.content;
          call.offer = offer;
          call.sessionVersion += 1;
          call.answerSdp = await this.ng.answer(
            call.id,
            CALLER,
            PLATFORM,
            platformAnswerSdp(offer, this.sinkTarget(), call.sessionVersion),
          );
        }
      } catch (error) {
        this.log.warn(`re-INVITE of call ${call.id}: ${(error as Error).message}`);
        return this.send(this.respond(request, 500, 'Server Internal Error'));
      }
      const ok = this.respond(
        request,
        200,
        'OK',
        {
          contact: [{ uri: this.selfUri('centralita', call), params: {} }],
          'content-type': 'application/sdp',
        } as Partial<sip.SipHeaders>,
        call.answerSdp ?? undefined,
      );
      this.send(ok);
    });
  }

  private onCancel(request: sip.SipRequest, call: VoiceCall | undefined): void {
    if (!call) return this.send(this.respond(request, 481, 'Call/Transaction Does Not Exist'));
    this.send(this.respond(request, 200, 'OK'));
    if (call.stage !== 'answering') return; // CANCEL after the 200 OK changes nothing (RFC 3261 9.2)
    call.cancelled = true;
    this.send(this.respond(call.invite, 487, 'Request Terminated'));
    this.forget(call);
  }

  /** SIP INFO keys: application/dtmf-relay ("Signal=5") or application/dtmf ("5"), the fallback for callers without RFC 4733. */
  private onInfo(request: sip.SipRequest, call: VoiceCall | undefined): void {
    if (!call || call.stage === 'ended') return this.send(this.respond(request, 481, 'Call/Transaction Does Not Exist'));
    const type = String(request.headers['content-type'] ?? '')
      .toLowerCase()
      .split(';')[0]!
      .trim();
    const body = request.content ?? '';
    let digit: string | null = null;
    if (type === 'application/dtmf-relay') digit = /^\s*signal\s*=\s*([0-9*#])\s*$/im.exec(body)?.[1] ?? null;
    else if (type === 'application/dtmf') digit = /^\s*([0-9*#])\s*$/.exec(body)?.[1] ?? null;
    if (type !== 'application/dtmf-relay' && type !== 'application/dtmf')
      return this.send(this.respond(request, 415, 'Unsupported Media Type'));
    this.send(this.respond(request, 200, 'OK'));
    if (digit) this.onDigit(call, digit);
  }

  private onRtpDtmf(dtmf: RtpengineDtmf): void {
    const call = this.byId.get(dtmf.callId);
    if (!call || dtmf.sourceTag !== CALLER) return;
    this.onDigit(call, dtmf.digit);
  }

  /** BYE from the platform side, in the dialog the INVITE's 200 OK set up. */
  private sendBye(call: VoiceCall): void {
    const invite = call.invite;
    const bye: sip.SipMessage = {
      method: 'BYE',
      uri: call.remoteTarget,
      version: '2.0',
      headers: {
        via: [],
        to: { ...invite.headers.from, params: { ...invite.headers.from.params } },
        from: { ...invite.headers.to, params: { ...invite.headers.to.params, tag: call.localTag } },
        'call-id': call.sipCallId,
        cseq: { method: 'BYE', seq: ++call.localCseq },
        'max-forwards': '70',
        ...(call.routeSet.length ? { route: call.routeSet } : {}),
      },
    };
    this.send(bye, (response) => {
      if (response.status >= 300) this.log.warn(`BYE of call ${call.id} answered ${response.status}`);
    });
  }

  // ---------------------------------------------------------------- the IVR walk

  private serial(call: VoiceCall, work: () => Promise<void>): Promise<void> {
    const next = call.work.then(work).catch((error: Error) => this.log.warn(`call ${call.id}: ${error.message}`));
    call.work = next;
    return next;
  }

  private onDigit(call: VoiceCall, digit: string): void {
    void this.serial(call, async () => {
      if (call.stage === 'voicemail' && digit === '#') return this.hangUp(call, 'voicemail'); // the message is complete
      if (call.stage !== 'ivr' || !call.ivr) return; // keys in the queue (or after the end) do nothing yet
      this.clearPromptTimer(call);
      await this.stopPlayback(call); // barge-in
      await this.apply(call, ivrKey(call.ivr.tree, call.ivr.state, digit), digit);
    });
  }

  private onPromptTimeout(call: VoiceCall): void {
    void this.serial(call, async () => {
      if (call.stage !== 'ivr' || !call.ivr) return;
      call.promptTimer = null;
      await this.apply(call, ivrTimeout(call.ivr.tree, call.ivr.state), null);
    });
  }

  private async apply(call: VoiceCall, step: IvrStep, digit: string | null): Promise<void> {
    if (call.stage === 'ended') return;
    const exit = ivrExit(call.ivr, digit);
    if (call.ivr) call.ivr.state = step.state;
    const action: IvrAction = step.action;
    switch (action.type) {
      case 'prompt': {
        const node = call.ivr?.tree.nodes.find((candidate) => candidate.id === action.prompt.nodeId);
        if (!action.retry)
          this.emit(call, {
            type: 'ivr.step',
            ivrId: step.state.ivrId,
            nodeId: action.prompt.nodeId,
            nodeName: node?.name ?? action.prompt.nodeId,
            digit,
          });
        await this.playPrompt(call, action.prompt.audioFileId, action.timeoutSeconds);
        return;
      }
      case 'line':
        if (await this.lineClosed(call, action.attentionLineId)) return;
        await this.stopPlayback(call);
        call.stage = 'queue';
        this.emit(call, { type: 'call.queued', attentionLineId: action.attentionLineId, path: step.state.path, exit });
        await this.enterQueue(call, true);
        await this.playHold(call);
        return;
      case 'agent':
        await this.stopPlayback(call);
        call.stage = 'queue';
        this.emit(call, { type: 'call.toAgent', agentId: action.agentId, path: step.state.path, exit });
        await this.enterQueue(call, false);
        await this.playHold(call);
        return;
      case 'voicemail':
        return this.startVoicemail(call, action.attentionLineId, step.state.path);
      case 'ivr': {
        const next = await this.deps.loadIvr(call.tenantId, action.ivrId).catch(() => null);
        if (!next) return this.hangUp(call, 'ivrUnavailable');
        call.ivr = { tree: next.tree, state: step.state };
        call.language = next.language;
        return this.apply(call, startIvr(next.tree, action.ivrId, step.state), digit);
      }
      case 'hangup':
        return this.hangUp(call, action.reason);
    }
  }

  private async playPrompt(call: VoiceCall, audioFileId: string | null, timeoutSeconds: number): Promise<void> {
    let file: string | null = null;
    if (audioFileId) {
      file = await this.deps.promptFile(call.tenantId, audioFileId).catch((error: Error) => {
        this.log.warn(`call ${call.id}: prompt audio ${audioFileId} unavailable (${error.message}); playing the tone`);
        return null;
      });
    }
    await this.stopPlayback(call);
    let duration = 0;
    try {
      duration = await this.ng.play(call.id, CALLER, file ?? this.media!.promptTone);
      call.playing = true;
    } catch (error) {
      this.log.warn(`call ${call.id}: ${(error as Error).message}`);
    }
    this.clearPromptTimer(call);
    // The node's timeout counts from the end of its prompt.
    call.promptTimer = setTimeout(() => this.onPromptTimeout(call), duration + timeoutSeconds * 1000);
  }

  private async playHold(call: VoiceCall): Promise<void> {
    await this.stopPlayback(call);
    try {
      // Hours of the loop (the built-in file lasts 4 s): the call is ended long before.
      await this.ng.play(call.id, CALLER, call.holdMusic ?? this.media!.holdMusic, 9000);
      call.playing = true;
    } catch (error) {
      this.log.warn(`call ${call.id}: hold music: ${(error as Error).message}`);
      if (call.holdMusic) {
        call.holdMusic = null; // the tenant's file would not play: the built-in music from now on
        return this.playHold(call);
      }
    }
  }

  /** The caller starts waiting: the tenant's hold music, and (in a line's queue) the timer of the position announcements. */
  private async enterQueue(call: VoiceCall, announce: boolean): Promise<void> {
    const settings = this.deps.voiceSettings
      ? await this.deps.voiceSettings(call.tenantId).catch((error: Error) => {
          this.log.warn(`call ${call.id}: voice settings unreadable (${error.message}): built-in hold music, no announcements`);
          return null;
        })
      : null;
    call.holdMusic = settings?.holdMusicFileId
      ? await this.deps.promptFile(call.tenantId, settings.holdMusicFileId).catch(() => null)
      : null;
    call.announceEvery = announce && this.deps.queuePosition && this.deps.announcement ? (settings?.queueAnnouncementSeconds ?? 0) : 0;
    this.scheduleAnnouncement(call);
  }

  /** The next announcement, N seconds of music from now (counted from the end of the previous one, so music is heard between). */
  private scheduleAnnouncement(call: VoiceCall): void {
    if (call.announceTimer) clearTimeout(call.announceTimer);
    call.announceTimer = null;
    if (!call.announceEvery || call.stage === 'ended') return;
    call.announceTimer = setTimeout(() => void this.serial(call, () => this.announcePosition(call)), call.announceEvery * 1000);
  }

  /** "You are number N in the queue" over the hold music, which starts again after it; skipped unless the caller just waits. */
  private async announcePosition(call: VoiceCall): Promise<void> {
    call.announceTimer = null;
    if (call.stage === 'ended' || call.stage === 'connected') return;
    if (call.stage !== 'queue') return this.scheduleAnnouncement(call); // an agent's phone rings: maybe later
    const position = await this.deps.queuePosition!(call.tenantId, call.id).catch(() => null);
    const file = position ? await this.deps.announcement!(call.language, position).catch(() => null) : null;
    if (!file || call.stage !== 'queue') return this.scheduleAnnouncement(call);
    await this.stopPlayback(call);
    let duration = 0;
    try {
      duration = await this.ng.play(call.id, CALLER, file);
      call.playing = true;
    } catch (error) {
      this.log.warn(`call ${call.id}: position announcement: ${(error as Error).message}`);
    }
    if (call.announceResume) clearTimeout(call.announceResume);
    call.announceResume = setTimeout(
      () =>
        void this.serial(call, async () => {
          call.announceResume = null;
          if (call.stage === 'queue' || call.stage === 'connecting') await this.playHold(call);
          this.scheduleAnnouncement(call);
        }),
      duration,
    );
  }

  /**
   * Sent to a line that is closed by its business hours: the caller hears the off-hours sentence (the generated tone
   * when it was never rendered), then the platform hangs up (call.ended {by: 'system', reason: 'lineClosed'}). The
   * call never enters the queue, so it is neither an abandon nor a queued call in the reports.
   */
  private async lineClosed(call: VoiceCall, lineId: string): Promise<boolean> {
    const closed = await this.deps.lineClosed?.(call.tenantId, lineId, call.language).catch((error: Error) => {
      this.log.warn(`call ${call.id}: business hours of line ${lineId} unreadable (${error.message}): queued as open`);
      return null;
    });
    if (!closed) return false;
    call.stage = 'closing';
    this.clearPromptTimer(call);
    const file = closed.audioFileId ? await this.deps.promptFile(call.tenantId, closed.audioFileId).catch(() => null) : null;
    await this.stopPlayback(call);
    let duration = 0;
    try {
      duration = await this.ng.play(call.id, CALLER, file ?? this.media!.promptTone);
      call.playing = true;
    } catch (error) {
      this.log.warn(`call ${call.id}: off-hours message: ${(error as Error).message}`);
    }
    // A short pause after the sentence so its last syllable is not cut by the BYE.
    call.promptTimer = setTimeout(() => void this.serial(call, () => this.hangUp(call, 'lineClosed')), duration + 500);
    return true;
  }

  /**
   * The IVR's voicemail destination: the node's prompt has been heard (it invites the message); the beep plays and
   * rtpengine records what the caller sends from now on (their side only: nothing is played to them while they speak).
   * '#', their BYE or VOICE_VOICEMAIL_MAX_SECONDS end it: BYE and call.ended {reason: 'voicemail'}, then the message is
   * decoded like a call recording and reported as call.recorded {kind: 'voicemail'}. No recording directory: no voicemail.
   */
  private async startVoicemail(call: VoiceCall, lineId: string, path: string[]): Promise<void> {
    this.clearPromptTimer(call);
    await this.stopPlayback(call);
    const callerPort = sdpAudioPort(call.answerSdp);
    if (!this.config.recordingDir || !this.deps.recordings || !callerPort) {
      this.log.warn(`call ${call.id}: voicemail needs VOICE_RECORDING_DIR (rtpengine pcap recording): hung up`);
      return this.hangUp(call, 'voicemailUnavailable');
    }
    call.stage = 'voicemail';
    this.emit(call, { type: 'call.voicemail', attentionLineId: lineId, path });
    let beepMs = 0;
    try {
      await this.ng.startRecording(call.id);
      call.recording = { callerPort, agentPorts: [], agentId: null, kind: 'voicemail' };
      beepMs = await this.ng.play(call.id, CALLER, this.media!.voicemailBeep);
      call.playing = true;
    } catch (error) {
      this.log.warn(`call ${call.id}: voicemail not started: ${(error as Error).message}`);
      if (!call.recording) return this.hangUp(call, 'voicemailUnavailable');
    }
    const maxMs = (this.config.voicemailMaxSeconds ?? DEFAULT_VOICEMAIL_MAX_SECONDS) * 1000;
    call.voicemailTimer = setTimeout(() => void this.serial(call, () => this.hangUp(call, 'voicemail')), beepMs + maxMs);
  }

  private async stopPlayback(call: VoiceCall): Promise<void> {
    if (!call.playing) return;
    call.playing = false;
    await this.ng.stop(call.id, CALLER).catch(() => undefined); // a prompt that already ended answers an error
  }

  private clearPromptTimer(call: VoiceCall): void {
    if (call.promptTimer) clearTimeout(call.promptTimer);
    call.promptTimer = null;
  }

  // ---------------------------------------------------------------- the agent's leg ('connect')

  /**
   * Rings the agent's phone: the caller's side is offered again in rtpengine toward a new callee leg (the agent's media
   * profile, VOICE_AGENT_MEDIA), and that SDP goes in an INVITE to the agent's SIP URI through VOICE_OUTBOUND_PROXY
   * (kamailio relays it to the softphone's registered WebSocket). Hold music plays on while it rings. The 2xx is ACKed,
   * its SDP answered in rtpengine (the caller's side keeps its ports, so the caller is not re-INVITEd), the music stops
   * and call.connected is reported. Busy, unavailable, any other refusal or no answer within VOICE_AGENT_RING_SECONDS
   * (CANCEL) puts the platform side back on the sink with hold music and reports call.connectFailed.
   */
  private async connect(call: VoiceCall, agentId: string, uri: string, conversationId?: string): Promise<void> {
    if (call.stage !== 'queue') {
      this.log.warn(`voice command connect for call ${call.id} in stage ${call.stage}: ignored`);
      return;
    }
    let target: sip.SipUri | null = null;
    try {
      target = sip.parseUri(uri);
    } catch {
      target = null;
    }
    if (!target?.host || !/^sips?$/i.test(target.schema ?? 'sip')) {
      this.log.warn(`call ${call.id}: agent ${agentId} has no usable SIP URI (${uri})`);
      this.emit(call, { type: 'call.connectFailed', agentId, reason: 'badUri' });
      return;
    }
    call.stage = 'connecting';
    call.recordingPolicy ??=
      this.config.recordingDir && this.deps.recordings ? this.deps.recordings.policy(call.tenantId) : Promise.resolve(null);
    const policy = await call.recordingPolicy;
    if (policy?.record && policy.announce && !call.recordingAnnounced) await this.announceRecording(call, policy);
    const localTag = randomBytes(6).toString('hex');
    let offerSdp: string;
    try {
      offerSdp = await this.ng.offerToAgent(call.id, CALLER, agentMediaTag({ localTag }), call.callerSdp, this.config.agentMedia);
    } catch (error) {
      this.log.warn(`call ${call.id}: offer toward agent ${agentId}: ${(error as Error).message}`);
      call.stage = 'queue';
      await this.restorePlatformMedia(call);
      this.emit(call, { type: 'call.connectFailed', agentId, reason: 'media' });
      return this.playHold(call);
    }
    const leg = this.agentLeg(call, agentId, uri, localTag, { sdp: offerSdp, conversationId });
    call.agent = leg;
    this.agentLegs.set(leg.sipCallId, { call, leg });
    leg.ringTimer = setTimeout(() => this.cancelAgent(leg, 'noAnswer'), this.config.agentRingSeconds * 1000);
    this.send(leg.invite, (response) => this.onAgentResponse(call, leg, response));
  }

  private onAgentResponse(call: VoiceCall, leg: AgentLeg, response: sip.SipResponse): void {
    if (response.status < 200) return;
    if (response.status < 300) {
      rememberDialog(leg, response);
      this.ackAgent(leg, response); // every 2xx, retransmissions too (RFC 3261 13.2.2.4)
      if (leg.state !== 'ringing') return;
      if (leg.ringTimer) clearTimeout(leg.ringTimer);
      leg.ringTimer = null;
      if (leg.cancelReason || call.agent !== leg) {
        // Answered as the platform gave up (the 2xx crossed the CANCEL, or the caller left): end the agent's dialog.
        leg.state = 'ended';
        this.agentRequest(leg, 'BYE');
        this.forgetAgent(leg);
        if (call.agent === leg) void this.serial(call, () => this.agentFailed(call, leg, leg.cancelReason ?? 'noAnswer'));
        return;
      }
      leg.state = 'answered';
      void this.serial(call, () => this.agentAnswered(call, leg, response.content ?? ''));
      return;
    }
    if (leg.state !== 'ringing') return;
    leg.state = 'ended';
    if (leg.ringTimer) clearTimeout(leg.ringTimer);
    leg.ringTimer = null;
    this.forgetAgent(leg);
    const reason = leg.cancelReason ?? refusalReason(response.status);
    this.log.log(`call ${call.id}: agent ${leg.agentId} answered ${response.status} (${reason})`);
    void this.serial(call, () => this.agentFailed(call, leg, reason));
  }

  private async agentAnswered(call: VoiceCall, leg: AgentLeg, sdp: string): Promise<void> {
    if (call.agent !== leg || call.stage !== 'connecting') {
      leg.state = 'ended';
      this.agentRequest(leg, 'BYE');
      this.forgetAgent(leg);
      return;
    }
    const policy = await call.recordingPolicy;
    try {
      await this.stopPlayback(call);
      await this.ng.answerFromAgent(call.id, CALLER, agentMediaTag(leg), sdp);
      leg.answerSdp = sdp;
    } catch (error) {
      this.log.warn(`call ${call.id}: answer of agent ${leg.agentId}: ${(error as Error).message}`);
      leg.state = 'ended';
      this.agentRequest(leg, 'BYE');
      this.forgetAgent(leg);
      return this.agentFailed(call, leg, 'media');
    }
    call.stage = 'connected';
    this.emit(call, { type: 'call.connected', agentId: leg.agentId });
    if (policy?.record) await this.startRecording(call, leg);
  }

  /**
   * "This call will be recorded" to the caller in the tenant's language (rendered once; the prompt tone without
   * espeak-ng), in place of the hold music, before the agent's phone is rung: no agent media exists yet, so the caller
   * hears the whole sentence alone and the recording (from the agent's answer) never holds it. Hold music resumes for
   * the ringing. The call's other work (a BYE) waits until it has played.
   */
  private async announceRecording(call: VoiceCall, policy: RecordingPolicy): Promise<void> {
    call.recordingAnnounced = true;
    const file = (await this.deps.recordings!.announcement(policy.language)) ?? this.media!.promptTone;
    try {
      await this.stopPlayback(call);
      const duration = await this.ng.play(call.id, CALLER, file);
      call.playing = true;
      await new Promise((resolve) => setTimeout(resolve, duration + 200));
    } catch (error) {
      this.log.warn(`call ${call.id}: recording announcement: ${(error as Error).message}`);
    }
    await this.playHold(call);
  }

  /** rtpengine records what both sides send from now on; the pcap is read back when the call ends (finishRecording). */
  private async startRecording(call: VoiceCall, leg: AgentLeg): Promise<void> {
    const callerPort = sdpAudioPort(call.answerSdp);
    const agentPort = sdpAudioPort(leg.invite.content);
    if (!callerPort || !agentPort)
      return this.log.warn(`call ${call.id}: no media ports to tell the recording's sides apart: not recorded`);
    if (call.recording) {
      // Answered again after going back to the queue: rtpengine still records; this agent's side is read from its port.
      call.recording.agentPorts.push(agentPort);
      call.recording.agentId = leg.agentId;
      return;
    }
    try {
      await this.ng.startRecording(call.id);
      call.recording = { callerPort, agentPorts: [agentPort], agentId: leg.agentId };
    } catch (error) {
      this.log.warn(`call ${call.id}: recording not started: ${(error as Error).message}`);
    }
  }

  /** After the call was deleted in rtpengine: its pcap decoded and stored, then call.recorded (after call.ended). */
  private finishRecording(call: VoiceCall): void {
    const recording = call.recording;
    if (!recording || !this.deps.recordings) return;
    const job = this.deps.recordings
      .collect(call.tenantId, call.id, recording)
      .then((stored) => {
        if (stored)
          this.emit(call, {
            type: 'call.recorded',
            fileId: stored.fileId,
            durationMs: stored.durationMs,
            agentId: recording.agentId,
            ...(recording.kind ? { kind: recording.kind } : {}),
          });
      })
      .catch((error: Error) => this.log.warn(`call ${call.id}: recording not stored: ${error.message}`))
      .finally(() => this.recordingJobs.delete(job));
    this.recordingJobs.add(job);
  }

  /** The agent did not take the call: the platform side goes back to the sink, the caller to hold music. */
  private async agentFailed(call: VoiceCall, leg: AgentLeg, reason: string): Promise<void> {
    if (call.agent !== leg || call.stage === 'ended') return;
    call.agent = null;
    call.stage = 'queue';
    await this.restorePlatformMedia(call);
    this.emit(call, { type: 'call.connectFailed', agentId: leg.agentId, reason });
    await this.playHold(call);
  }

  private async restorePlatformMedia(call: VoiceCall): Promise<void> {
    try {
      await this.ng.offer(call.id, CALLER, call.callerSdp);
      call.answerSdp = await this.ng.answer(
        call.id,
        CALLER,
        PLATFORM,
        platformAnswerSdp(call.offer!, this.sinkTarget(), call.sessionVersion),
      );
    } catch (error) {
      this.log.warn(`call ${call.id}: back to the platform sink: ${(error as Error).message}`);
    }
  }

  /**
   * The conversation left the connected agent (a transfer): their leg gets its BYE, the caller stays, back on the
   * platform sink with hold music (and the position announcements), and call.released tells the API, which routes the
   * conversation and sends 'connect' for the next agent. Ignored unless `agentId` is the one connected now.
   */
  private async release(call: VoiceCall, agentId: string, reason: string): Promise<void> {
    if (call.stage !== 'connected' || call.agent?.agentId !== agentId) return;
    await this.monitoring.stop(call.id, 'released');
    this.dropConsult(call, 'released');
    this.dropAgent(call);
    call.agentHeld = false;
    call.stage = 'queue';
    await this.restorePlatformMedia(call);
    this.emit(call, { type: 'call.released', agentId, reason });
    await this.playHold(call);
    this.scheduleAnnouncement(call);
  }

  /** Ends the agent's leg from the platform side: CANCEL while it rings, BYE once answered. */
  private dropAgent(call: VoiceCall): void {
    const leg = call.agent;
    if (!leg) return;
    call.agent = null;
    if (leg.state === 'ringing') this.cancelAgent(leg, 'callerGone');
    else if (leg.state === 'answered') {
      leg.state = 'ended';
      this.agentRequest(leg, 'BYE');
      this.forgetAgent(leg);
    }
  }

  private proxyRoute(): sip.NameAddr[] {
    const proxy = this.config.outboundProxy;
    return proxy ? [{ uri: `sip:${proxy.host}:${proxy.port};lr`, params: {} }] : [];
  }

  /** CANCEL of the ringing INVITE (same branch and Route set, RFC 3261 9.1); its final response (487) ends the leg. */
  private cancelAgent(leg: AgentLeg, reason: string): void {
    const route = this.proxyRoute();
    if (leg.state !== 'ringing' || leg.cancelReason) return;
    leg.cancelReason = reason;
    if (leg.ringTimer) clearTimeout(leg.ringTimer);
    leg.ringTimer = null;
    const invite = leg.invite;
    if (!invite.headers.via?.[0]?.params?.branch) return; // not sent yet
    this.send(
      {
        method: 'CANCEL',
        uri: invite.uri,
        version: '2.0',
        headers: {
          via: [invite.headers.via[0]],
          to: { uri: leg.uri, params: {} },
          from: invite.headers.from,
          'call-id': leg.sipCallId,
          cseq: { method: 'CANCEL', seq: invite.headers.cseq.seq },
          'max-forwards': '70',
          ...(route.length ? { route } : {}),
        },
      },
      () => undefined,
    );
  }

  private ackAgent(leg: AgentLeg, response: sip.SipResponse): void {
    this.send({
      method: 'ACK',
      uri: leg.remoteTarget,
      version: '2.0',
      headers: {
        via: [],
        to: response.headers.to,
        from: leg.invite.headers.from,
        'call-id': leg.sipCallId,
        cseq: { method: 'ACK', seq: leg.invite.headers.cseq.seq },
        'max-forwards': '70',
        ...(leg.routeSet.length ? { route: leg.routeSet.map((entry) => ({ ...entry, params: { ...entry.params } })) } : {}),
      },
    });
  }

  /** An in-dialog request to the agent (BYE), through the dialog's route set. */
  private agentRequest(leg: AgentLeg, method: string): void {
    leg.localCseq += 1;
    this.send(
      {
        method,
        uri: leg.remoteTarget,
        version: '2.0',
        headers: {
          via: [],
          to: { uri: leg.uri, params: { tag: leg.remoteTag } },
          from: leg.invite.headers.from,
          'call-id': leg.sipCallId,
          cseq: { method, seq: leg.localCseq },
          'max-forwards': '70',
          ...(leg.routeSet.length ? { route: leg.routeSet.map((entry) => ({ ...entry, params: { ...entry.params } })) } : {}),
        },
      },
      (response) => {
        if (response.status >= 300) this.log.warn(`${method} to agent ${leg.agentId} answered ${response.status}`);
      },
    );
  }

  private forgetAgent(leg: AgentLeg): void {
    if (leg.ringTimer) clearTimeout(leg.ringTimer);
    leg.ringTimer = null;
    if (this.agentLegs.get(leg.sipCallId)?.leg === leg) this.agentLegs.delete(leg.sipCallId);
  }

  /** Requests in the agent's dialog: BYE ends both legs (call.ended by 'agent'); a re-INVITE holds or resumes; REFER is refused. */
  private onAgentRequest(request: sip.SipRequest, call: VoiceCall, leg: AgentLeg): void {
    switch (request.method) {
      case 'ACK':
        return;
      case 'BYE':
        this.send(this.respond(request, 200, 'OK'));
        void this.serial(call, async () => {
          leg.state = 'ended';
          this.forgetAgent(leg);
          if (call.consult?.leg === leg) return this.consultOver(call, 'cancelled', 'hangUp');
          if (call.agent !== leg || call.stage !== 'connected') return;
          // The first agent left an answered consultation: the caller is handed to the consulted agent (as a complete).
          // (B only ringing: the call ends, and the consultation with it, as before.) A failed bridge ends the call too.
          if (call.consult?.first === leg && call.consult.leg.state === 'answered' && call.consult.leg.answerSdp) {
            await this.consultComplete(call, call.consult.leg.agentId);
            if (call.agent !== leg || call.stage !== 'connected') return;
          }
          call.agent = null;
          this.sendBye(call);
          await this.end(call);
          this.emit(call, { type: 'call.ended', by: 'agent', reason: 'hangUp' });
        });
        return;
      case 'INVITE':
        return this.onAgentReInvite(request, call, leg);
      case 'REFER':
        // The softphone's own (SIP) transfer is not carried out: a transfer goes through the desk (the API's 'release').
        return this.send(this.respond(request, 405, 'Method Not Allowed', { allow: ALLOW } as Partial<sip.SipHeaders>));
      case 'CANCEL':
        return this.send(this.respond(request, 481, 'Call/Transaction Does Not Exist'));
      default:
        return this.send(this.respond(request, 200, 'OK'));
    }
  }

  /**
   * The agent's hold/unhold re-INVITE (sip.js: a=sendonly or a=inactive holds, a=sendrecv resumes). It is taken as the
   * agent's new answer to the caller's side offered again toward the agent's own rtpengine side (the same ports, ICE
   * credentials and DTLS fingerprint, as monitoring's restore does), so rtpengine stops or resumes sending the caller's
   * audio to the agent; the agent gets that offer back as the answer, with the direction and DTLS role an answer needs.
   * While held the caller hears the hold music; unhold stops it and the two hear each other again.
   */
  private onAgentReInvite(request: sip.SipRequest, call: VoiceCall, leg: AgentLeg): void {
    if (leg.state !== 'answered' || call.agent !== leg) return this.send(this.respond(request, 481, 'Call/Transaction Does Not Exist'));
    // An offerless re-INVITE would need our offer in the 200 and the answer in the ACK: softphones hold with an offer.
    if (!request.content || !readAudioOffer(request.content)) return this.send(this.respond(request, 488, 'Not Acceptable Here'));
    const agentSdp = request.content;
    void this.serial(call, async () => {
      // During a consultation the caller is on the platform sink and this agent on the relay: no hold to apply.
      if (call.agent !== leg || call.stage !== 'connected' || call.consult) return this.send(this.respond(request, 491, 'Request Pending'));
      const held = /^a=(sendonly|inactive)\s*$/m.test(agentSdp);
      let answer: string;
      try {
        // The mixer's legs are built from the agent's previous SDP: monitoring ends (the supervisor may start it anew).
        await this.monitoring.stop(call.id, 'reInvite');
        const offer = await this.ng.offerToAgent(call.id, CALLER, agentMediaTag(leg), call.callerSdp, this.config.agentMedia);
        await this.ng.answerFromAgent(call.id, CALLER, agentMediaTag(leg), agentSdp);
        leg.answerSdp = agentSdp;
        answer = answerToAgentOffer(offer, agentSdp);
      } catch (error) {
        this.log.warn(`re-INVITE of agent ${leg.agentId} on call ${call.id}: ${(error as Error).message}`);
        return this.send(this.respond(request, 500, 'Server Internal Error'));
      }
      this.send(
        this.respond(
          request,
          200,
          'OK',
          {
            contact: [{ uri: `sip:centralita@${this.config.sipPublicHost}:${this.config.sipPort}`, params: {} }],
            'content-type': 'application/sdp',
          } as Partial<sip.SipHeaders>,
          answer,
        ),
      );
      // Not only the music: what the held softphone still sends (silence) must not reach the caller between its packets.
      if (held !== !!call.agentHeld)
        await this.ng
          .blockMedia(call.id, agentMediaTag(leg), held)
          .catch((error: Error) => this.log.warn(`call ${call.id}: ${held ? 'block' : 'unblock'} of the agent's media: ${error.message}`));
      if (held && !call.agentHeld) {
        call.agentHeld = true;
        await this.playHold(call);
      } else if (!held && call.agentHeld) {
        call.agentHeld = false;
        await this.stopPlayback(call);
      }
    });
  }

  // ---------------------------------------------------------------- attended transfer ('consult')

  /**
   * The desk's consultative transfer: the caller goes back to the platform sink with hold music, the connected agent's
   * side is re-wired to a relay of the worker (consult-relay.ts; rtpengine keeps the agent's ports and keys, so their
   * phone is not re-INVITEd) and the consulted agent's phone is rung with a side of its own toward the relay's other
   * end. Answered, the two agents talk (call.consultConnected); refused, unanswered or cancelled, the caller is bridged
   * to the first agent again (call.consultFailed / call.consultCancelled); 'consult.complete' bridges the caller to the
   * consulted agent and BYEs the first (call.consultCompleted).
   */
  private async consult(call: VoiceCall, command: Extract<VoiceCommand, { type: 'consult' }>): Promise<void> {
    const { agentId, fromAgentId, agentSipUri: uri } = command;
    const failed = (reason: string) => this.emit(call, { type: 'call.consultFailed', agentId, fromAgentId, reason });
    const first = call.agent;
    if (call.stage !== 'connected' || !first?.answerSdp || first.agentId !== fromAgentId || !call.offer) return failed('notConnected');
    if (call.consult) return failed('consulting');
    let target: sip.SipUri | null = null;
    try {
      target = sip.parseUri(uri);
    } catch {
      target = null;
    }
    if (!target?.host || !/^sips?$/i.test(target.schema ?? 'sip')) return failed('badUri');
    await this.monitoring.stop(call.id, 'consult');
    const relay = await ConsultRelay.open(this.config.sipHost);
    const localTag = randomBytes(6).toString('hex');
    const leg = this.agentLeg(call, agentId, uri, localTag);
    call.consult = { leg, relay, first };
    const relaySdp = (port: number) => platformAnswerSdp(call.offer!, { address: this.config.sipPublicHost, port }, 1);
    try {
      if (call.agentHeld) {
        call.agentHeld = false;
        await this.ng.blockMedia(call.id, agentMediaTag(first), false);
      }
      await this.restorePlatformMedia(call);
      await this.playHold(call);
      await this.ng.offerToAgent(call.id, CONSULT_FIRST, agentMediaTag(first), relaySdp(relay.port('first')), this.config.agentMedia);
      relay.connect('first', await this.ng.answerFromAgent(call.id, CONSULT_FIRST, agentMediaTag(first), first.answerSdp));
      leg.invite.content = await this.ng.offerToAgent(
        call.id,
        CONSULT_OTHER,
        agentMediaTag(leg),
        relaySdp(relay.port('consulted')),
        this.config.agentMedia,
      );
    } catch (error) {
      this.log.warn(`call ${call.id}: consultation with agent ${agentId}: ${(error as Error).message}`);
      leg.state = 'ended';
      return this.consultOver(call, 'failed', 'media');
    }
    this.agentLegs.set(leg.sipCallId, { call, leg });
    leg.ringTimer = setTimeout(() => this.cancelAgent(leg, 'noAnswer'), this.config.agentRingSeconds * 1000);
    this.send(leg.invite, (response) => this.onConsultResponse(call, leg, response));
    this.emit(call, { type: 'call.consultRinging', agentId, fromAgentId });
  }

  /**
   * An agent's leg and its INVITE, from the caller's number (the agent's phone shows who is calling): the connected
   * agent's (`connect`, with the conversation for the console's screen pop) and the consulted one's (its SDP is set
   * once rtpengine offered their side).
   */
  private agentLeg(
    call: VoiceCall,
    agentId: string,
    uri: string,
    localTag: string,
    options: { sdp?: string; conversationId?: string } = {},
  ): AgentLeg {
    const self = `${this.config.sipPublicHost}:${this.config.sipPort}`;
    const sipCallId = `${randomUUID()}@${this.config.sipPublicHost}`;
    const from = callerNumber(call.invite);
    const invite: sip.SipMessage = {
      method: 'INVITE',
      uri,
      version: '2.0',
      headers: {
        via: [],
        to: { uri, params: {} },
        from: { uri: `sip:${encodeURIComponent(from).replace(/%2B/g, '+')}@${self}`, params: { tag: localTag } },
        'call-id': sipCallId,
        cseq: { method: 'INVITE', seq: 1 },
        contact: [{ uri: `sip:centralita@${self}`, params: {} }],
        'content-type': 'application/sdp',
        allow: ALLOW,
        'max-forwards': '70',
        ...(this.config.outboundProxy ? { route: this.proxyRoute() } : {}),
        // The console's softphone opens the screen pop of this conversation (apps/web/src/softphone/screen-pop.ts).
        ...(options.conversationId ? { [CONVERSATION_HEADER]: options.conversationId } : {}),
      },
      content: options.sdp ?? '',
    };
    return {
      agentId,
      uri,
      sipCallId,
      localTag,
      invite,
      state: 'ringing',
      cancelReason: null,
      ringTimer: null,
      remoteTag: '',
      remoteTarget: uri,
      routeSet: [],
      localCseq: 1,
      answerSdp: null,
    };
  }

  private onConsultResponse(call: VoiceCall, leg: AgentLeg, response: sip.SipResponse): void {
    if (response.status < 200) return;
    if (response.status < 300) {
      rememberDialog(leg, response);
      this.ackAgent(leg, response);
      if (leg.state !== 'ringing') return;
      if (leg.ringTimer) clearTimeout(leg.ringTimer);
      leg.ringTimer = null;
      leg.state = 'answered';
      void this.serial(call, () => this.consultAnswered(call, leg, response.content ?? ''));
      return;
    }
    if (leg.state !== 'ringing') return;
    leg.state = 'ended';
    this.forgetAgent(leg);
    const reason = leg.cancelReason ?? refusalReason(response.status);
    this.log.log(`call ${call.id}: consulted agent ${leg.agentId} answered ${response.status} (${reason})`);
    void this.serial(call, async () => {
      if (call.consult?.leg === leg) await this.consultOver(call, 'failed', reason);
    });
  }

  private async consultAnswered(call: VoiceCall, leg: AgentLeg, sdp: string): Promise<void> {
    const consult = call.consult;
    if (consult?.leg !== leg || call.stage !== 'connected' || leg.cancelReason) {
      // Answered as the platform gave up (a CANCEL crossed the 2xx, the consultation or the call ended): end their dialog.
      const reason = leg.cancelReason ?? 'noAnswer';
      this.endLeg(leg);
      if (consult?.leg === leg) await this.consultOver(call, 'failed', reason);
      return;
    }
    try {
      consult.relay.connect('consulted', await this.ng.answerFromAgent(call.id, CONSULT_OTHER, agentMediaTag(leg), sdp));
      leg.answerSdp = sdp;
    } catch (error) {
      this.log.warn(`call ${call.id}: answer of consulted agent ${leg.agentId}: ${(error as Error).message}`);
      this.endLeg(leg);
      return this.consultOver(call, 'failed', 'media');
    }
    this.emit(call, { type: 'call.consultConnected', agentId: leg.agentId, fromAgentId: consult.first.agentId });
  }

  /** The transfer is completed: the caller's side is bridged to the consulted agent's, the first agent gets a BYE. */
  private async consultComplete(call: VoiceCall, agentId: string): Promise<void> {
    const consult = call.consult;
    const leg = consult?.leg;
    if (!consult || !leg?.answerSdp || leg.agentId !== agentId || leg.state !== 'answered' || call.stage !== 'connected') {
      this.log.warn(`voice command consult.complete for call ${call.id} and agent ${agentId}: no answered consultation, ignored`);
      return;
    }
    try {
      await this.stopPlayback(call);
      await this.ng.offerToAgent(call.id, CALLER, agentMediaTag(leg), call.callerSdp, this.config.agentMedia);
      call.answerSdp = await this.ng.answerFromAgent(call.id, CALLER, agentMediaTag(leg), leg.answerSdp);
    } catch (error) {
      this.log.warn(`call ${call.id}: bridge to consulted agent ${agentId}: ${(error as Error).message}`);
      return this.consultOver(call, 'failed', 'media');
    }
    call.consult = null;
    consult.relay.close();
    call.agent = leg;
    this.endLeg(consult.first);
    const port = sdpAudioPort(leg.invite.content);
    if (call.recording && port) {
      // The recording goes on: the new agent's side is read from its port from now on.
      call.recording.agentPorts.push(port);
      call.recording.agentId = leg.agentId;
    }
    this.emit(call, { type: 'call.consultCompleted', agentId: leg.agentId, fromAgentId: consult.first.agentId });
  }

  /** The consultation ends without a transfer: the consulted agent's leg goes, the caller talks with the first agent again. */
  private async consultOver(call: VoiceCall, outcome: 'failed' | 'cancelled', reason: string): Promise<void> {
    const consult = call.consult;
    if (!consult) return;
    call.consult = null;
    consult.relay.close();
    this.endLeg(consult.leg, reason);
    const { first } = consult;
    if (call.stage === 'connected' && call.agent === first && first.answerSdp)
      try {
        await this.stopPlayback(call);
        await this.ng.offerToAgent(call.id, CALLER, agentMediaTag(first), call.callerSdp, this.config.agentMedia);
        call.answerSdp = await this.ng.answerFromAgent(call.id, CALLER, agentMediaTag(first), first.answerSdp);
      } catch (error) {
        this.log.warn(`call ${call.id}: back to agent ${first.agentId}: ${(error as Error).message}`);
      }
    const event = { agentId: consult.leg.agentId, fromAgentId: first.agentId, reason };
    this.emit(call, outcome === 'failed' ? { type: 'call.consultFailed', ...event } : { type: 'call.consultCancelled', ...event });
  }

  /** The call leaves its consultation without re-wiring it (the call ends, or the first agent is released). */
  private dropConsult(call: VoiceCall, reason: string): void {
    const consult = call.consult;
    if (!consult) return;
    call.consult = null;
    consult.relay.close();
    this.endLeg(consult.leg, reason);
    this.emit(call, { type: 'call.consultCancelled', agentId: consult.leg.agentId, fromAgentId: consult.first.agentId, reason });
  }

  /** Ends an agent leg that is not (or no longer) the call's agent: CANCEL while it rings, BYE once answered. */
  private endLeg(leg: AgentLeg, reason = 'callerGone'): void {
    if (leg.state === 'ringing') return this.cancelAgent(leg, reason);
    if (leg.state !== 'answered') return;
    leg.state = 'ended';
    this.agentRequest(leg, 'BYE');
    this.forgetAgent(leg);
  }

  // ---------------------------------------------------------------- the end

  private async callerHungUp(call: VoiceCall): Promise<void> {
    if (call.stage === 'ended' || call.stage === 'answering') return;
    if (call.stage === 'connected') {
      this.dropAgent(call);
      await this.end(call);
      this.emit(call, { type: 'call.ended', by: 'caller', reason: 'hangUp' });
      return;
    }
    if (call.stage === 'voicemail') {
      // Hanging up is how most callers finish their message: a voicemail left, not an abandon.
      await this.end(call);
      this.emit(call, { type: 'call.ended', by: 'caller', reason: 'voicemail' });
      return;
    }
    if (call.stage === 'closing') {
      // Hanging up on the closed line's message is no abandon: there was nothing to wait for.
      await this.end(call);
      this.emit(call, { type: 'call.ended', by: 'caller', reason: 'lineClosed' });
      return;
    }
    const stage: VoiceAbandonStage = call.stage === 'queue' || call.stage === 'connecting' ? 'queue' : 'ivr';
    this.dropAgent(call); // a ringing agent's phone is CANCELled
    await this.end(call);
    this.emit(call, { type: 'call.abandoned', stage });
  }

  /** The platform ends the call: BYE to the caller, call.ended {by: 'system'}. */
  private async hangUp(call: VoiceCall, reason: string): Promise<void> {
    if (call.stage === 'ended' || call.stage === 'answering') return;
    this.dropAgent(call);
    this.sendBye(call);
    await this.end(call);
    this.emit(call, { type: 'call.ended', by: 'system', reason });
  }

  private async end(call: VoiceCall): Promise<void> {
    call.stage = 'ended';
    this.dropConsult(call, 'callEnded');
    await this.monitoring.stop(call.id, 'callEnded', true); // the supervisor's phone gets its BYE too
    this.clearPromptTimer(call);
    if (call.voicemailTimer) clearTimeout(call.voicemailTimer);
    call.voicemailTimer = null;
    this.clearAnswerTimers(call);
    if (call.announceTimer) clearTimeout(call.announceTimer);
    if (call.announceResume) clearTimeout(call.announceResume);
    call.announceTimer = call.announceResume = null;
    call.playing = false;
    this.forget(call);
    await this.ng.delete(call.id, !!call.recording).catch((error: Error) => this.log.warn(`call ${call.id}: ${error.message}`));
    // call.ended, emitted by end()'s caller as soon as it returns, still comes first: the decoding starts on the file system.
    this.finishRecording(call);
  }

  private forget(call: VoiceCall): void {
    if (this.bySipCallId.get(call.sipCallId) === call) this.bySipCallId.delete(call.sipCallId);
    this.byId.delete(call.id);
  }

  private emit(call: VoiceCall, event: DistributiveOmit<VoiceCallEvent, 'callId' | 'tenantId' | 'seq' | 'at'>): void {
    call.seq += 1;
    this.deps.events.publish({ ...event, callId: call.id, tenantId: call.tenantId, seq: call.seq, at: Date.now() } as VoiceCallEvent);
  }
}

type DistributiveOmit<T, K extends PropertyKey> = T extends unknown ? Omit<T, K> : never;

/** What an agent's final refusal of the platform's INVITE stands for (call.connectFailed's and call.consultFailed's reasons). */
function refusalReason(status: number): string {
  if (status === 486 || status === 600 || status === 603) return 'busy';
  if (status === 480 || status === 404) return 'unavailable';
  if (status === 408) return 'noAnswer';
  return `sip${status}`;
}

/** The option of the current node a key chose (the screen pop's last IVR step), or null for a timeout or no IVR. */
export function ivrExit(ivr: { tree: IvrTree; state: IvrWalkState } | null, digit: string | null): VoiceIvrExit | null {
  if (!ivr || !digit) return null;
  const option = ivr.tree.nodes.find((node) => node.id === ivr.state.nodeId)?.options.find((candidate) => candidate.digit === digit);
  return option ? { digit, label: option.label?.trim() || null } : null;
}

/** The caller's number from P-Asserted-Identity or From, E.164 with "+" when it reads as one. */
function callerNumber(invite: sip.SipRequest): string {
  const pai = invite.headers['p-asserted-identity'];
  const fromPai = typeof pai === 'string' ? (/<([^>]+)>/.exec(pai)?.[1] ?? pai) : undefined;
  const raw = userOf(fromPai) || userOf(invite.headers.from.uri) || 'anonymous';
  const digits = raw.replace(/[\s().-]/g, '');
  if (/^\+?[1-9]\d{6,14}$/.test(digits)) return digits.startsWith('+') ? digits : `+${digits}`;
  return raw;
}

/**
 * The sip package creates its UDP socket with no 'error' listener and sends without a callback, so one failed send
 * (an unreachable Contact) would be an uncaught exception that stops the worker. Sockets created while `create` runs
 * get a listener that logs instead.
 */
function withUdpErrorsLogged<T>(log: (error: Error) => void, create: () => T): T {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const dgram = require('node:dgram') as typeof import('node:dgram');
  const original = dgram.createSocket;
  dgram.createSocket = ((...args: Parameters<typeof original>) => {
    const socket = original(...args);
    socket.on('error', log);
    return socket;
  }) as typeof original;
  try {
    return create();
  } finally {
    dgram.createSocket = original;
  }
}

type StreamProtocol = 'TCP' | 'TLS';

/** The TCP / TLS servers the sip package creates while `create` runs are handed to `seen` (it adds no listeners of its own). */
function withStreamServers<T>(seen: (server: import('node:net').Server) => void, create: () => T): T {
  /* eslint-disable @typescript-eslint/no-require-imports */
  const net = require('node:net') as typeof import('node:net');
  const tls = require('node:tls') as typeof import('node:tls');
  /* eslint-enable @typescript-eslint/no-require-imports */
  const [netCreate, tlsCreate] = [net.createServer, tls.createServer];
  net.createServer = ((...args: Parameters<typeof netCreate>) => {
    const server = netCreate(...args);
    seen(server);
    return server;
  }) as typeof netCreate;
  tls.createServer = ((...args: Parameters<typeof tlsCreate>) => {
    const server = tlsCreate(...args);
    seen(server);
    return server;
  }) as typeof tlsCreate;
  try {
    return create();
  } finally {
    net.createServer = netCreate;
    tls.createServer = tlsCreate;
  }
}

/** The sip package listens on TCP/TLS with no error listener: a port in use must be a clear start error, not a crash. */
function assertTcpPortFree(host: string, port: number, name: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const probe = createTcpServer();
    probe.once('error', (error) => reject(new Error(`${name} ${port} on ${host} cannot be used: ${error.message}`)));
    probe.listen(port, host, () => probe.close(() => resolve()));
  });
}

function assertUdpPortFree(host: string, port: number): Promise<void> {
  return new Promise((resolve, reject) => {
    const probe = createSocket('udp4');
    probe.once('error', (error) => {
      probe.close();
      reject(new Error(`VOICE_SIP_PORT ${port} on ${host} cannot be used: ${error.message}`));
    });
    probe.bind(port, host, () => probe.close(() => resolve()));
  });
}
