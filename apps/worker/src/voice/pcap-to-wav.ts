/**
 * rtpengine's pcap recordings (--recording-method=pcap) turned into a WAV a person can play.
 *
 * rtpengine writes every RTP packet it receives from the call's parties into one pcap per call, each with a made-up
 * IPv4/UDP header whose source is the sender and whose destination is the rtpengine port the packet arrived at
 * (link type RAW with --recording-format=raw, Ethernet with =eth). Which party sent a packet is therefore read from
 * that destination port: the port rtpengine gave the caller (in the 200 OK's SDP) or the one it gave the agent (in
 * the INVITE to the agent's phone). What it played itself (prompts, hold music) is not in the file.
 *
 * The WAV is stereo, 8 kHz, 16-bit: the caller on the left, the agent on the right, so quality reviewers can listen to
 * one side. G.711 (PCMU 0, PCMA 8) is decoded; telephone events and comfort noise are skipped; any other payload type
 * is counted in `unsupported` and left silent.
 */
import { alawToLinear, ulawToLinear } from './g711';

export interface RecordingSides {
  /** rtpengine's local port the caller's packets arrive at. */
  callerPort: number;
  /** rtpengine's local ports the agents' packets arrive at (one per agent leg: a call requeued and answered again has two). */
  agentPorts: number[];
  /**
   * A supervisor's barge-ins: rtpengine's port their phone sends to, and when (epoch ms; `to` null while it lasts).
   * What they said then is mixed into the agent's channel: the caller heard it from the platform's side.
   */
  bargeIns?: BargeIn[];
}

export interface BargeIn {
  port: number;
  from: number;
  to: number | null;
}

export interface DecodedRecording {
  wav: Buffer;
  durationMs: number;
  /** Decoded G.711 packets per side (the supervisor's: those mixed into the agent's channel while barging in). */
  packets: { caller: number; agent: number; supervisor: number };
  /** Payload types found that are not G.711 (not decoded), with their packet counts. */
  unsupported: Record<number, number>;
}

const SAMPLE_RATE = 8000;
/** Jitter tolerated between a packet's RTP timestamp and its arrival before the side is re-anchored on arrival time. */
const REANCHOR_SAMPLES = SAMPLE_RATE / 5;
const LINKTYPE_ETHERNET = 1;
const LINKTYPE_RAW = 101;
/** Comfort noise (RFC 3389) and the usual telephone-event type (RFC 4733) carry no speech to decode. */
const SKIPPED_PAYLOAD_TYPES = new Set([13, 101]);

interface Packet {
  /** Capture time, in samples since the first packet of the file. */
  at: number;
  dstPort: number;
  payloadType: number;
  ssrc: number;
  timestamp: number;
  payload: Buffer;
}

/** The UDP datagrams of a pcap file (RAW or Ethernet link type, microsecond or nanosecond timestamps, either byte order). */
export function readPcapUdp(pcap: Buffer): { at: number; time: number; dstPort: number; data: Buffer }[] {
  if (pcap.length < 24) throw new Error('not a pcap file (too short)');
  const magicLE = pcap.readUInt32LE(0);
  let little: boolean;
  let nano: boolean;
  if (magicLE === 0xa1b2c3d4 || magicLE === 0xa1b23c4d) [little, nano] = [true, magicLE === 0xa1b23c4d];
  else if (pcap.readUInt32BE(0) === 0xa1b2c3d4 || pcap.readUInt32BE(0) === 0xa1b23c4d)
    [little, nano] = [false, pcap.readUInt32BE(0) === 0xa1b23c4d];
  else throw new Error('not a pcap file (bad magic number)');
  const u32 = (offset: number) => (little ? pcap.readUInt32LE(offset) : pcap.readUInt32BE(offset));
  const linkType = u32(20);
  if (linkType !== LINKTYPE_RAW && linkType !== LINKTYPE_ETHERNET) throw new Error(`pcap link type ${linkType} is not RAW or Ethernet`);
  const out: { at: number; time: number; dstPort: number; data: Buffer }[] = [];
  let offset = 24;
  let first: number | null = null;
  while (offset + 16 <= pcap.length) {
    const seconds = u32(offset);
    const fraction = u32(offset + 4);
    const length = u32(offset + 8);
    const start = offset + 16;
    offset = start + length;
    if (offset > pcap.length) break; // a file cut short while written: the complete records are kept
    let ip = pcap.subarray(start, start + length);
    if (linkType === LINKTYPE_ETHERNET) {
      if (ip.length < 14 || ip.readUInt16BE(12) !== 0x0800) continue;
      ip = ip.subarray(14);
    }
    if (ip.length < 20 || ip[0]! >> 4 !== 4 || ip[9] !== 17) continue; // IPv4 UDP only (rtpengine's interface here)
    const udp = ip.subarray((ip[0]! & 0x0f) * 4);
    if (udp.length < 8) continue;
    const time = seconds + fraction / (nano ? 1e9 : 1e6);
    first ??= time;
    out.push({ at: Math.round((time - first) * SAMPLE_RATE), time: time * 1000, dstPort: udp.readUInt16BE(2), data: udp.subarray(8) });
  }
  return out;
}

/** An RTP packet's fields (RFC 3550), or null for anything else (RTCP, STUN, DTLS). */
function readRtp(datagram: { at: number; dstPort: number; data: Buffer }): Packet | null {
  const data = datagram.data;
  if (data.length < 12 || data[0]! >> 6 !== 2) return null;
  const payloadType = data[1]! & 0x7f;
  if (payloadType >= 72 && payloadType <= 79) return null; // RTCP sharing the port (rtcp-mux)
  let offset = 12 + (data[0]! & 0x0f) * 4;
  if (data[0]! & 0x10) {
    if (data.length < offset + 4) return null;
    offset += 4 + data.readUInt16BE(offset + 2) * 4;
  }
  let end = data.length;
  if (data[0]! & 0x20) end -= data[data.length - 1]!;
  if (offset > end) return null;
  return {
    at: datagram.at,
    dstPort: datagram.dstPort,
    payloadType,
    ssrc: data.readUInt32BE(8),
    timestamp: data.readUInt32BE(4),
    payload: data.subarray(offset, end),
  };
}

/**
 * One side's packets laid on the recording's timeline: a packet goes where its RTP timestamp puts it relative to the
 * side's anchor (so network jitter does not smear the audio), and the anchor moves to the arrival time when the
 * stream changes (new SSRC) or its timestamps drift from the clock by more than REANCHOR_SAMPLES.
 */
function placeSide(packets: Packet[]): { position: number; samples: Int16Array }[] {
  const placed: { position: number; samples: Int16Array }[] = [];
  let anchor: { ssrc: number; timestamp: number; at: number } | null = null;
  for (const packet of packets) {
    const decode = packet.payloadType === 0 ? ulawToLinear : packet.payloadType === 8 ? alawToLinear : null;
    if (!decode) continue;
    let position = packet.at;
    if (anchor && anchor.ssrc === packet.ssrc) {
      const delta = (packet.timestamp - anchor.timestamp) | 0; // 32-bit wrap-around
      const expected = anchor.at + delta;
      if (Math.abs(expected - packet.at) <= REANCHOR_SAMPLES) position = expected;
      else anchor = { ssrc: packet.ssrc, timestamp: packet.timestamp, at: packet.at };
    } else anchor = { ssrc: packet.ssrc, timestamp: packet.timestamp, at: packet.at };
    const samples = new Int16Array(packet.payload.length);
    for (let index = 0; index < samples.length; index += 1) samples[index] = decode(packet.payload[index]!);
    placed.push({ position: Math.max(0, position), samples });
  }
  return placed;
}

/** A RIFF/WAVE header for 16-bit PCM at 8 kHz. */
function wavHeader(channels: number, dataBytes: number): Buffer {
  const header = Buffer.alloc(44);
  header.write('RIFF', 0, 'ascii');
  header.writeUInt32LE(36 + dataBytes, 4);
  header.write('WAVE', 8, 'ascii');
  header.write('fmt ', 12, 'ascii');
  header.writeUInt32LE(16, 16);
  header.writeUInt16LE(1, 20);
  header.writeUInt16LE(channels, 22);
  header.writeUInt32LE(SAMPLE_RATE, 24);
  header.writeUInt32LE(SAMPLE_RATE * channels * 2, 28);
  header.writeUInt16LE(channels * 2, 32);
  header.writeUInt16LE(16, 34);
  header.write('data', 36, 'ascii');
  header.writeUInt32LE(dataBytes, 40);
  return header;
}

/** The call's pcap(s) as one stereo WAV (caller left, agent right). Several files (a restarted recording) are laid end to end. */
export function pcapToStereoWav(pcaps: Buffer[], sides: RecordingSides): DecodedRecording {
  const caller: Packet[] = [];
  const agent: Packet[] = [];
  const supervisor: Packet[] = [];
  const bargeIns = sides.bargeIns ?? [];
  const barging = (datagram: { time: number; dstPort: number }) =>
    bargeIns.some(
      (barge) => barge.port === datagram.dstPort && datagram.time >= barge.from && (barge.to === null || datagram.time < barge.to),
    );
  const unsupported: Record<number, number> = {};
  let offset = 0;
  for (const pcap of pcaps) {
    let last = 0;
    for (const datagram of readPcapUdp(pcap)) {
      const packet = readRtp(datagram);
      if (!packet) continue;
      packet.at += offset;
      last = Math.max(last, packet.at + packet.payload.length);
      const side =
        packet.dstPort === sides.callerPort
          ? caller
          : sides.agentPorts.includes(packet.dstPort)
            ? agent
            : barging(datagram)
              ? supervisor
              : null;
      if (!side) continue;
      if (packet.payloadType !== 0 && packet.payloadType !== 8) {
        if (!SKIPPED_PAYLOAD_TYPES.has(packet.payloadType)) unsupported[packet.payloadType] = (unsupported[packet.payloadType] ?? 0) + 1;
        continue;
      }
      side.push(packet);
    }
    offset = last;
  }
  const left = placeSide(caller);
  const right = placeSide(agent);
  const mixed = placeSide(supervisor);
  const frames = Math.max(0, ...[...left, ...right, ...mixed].map((chunk) => chunk.position + chunk.samples.length));
  const pcm = Buffer.alloc(frames * 4);
  const lay = (chunks: { position: number; samples: Int16Array }[], channel: 0 | 1) => {
    for (const chunk of chunks)
      for (let index = 0; index < chunk.samples.length; index += 1)
        pcm.writeInt16LE(chunk.samples[index]!, (chunk.position + index) * 4 + channel * 2);
  };
  lay(left, 0);
  lay(right, 1);
  // A barging supervisor is added to the agent's channel (clipped), not laid over it: both were heard at once.
  for (const chunk of mixed)
    for (let index = 0; index < chunk.samples.length; index += 1) {
      const at = (chunk.position + index) * 4 + 2;
      pcm.writeInt16LE(Math.max(-32768, Math.min(32767, pcm.readInt16LE(at) + chunk.samples[index]!)), at);
    }
  return {
    wav: Buffer.concat([wavHeader(2, pcm.length), pcm]),
    durationMs: Math.round((frames / SAMPLE_RATE) * 1000),
    packets: { caller: left.length, agent: right.length, supervisor: mixed.length },
    unsupported,
  };
}

/** The first SDP audio port (m=audio <port>): where rtpengine expects that party's RTP. */
export function sdpAudioPort(sdp: string | null | undefined): number | null {
  const match = /^m=audio (\d+) /m.exec(sdp ?? '');
  return match ? Number(match[1]) : null;
}
