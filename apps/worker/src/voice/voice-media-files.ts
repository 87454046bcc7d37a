import { execFile } from 'node:child_process';
import { existsSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

/** The sounds the voice server makes by itself, generated once at start-up with sox into VOICE_MEDIA_DIR. */
export interface VoiceMediaFiles {
  /** Played for a prompt that has no rendered or uploaded audio: 0.8 s of 440 Hz ("prompt-tone.wav"). */
  promptTone: string;
  /** Looped while the caller waits in a line's queue: 523 Hz and 659 Hz alternating a second each, 4 s ("hold-music.wav"). */
  holdMusic: string;
  /** Played before a voicemail records: 0.5 s of 1000 Hz ("voicemail-beep.wav"). */
  voicemailBeep: string;
}

/** Frequencies of the generated sounds (the voice tests listen for them). */
export const VOICE_TONES = { prompt: 440, hold: [523, 659], beep: 1000 } as const;

/**
 * Writes the tone and hold files (8 kHz mono 16-bit PCM WAV, what rtpengine plays without resampling) when missing.
 * sox is required when the voice server is on: a missing sox fails the start with a sentence naming it.
 */
export async function ensureVoiceMediaFiles(mediaDir: string, sox = 'sox'): Promise<VoiceMediaFiles> {
  mkdirSync(mediaDir, { recursive: true });
  const files: VoiceMediaFiles = {
    promptTone: path.join(mediaDir, 'prompt-tone.wav'),
    holdMusic: path.join(mediaDir, 'hold-music.wav'),
    voicemailBeep: path.join(mediaDir, 'voicemail-beep.wav'),
  };
  const format = ['-r', '8000', '-c', '1', '-b', '16', '-e', 'signed-integer'];
  try {
    if (!existsSync(files.promptTone))
      await run(sox, [
        '-n',
        ...format,
        files.promptTone,
        'synth',
        '0.8',
        'sine',
        String(VOICE_TONES.prompt),
        'vol',
        '0.5',
        'fade',
        '0.02',
        '0.8',
        '0.02',
      ]);
    if (!existsSync(files.holdMusic)) {
      const [low, high] = VOICE_TONES.hold;
      // Two notes a second each (sox concatenates ':'-separated effect chains), gentler than the prompts.
      const note = (hz: number) => ['synth', '1', 'sine', String(hz), 'vol', '0.3', 'fade', '0.05', '1', '0.05'];
      await run(sox, ['-n', ...format, files.holdMusic, ...note(low), ':', ...note(high), ':', ...note(low), ':', ...note(high)]);
    }
    if (!existsSync(files.voicemailBeep))
      await run(sox, [
        '-n',
        ...format,
        files.voicemailBeep,
        'synth',
        '0.5',
        'sine',
        String(VOICE_TONES.beep),
        'vol',
        '0.5',
        'fade',
        '0.01',
        '0.5',
        '0.01',
      ]);
  } catch (error) {
    throw new Error(
      `The voice server needs sox to write its tone and hold-music files in ${mediaDir} (apt-get install sox): ${(error as Error).message}`,
    );
  }
  return files;
}
