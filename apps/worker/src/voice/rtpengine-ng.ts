// eslint-disable-next-line @typescript-eslint/triple-slash-reference -- the API's and the tests' programs compile this file too: they must see the declarations of the untyped sip / rtpengine-client
/// <reference path="./vendor.d.ts" />
import { Client } from 'rtpengine-client';

/** The media profile of an agent's leg (VOICE_AGENT_MEDIA). */
export type AgentMedia = 'webrtc' | 'rtp';

/** The ng options of the offer toward the agent, per profile (rtpengine's ng protocol documentation). */
const AGENT_OFFER: Record<AgentMedia, Record<string, unknown>> = {
  webrtc: {
    'transport-protocol': 'UDP/TLS/RTP/SAVPF',
    ICE: 'force',
    DTLS: 'passive',
    'rtcp-mux': ['offer', 'require'],
    SDES: ['off'],
    flags: ['generate-mid'],
  },
  rtp: { 'transport-protocol': 'RTP/AVP', ICE: 'remove', 'rtcp-mux': ['demux'] },
};

export class RtpengineError extends Error {
  constructor(
    readonly command: string,
    reason: string,
  ) {
    super(`rtpengine ${command}: ${reason}`);
    this.name = 'RtpengineError';
  }
}

/** The ng commands the voice server sends to rtpengine (bencoded over UDP by rtpengine-client), with errors thrown. */
export class RtpengineNg {
  private readonly client: Client;

  constructor(
    private readonly target: { host: string; port: number },
    timeoutMs = 3000,
  ) {
    this.client = new Client({ timeout: timeoutMs });
    this.client.on('error', () => undefined);
  }

  private async call(
    command: 'ping' | 'offer' | 'answer' | 'delete' | 'playMedia' | 'stopMedia' | 'startRecording' | 'blockMedia' | 'unblockMedia',
    options?: Record<string, unknown>,
  ) {
    let reply;
    try {
      reply = await this.client[command](this.target.port, this.target.host, options);
    } catch (error) {
      throw new RtpengineError(command, error instanceof Error ? error.message : String(error));
    }
    if (reply.result === 'error') throw new RtpengineError(command, String(reply['error-reason'] ?? 'error'));
    return reply;
  }

  async ping(): Promise<boolean> {
    return (await this.call('ping').catch(() => null))?.result === 'pong';
  }

  /** The caller's offer; answers the SDP rtpengine offers the platform side. */
  async offer(callId: string, fromTag: string, sdp: string): Promise<string> {
    const reply = await this.call('offer', {
      'call-id': callId,
      'from-tag': fromTag,
      sdp,
      ICE: 'remove',
      replace: ['origin', 'session-connection'],
    });
    return String(reply.sdp);
  }

  /** The platform side's answer; answers the SDP that goes back to the caller in the 200 OK. */
  async answer(callId: string, fromTag: string, toTag: string, sdp: string): Promise<string> {
    const reply = await this.call('answer', {
      'call-id': callId,
      'from-tag': fromTag,
      'to-tag': toTag,
      sdp,
      ICE: 'remove',
      replace: ['origin', 'session-connection'],
    });
    return String(reply.sdp);
  }

  /**
   * The caller's side offered again toward a new callee leg (an agent's phone) in the same rtpengine call and dialogue:
   * answers the SDP for the agent's INVITE. 'webrtc' makes it what a browser accepts (DTLS-SRTP offered actpass, so the
   * answering browser is the DTLS client; ICE candidates of its own; RTCP muxed; no SDES keys; a=mid); 'rtp' is plain RTP/AVP.
   */
  async offerToAgent(callId: string, fromTag: string, toTag: string, callerSdp: string, media: AgentMedia): Promise<string> {
    const reply = await this.call('offer', {
      'call-id': callId,
      'from-tag': fromTag,
      'to-tag': toTag,
      sdp: callerSdp,
      replace: ['origin', 'session-connection'],
      ...AGENT_OFFER[media],
    });
    return String(reply.sdp);
  }

  /** The agent's answer (their 200 OK SDP) to offerToAgent; the caller's side stays plain RTP with the same ports. */
  async answerFromAgent(callId: string, fromTag: string, toTag: string, agentSdp: string): Promise<string> {
    const reply = await this.call('answer', {
      'call-id': callId,
      'from-tag': fromTag,
      'to-tag': toTag,
      sdp: agentSdp,
      ICE: 'remove',
      'transport-protocol': 'RTP/AVP',
      'rtcp-mux': ['demux'],
      replace: ['origin', 'session-connection'],
    });
    return String(reply.sdp);
  }

  /** Plays a WAV to the party `toTag` names; answers its duration in ms (rtpengine reports it). */
  async play(callId: string, toTag: string, file: string, repeatTimes = 1): Promise<number> {
    const reply = await this.call('playMedia', {
      'call-id': callId,
      'from-tag': toTag,
      file,
      ...(repeatTimes > 1 ? { 'repeat-times': repeatTimes } : {}),
    });
    return Number(reply.duration ?? 0);
  }

  async stop(callId: string, toTag: string): Promise<void> {
    await this.call('stopMedia', { 'call-id': callId, 'from-tag': toTag });
  }

  /**
   * Drops (`blocked`) or forwards again what the party `fromTag` sends: a held agent's softphone goes on sending (sip.js
   * sends silence), which rtpengine would otherwise forward to the caller between the hold music's packets.
   */
  async blockMedia(callId: string, fromTag: string, blocked: boolean): Promise<void> {
    await this.call(blocked ? 'blockMedia' : 'unblockMedia', { 'call-id': callId, 'from-tag': fromTag });
  }

  /**
   * Records the call from now on (rtpengine's --recording-method; pcap here: every packet the parties send, in one file
   * per call under --recording-dir, closed when the call is deleted).
   */
  async startRecording(callId: string): Promise<void> {
    await this.call('startRecording', { 'call-id': callId });
  }

  /** Deletes the call; `immediately` overrides rtpengine's --delete-delay (a recorded call's pcap is closed at once). */
  async delete(callId: string, immediately = false): Promise<void> {
    await this.call('delete', { 'call-id': callId, ...(immediately ? { 'delete-delay': 0 } : {}) });
  }

  close(): void {
    try {
      this.client.close();
    } catch {
      // already closed
    }
  }
}
