/**
 * Just enough of WebM (Matroska's EBML) to finalise a MediaRecorder recording: Chromium writes a
 * live stream (Segment and Clusters of unknown size, no Duration, no SeekHead or Cues), so a player
 * shows no length and cannot seek. `readWebmTimeline` walks the clusters' block timecodes to find
 * how long it really is; `withDuration` writes that into the Segment's Info. No ffmpeg needed.
 */

const ID = {
  ebml: 0x1a45dfa3,
  segment: 0x18538067,
  info: 0x1549a966,
  timecodeScale: 0x2ad7b1,
  duration: 0x4489,
  tracks: 0x1654ae6b,
  cluster: 0x1f43b675,
  timecode: 0xe7,
  simpleBlock: 0xa3,
  blockGroup: 0xa0,
  block: 0xa1,
  blockDuration: 0x9b,
  seekHead: 0x114d9b74,
  cues: 0x1c53bb6b,
  tags: 0x1254c367,
  chapters: 0x1043a770,
  attachments: 0x1941a469,
} as const;

/** Children of a Segment: an unknown-sized Cluster ends where one of these begins. */
const SEGMENT_CHILDREN = new Set<number>([ID.info, ID.tracks, ID.cluster, ID.seekHead, ID.cues, ID.tags, ID.chapters, ID.attachments]);

export class WebmError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'WebmError';
  }
}

interface Vint {
  value: number;
  length: number;
  /** All value bits set: "unknown size" (live streams). */
  unknown: boolean;
}

function readVint(buffer: Buffer, offset: number, keepMarker: boolean): Vint | null {
  if (offset >= buffer.length) return null;
  const first = buffer[offset]!;
  if (first === 0) throw new WebmError(`invalid EBML number at byte ${offset}`);
  let length = 1;
  while (length <= 8 && !(first & (0x80 >> (length - 1)))) length++;
  if (offset + length > buffer.length) return null;
  let value = keepMarker ? first : first & (0xff >> length);
  let allOnes = value === 0xff >> length;
  for (let i = 1; i < length; i++) {
    const byte = buffer[offset + i]!;
    value = value * 256 + byte;
    if (byte !== 0xff) allOnes = false;
  }
  return { value, length, unknown: !keepMarker && allOnes };
}

interface Element {
  id: number;
  start: number;
  dataStart: number;
  /** null: unknown size. */
  size: number | null;
}

function readElement(buffer: Buffer, offset: number): Element | null {
  const id = readVint(buffer, offset, true);
  if (!id) return null;
  const size = readVint(buffer, offset + id.length, false);
  if (!size) return null;
  return { id: id.value, start: offset, dataStart: offset + id.length + size.length, size: size.unknown ? null : size.value };
}

function readUint(buffer: Buffer, start: number, size: number): number {
  let value = 0;
  for (let i = 0; i < size; i++) value = value * 256 + buffer[start + i]!;
  return value;
}

function readFloat(buffer: Buffer, start: number, size: number): number {
  if (size === 4) return buffer.readFloatBE(start);
  if (size === 8) return buffer.readDoubleBE(start);
  throw new WebmError(`float of ${size} bytes`);
}

export interface WebmTimeline {
  /** Nanoseconds per timecode unit (Info's TimecodeScale, 1,000,000 by default). */
  timecodeScale: number;
  /** Milliseconds from the first block to the end of the last one. */
  durationMs: number;
  /** Milliseconds, on the file's own timeline, where the last block ends. */
  endMs: number;
  /** Info's Duration, when the file has one (ms). */
  declaredDurationMs: number | null;
  blocks: number;
  /** Where the Segment's Info element is, and the Segment's size field, for withDuration. */
  layout: {
    segmentSizeAt: number;
    segmentSizeLength: number;
    segmentSize: number | null;
    info: { start: number; end: number; dataStart: number } | null;
    /** A SeekHead or Cues point at byte positions: inserting bytes would break them. */
    hasPositions: boolean;
  };
}

/** Reads the timeline of a WebM file; a file cut short (a closed tab) is read up to its last whole block. */
export function readWebmTimeline(buffer: Buffer): WebmTimeline {
  const header = readElement(buffer, 0);
  if (!header || header.id !== ID.ebml || header.size === null) throw new WebmError('not a WebM file (no EBML header)');
  const segment = readElement(buffer, header.dataStart + header.size);
  if (!segment || segment.id !== ID.segment) throw new WebmError('not a WebM file (no Segment)');
  const segmentEnd = segment.size === null ? buffer.length : Math.min(buffer.length, segment.dataStart + segment.size);
  const segmentIdLength = readVint(buffer, segment.start, true)!.length;

  let timecodeScale = 1_000_000;
  let declared: number | null = null;
  let info: WebmTimeline['layout']['info'] = null;
  let hasPositions = false;
  let first = Number.POSITIVE_INFINITY;
  let last = Number.NEGATIVE_INFINITY;
  let blocks = 0;
  /** Per track: the last block's timecode and the smallest positive step seen (a frame's length). */
  const tracks = new Map<number, { last: number; step: number; lastDuration: number | null }>();

  const block = (at: number, end: number, clusterTime: number, duration: number | null) => {
    const track = readVint(buffer, at, false);
    if (!track || at + track.length + 2 > end) return;
    const time = clusterTime + buffer.readInt16BE(at + track.length);
    blocks++;
    first = Math.min(first, time);
    const seen = tracks.get(track.value);
    if (!seen) tracks.set(track.value, { last: time, step: Number.POSITIVE_INFINITY, lastDuration: duration });
    else {
      if (time > seen.last) seen.step = Math.min(seen.step, time - seen.last);
      if (time >= seen.last) {
        seen.last = time;
        seen.lastDuration = duration;
      }
    }
    last = Math.max(last, time);
  };

  let offset = segment.dataStart;
  while (offset < segmentEnd) {
    const element = readElement(buffer, offset);
    if (!element) break;
    if (element.id === ID.cluster) {
      const clusterEnd = element.size === null ? segmentEnd : Math.min(segmentEnd, element.dataStart + element.size);
      let clusterTime = 0;
      let at = element.dataStart;
      while (at < clusterEnd) {
        const child = readElement(buffer, at);
        if (!child) {
          at = clusterEnd;
          break;
        }
        // An unknown-sized cluster ends where the next top-level element starts.
        if (element.size === null && SEGMENT_CHILDREN.has(child.id)) break;
        if (child.size === null) throw new WebmError(`element 0x${child.id.toString(16)} of unknown size inside a cluster`);
        const childEnd = child.dataStart + child.size;
        if (childEnd > clusterEnd) {
          at = clusterEnd; // cut short: the last, partial block is left out
          break;
        }
        if (child.id === ID.timecode) clusterTime = readUint(buffer, child.dataStart, child.size);
        else if (child.id === ID.simpleBlock) block(child.dataStart, childEnd, clusterTime, null);
        else if (child.id === ID.blockGroup) {
          let inner = child.dataStart;
          let blockAt: number | null = null;
          let blockEnd = 0;
          let duration: number | null = null;
          while (inner < childEnd) {
            const part = readElement(buffer, inner);
            if (!part || part.size === null) break;
            if (part.id === ID.block) {
              blockAt = part.dataStart;
              blockEnd = part.dataStart + part.size;
            } else if (part.id === ID.blockDuration) duration = readUint(buffer, part.dataStart, part.size);
            inner = part.dataStart + part.size;
          }
          if (blockAt !== null) block(blockAt, blockEnd, clusterTime, duration);
        }
        at = childEnd;
      }
      offset = at;
      continue;
    }
    if (element.size === null) break;
    const end = element.dataStart + element.size;
    if (element.id === ID.info) {
      info = { start: element.start, end, dataStart: element.dataStart };
      let inner = element.dataStart;
      while (inner < Math.min(end, buffer.length)) {
        const part = readElement(buffer, inner);
        if (!part || part.size === null) break;
        if (part.id === ID.timecodeScale) timecodeScale = readUint(buffer, part.dataStart, part.size);
        else if (part.id === ID.duration) declared = readFloat(buffer, part.dataStart, part.size);
        inner = part.dataStart + part.size;
      }
    } else if (element.id === ID.seekHead || element.id === ID.cues) hasPositions = true;
    offset = end;
  }

  const unitMs = timecodeScale / 1_000_000;
  let end = Number.NEGATIVE_INFINITY;
  for (const track of tracks.values()) {
    // The last block lasts its BlockDuration, or else as long as the track's shortest step (one frame).
    const length = track.lastDuration ?? (Number.isFinite(track.step) ? track.step : 0);
    end = Math.max(end, track.last + length);
  }
  const sizeField = readVint(buffer, segment.start + segmentIdLength, false)!;
  return {
    timecodeScale,
    durationMs: blocks ? Math.round((end - first) * unitMs) : 0,
    endMs: blocks ? Math.round(end * unitMs) : 0,
    declaredDurationMs: declared === null ? null : Math.round(declared * unitMs),
    blocks,
    layout: {
      segmentSizeAt: segment.start + segmentIdLength,
      segmentSizeLength: sizeField.length,
      segmentSize: segment.size,
      info,
      hasPositions,
    },
  };
}

function writeVint(value: number, length: number): Buffer {
  if (value >= 2 ** (7 * length) - 1) throw new WebmError(`${value} does not fit in ${length} bytes`);
  const out = Buffer.alloc(length);
  let rest = value;
  for (let i = length - 1; i >= 0; i--) {
    out[i] = rest % 256;
    rest = Math.floor(rest / 256);
  }
  out[0]! |= 0x80 >> (length - 1);
  return out;
}

/**
 * The file with Info's Duration set to where its last block ends, or the file as it is when it
 * already has one or when inserting bytes would break byte positions (SeekHead, Cues).
 */
export function withDuration(buffer: Buffer, timeline: WebmTimeline = readWebmTimeline(buffer)): Buffer {
  const { info, hasPositions, segmentSize, segmentSizeAt, segmentSizeLength } = timeline.layout;
  if (!info || timeline.declaredDurationMs !== null || hasPositions || info.end > buffer.length || timeline.blocks === 0) return buffer;
  const duration = Buffer.alloc(11);
  duration[0] = 0x44;
  duration[1] = 0x89;
  duration[2] = 0x88; // size 8
  duration.writeDoubleBE((timeline.endMs * 1_000_000) / timeline.timecodeScale, 3);
  const payload = Buffer.concat([buffer.subarray(info.dataStart, info.end), duration]);
  const idBytes = buffer.subarray(info.start, info.start + 4);
  const newInfo = Buffer.concat([idBytes, writeVint(payload.length, 8), payload]);
  const grown = newInfo.length - (info.end - info.start);
  const out = Buffer.concat([buffer.subarray(0, info.start), newInfo, buffer.subarray(info.end)]);
  if (segmentSize !== null) writeVint(segmentSize + grown, segmentSizeLength).copy(out, segmentSizeAt);
  return out;
}
