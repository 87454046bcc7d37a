import {
  REPORT_COLUMNS,
  reportCellLabel,
  reportExportHeaders,
  type Language,
  type ReportExportFormat,
  type ReportFilters,
  type ReportType,
} from '@centralita/contracts';
import type { FileStore } from '@centralita/contracts/server';
import { reportBatches, reportCount, type SqlRunner } from '@centralita/domain';
import { openReportFile } from './report-file-writer';

export interface ReportExportOptions {
  /** Where the file goes: the shared store every API process downloads from. */
  store: FileStore;
  batchSize?: number;
  /** Called with 0..100 after each batch (the processor forwards it to the BullMQ job). */
  onProgress?: (progress: number) => Promise<void> | void;
  now?: () => number;
}

interface ExportRow {
  id: string;
  tenant_id: string;
  report_type: ReportType;
  format: ReportExportFormat;
  filters: ReportFilters;
  status: string;
  /** The requester's language: the column headers and the labels of code cells are written in it. */
  language: Language;
  /** The file of an earlier attempt that did not finish. */
  file_id: string | null;
}

/**
 * Writes one export: rows are read in keyset batches and streamed into the file store as they
 * come, so memory holds one batch (and one store chunk) whatever the report's size. The file is
 * recorded on the export before its first byte, and readable only once complete. Safe to run
 * twice: a finished export is left alone; a crashed one deletes its partial file and starts over.
 */
export async function runReportExport(run: SqlRunner, exportId: string, options: ReportExportOptions): Promise<void> {
  const [job] = (await run(
    `SELECT id, tenant_id, report_type, format, filters, status, language, file_id FROM report_exports WHERE id = $1`,
    [exportId],
  )) as unknown as ExportRow[];
  if (!job || job.status === 'done' || job.status === 'failed' || job.status === 'expired') return;
  const { store } = options;
  const now = options.now ?? Date.now;
  const scope = { tenantId: job.tenant_id, filters: job.filters, now: now() };
  if (job.file_id) await store.remove(job.file_id);
  const total = await reportCount(run, job.report_type, scope);
  const upload = await store.create(job.tenant_id, 'report-export');
  await run(`UPDATE report_exports SET status = 'running', progress = 0, row_count = 0, total_rows = $2, file_id = $3 WHERE id = $1`, [
    exportId,
    total,
    upload.id,
  ]);

  const columns = REPORT_COLUMNS[job.report_type];
  const file = openReportFile(job.format, upload.stream, reportExportHeaders(job.report_type, job.language), job.report_type);
  let written = 0;
  let lastProgress = 0;
  try {
    for await (const batch of reportBatches(run, job.report_type, scope, options.batchSize)) {
      // Code cells (status, channel, outcome, disposition) as their label in the requester's language, as the console shows them.
      for (const row of batch)
        await file.write(columns.map((column) => reportCellLabel(column.key, row[column.key] ?? null, job.language)));
      written += batch.length;
      const progress = Math.min(99, total ? Math.floor((written * 100) / total) : 99);
      if (progress !== lastProgress) {
        lastProgress = progress;
        await run(`UPDATE report_exports SET progress = $2, row_count = $3 WHERE id = $1`, [exportId, progress, written]);
        await options.onProgress?.(progress);
      }
    }
    await file.close();
  } catch (error) {
    upload.stream.destroy();
    // Deleting the file sets the export's file_id to NULL (foreign key); a retry starts over.
    await store.remove(upload.id).catch(() => undefined);
    throw error;
  }
  await run(
    `UPDATE report_exports e SET status = 'done', progress = 100, row_count = $2, byte_size = f.byte_size, finished_at = now()
       FROM stored_files f WHERE e.id = $1 AND e.file_id = $3 AND f.id = $3`,
    [exportId, written, upload.id],
  );
  await options.onProgress?.(100);
}

/** After the last retry: the console shows the failure instead of waiting for ever; a partial file is deleted. */
export async function failReportExport(run: SqlRunner, exportId: string, reason: string): Promise<void> {
  await run(
    `WITH e AS (UPDATE report_exports SET status = 'failed', failure = $2, finished_at = now() WHERE id = $1 AND status <> 'done' RETURNING file_id)
     DELETE FROM stored_files WHERE id IN (SELECT file_id FROM e)`,
    [exportId, reason.slice(0, 300)],
  );
}

/**
 * Marks exports older than the retention period expired and deletes their files (the large object
 * goes with the row, in the same statement), and deletes files whose writer died before finishing.
 * Any worker may run it at any time: each statement is atomic and idempotent.
 */
export async function expireReportExports(run: SqlRunner, store: FileStore, retentionMs: number, now = Date.now()): Promise<number> {
  const cutoff = new Date(now - retentionMs);
  const expired = (await run(
    // A CTE so the statement answers rows with any driver (TypeORM wraps a bare UPDATE's result).
    `WITH e AS (UPDATE report_exports SET status = 'expired' WHERE status = 'done' AND finished_at < $1 RETURNING id, file_id),
          f AS (DELETE FROM stored_files WHERE id IN (SELECT file_id FROM e) RETURNING id)
     SELECT e.id FROM e`,
    [cutoff],
  )) as unknown as { id: string }[];
  await store.removeAbandoned(cutoff);
  return expired.length;
}
