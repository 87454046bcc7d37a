/**
 * A small stereo 8 kHz, 16-bit WAV as the worker writes calls and voicemails: a 700 Hz tone on the left
 * channel (the caller) and, on the right (the agent), a tone of `rightHz` or silence when it is not
 * given; `amplitude` is the tones' peak (8000 by default). For suites that store or play call audio.
 */
export function wav(seconds: number, options: { rightHz?: number; amplitude?: number } = {}): Buffer {
  const { rightHz, amplitude = 8000 } = options;
  const frames = Math.round(seconds * 8000);
  const header = Buffer.alloc(44);
  header.write('RIFF', 0, 'ascii');
  header.writeUInt32LE(36 + frames * 4, 4);
  header.write('WAVEfmt ', 8, 'ascii');
  header.writeUInt32LE(16, 16);
  header.writeUInt16LE(1, 20);
  header.writeUInt16LE(2, 22);
  header.writeUInt32LE(8000, 24);
  header.writeUInt32LE(32000, 28);
  header.writeUInt16LE(4, 32);
  header.writeUInt16LE(16, 34);
  header.write('data', 36, 'ascii');
  header.writeUInt32LE(frames * 4, 40);
  const pcm = Buffer.alloc(frames * 4);
  for (let index = 0; index < frames; index += 1) {
    pcm.writeInt16LE(Math.round(amplitude * Math.sin((2 * Math.PI * 700 * index) / 8000)), index * 4);
    if (rightHz !== undefined) pcm.writeInt16LE(Math.round(amplitude * Math.sin((2 * Math.PI * rightHz * index) / 8000)), index * 4 + 2);
  }
  return Buffer.concat([header, pcm]);
}
