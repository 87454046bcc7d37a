// eslint-disable-next-line @typescript-eslint/triple-slash-reference -- the API's and the tests' programs compile this file too: they must see the declarations of the untyped sip / rtpengine-client
/// <reference path="./vendor.d.ts" />
import { randomBytes, randomUUID } from 'node:crypto';
import { createSocket, type Socket } from 'node:dgram';
import type { IvrTree, VoiceAbandonStage, VoiceCallEvent, VoiceCommand } from '@centralita/contracts';
import { ivrKey, ivrTimeout, startIvr, type IvrAction, type IvrStep, type IvrWalkState } from '@centralita/domain';
import * as sip from 'sip';
import { DtmfListener, type RtpengineDtmf } from './dtmf-listener';
import type { PublishedIvr, ResolvedInboundNumber } from './inbound-numbers';
import { RtpengineNg } from './rtpengine-ng';
import { platformAnswerSdp, readAudioOffer, type OfferedAudio } from './sdp';
import type { VoiceConfig } from './voice-config';
import type { VoiceEventSink } from './voice-events';
import { ensureVoiceMediaFiles, type VoiceMediaFiles } from './voice-media-files';

/** What the voice server needs from the rest of the platform (the database, the file store, the API's queue). */
export interface VoiceServerDeps {
  resolveNumber(calledNumber: string): Promise<ResolvedInboundNumber | null>;
  loadIvr(tenantId: string, ivrId: string): Promise<PublishedIvr | null>;
  /** A local WAV path for a prompt's audio file id (rendered speech or an uploaded recording); null when unavailable. */
  promptFile(tenantId: string, audioFileId: string): Promise<string | null>;
  events: VoiceEventSink;
  log?: { log(message: string): void; warn(message: string): void };
}

type Stage = 'answering' | 'ivr' | 'queue' | 'ended';

/** The rtpengine tags of a call's two sides: the caller, and the platform (a sink until an agent leg exists). */
const CALLER = 'caller';
const PLATFORM = 'platform';
const ALLOW = 'INVITE, ACK, BYE, CANCEL, OPTIONS, INFO';
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
  localCseq: number;
  tenantId: string;
  stage: Stage;
  seq: number;
  offer: OfferedAudio | null;
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
  /** A call's keys, timeouts and commands run one at a time, in arrival order. */
  work: Promise<void>;
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
 * QUEUES.voiceCallEvents. Pure Node over UDP (the `sip` package); production signalling through drachtio is not wired.
 */
export class VoiceServer {
  private stack: sip.SipStack | null = null;
  private ng: RtpengineNg;
  private readonly dtmf: DtmfListener;
  private sink: Socket | null = null;
  private media: VoiceMediaFiles | null = null;
  private readonly bySipCallId = new Map<string, VoiceCall>();
  private readonly byId = new Map<string, VoiceCall>();
  private readonly log: { log(message: string): void; warn(message: string): void };

  constructor(
    private readonly config: VoiceConfig,
    private readonly deps: VoiceServerDeps,
  ) {
    this.ng = new RtpengineNg(config.rtpengine);
    this.dtmf = new DtmfListener((dtmf) => this.onRtpDtmf(dtmf));
    this.log = deps.log ?? { log: () => undefined, warn: () => undefined };
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
    this.dtmf.close();
    this.sink?.close();
    this.sink = null;
    this.ng.close();
    await this.deps.events.flush();
  }

  /** A command from the API (QUEUES.voiceCommands). 'connect' is not built yet: it is refused with a log line. */
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
    this.log.warn(`voice command connect for call ${command.callId}: bridging to an agent is not available in this version`);
  }

  /** The platform side's media address given to rtpengine: the sink socket at the server's public address. */
  private sinkTarget(): { address: string; port: number } {
    return { address: this.config.sipPublicHost, port: this.sink!.address().port };
  }

  // ---------------------------------------------------------------- SIP

  private send(message: sip.SipMessage, callback?: (response: sip.SipResponse) => void): void {
    this.stack?.send(message, callback);
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
    const call: VoiceCall = {
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
      answerSdp: null,
      sessionVersion: 1,
      acked: false,
      okTimer: null,
      ackDeadline: null,
      cancelled: false,
      ivr: null,
      promptTimer: null,
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
    if (number.ivrId && !ivr) {
      this.log.warn(`INVITE to ${number.number}: IVR ${number.ivrId} is not published or not active`);
      return refuse(480, 'Temporarily Unavailable');
    }
    call.offer = readAudioOffer(invite.content ?? '');
    if (!call.offer) return refuse(488, 'Not Acceptable Here');
    call.tenantId = number.tenantId;
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
        contact: [{ uri: `sip:${userOf(invite.uri) || 'centralita'}@${this.config.sipPublicHost}:${this.config.sipPort}`, params: {} }],
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
        if (request.content) {
          const offer = readAudioOffer(request.content);
          if (!offer) return this.send(this.respond(request, 488, 'Not Acceptable Here'));
          await this.ng.offer(call.id, CALLER, request.content);
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
          contact: [{ uri: `sip:centralita@${this.config.sipPublicHost}:${this.config.sipPort}`, params: {} }],
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
        await this.stopPlayback(call);
        call.stage = 'queue';
        this.emit(call, { type: 'call.queued', attentionLineId: action.attentionLineId, path: step.state.path });
        await this.playHold(call);
        return;
      case 'agent':
        await this.stopPlayback(call);
        call.stage = 'queue';
        this.emit(call, { type: 'call.toAgent', agentId: action.agentId, path: step.state.path });
        await this.playHold(call);
        return;
      case 'ivr': {
        const next = await this.deps.loadIvr(call.tenantId, action.ivrId).catch(() => null);
        if (!next) return this.hangUp(call, 'ivrUnavailable');
        call.ivr = { tree: next.tree, state: step.state };
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
      // About ten hours of the 4 s loop: the call is ended long before.
      await this.ng.play(call.id, CALLER, this.media!.holdMusic, 9000);
      call.playing = true;
    } catch (error) {
      this.log.warn(`call ${call.id}: hold music: ${(error as Error).message}`);
    }
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

  // ---------------------------------------------------------------- the end

  private async callerHungUp(call: VoiceCall): Promise<void> {
    if (call.stage === 'ended' || call.stage === 'answering') return;
    const stage: VoiceAbandonStage = call.stage === 'queue' ? 'queue' : 'ivr';
    await this.end(call);
    this.emit(call, { type: 'call.abandoned', stage });
  }

  /** The platform ends the call: BYE to the caller, call.ended {by: 'system'}. */
  private async hangUp(call: VoiceCall, reason: string): Promise<void> {
    if (call.stage === 'ended' || call.stage === 'answering') return;
    this.sendBye(call);
    await this.end(call);
    this.emit(call, { type: 'call.ended', by: 'system', reason });
  }

  private async end(call: VoiceCall): Promise<void> {
    call.stage = 'ended';
    this.clearPromptTimer(call);
    this.clearAnswerTimers(call);
    call.playing = false;
    this.forget(call);
    await this.ng.delete(call.id).catch((error: Error) => this.log.warn(`call ${call.id}: ${error.message}`));
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
