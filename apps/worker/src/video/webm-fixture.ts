/**
 * WebM fixtures shaped like Chromium's MediaRecorder output (Segment and Clusters of unknown size,
 * no Duration): a tiny EBML writer for the finaliser's tests.
 */
function size(value: number | null, length = 8): Buffer {
  const out = Buffer.alloc(length, 0xff);
  if (value === null) {
    out[0] = 0x01; // unknown size: 0x01 FF FF FF FF FF FF FF
    return out;
  }
  let rest = value;
  for (let i = length - 1; i >= 0; i--) {
    out[i] = rest % 256;
    rest = Math.floor(rest / 256);
  }
  out[0]! |= 0x80 >> (length - 1);
  return out;
}
const el = (id: number[], body: Buffer, sized: number | null | 'auto' = 'auto') =>
  Buffer.concat([Buffer.from(id), size(sized === 'auto' ? body.length : sized), body]);
const uint = (value: number, bytes = 4) => {
  const out = Buffer.alloc(bytes);
  out.writeUIntBE(value, 0, bytes);
  return out;
};
const simpleBlock = (track: number, relative: number) => {
  const body = Buffer.alloc(4 + 3);
  body[0] = 0x80 | track;
  body.writeInt16BE(relative, 1);
  body[3] = 0x80;
  return el([0xa3], body);
};

/** Clusters of unknown size every `clusterMs`, video every 33 ms and audio every 20 ms, for `lengthMs`. */
export function webmFixture(lengthMs: number, options: { clusterMs?: number; segmentSized?: boolean; cutLastBytes?: number } = {}): Buffer {
  const clusterMs = options.clusterMs ?? 1000;
  const header = el([0x1a, 0x45, 0xdf, 0xa3], Buffer.concat([el([0x42, 0x82], Buffer.from('webm'))]));
  const info = el(
    [0x15, 0x49, 0xa9, 0x66],
    Buffer.concat([el([0x2a, 0xd7, 0xb1], uint(1_000_000)), el([0x4d, 0x80], Buffer.from('Chrome'))]),
  );
  const tracks = el([0x16, 0x54, 0xae, 0x6b], el([0xae], el([0xd7], uint(1, 1))));
  const clusters: Buffer[] = [];
  for (let start = 0; start < lengthMs; start += clusterMs) {
    const blocks: Buffer[] = [el([0xe7], uint(start))];
    for (let t = start; t < Math.min(start + clusterMs, lengthMs); t++) {
      if ((t - 0) % 33 === 0) blocks.push(simpleBlock(1, t - start));
      if (t % 20 === 0) blocks.push(simpleBlock(2, t - start));
    }
    clusters.push(Buffer.concat([Buffer.from([0x1f, 0x43, 0xb6, 0x75]), size(null), ...blocks]));
  }
  const body = Buffer.concat([info, tracks, ...clusters]);
  const segment = Buffer.concat([Buffer.from([0x18, 0x53, 0x80, 0x67]), size(options.segmentSized ? body.length : null), body]);
  const file = Buffer.concat([header, segment]);
  return options.cutLastBytes ? file.subarray(0, file.length - options.cutLastBytes) : file;
}
