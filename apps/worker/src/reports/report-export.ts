import {
  REPORT_COLUMNS,
  reportExportHeaders,
  type Language,
  type ReportExportFormat,
  type ReportFilters,
  type ReportType,
} from '@centralita/contracts';
import { reportBatches, reportCount, type SqlRunner } from '@centralita/domain';
import { mkdir, readdir, rename, rm, stat } from 'node:fs/promises';
import path from 'node:path';
import { openReportFile } from './report-file-writer';

export interface ReportExportOptions {
  dir: string;
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
  /** The requester's language: the column headers are written in it. */
  language: Language;
}

/**
 * Writes one export: rows are read in keyset batches and written to the file as they come, so
 * memory holds one batch whatever the report's size. The file is written under a temporary name
 * and renamed when complete. Safe to run twice: a finished export is left alone; a crashed one
 * starts the file over.
 */
export async function runReportExport(run: SqlRunner, exportId: string, options: ReportExportOptions): Promise<void> {
  const [job] = (await run(`SELECT id, tenant_id, report_type, format, filters, status, language FROM report_exports WHERE id = $1`, [
    exportId,
  ])) as unknown as ExportRow[];
  if (!job || job.status === 'done' || job.status === 'failed' || job.status === 'expired') return;
  const now = options.now ?? Date.now;
  const scope = { tenantId: job.tenant_id, filters: job.filters, now: now() };
  await mkdir(options.dir, { recursive: true });
  const total = await reportCount(run, job.report_type, scope);
  await run(`UPDATE report_exports SET status = 'running', progress = 0, row_count = 0, total_rows = $2 WHERE id = $1`, [exportId, total]);

  const columns = REPORT_COLUMNS[job.report_type];
  const final = path.join(options.dir, `${exportId}.${job.format}`);
  const partial = `${final}.part`;
  const file = openReportFile(job.format, partial, reportExportHeaders(job.report_type, job.language), job.report_type);
  let written = 0;
  let lastProgress = 0;
  try {
    for await (const batch of reportBatches(run, job.report_type, scope, options.batchSize)) {
      for (const row of batch) await file.write(columns.map((column) => row[column.key] ?? null));
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
    await file.close().catch(() => undefined);
    await rm(partial, { force: true });
    throw error;
  }
  await rename(partial, final);
  const { size } = await stat(final);
  await run(
    `UPDATE report_exports SET status = 'done', progress = 100, row_count = $2, byte_size = $3, finished_at = now() WHERE id = $1`,
    [exportId, written, size],
  );
  await options.onProgress?.(100);
}

/** After the last retry: the console shows the failure instead of waiting for ever. */
export async function failReportExport(run: SqlRunner, exportId: string, reason: string): Promise<void> {
  await run(`UPDATE report_exports SET status = 'failed', failure = $2, finished_at = now() WHERE id = $1 AND status <> 'done'`, [
    exportId,
    reason.slice(0, 300),
  ]);
}

/** Deletes export files older than the retention period and marks their rows expired. */
export async function expireReportExports(run: SqlRunner, dir: string, retentionMs: number, now = Date.now()): Promise<number> {
  const expired = (await run(
    // A CTE so the statement answers rows with any driver (TypeORM wraps a bare UPDATE's result).
    `WITH e AS (UPDATE report_exports SET status = 'expired' WHERE status = 'done' AND finished_at < $1 RETURNING id, format) SELECT * FROM e`,
    [new Date(now - retentionMs)],
  )) as unknown as { id: string; format: string }[];
  for (const row of expired) await rm(path.join(dir, `${row.id}.${row.format}`), { force: true });
  // Leftovers of crashed runs (.part files) past the retention period.
  let names: string[] = [];
  try {
    names = await readdir(dir);
  } catch {
    return expired.length;
  }
  for (const name of names.filter((n) => n.endsWith('.part'))) {
    const file = path.join(dir, name);
    const info = await stat(file).catch(() => null);
    if (info && now - info.mtimeMs > retentionMs) await rm(file, { force: true });
  }
  return expired.length;
}
