import type { FileStore } from '@centralita/contracts/server';
import { readWebmTimeline, withDuration, WebmError } from './webm';

/** Runs one statement and answers its rows. */
export type Sql = (text: string, values?: unknown[]) => Promise<unknown>;
type Row = Record<string, unknown>;
const rows = async (result: Promise<unknown>): Promise<Row[]> => {
  const answer = await result;
  return Array.isArray(answer) ? (answer as Row[]) : [];
};

/** Bytes of a recording finalised in memory (about three hours of a 640×480 call). */
export const MAX_RECORDING_BYTES = 1024 * 1024 * 1024;

async function readAll(store: FileStore, tenantId: string, fileId: string): Promise<Buffer> {
  const file = await store.open(tenantId, fileId);
  if (!file) throw new Error(`chunk file ${fileId} is missing`);
  const parts: Buffer[] = [];
  for await (const part of file.stream) parts.push(part as Buffer);
  return Buffer.concat(parts);
}

export type FinaliseOutcome = 'ready' | 'failed' | 'already' | 'missing';

/**
 * Joins a recording's chunks (in index order: the API takes them only in order) into one WebM
 * file in the shared store, measures its duration from the block timecodes and writes it into the
 * file's header (MediaRecorder leaves it out), then records file, duration and format and deletes
 * the chunks. Idempotent: a recording already ready or failed is left alone, and a second run that
 * loses the race removes the file it wrote.
 */
export async function finaliseRecording(sql: Sql, store: FileStore, recordingId: string): Promise<FinaliseOutcome> {
  const [recording] = await rows(sql(`SELECT id, tenant_id, status, mime_type FROM video_recordings WHERE id = $1`, [recordingId]));
  if (!recording) return 'missing';
  if (recording.status === 'ready' || recording.status === 'failed') return 'already';
  const tenantId = String(recording.tenant_id);
  await sql(
    `UPDATE video_recordings SET status = 'finalising', stopped_at = COALESCE(stopped_at, now()) WHERE id = $1 AND status = 'recording'`,
    [recordingId],
  );
  const chunks = await rows(
    sql(`SELECT index, file_id, byte_size FROM video_recording_chunks WHERE recording_id = $1 ORDER BY index`, [recordingId]),
  );
  const fail = async (reason: string): Promise<FinaliseOutcome> => {
    await sql(`UPDATE video_recordings SET status = 'failed', failure = $2, finalised_at = now() WHERE id = $1 AND status <> 'ready'`, [
      recordingId,
      reason,
    ]);
    return 'failed';
  };
  if (chunks.length === 0) return fail('no chunks were uploaded');
  const total = chunks.reduce((sum, chunk) => sum + Number(chunk.byte_size), 0);
  if (total > MAX_RECORDING_BYTES) return fail(`the recording is larger than ${MAX_RECORDING_BYTES} bytes`);

  const parts: Buffer[] = [];
  for (const chunk of chunks) parts.push(await readAll(store, tenantId, String(chunk.file_id)));
  const joined = Buffer.concat(parts);
  let bytes: Buffer;
  let durationMs: number;
  try {
    const timeline = readWebmTimeline(joined);
    if (timeline.blocks === 0) return fail('the recording holds no media');
    bytes = withDuration(joined, timeline);
    durationMs = timeline.durationMs;
  } catch (error) {
    if (error instanceof WebmError) return fail(error.message);
    throw error;
  }

  const format = String(recording.mime_type).split(';')[0]!.trim() || 'video/webm';
  const upload = await store.create(tenantId, 'video-recording', { contentType: format });
  await new Promise<void>((resolve, reject) => {
    upload.stream.once('error', reject);
    upload.stream.end(bytes, () => resolve());
  });
  const [updated] = await rows(
    sql(
      `UPDATE video_recordings SET status = 'ready', file_id = $2, duration_ms = $3, format = $4, byte_size = $5, chunks = $6,
         finalised_at = now(), stopped_at = COALESCE(stopped_at, now())
       WHERE id = $1 AND status IN ('recording', 'finalising') RETURNING id`,
      [recordingId, upload.id, durationMs, format, bytes.length, chunks.length],
    ),
  );
  if (!updated) {
    await store.remove(upload.id);
    return 'already';
  }
  // The chunk rows go with their files (ON DELETE CASCADE).
  for (const chunk of chunks) await store.remove(String(chunk.file_id));
  return 'ready';
}
