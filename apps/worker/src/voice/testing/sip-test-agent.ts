// eslint-disable-next-line @typescript-eslint/triple-slash-reference -- the API's and the tests' programs compile this file too: they must see the declarations of the untyped sip / rtpengine-client
/// <reference path="../vendor.d.ts" />
import { randomBytes } from 'node:crypto';
import { createSocket, type Socket } from 'node:dgram';
import * as sip from 'sip';
import { realTimeFrames, toneFrame, ulawToLinear, type HeardPacket } from './sip-test-caller';

/**
 * The agent's address: neither the voice server's (127.0.0.1) nor the caller's (127.0.0.2) nor kamailio's UDP socket
 * in the connect suite (127.0.0.3), because the sip package treats a request to its own host name as a flow token.
 */
const HOST = '127.0.0.4';

/** What the agent's phone does with the next INVITE: answer at once, refuse with 486 Busy Here, or ring until CANCELled. */
export type AgentBehaviour = 'answer' | 'busy' | 'ring';

/**
 * An agent's desk phone for the connect tests: a SIP user agent (the `sip` package on UDP) that REGISTERs at a real
 * kamailio like a softphone does, takes the platform's INVITE there (plain RTP/AVP, PCMU), and while answered sends a
 * sine of its own every 20 ms to the media address of the INVITE's SDP and records every RTP packet it hears.
 */
export class SipTestAgent {
  readonly heard: HeardPacket[] = [];
  /** Every request the phone received (INVITE, ACK, CANCEL, BYE…), in order. */
  readonly requests: sip.SipRequest[] = [];
  behaviour: AgentBehaviour = 'answer';
  /** RFC 4733 telephone-event payload type the phone answers with (null: PCMU only, like a phone without it). */
  telephoneEvent: number | null = null;
  private stack!: sip.SipStack;
  private rtp!: Socket;
  private sipPort = 0;
  private ringing: sip.SipRequest | null = null;
  private remoteMedia: { host: string; port: number } | null = null;
  private tone: NodeJS.Timeout | null = null;
  private seq = Math.floor(Math.random() * 1000);
  private timestamp = Math.floor(Math.random() * 100_000);
  private readonly ssrc = randomBytes(4).readUInt32BE(0);
  private dialog: {
    callId: string;
    local: sip.NameAddr;
    remote: sip.NameAddr;
    remoteTarget: string;
    routeSet: sip.NameAddr[];
    cseq: number;
  } | null = null;

  private constructor(
    readonly user: string,
    private readonly toneHz: number,
  ) {}

  static async create(user: string, sipPort: number, toneHz: number): Promise<SipTestAgent> {
    const agent = new SipTestAgent(user, toneHz);
    agent.sipPort = sipPort;
    agent.rtp = createSocket('udp4');
    agent.rtp.on('message', (message) => {
      if (message.length < 12) return;
      agent.heard.push({ at: Date.now(), payloadType: message[1]! & 0x7f, payload: message.subarray(12) });
    });
    await new Promise<void>((resolve) => agent.rtp.bind(0, HOST, resolve));
    agent.stack = sip.create({ address: HOST, port: sipPort, publicAddress: HOST, udp: true, tcp: false }, (request) =>
      agent.onRequest(request),
    );
    return agent;
  }

  get contact(): string {
    return `sip:${this.user}@${HOST}:${this.sipPort}`;
  }

  /** REGISTERs at the registrar (kamailio's UDP socket); resolves with its final response. */
  register(registrar: { host: string; port: number }, expires = 600): Promise<sip.SipResponse> {
    const aor = `sip:${this.user}@${registrar.host}`;
    return new Promise((resolve) =>
      this.stack.send(
        {
          method: 'REGISTER',
          uri: `sip:${registrar.host}:${registrar.port}`,
          version: '2.0',
          headers: {
            via: [],
            to: { uri: aor, params: {} },
            from: { uri: aor, params: { tag: randomBytes(4).toString('hex') } },
            'call-id': `${randomBytes(8).toString('hex')}@${HOST}`,
            cseq: { method: 'REGISTER', seq: 1 },
            contact: [{ uri: this.contact, params: { expires: String(expires) } }],
            expires: String(expires),
            'max-forwards': '70',
          },
        },
        (response) => {
          if (response.status >= 200) resolve(response);
        },
      ),
    );
  }

  private onRequest(request: sip.SipRequest): void {
    this.requests.push(request);
    const reply = (status: number, reason: string, extra: Partial<sip.SipHeaders> = {}, content?: string) => {
      const response = sip.makeResponse(request, status, reason);
      response.headers = { ...response.headers, to: { ...request.headers.to, params: { ...request.headers.to.params } }, ...extra };
      if (content !== undefined) response.content = content;
      return response;
    };
    switch (request.method) {
      case 'INVITE': {
        if (request.headers.to.params.tag) return this.stack.send(reply(488, 'Not Acceptable Here'));
        const tag = randomBytes(4).toString('hex');
        if (this.behaviour === 'busy') {
          const busy = reply(486, 'Busy Here');
          busy.headers.to.params.tag = tag;
          return this.stack.send(busy);
        }
        const ringing = reply(180, 'Ringing');
        ringing.headers.to.params.tag = tag;
        this.stack.send(ringing);
        if (this.behaviour === 'ring') {
          this.ringing = request;
          return;
        }
        this.remoteMedia = readMedia(request.content ?? '');
        const recordRoute = (request.headers['record-route'] ?? []).map((entry) => ({ ...entry, params: { ...entry.params } }));
        const ok = reply(
          200,
          'OK',
          {
            contact: [{ uri: this.contact, params: {} }],
            'content-type': 'application/sdp',
            ...(recordRoute.length ? { 'record-route': recordRoute } : {}),
          } as Partial<sip.SipHeaders>,
          this.answerSdp(),
        );
        ok.headers.to.params.tag = tag;
        const contact = Array.isArray(request.headers.contact) ? request.headers.contact[0]?.uri : undefined;
        this.dialog = {
          callId: request.headers['call-id'],
          local: ok.headers.to,
          remote: request.headers.from,
          remoteTarget: contact ?? request.headers.from.uri,
          routeSet: recordRoute,
          cseq: Math.floor(Math.random() * 1000) + 1,
        };
        this.stack.send(ok);
        this.startTone();
        return;
      }
      case 'CANCEL': {
        this.stack.send(reply(200, 'OK'));
        if (this.ringing) {
          const terminated = sip.makeResponse(this.ringing, 487, 'Request Terminated');
          terminated.headers = {
            ...terminated.headers,
            to: { ...this.ringing.headers.to, params: { ...this.ringing.headers.to.params, tag: randomBytes(4).toString('hex') } },
          };
          this.stack.send(terminated);
          this.ringing = null;
        }
        return;
      }
      case 'BYE':
        this.stopTone();
        return this.stack.send(reply(200, 'OK'));
      case 'ACK':
        return;
      default:
        return this.stack.send(reply(200, 'OK'));
    }
  }

  /** BYE from the agent's side, through the dialog's route set (kamailio's Record-Route). */
  hangUp(): Promise<sip.SipResponse> {
    const dialog = this.dialog!;
    this.stopTone();
    dialog.cseq += 1;
    return new Promise((resolve) =>
      this.stack.send(
        {
          method: 'BYE',
          uri: dialog.remoteTarget,
          version: '2.0',
          headers: {
            via: [],
            to: dialog.remote,
            from: dialog.local,
            'call-id': dialog.callId,
            cseq: { method: 'BYE', seq: dialog.cseq },
            'max-forwards': '70',
            ...(dialog.routeSet.length ? { route: dialog.routeSet.map((entry) => ({ ...entry, params: { ...entry.params } })) } : {}),
          },
        },
        (response) => {
          if (response.status >= 200) resolve(response);
        },
      ),
    );
  }

  /**
   * A hold (a=sendonly) or resume (a=sendrecv) re-INVITE in the answered dialog, through its route set, as sip.js sends
   * it. The phone goes on sending its tone while held (sip.js sends silence then): the platform must keep it from the
   * caller. Resolves with the final response.
   */
  reInvite(direction: 'sendonly' | 'inactive' | 'sendrecv'): Promise<sip.SipResponse> {
    const dialog = this.dialog!;
    dialog.cseq += 1;
    return new Promise((resolve) =>
      this.stack.send(
        {
          method: 'INVITE',
          uri: dialog.remoteTarget,
          version: '2.0',
          headers: {
            via: [],
            to: dialog.remote,
            from: dialog.local,
            'call-id': dialog.callId,
            cseq: { method: 'INVITE', seq: dialog.cseq },
            contact: [{ uri: this.contact, params: {} }],
            'content-type': 'application/sdp',
            'max-forwards': '70',
            ...(dialog.routeSet.length ? { route: dialog.routeSet.map((entry) => ({ ...entry, params: { ...entry.params } })) } : {}),
          },
          content: this.answerSdp(direction),
        },
        (response) => {
          if (response.status < 200) return;
          if (response.status < 300) {
            this.remoteMedia = readMedia(response.content ?? '') ?? this.remoteMedia;
            this.stack.send({
              method: 'ACK',
              uri: dialog.remoteTarget,
              version: '2.0',
              headers: {
                via: [],
                to: response.headers.to,
                from: dialog.local,
                'call-id': dialog.callId,
                cseq: { method: 'ACK', seq: dialog.cseq },
                'max-forwards': '70',
                ...(dialog.routeSet.length ? { route: dialog.routeSet.map((entry) => ({ ...entry, params: { ...entry.params } })) } : {}),
              },
            });
          }
          resolve(response);
        },
      ),
    );
  }

  private answerSdp(direction = 'sendrecv'): string {
    const port = this.rtp.address().port;
    return [
      'v=0',
      `o=agent 1 1 IN IP4 ${HOST}`,
      's=agent',
      `c=IN IP4 ${HOST}`,
      't=0 0',
      `m=audio ${port} RTP/AVP 0${this.telephoneEvent === null ? '' : ` ${this.telephoneEvent}`}`,
      'a=rtpmap:0 PCMU/8000',
      ...(this.telephoneEvent === null
        ? []
        : [`a=rtpmap:${this.telephoneEvent} telephone-event/8000`, `a=fmtp:${this.telephoneEvent} 0-16`]),
      'a=ptime:20',
      `a=${direction}`,
      '',
    ].join('\r\n');
  }

  private startTone(): void {
    if (this.tone) return;
    let phase = 0;
    const frames = realTimeFrames();
    this.tone = setInterval(() => {
      // Every frame due by now, not one per tick: a loaded test process fires its 20 ms timer late,
      // and a phone that fell behind real time would put gaps into what the other side hears and records.
      for (let due = frames(); due > 0; due -= 1) {
        if (!this.remoteMedia) return;
        const header = Buffer.alloc(12);
        header[0] = 0x80;
        header[1] = 0;
        header.writeUInt16BE(this.seq++ & 0xffff, 2);
        header.writeUInt32BE(this.timestamp >>> 0, 4);
        header.writeUInt32BE(this.ssrc, 8);
        this.rtp.send(Buffer.concat([header, toneFrame(this.toneHz, phase)]), this.remoteMedia.port, this.remoteMedia.host);
        phase += 160;
        this.timestamp += 160;
      }
    }, 20);
  }

  /** One key as an RFC 4733 event, the way SipTestCaller.pressRtp sends it (the tone pauses meanwhile). */
  async pressRtp(key: string): Promise<void> {
    const payloadType = this.telephoneEvent;
    if (payloadType === null || !this.remoteMedia) throw new Error('no telephone-event was negotiated');
    const remote = this.remoteMedia;
    const event = key === '*' ? 10 : key === '#' ? 11 : Number(key);
    this.stopTone();
    const start = this.timestamp;
    const send = (end: boolean, duration: number, marker: boolean) => {
      const header = Buffer.alloc(12);
      header[0] = 0x80;
      header[1] = payloadType | (marker ? 0x80 : 0);
      header.writeUInt16BE(this.seq++ & 0xffff, 2);
      header.writeUInt32BE(start >>> 0, 4);
      header.writeUInt32BE(this.ssrc, 8);
      const body = Buffer.from([event, (end ? 0x80 : 0) | 10, duration >> 8, duration & 0xff]);
      this.rtp.send(Buffer.concat([header, body]), remote.port, remote.host);
    };
    for (let i = 1; i <= 3; i += 1) {
      send(false, i * 400, i === 1);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    for (let i = 0; i < 3; i += 1) send(true, 1600, false);
    this.timestamp = start + 1600;
    this.startTone();
  }

  private stopTone(): void {
    if (this.tone) clearInterval(this.tone);
    this.tone = null;
  }

  /** The linear samples heard between two instants (PCMU only). */
  samples(from: number, to: number): Int16Array {
    const packets = this.heard.filter((packet) => packet.at >= from && packet.at < to && packet.payloadType === 0);
    const out = new Int16Array(packets.reduce((sum, packet) => sum + packet.payload.length, 0));
    let index = 0;
    for (const packet of packets) for (const byte of packet.payload) out[index++] = ulawToLinear(byte);
    return out;
  }

  async close(): Promise<void> {
    this.stopTone();
    this.stack.destroy();
    await new Promise<void>((resolve) => this.rtp.close(() => resolve()));
  }
}

function readMedia(sdp: string): { host: string; port: number } | null {
  const host = /^c=IN IP4 (\S+)/m.exec(sdp)?.[1];
  const port = /^m=audio (\d+)/m.exec(sdp)?.[1];
  return host && port ? { host, port: Number(port) } : null;
}
