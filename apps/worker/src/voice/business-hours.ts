import { DEFAULT_BUSINESS_TIME_ZONE, isKnownTimeZone, isLineOpenAt, type BusinessHoursWindow, type Language } from '@centralita/contracts';
import { ivrPromptCacheKey, voiceLineClosedText } from '@centralita/contracts/server';
import type { VoiceDb } from './inbound-numbers';

/** A line that is closed when a caller is sent to it: the stored audio of its off-hours sentence (null: not rendered). */
export interface ClosedLine {
  audioFileId: string | null;
}

/**
 * Whether the tenant's line is closed at `at` by its business hours (read in the tenant's time zone, as the web
 * chat reads them: `isLineOpenAt`), and if so the rendered audio of what the caller hears: the tenant's off-hours
 * message, or the default sentence, in `language` (the IVR's). That audio is rendered by the API when an IVR that
 * sends callers to a line is published (ivr-prompts.service.ts) and found here under the same cache key. Null when the
 * line is open, has no hours, or is not a live line of the tenant (the API then refuses the queueing itself).
 */
export async function closedLine(
  db: VoiceDb,
  tenantId: string,
  lineId: string,
  language: Language,
  at = Date.now(),
): Promise<ClosedLine | null> {
  const [line] = (await db.query(
    `SELECT l.business_hours,
            (SELECT settings->>'timeZone' FROM dashboard_settings WHERE client_id = l.client_id) AS time_zone,
            (SELECT settings->>'offHoursMessage' FROM platform_settings WHERE client_id = l.client_id) AS off_hours_message
       FROM attention_lines l
      WHERE l.id::text = $1 AND l.client_id::text = $2 AND l.deleted_at IS NULL`,
    [lineId, tenantId],
  )) as { business_hours: BusinessHoursWindow[] | null; time_zone: string | null; off_hours_message: string | null }[];
  if (!line) return null;
  const zone = isKnownTimeZone(line.time_zone) ? line.time_zone : DEFAULT_BUSINESS_TIME_ZONE;
  if (isLineOpenAt(line.business_hours ?? [], at, zone)) return null;
  const key = ivrPromptCacheKey(language, voiceLineClosedText(language, line.off_hours_message));
  const [audio] = (await db.query(
    `SELECT p.file_id FROM ivr_prompt_audio p JOIN stored_files f ON f.id = p.file_id AND f.completed_at IS NOT NULL
      WHERE p.client_id::text = $1 AND p.cache_key = $2`,
    [tenantId, key],
  )) as { file_id: string }[];
  return { audioFileId: audio ? String(audio.file_id) : null };
}
