import type { VideoIceConfig, VideoSignal } from '@centralita/contracts';

export type PeerState = 'new' | 'connecting' | 'connected' | 'failed' | 'closed';

export interface PeerOptions {
  ice: VideoIceConfig;
  /** Sends a signal to the other party (the socket adds nothing but the call id). */
  send: (kind: VideoSignal['kind'], data: unknown) => void;
  onRemoteStream: (stream: MediaStream) => void;
  onState: (state: PeerState) => void;
}

/** Whether this browser can take part in a call at all (WebRTC and camera access). */
export function videoSupported(): boolean {
  return (
    typeof window !== 'undefined' &&
    typeof window.RTCPeerConnection === 'function' &&
    typeof navigator !== 'undefined' &&
    typeof navigator.mediaDevices?.getUserMedia === 'function'
  );
}

/** Why getUserMedia failed, in the words the pages translate. */
export function mediaFailure(error: unknown): 'denied' | 'no_device' | 'unsupported' {
  const name = (error as { name?: string } | null)?.name ?? '';
  if (name === 'NotAllowedError' || name === 'SecurityError') return 'denied';
  if (name === 'NotFoundError' || name === 'OverconstrainedError' || name === 'NotReadableError') return 'no_device';
  return 'unsupported';
}

/**
 * One side of a two-party call: an RTCPeerConnection whose offers, answers and candidates go
 * through the call's signalling (the API relays them between the two sockets). The agent offers,
 * the customer answers; candidates that arrive before the remote description wait for it.
 */
export class VideoPeer {
  readonly pc: RTCPeerConnection;
  private pending: RTCIceCandidateInit[] = [];
  private closed = false;

  constructor(
    private readonly options: PeerOptions,
    local: MediaStream,
  ) {
    this.pc = new RTCPeerConnection({ iceServers: options.ice.iceServers, iceTransportPolicy: options.ice.iceTransportPolicy });
    for (const track of local.getTracks()) this.pc.addTrack(track, local);
    this.pc.onicecandidate = (event) => {
      if (event.candidate) options.send('candidate', event.candidate.toJSON());
    };
    this.pc.ontrack = (event) => {
      const stream = event.streams[0] ?? new MediaStream([event.track]);
      options.onRemoteStream(stream);
    };
    this.pc.onconnectionstatechange = () => {
      const state = this.pc.connectionState;
      if (state === 'connected') options.onState('connected');
      else if (state === 'failed') options.onState('failed');
      else if (state === 'closed') options.onState('closed');
      else options.onState('connecting');
    };
  }

  async offer(): Promise<void> {
    const offer = await this.pc.createOffer();
    await this.pc.setLocalDescription(offer);
    this.options.send('offer', { type: offer.type, sdp: offer.sdp });
  }

  async handle(signal: Pick<VideoSignal, 'kind' | 'data'>): Promise<void> {
    if (this.closed) return;
    if (signal.kind === 'offer') {
      await this.pc.setRemoteDescription(signal.data as RTCSessionDescriptionInit);
      await this.flush();
      const answer = await this.pc.createAnswer();
      await this.pc.setLocalDescription(answer);
      this.options.send('answer', { type: answer.type, sdp: answer.sdp });
    } else if (signal.kind === 'answer') {
      await this.pc.setRemoteDescription(signal.data as RTCSessionDescriptionInit);
      await this.flush();
    } else if (signal.kind === 'candidate') {
      const candidate = signal.data as RTCIceCandidateInit;
      if (this.pc.remoteDescription) await this.pc.addIceCandidate(candidate).catch(() => undefined);
      else this.pending.push(candidate);
    }
  }

  private async flush(): Promise<void> {
    const waiting = this.pending;
    this.pending = [];
    for (const candidate of waiting) await this.pc.addIceCandidate(candidate).catch(() => undefined);
  }

  /** Swaps the outgoing video (screen sharing and back) without renegotiating. */
  async replaceVideo(track: MediaStreamTrack | null): Promise<void> {
    const sender = this.pc.getSenders().find((candidate) => candidate.track?.kind === 'video' || (!candidate.track && track));
    if (sender) await sender.replaceTrack(track);
  }

  /** Decoded inbound video frames so far (what the tests read through getStats). */
  async framesDecoded(): Promise<number> {
    let frames = 0;
    (await this.pc.getStats()).forEach((report: { type?: string; kind?: string; framesDecoded?: number }) => {
      if (report.type === 'inbound-rtp' && report.kind === 'video') frames += report.framesDecoded ?? 0;
    });
    return frames;
  }

  /** The type of the local candidate of the selected pair ('relay' through TURN), or null before one is selected. */
  async candidateType(): Promise<string | null> {
    const reports = new Map<string, Record<string, unknown>>();
    (await this.pc.getStats()).forEach((report: Record<string, unknown>) => reports.set(String(report.id), report));
    const all = [...reports.values()];
    const transport = all.find((report) => report.type === 'transport' && report.selectedCandidatePairId);
    const pair =
      (transport ? reports.get(String(transport.selectedCandidatePairId)) : undefined) ??
      all.find((report) => report.type === 'candidate-pair' && report.state === 'succeeded' && report.nominated);
    const local = pair ? reports.get(String(pair.localCandidateId)) : undefined;
    return typeof local?.candidateType === 'string' ? local.candidateType : null;
  }

  /** Still negotiating or connected: a second "ready" must not start over. */
  get active(): boolean {
    return !['failed', 'closed'].includes(this.pc.connectionState) && !this.closed;
  }

  close(): void {
    this.closed = true;
    this.pc.close();
  }
}

/** Stops every track of a stream (camera light off). */
export function stopStream(stream: MediaStream | null | undefined): void {
  for (const track of stream?.getTracks() ?? []) track.stop();
}
