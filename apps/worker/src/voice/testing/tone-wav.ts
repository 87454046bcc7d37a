import { execFileSync } from 'node:child_process';

/** Writes a prompt as the IVR publish stores it (an 8 kHz mono 16-bit WAV): a sine of `hz` for `seconds`, at half volume, made with sox. */
export function writeToneWav(file: string, hz: number, seconds = 1.5): void {
  execFileSync('sox', ['-n', '-r', '8000', '-c', '1', '-b', '16', file, 'synth', String(seconds), 'sine', String(hz), 'vol', '0.5']);
}
