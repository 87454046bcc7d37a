import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { readdir, readFile, rm } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import { LANGUAGES, type Language } from '@centralita/contracts';
import type { Writable } from 'node:stream';
import type { VoiceDb } from './inbound-numbers';
import { pcapToStereoWav, type RecordingSides } from './pcap-to-wav';

const run = promisify(execFile);

/**
 * The part of the shared file store (@centralita/contracts/server FileStore) recordings use, spelled out here because
 * the API's and the tests' programs compile this file too and do not resolve that entry point.
 */
export interface RecordingFileStore {
  create(tenantId: string, kind: string, options?: { contentType?: string }): Promise<{ id: string; stream: Writable }>;
  remove(id: string): Promise<void>;
}

/** stored_files.kind of a call recording. */
export const CALL_RECORDING_FILE_KIND = 'call-recording';
/** What a tenant that never saved a retention keeps (days): the console shows the same default. */
export const DEFAULT_RECORDING_RETENTION_DAYS = 90;

/** A tenant's recording settings (platform settings callRecording / announceCallRecording) and the language callers hear. */
export interface RecordingPolicy {
  record: boolean;
  announce: boolean;
  language: Language;
}

/** What the caller hears before the recording starts when the tenant announces it (espeak-ng in the tenant's language). */
export const RECORDING_ANNOUNCEMENTS: Record<Language, string> = {
  es: 'Esta llamada será grabada con fines de calidad.',
  en: 'This call will be recorded for quality purposes.',
  el: 'Αυτή η κλήση θα καταγραφεί για λόγους ποιότητας.',
  it: 'Questa chiamata sarà registrata per motivi di qualità.',
  sr: 'Ovaj poziv će biti snimljen radi kvaliteta usluge.',
  de: 'Dieser Anruf wird zu Qualitätszwecken aufgezeichnet.',
  ru: 'Этот звонок будет записан в целях контроля качества.',
};
const ESPEAK_VOICES: Record<Language, string> = { es: 'es', en: 'en-us', el: 'el', it: 'it', sr: 'sr', de: 'de', ru: 'ru' };

const truthy = (value: unknown) => value === true || value === 'true';

/** The tenant's recording settings; a tenant that saved none records nothing (recording is opt-in). */
export async function loadRecordingPolicy(db: VoiceDb, tenantId: string): Promise<RecordingPolicy> {
  const [row] = await db.query(
    `SELECT c.language, p.settings->'callRecording' AS record, p.settings->'announceCallRecording' AS announce
       FROM clients c LEFT JOIN platform_settings p ON p.client_id = c.id WHERE c.id::text = $1`,
    [tenantId],
  );
  const language = (LANGUAGES as readonly string[]).includes(String(row?.language)) ? (row.language as Language) : 'es';
  // Announcing is on unless the tenant turned it off (the console's default).
  return { record: truthy(row?.record), announce: row?.announce == null || truthy(row.announce), language };
}

/**
 * Deletes the recordings older than their tenant's retention (platform setting callRecordingRetentionDays, default
 * DEFAULT_RECORDING_RETENTION_DAYS), a batch at a time: removing the stored file removes its voice_recordings row
 * (ON DELETE CASCADE). Answers how many were deleted.
 */
export async function expireCallRecordings(db: VoiceDb, store: RecordingFileStore, now = new Date(), batch = 200): Promise<number> {
  const rows = await db.query(
    `SELECT r.file_id FROM voice_recordings r
       LEFT JOIN platform_settings p ON p.client_id = r.client_id
      WHERE r.created_at < $1::timestamptz - make_interval(days => CASE
              WHEN p.settings->>'callRecordingRetentionDays' ~ '^[0-9]{1,5}$' THEN (p.settings->>'callRecordingRetentionDays')::int
              ELSE ${DEFAULT_RECORDING_RETENTION_DAYS} END)
      ORDER BY r.created_at LIMIT ${Math.max(1, Math.floor(batch))}`,
    [now.toISOString()],
  );
  for (const row of rows) await store.remove(String(row.file_id));
  return rows.length;
}

export interface CallRecordingsDeps {
  policy(tenantId: string): Promise<RecordingPolicy>;
  store: RecordingFileStore;
  log: { log(message: string): void; warn(message: string): void };
}

/**
 * The worker's half of call recording: the tenant's policy, the spoken announcement, and — when the call is over —
 * rtpengine's pcap(s) of the call read from VOICE_RECORDING_DIR (rtpengine's --recording-dir, shared with this
 * worker), decoded to a stereo WAV, written to the file store, and the pcaps removed.
 */
export class CallRecordings {
  private readonly announcements = new Map<Language, Promise<string | null>>();

  constructor(
    /** rtpengine's --recording-dir (pcaps/ and metadata/ below it). */
    readonly recordingDir: string,
    /** Where the rendered announcements are kept (VOICE_MEDIA_DIR). */
    private readonly mediaDir: string,
    private readonly deps: CallRecordingsDeps,
    /** How long to wait for rtpengine to close a deleted call's pcap. */
    private readonly closeTimeoutMs = 10_000,
  ) {}

  /** The tenant's policy; null (not recorded) when it cannot be read, with a warning. */
  async policy(tenantId: string): Promise<RecordingPolicy | null> {
    try {
      return await this.deps.policy(tenantId);
    } catch (error) {
      this.deps.log.warn(`recording policy of tenant ${tenantId}: ${(error as Error).message}`);
      return null;
    }
  }

  /**
   * The announcement in `language` as an 8 kHz mono WAV rtpengine plays (rendered once per language with espeak-ng and
   * sox into the media directory); null when espeak-ng is missing (the caller then hears the prompt tone instead).
   */
  announcement(language: Language): Promise<string | null> {
    let pending = this.announcements.get(language);
    if (!pending) {
      pending = this.render(language);
      this.announcements.set(language, pending);
    }
    return pending;
  }

  private async render(language: Language): Promise<string | null> {
    const target = path.join(this.mediaDir, `recording-announcement-${language}.wav`);
    if (existsSync(target)) return target;
    const raw = `${target}.${process.pid}.espeak.wav`;
    try {
      await run('espeak-ng', ['-v', ESPEAK_VOICES[language], '-s', '150', '-w', raw, RECORDING_ANNOUNCEMENTS[language]]);
      await run('sox', [raw, '-r', '8000', '-c', '1', '-b', '16', '-e', 'signed-integer', target]);
      return target;
    } catch (error) {
      this.deps.log.warn(`recording announcement (${language}) not rendered (espeak-ng and sox needed): ${(error as Error).message}`);
      this.announcements.delete(language);
      return null;
    } finally {
      await rm(raw, { force: true });
    }
  }

  /**
   * After the call was deleted in rtpengine: waits for its pcap(s) to be closed (the metadata file gets its "call end
   * time"), decodes them and stores the WAV. Answers the stored file and its length, or null when there was nothing
   * to keep (no pcap, no decodable audio); the pcaps and metadata are removed either way.
   */
  async collect(tenantId: string, callId: string, sides: RecordingSides): Promise<{ fileId: string; durationMs: number } | null> {
    const metadata = await this.closedMetadata(callId);
    const pcapFiles = metadata.flatMap((entry) => entry.pcaps);
    try {
      if (!pcapFiles.length) {
        this.deps.log.warn(`call ${callId}: rtpengine wrote no pcap in ${this.recordingDir}: not recorded`);
        return null;
      }
      const decoded = pcapToStereoWav(await Promise.all(pcapFiles.map((file) => readFile(file))), sides);
      const unsupported = Object.keys(decoded.unsupported);
      if (unsupported.length)
        this.deps.log.warn(`call ${callId}: payload types ${unsupported.join(', ')} are not G.711 and were left silent in the recording`);
      if (decoded.packets.caller + decoded.packets.agent === 0) {
        this.deps.log.warn(`call ${callId}: the recording holds no G.711 audio: not stored`);
        return null;
      }
      const fileId = await this.store(tenantId, decoded.wav);
      return { fileId, durationMs: decoded.durationMs };
    } finally {
      for (const file of [...pcapFiles, ...metadata.map((entry) => entry.file)]) await rm(file, { force: true }).catch(() => undefined);
    }
  }

  private async store(tenantId: string, wav: Buffer): Promise<string> {
    const upload = await this.deps.store.create(tenantId, CALL_RECORDING_FILE_KIND, { contentType: 'audio/wav' });
    await new Promise<void>((resolve, reject) => {
      upload.stream.once('error', reject);
      upload.stream.end(wav, () => resolve());
    });
    return upload.id;
  }

  /** The call's metadata files once rtpengine has closed them, with the pcaps each names (its first line). */
  private async closedMetadata(callId: string): Promise<{ file: string; pcaps: string[] }[]> {
    const dir = path.join(this.recordingDir, 'metadata');
    const prefix = `rtpengine-meta-${callId}-`;
    const deadline = Date.now() + this.closeTimeoutMs;
    for (;;) {
      const names = (await readdir(dir).catch(() => [] as string[])).filter((name) => name.startsWith(prefix));
      const entries = await Promise.all(
        names.map(async (name) => {
          const file = path.join(dir, name);
          const text = await readFile(file, 'utf8').catch(() => '');
          const pcaps = text
            .split('\n')
            .map((line) => line.trim())
            .filter((line) => line.endsWith('.pcap') && existsSync(line));
          return { file, pcaps, closed: /call end time:/.test(text) };
        }),
      );
      if ((entries.length && entries.every((entry) => entry.closed)) || Date.now() >= deadline) {
        if (entries.some((entry) => !entry.closed))
          this.deps.log.warn(
            `call ${callId}: rtpengine did not close its recording within ${this.closeTimeoutMs} ms: what it wrote is used`,
          );
        return entries.map(({ file, pcaps }) => ({ file, pcaps }));
      }
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
}
