import { execFile } from 'node:child_process';
import { mkdir, rename, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { VOICE_QUEUE_ANNOUNCEMENT, type Language, type VoiceSettings } from '@centralita/contracts';
import type { VoiceDb } from './inbound-numbers';

const run = promisify(execFile);

/** The tenant's voice settings (voice_settings; no row = the defaults: built-in hold music, a position every 60 s). */
export async function loadVoiceSettings(db: VoiceDb, tenantId: string): Promise<VoiceSettings> {
  const [row] = (await db.query(`SELECT hold_music_file_id, queue_announcement_seconds FROM voice_settings WHERE client_id::text = $1`, [
    tenantId,
  ])) as { hold_music_file_id: string | null; queue_announcement_seconds: number }[];
  return {
    holdMusicFileId: row?.hold_music_file_id ? String(row.hold_music_file_id) : null,
    queueAnnouncementSeconds: row ? Number(row.queue_announcement_seconds) : VOICE_QUEUE_ANNOUNCEMENT.default,
  };
}

/**
 * The caller's place in their line's queue now (1 = next), or null when their conversation is not waiting
 * (LiningUp) or is not known yet. The order is the routing's (RoutingService.positions, what the web chat shows):
 * priority first, then the time it was queued, then the id. Asked by the voice server when it is about to speak
 * the position, not pushed on every change: one indexed count every N seconds per waiting caller, and exact at the
 * moment it is said.
 */
export async function queuePosition(db: VoiceDb, tenantId: string, callId: string): Promise<number | null> {
  const [row] = (await db.query(
    `SELECT (SELECT count(*)::int FROM conversations o
              WHERE o.attention_line_id = me.attention_line_id AND o.status = 'LiningUp'
                AND (o.priority > me.priority OR (o.priority = me.priority AND (o.queued_at, o.id) < (me.queued_at, me.id)))) + 1 AS position
       FROM voice_calls v JOIN conversations me ON me.id = v.conversation_id AND me.tenant_id = v.client_id
      WHERE v.id::text = $1 AND v.client_id::text = $2 AND me.status = 'LiningUp' AND me.attention_line_id IS NOT NULL`,
    [callId, tenantId],
  )) as { position: number }[];
  return row ? Number(row.position) : null;
}

/** "You are number N in the queue", said by espeak-ng in each platform language (it reads the digits as a number). */
export const QUEUE_POSITION_TEXT: Record<Language, (position: number) => string> = {
  es: (n) => `Usted es el número ${n} en la cola.`,
  en: (n) => `You are number ${n} in the queue.`,
  el: (n) => `Είστε ο αριθμός ${n} στην ουρά.`,
  it: (n) => `Lei è il numero ${n} in coda.`,
  sr: (n) => `Vi ste broj ${n} u redu čekanja.`,
  de: (n) => `Sie sind Nummer ${n} in der Warteschlange.`,
  ru: (n) => `Вы ${n}-й в очереди.`,
};
/** espeak-ng voice per platform language (the API renders IVR prompts with the same voices). */
const ESPEAK_VOICES: Record<Language, string> = { es: 'es', en: 'en-us', el: 'el', it: 'it', sr: 'sr', de: 'de', ru: 'ru' };

/**
 * The position sentences as local WAV files for rtpengine (8 kHz mono 16-bit, like every prompt), rendered on first
 * use with espeak-ng and sox and kept per language and number under `dir` (a number is said the same way for ever).
 * Concurrent asks share one render; null when espeak-ng is not installed or fails (the caller just keeps the music).
 */
export class QueueAnnouncements {
  private readonly inFlight = new Map<string, Promise<string | null>>();
  private warned = false;

  constructor(
    private readonly dir: string,
    private readonly warn: (message: string) => void = () => undefined,
  ) {}

  path(language: Language, position: number): Promise<string | null> {
    if (!Number.isInteger(position) || position < 1 || position > 9999) return Promise.resolve(null);
    const key = `${language}/${position}`;
    let pending = this.inFlight.get(key);
    if (!pending) {
      pending = this.render(language, position).finally(() => this.inFlight.delete(key));
      this.inFlight.set(key, pending);
    }
    return pending;
  }

  private async render(language: Language, position: number): Promise<string | null> {
    const folder = join(this.dir, language);
    const target = join(folder, `${position}.wav`);
    if (await isFile(target)) return target;
    await mkdir(folder, { recursive: true });
    const raw = `${target}.${process.pid}.${Date.now()}.espeak.wav`;
    const partial = `${target}.${process.pid}.${Date.now()}.part.wav`;
    try {
      const text = (QUEUE_POSITION_TEXT[language] ?? QUEUE_POSITION_TEXT.es)(position);
      await run('espeak-ng', ['-v', ESPEAK_VOICES[language] ?? 'es', '-s', '150', '-w', raw, '--', text], { timeout: 20_000 });
      await run('sox', [raw, '-r', '8000', '-c', '1', '-b', '16', '-e', 'signed-integer', partial], { timeout: 20_000 });
      await rename(partial, target);
      return target;
    } catch (error) {
      if (!this.warned) this.warn(`queue position announcements are off: espeak-ng/sox failed (${(error as Error).message})`);
      this.warned = true;
      return null;
    } finally {
      await rm(raw, { force: true });
      await rm(partial, { force: true });
    }
  }
}

async function isFile(path: string): Promise<boolean> {
  try {
    return (await stat(path)).isFile();
  } catch {
    return false;
  }
}
