// eslint-disable-next-line @typescript-eslint/triple-slash-reference -- the API's and the tests' programs compile this file too: they must see the declarations of the untyped sip / rtpengine-client
/// <reference path="../vendor.d.ts" />
import { randomBytes } from 'node:crypto';
import { createSocket, type Socket } from 'node:dgram';
import * as sip from 'sip';

/**
 * The caller's address: another loopback address than the server's, because the sip package treats a request to its
 * own host name as a flow token (both ends on 127.0.0.1 would misroute in-dialog requests).
 */
const HOST = '127.0.0.2';

/**
 * A phone for the voice tests: a SIP user agent client (the `sip` package on its own UDP port) with a real RTP socket.
 * It offers G.711 (and RFC 4733 telephone-event on the payload type it is told), sends 20 ms of silence every 20 ms
 * like a phone does, records every RTP packet it hears with its arrival time, and presses keys the way phones do: an
 * RFC 4733 event of several packets sharing one timestamp, the first with the marker bit, the end packet three times.
 */
export interface HeardPacket {
  at: number;
  payloadType: number;
  payload: Buffer;
}

export interface CallOptions {
  /** The called number (Request-URI and To user). */
  to: string;
  from?: string;
  codec?: 'PCMU' | 'PCMA';
  /** telephone-event payload type to offer; null offers none (keys then go by SIP INFO). */
  telephoneEvent?: number | null;
}

export class SipTestCaller {
  readonly heard: HeardPacket[] = [];
  /** Every final response to our INVITE (status), and the server's requests to us (BYE…). */
  readonly requests: sip.SipRequest[] = [];
  private stack!: sip.SipStack;
  private rtp!: Socket;
  private sipPort = 0;
  private remoteMedia: { host: string; port: number } | null = null;
  private silence: NodeJS.Timeout | null = null;
  private dialog: { callId: string; localTag: string; remoteTag: string; remoteTarget: string; cseq: number; to: sip.NameAddr } | null =
    null;
  private seq = Math.floor(Math.random() * 1000);
  private timestamp = Math.floor(Math.random() * 100_000);
  private readonly ssrc = randomBytes(4).readUInt32BE(0);
  private payloadType = 0;
  private telephoneEvent: number | null = null;
  private byeWaiters: (() => void)[] = [];
  byeReceived = false;

  /** This phone's address (another loopback address than the server's) and its SIP transport. */
  private host = HOST;
  private transport: 'udp' | 'tcp' | 'tls' = 'udp';
  /** `;transport=…` of the URIs this phone writes (none over UDP). */
  private get tparam(): string {
    return this.transport === 'udp' ? '' : `;transport=${this.transport}`;
  }

  /**
   * `options.transport` 'tcp' / 'tls' calls over a connection (TLS without checking the server's certificate: the tests'
   * is self-signed); `options.host` another loopback source address (the carrier source check).
   */
  static async create(sipPort: number, options: { host?: string; transport?: 'udp' | 'tcp' | 'tls' } = {}): Promise<SipTestCaller> {
    const caller = new SipTestCaller();
    caller.sipPort = sipPort;
    caller.host = options.host ?? HOST;
    caller.transport = options.transport ?? 'udp';
    const HOST_ = caller.host;
    caller.rtp = createSocket('udp4');
    caller.rtp.on('message', (message) => {
      if (message.length < 12) return;
      caller.heard.push({ at: Date.now(), payloadType: message[1]! & 0x7f, payload: message.subarray(12) });
    });
    await new Promise<void>((resolve) => caller.rtp.bind(0, HOST_, resolve));
    const transports =
      caller.transport === 'udp'
        ? { udp: true, tcp: false }
        : caller.transport === 'tcp'
          ? { udp: false, tcp: true }
          : { udp: false, tcp: false, tls: { rejectUnauthorized: false }, tls_port: sipPort };
    caller.stack = sip.create({ address: HOST_, port: sipPort, publicAddress: HOST_, ...transports }, (request) => {
      caller.requests.push(request);
      if (request.method === 'BYE') {
        caller.stack.send(sip.makeResponse(request, 200, 'OK'));
        caller.byeReceived = true;
        caller.stopSilence();
        caller.byeWaiters.splice(0).forEach((resolve) => resolve());
      } else if (request.method !== 'ACK') {
        caller.stack.send(sip.makeResponse(request, 200, 'OK'));
      }
    });
    return caller;
  }

  get rtpPort(): number {
    return this.rtp.address().port;
  }

  offerSdp(codec: 'PCMU' | 'PCMA', telephoneEvent: number | null): string {
    const pt = codec === 'PCMU' ? 0 : 8;
    const pts = [pt, ...(telephoneEvent !== null ? [telephoneEvent] : [])];
    return [
      'v=0',
      `o=caller 1 1 IN IP4 ${this.host}`,
      's=test',
      `c=IN IP4 ${this.host}`,
      't=0 0',
      `m=audio ${this.rtpPort} RTP/AVP ${pts.join(' ')}`,
      `a=rtpmap:${pt} ${codec}/8000`,
      ...(telephoneEvent !== null ? [`a=rtpmap:${telephoneEvent} telephone-event/8000`, `a=fmtp:${telephoneEvent} 0-15`] : []),
      'a=sendrecv',
      '',
    ].join('\r\n');
  }

  /**
   * Sends the INVITE and resolves with the final status; on 2xx it ACKs, reads the answer's media address and starts
   * sending silence. `onProvisional` sees 1xx responses (a test can CANCEL from there).
   */
  invite(
    server: { host: string; port: number },
    options: CallOptions,
    onProvisional?: (response: sip.SipResponse) => void,
  ): Promise<sip.SipResponse> {
    const codec = options.codec ?? 'PCMU';
    this.payloadType = codec === 'PCMU' ? 0 : 8;
    this.telephoneEvent = options.telephoneEvent === undefined ? 101 : options.telephoneEvent;
    const callId = `${randomBytes(8).toString('hex')}@${this.host}`;
    const localTag = randomBytes(4).toString('hex');
    const from = options.from ?? '+34600111222';
    const request: sip.SipMessage = {
      method: 'INVITE',
      uri: `sip:${options.to}@${server.host}:${server.port}${this.tparam}`,
      version: '2.0',
      headers: {
        via: [],
        to: { uri: `sip:${options.to}@${server.host}:${server.port}`, params: {} },
        from: { uri: `sip:${from}@${this.host}:${this.sipPort}`, params: { tag: localTag } },
        'call-id': callId,
        cseq: { method: 'INVITE', seq: 1 },
        contact: [{ uri: `sip:caller@${this.host}:${this.sipPort}${this.tparam}`, params: {} }],
        'content-type': 'application/sdp',
        'max-forwards': '70',
      },
      content: this.offerSdp(codec, this.telephoneEvent),
    };
    this.lastInvite = request;
    return new Promise((resolve) => {
      this.stack.send(request, (response) => {
        if (response.status < 200) {
          onProvisional?.(response);
          return;
        }
        if (response.status < 300) {
          const contact = Array.isArray(response.headers.contact) ? response.headers.contact[0]!.uri : request.uri!;
          this.dialog = {
            callId,
            localTag,
            remoteTag: String(response.headers.to.params.tag),
            remoteTarget: contact,
            cseq: 1,
            to: response.headers.to,
          };
          this.ack(response);
          this.remoteMedia = readMedia(response.content ?? '');
          this.startSilence();
        }
        resolve(response);
      });
    });
  }

  lastInvite: sip.SipMessage | null = null;

  /** CANCEL of the INVITE in progress (same branch and Call-ID, RFC 3261 9.1). */
  cancel(): Promise<sip.SipResponse> {
    const invite = this.lastInvite!;
    const cancel: sip.SipMessage = {
      method: 'CANCEL',
      uri: invite.uri,
      version: '2.0',
      headers: {
        via: invite.headers.via,
        to: invite.headers.to,
        from: invite.headers.from,
        'call-id': invite.headers['call-id'],
        cseq: { method: 'CANCEL', seq: invite.headers.cseq.seq },
        'max-forwards': '70',
      },
    };
    return new Promise((resolve) => this.stack.send(cancel, resolve));
  }

  private ack(response: sip.SipResponse): void {
    const dialog = this.dialog!;
    this.stack.send({
      method: 'ACK',
      uri: dialog.remoteTarget,
      version: '2.0',
      headers: {
        via: [],
        to: response.headers.to,
        from: response.headers.from,
        'call-id': dialog.callId,
        cseq: { method: 'ACK', seq: 1 },
        'max-forwards': '70',
      },
    });
  }

  /** An in-dialog request (BYE, INFO, re-INVITE); resolves with its final response. */
  request(method: string, extra: { contentType?: string; content?: string } = {}): Promise<sip.SipResponse> {
    const dialog = this.dialog!;
    dialog.cseq += 1;
    const request: sip.SipMessage = {
      method,
      uri: dialog.remoteTarget,
      version: '2.0',
      headers: {
        via: [],
        to: dialog.to,
        from: { uri: `sip:caller@${this.host}:${this.sipPort}`, params: { tag: dialog.localTag } },
        'call-id': dialog.callId,
        cseq: { method, seq: dialog.cseq },
        contact: [{ uri: `sip:caller@${this.host}:${this.sipPort}${this.tparam}`, params: {} }],
        'max-forwards': '70',
        ...(extra.contentType ? { 'content-type': extra.contentType } : {}),
      },
      ...(extra.content !== undefined ? { content: extra.content } : {}),
    };
    return new Promise((resolve) =>
      this.stack.send(request, (response) => {
        if (response.status < 200) return;
        if (method === 'INVITE' && response.status < 300) this.ack(response);
        resolve(response);
      }),
    );
  }

  /** Out-of-dialog OPTIONS to the server. */
  options(server: { host: string; port: number }): Promise<sip.SipResponse> {
    return new Promise((resolve) =>
      this.stack.send(
        {
          method: 'OPTIONS',
          uri: `sip:${server.host}:${server.port}${this.tparam}`,
          version: '2.0',
          headers: {
            via: [],
            to: { uri: `sip:${server.host}:${server.port}`, params: {} },
            from: { uri: `sip:caller@${this.host}:${this.sipPort}`, params: { tag: randomBytes(4).toString('hex') } },
            'call-id': `${randomBytes(8).toString('hex')}@${this.host}`,
            cseq: { method: 'OPTIONS', seq: 1 },
            'max-forwards': '70',
          },
        },
        resolve,
      ),
    );
  }

  async hangUp(): Promise<sip.SipResponse> {
    this.stopSilence();
    return this.request('BYE');
  }

  /** Resolves when the server sends BYE. */
  waitForBye(): Promise<void> {
    if (this.byeReceived) return Promise.resolve();
    return new Promise((resolve) => this.byeWaiters.push(resolve));
  }

  get media(): { host: string; port: number } | null {
    return this.remoteMedia;
  }

  private sendRtp(payloadType: number, payload: Buffer, marker: boolean, timestamp: number): void {
    if (!this.remoteMedia) return;
    const header = Buffer.alloc(12);
    header[0] = 0x80;
    header[1] = payloadType | (marker ? 0x80 : 0);
    header.writeUInt16BE(this.seq++ & 0xffff, 2);
    header.writeUInt32BE(timestamp >>> 0, 4);
    header.writeUInt32BE(this.ssrc, 8);
    this.rtp.send(Buffer.concat([header, payload]), this.remoteMedia.port, this.remoteMedia.host);
  }

  private toneHz: number | null = null;
  private tonePhase = 0;

  /** What the phone "says" from now on: a sine of `hz` (what an agent should hear once bridged), or silence (null). */
  setTone(hz: number | null): void {
    this.toneHz = hz;
  }

  private startSilence(): void {
    const silence = Buffer.alloc(160, this.payloadType === 0 ? 0xff : 0xd5);
    const frames = realTimeFrames();
    this.silence = setInterval(() => {
      // Every frame due by now (see realTimeFrames): a late timer must not leave gaps in what the phone says.
      for (let due = frames(); due > 0; due -= 1) {
        let frame: Buffer = silence;
        if (this.toneHz !== null && this.payloadType === 0) {
          frame = toneFrame(this.toneHz, this.tonePhase);
          this.tonePhase += 160;
        }
        this.sendRtp(this.payloadType, frame, false, this.timestamp);
        this.timestamp += 160;
      }
    }, 20);
  }

  private stopSilence(): void {
    if (this.silence) clearInterval(this.silence);
    this.silence = null;
  }

  /** One key as an RFC 4733 event: 3 packets while pressed (50 ms apart), then the end packet three times. */
  async pressRtp(key: string): Promise<void> {
    if (this.telephoneEvent === null) throw new Error('no telephone-event was negotiated');
    const event = key === '*' ? 10 : key === '#' ? 11 : Number(key);
    this.stopSilence();
    const start = this.timestamp;
    const wait = () => new Promise((resolve) => setTimeout(resolve, 50));
    for (let i = 1; i <= 3; i += 1) {
      const duration = i * 400;
      this.sendRtp(this.telephoneEvent, Buffer.from([event, 10, duration >> 8, duration & 0xff]), i === 1, start);
      await wait();
    }
    const duration = 4 * 400;
    for (let i = 0; i < 3; i += 1)
      this.sendRtp(this.telephoneEvent, Buffer.from([event, 0x80 | 10, duration >> 8, duration & 0xff]), false, start);
    this.timestamp = start + duration;
    this.startSilence();
  }

  /** One key by SIP INFO (application/dtmf-relay), the fallback without RFC 4733. */
  pressInfo(key: string): Promise<sip.SipResponse> {
    return this.request('INFO', { contentType: 'application/dtmf-relay', content: `Signal=${key}\r\nDuration=160\r\n` });
  }

  /** The linear samples heard between two instants (G.711 decoded; packets of other payload types skipped). */
  samples(from: number, to: number): Int16Array {
    const packets = this.heard.filter(
      (packet) => packet.at >= from && packet.at < to && (packet.payloadType === 0 || packet.payloadType === 8),
    );
    const out = new Int16Array(packets.reduce((sum, packet) => sum + packet.payload.length, 0));
    let index = 0;
    for (const packet of packets)
      for (const byte of packet.payload) out[index++] = packet.payloadType === 0 ? ulawToLinear(byte) : alawToLinear(byte);
    return out;
  }

  async close(): Promise<void> {
    this.stopSilence();
    this.stack.destroy();
    await new Promise<void>((resolve) => this.rtp.close(() => resolve()));
  }
}

function readMedia(sdp: string): { host: string; port: number } | null {
  const host = /^c=IN IP4 (\S+)/m.exec(sdp)?.[1];
  const port = /^m=audio (\d+)/m.exec(sdp)?.[1];
  return host && port ? { host, port: Number(port) } : null;
}

/** 20 ms of a sine of `hz` at about a quarter of full scale, μ-law, starting at sample `phase`. */
export function toneFrame(hz: number, phase: number): Buffer {
  const frame = Buffer.alloc(160);
  for (let i = 0; i < 160; i += 1) frame[i] = linearToUlaw(Math.round(8000 * Math.sin((2 * Math.PI * hz * (phase + i)) / 8000)));
  return frame;
}

/** ITU-T G.711 μ-law compression (the reference segment search, with the 0x84 bias and the 32635 clip). */
export function linearToUlaw(sample: number): number {
  const sign = sample < 0 ? 0x80 : 0;
  let magnitude = Math.min(Math.abs(sample), 32635) + 0x84;
  let exponent = 7;
  for (let mask = 0x4000; (magnitude & mask) === 0 && exponent > 0; mask >>= 1) exponent -= 1;
  const mantissa = (magnitude >> (exponent + 3)) & 0x0f;
  magnitude = sign | (exponent << 4) | mantissa;
  return ~magnitude & 0xff;
}

/** ITU-T G.711 μ-law expansion. */
export function ulawToLinear(byte: number): number {
  const u = ~byte & 0xff;
  const sign = u & 0x80;
  const exponent = (u >> 4) & 0x07;
  const mantissa = u & 0x0f;
  const sample = (((mantissa << 3) + 0x84) << exponent) - 0x84;
  return sign ? -sample : sample;
}

/** ITU-T G.711 A-law expansion. */
export function alawToLinear(byte: number): number {
  const a = byte ^ 0x55;
  const sign = a & 0x80;
  const exponent = (a >> 4) & 0x07;
  const mantissa = a & 0x0f;
  const sample = exponent === 0 ? (mantissa << 4) + 8 : ((mantissa << 4) + 0x108) << (exponent - 1);
  return sign ? sample : -sample;
}

/** Root mean square of the samples (0 for none): 8-bit-ish silence is under ~50, the generated tones are thousands. */
export function rms(samples: Int16Array): number {
  if (!samples.length) return 0;
  let sum = 0;
  for (const sample of samples) sum += sample * sample;
  return Math.sqrt(sum / samples.length);
}

/** Share of the signal's power at one frequency (Goertzel, 8 kHz): near 1 for a pure tone there, near 0 elsewhere. */
export function toneShare(samples: Int16Array, frequency: number, sampleRate = 8000): number {
  if (samples.length < 160) return 0;
  const coefficient = 2 * Math.cos((2 * Math.PI * frequency) / sampleRate);
  let s1 = 0;
  let s2 = 0;
  let energy = 0;
  for (const sample of samples) {
    const s0 = sample + coefficient * s1 - s2;
    s2 = s1;
    s1 = s0;
    energy += sample * sample;
  }
  const power = s1 * s1 + s2 * s2 - coefficient * s1 * s2;
  return energy === 0 ? 0 : (2 * power) / (samples.length * energy);
}

/**
 * Whether some 100 ms of `samples` (8 kHz) carry `frequency`: a short tone (the 0.5 s voicemail beep)
 * inside a longer stretch of other sound. Judging the whole stretch at once is not the same: the
 * longer the stretch, the smaller the tone's share of it, so a tone heard late could never pass.
 */
export function hasToneWindow(samples: Int16Array, frequency: number, share = 0.5): boolean {
  for (let start = 0; start + 800 <= samples.length; start += 160) {
    const window = samples.subarray(start, start + 800);
    if (rms(window) > 200 && toneShare(window, frequency) > share) return true;
  }
  return false;
}

/**
 * A 20 ms frame clock for the test phones: each call answers how many frames are due since the last
 * call by the wall clock (at most 10, so a long stall is not answered with a flood), so a phone whose
 * timer fires late catches up instead of falling behind real time.
 */
export function realTimeFrames(): () => number {
  const startedAt = performance.now();
  let sent = 0;
  return () => {
    const due = Math.floor((performance.now() - startedAt) / 20) + 1 - sent;
    const now = Math.min(Math.max(due, 0), 10);
    sent += due > 10 ? due : now;
    return now;
  };
}
