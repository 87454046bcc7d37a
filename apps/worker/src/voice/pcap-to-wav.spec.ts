import { alawToLinear as referenceAlaw, ulawToLinear as referenceUlaw } from './testing/sip-test-caller';
import { alawToLinear, ulawToLinear } from './g711';
import { pcapToStereoWav, readPcapUdp, sdpAudioPort } from './pcap-to-wav';

const CALLER_PORT = 30000;
const AGENT_PORT = 30002;

/** One pcap record: a raw IPv4/UDP datagram to `dstPort` carrying `data`, captured at `seconds`. */
function record(seconds: number, dstPort: number, data: Buffer): Buffer {
  const ip = Buffer.alloc(20 + 8 + data.length);
  ip[0] = 0x45;
  ip.writeUInt16BE(ip.length, 2);
  ip[8] = 64;
  ip[9] = 17;
  Buffer.from([127, 0, 0, 2]).copy(ip, 12);
  Buffer.from([127, 0, 0, 1]).copy(ip, 16);
  ip.writeUInt16BE(40000, 20);
  ip.writeUInt16BE(dstPort, 22);
  ip.writeUInt16BE(8 + data.length, 24);
  data.copy(ip, 28);
  const header = Buffer.alloc(16);
  header.writeUInt32LE(Math.floor(seconds), 0);
  header.writeUInt32LE(Math.round((seconds % 1) * 1e6), 4);
  header.writeUInt32LE(ip.length, 8);
  header.writeUInt32LE(ip.length, 12);
  return Buffer.concat([header, ip]);
}

function rtp(payloadType: number, ssrc: number, timestamp: number, payload: Buffer): Buffer {
  const packet = Buffer.alloc(12 + payload.length);
  packet[0] = 0x80;
  packet[1] = payloadType;
  packet.writeUInt32BE(timestamp >>> 0, 4);
  packet.writeUInt32BE(ssrc, 8);
  payload.copy(packet, 12);
  return packet;
}

function pcap(records: Buffer[]): Buffer {
  const header = Buffer.alloc(24);
  header.writeUInt32LE(0xa1b2c3d4, 0);
  header.writeUInt16LE(2, 4);
  header.writeUInt16LE(4, 6);
  header.writeUInt32LE(65535, 16);
  header.writeUInt32LE(101, 20);
  return Buffer.concat([header, ...records]);
}

const frame = (byte: number) => Buffer.alloc(160, byte);
const sample = (wav: Buffer, index: number, channel: 0 | 1) => wav.readInt16LE(44 + index * 4 + channel * 2);

describe('pcapToStereoWav', () => {
  it('decodes G.711 exactly like the reference tables', () => {
    for (let byte = 0; byte < 256; byte += 1) {
      expect(ulawToLinear(byte)).toBe(referenceUlaw(byte));
      expect(alawToLinear(byte)).toBe(referenceAlaw(byte));
    }
  });

  it('puts the caller left and the agent right, each at its RTP time, skipping RTCP, events and unknown codecs', () => {
    const start = 1_700_000_000;
    const file = pcap([
      // Caller (PCMU) from t=0, two frames; the second arrives late (jitter) but belongs right after the first.
      record(start, CALLER_PORT, rtp(0, 1, 1000, frame(0x10))),
      record(start + 0.055, CALLER_PORT, rtp(0, 1, 1160, frame(0x20))),
      // Agent (PCMA) from t=20 ms.
      record(start + 0.02, AGENT_PORT, rtp(8, 2, 50_000, frame(0x30))),
      // RTCP, a telephone event, and an Opus-like dynamic payload on the agent side.
      record(start + 0.03, AGENT_PORT, Buffer.from([0x80, 200, 0, 6, 0, 0, 0, 2, 0, 0, 0, 0])),
      record(start + 0.03, CALLER_PORT, rtp(101, 1, 1160, Buffer.from([1, 0x8a, 0, 160]))),
      record(start + 0.04, AGENT_PORT, rtp(111, 2, 50_160, frame(0x40))),
      // A packet to a port that is neither side (another stream of the call) is ignored.
      record(start + 0.04, 30004, rtp(0, 3, 0, frame(0x50))),
    ]);
    const decoded = pcapToStereoWav([file], { callerPort: CALLER_PORT, agentPorts: [AGENT_PORT] });
    expect(decoded.packets).toEqual({ caller: 2, agent: 1, supervisor: 0 });
    expect(decoded.unsupported).toEqual({ 111: 1 });
    // 320 caller samples from 0: 40 ms long.
    expect(decoded.durationMs).toBe(40);
    const wav = decoded.wav;
    expect([wav.toString('ascii', 0, 4), wav.readUInt16LE(22), wav.readUInt32LE(24)]).toEqual(['RIFF', 2, 8000]);
    expect(sample(wav, 0, 0)).toBe(ulawToLinear(0x10));
    expect(sample(wav, 159, 0)).toBe(ulawToLinear(0x10));
    expect(sample(wav, 160, 0)).toBe(ulawToLinear(0x20)); // by its timestamp, not its late arrival at 440
    expect(sample(wav, 0, 1)).toBe(0);
    expect(sample(wav, 160, 1)).toBe(alawToLinear(0x30));
    expect(sample(wav, 319, 1)).toBe(alawToLinear(0x30));
  });

  it('re-anchors a side whose stream restarts (new SSRC) on its arrival time', () => {
    const start = 1_700_000_000;
    const file = pcap([
      record(start, CALLER_PORT, rtp(0, 1, 0, frame(0x10))),
      record(start + 1, CALLER_PORT, rtp(0, 9, 123_456, frame(0x20))),
    ]);
    const { wav, durationMs } = pcapToStereoWav([file], { callerPort: CALLER_PORT, agentPorts: [AGENT_PORT] });
    expect(durationMs).toBe(1020);
    expect(sample(wav, 8000, 0)).toBe(ulawToLinear(0x20));
    expect(sample(wav, 4000, 0)).toBe(0);
  });

  it('adds a barging supervisor into the agent’s channel only while the barge-in lasts', () => {
    const start = 1_700_000_000;
    const SUPERVISOR_PORT = 30006;
    const file = pcap([
      record(start, CALLER_PORT, rtp(0, 1, 0, frame(0x10))),
      record(start, AGENT_PORT, rtp(0, 2, 0, frame(0xf0))),
      // Before the barge-in (listening): not in the recording.
      record(start, SUPERVISOR_PORT, rtp(0, 3, 0, frame(0x40))),
      record(start + 0.02, AGENT_PORT, rtp(0, 2, 160, frame(0xf0))),
      // Barging from start + 20 ms: summed with the agent's sample.
      record(start + 0.02, SUPERVISOR_PORT, rtp(0, 3, 160, frame(0x40))),
      record(start + 0.04, AGENT_PORT, rtp(0, 2, 320, frame(0xf0))),
      // After it ended (start + 40 ms): left out again.
      record(start + 0.04, SUPERVISOR_PORT, rtp(0, 3, 320, frame(0x40))),
    ]);
    const decoded = pcapToStereoWav([file], {
      callerPort: CALLER_PORT,
      agentPorts: [AGENT_PORT],
      bargeIns: [{ port: SUPERVISOR_PORT, from: start * 1000 + 20, to: start * 1000 + 40 }],
    });
    expect(decoded.packets).toEqual({ caller: 1, agent: 3, supervisor: 1 });
    const wav = decoded.wav;
    expect(sample(wav, 0, 1)).toBe(ulawToLinear(0xf0));
    expect(sample(wav, 160, 1)).toBe(ulawToLinear(0xf0) + ulawToLinear(0x40));
    expect(sample(wav, 320, 1)).toBe(ulawToLinear(0xf0));
    expect(sample(wav, 160, 0)).toBe(0);
  });

  it('refuses what is not a pcap and reads the SDP port', () => {
    expect(() => readPcapUdp(Buffer.from('RIFF0000WAVEfmt some more bytes'))).toThrow(/not a pcap/);
    expect(sdpAudioPort('v=0\r\nm=audio 30010 RTP/AVP 0\r\n')).toBe(30010);
    expect(sdpAudioPort(null)).toBeNull();
  });
});
