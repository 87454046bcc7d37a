import { spawn } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { IVR_PROMPT_UPLOAD, type Language } from '@centralita/contracts';

/**
 * IVR prompt audio on this machine: speech from espeak-ng, every file converted by sox to what the
 * voice server plays (8 kHz, mono, 16-bit signed PCM WAV: G.711's rate, no resampling on the call).
 * Both are optional system tools (Debian packages espeak-ng and sox): without them publishing still
 * works and the IVR says its prompts were not rendered.
 */

/** espeak-ng voice per platform language. */
export const ESPEAK_VOICES: Record<Language, string> = { es: 'es', en: 'en-us', el: 'el', it: 'it', sr: 'sr', de: 'de', ru: 'ru' };

/** sox arguments of the output format. */
const TELEPHONY_WAV = ['-r', '8000', '-c', '1', '-b', '16', '-e', 'signed-integer'];
const RUN_TIMEOUT_MS = 20_000;

export class AudioToolError extends Error {
  constructor(
    readonly kind: 'missing' | 'failed',
    message: string,
  ) {
    super(message);
    this.name = 'AudioToolError';
  }
}

function run(command: string, args: string[], stdin?: string): Promise<{ code: number; stderr: string }> {
  return new Promise((resolve, reject) => {
    // env given explicitly: the PATH the process sees now (a test may point it where nothing is installed).
    const child = spawn(command, args, { stdio: ['pipe', 'ignore', 'pipe'], timeout: RUN_TIMEOUT_MS, env: process.env });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => {
      if (stderr.length < 4000) stderr += chunk.toString();
    });
    child.on('error', (error: NodeJS.ErrnoException) =>
      reject(error.code === 'ENOENT' ? new AudioToolError('missing', `${command} is not installed`) : error),
    );
    child.on('close', (code) => resolve({ code: code ?? -1, stderr }));
    child.stdin.on('error', () => undefined);
    child.stdin.end(stdin ?? '');
  });
}

/** Whether a tool answers on PATH (looked up on every call: an install takes effect without a restart). */
export async function hasTool(command: 'espeak-ng' | 'sox'): Promise<boolean> {
  try {
    const { code } = await run(command, ['--version']);
    return code === 0;
  } catch {
    return false;
  }
}

async function inTempDir<T>(work: (dir: string) => Promise<T>): Promise<T> {
  const dir = await mkdtemp(join(tmpdir(), 'centralita-prompt-'));
  try {
    return await work(dir);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

async function sox(args: string[]): Promise<void> {
  const { code, stderr } = await run('sox', args);
  if (code !== 0) throw new AudioToolError('failed', `sox could not convert the audio: ${stderr.trim().split('\n').pop() ?? code}`);
}

/** Speech for `text` in `language`, as telephony WAV. Throws AudioToolError('missing') without espeak-ng or sox. */
export async function renderSpeech(text: string, language: Language): Promise<Buffer> {
  return inTempDir(async (dir) => {
    const raw = join(dir, 'speech.wav');
    const out = join(dir, 'prompt.wav');
    // The text goes through stdin: never read as an option, whatever it starts with.
    const { code, stderr } = await run('espeak-ng', ['-v', ESPEAK_VOICES[language] ?? 'es', '-s', '150', '--stdin', '-w', raw], text);
    if (code !== 0) throw new AudioToolError('failed', `espeak-ng failed: ${stderr.trim()}`);
    await sox([raw, ...TELEPHONY_WAV, out]);
    return readFile(out);
  });
}

/**
 * A recording an administrator uploaded (wav, mp3 or ogg by its extension), as telephony WAV cut
 * at IVR_PROMPT_UPLOAD.maxSeconds. Throws AudioToolError('failed') for a file sox cannot read.
 */
export async function convertRecording(bytes: Buffer, extension: string): Promise<Buffer> {
  return inTempDir(async (dir) => {
    const input = join(dir, `upload.${extension}`);
    const out = join(dir, 'prompt.wav');
    await writeFile(input, bytes);
    await sox(['-t', extension, input, ...TELEPHONY_WAV, out, 'trim', '0', String(IVR_PROMPT_UPLOAD.maxSeconds)]);
    return readFile(out);
  });
}

export interface WavInfo {
  audioFormat: number;
  channels: number;
  sampleRate: number;
  bitsPerSample: number;
  /** Byte range of the samples. */
  dataOffset: number;
  dataBytes: number;
}

/** The fmt and data chunks of a RIFF/WAVE file, or null when it is not one. */
export function readWavInfo(bytes: Buffer): WavInfo | null {
  if (bytes.length < 12 || bytes.toString('ascii', 0, 4) !== 'RIFF' || bytes.toString('ascii', 8, 12) !== 'WAVE') return null;
  let offset = 12;
  let fmt: Omit<WavInfo, 'dataOffset' | 'dataBytes'> | null = null;
  while (offset + 8 <= bytes.length) {
    const id = bytes.toString('ascii', offset, offset + 4);
    const size = bytes.readUInt32LE(offset + 4);
    const body = offset + 8;
    if (id === 'fmt ' && body + 16 <= bytes.length) {
      fmt = {
        audioFormat: bytes.readUInt16LE(body),
        channels: bytes.readUInt16LE(body + 2),
        sampleRate: bytes.readUInt32LE(body + 4),
        bitsPerSample: bytes.readUInt16LE(body + 14),
      };
    } else if (id === 'data' && fmt) {
      return { ...fmt, dataOffset: body, dataBytes: Math.min(size, bytes.length - body) };
    }
    offset = body + size + (size % 2);
  }
  return null;
}

/** Already 8 kHz mono 16-bit PCM (a recording that needs no sox). */
export function isTelephonyWav(info: WavInfo | null): boolean {
  return !!info && info.audioFormat === 1 && info.channels === 1 && info.sampleRate === 8000 && info.bitsPerSample === 16;
}
