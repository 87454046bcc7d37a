import { PHONE_IMPORT_LIMITS, type PhoneImportFailureCode } from '@centralita/contracts';
import type { DataSource } from 'typeorm';
import { RowChecker } from './phone-list-rows';
import { eachSpreadsheetRow, SpreadsheetRefused, type Limits } from './spreadsheet-reader';

const BATCH = 1000;

/**
 * Runs one import: parse (bounded), validate every row, then insert the whole list in ONE
 * transaction, or nothing when any row has a problem (the line-by-line report says why).
 * Safe to run twice: a finished import is left alone; a crashed one rolled back and starts over.
 */
export async function runPhoneListImport(db: DataSource, importId: string, limits: Limits = PHONE_IMPORT_LIMITS): Promise<void> {
  const found: { client_id: string; list_name: string; default_country: string | null; status: string; file: Buffer | null }[] =
    await db.query(`SELECT client_id, list_name, default_country, status, file FROM phone_list_imports WHERE id = $1`, [importId]);
  const job = found[0];
  if (!job || job.status === 'done' || job.status === 'failed') return;
  const progress = (value: number) => db.query(`UPDATE phone_list_imports SET progress = $2 WHERE id = $1`, [importId, value]);
  // `failure` stays English (logs, errors CSV); `failure_code` is what the console translates.
  const fail = (code: PhoneImportFailureCode, failure: string, extra: { total?: number; errors?: unknown[] } = {}) =>
    db.query(
      `UPDATE phone_list_imports SET status = 'failed', progress = 100, failure = $2, failure_code = $6, total_rows = $3, error_rows = $4,
              errors = $5::jsonb, file = NULL, finished_at = now() WHERE id = $1`,
      [importId, failure.slice(0, 300), extra.total ?? 0, extra.errors?.length ?? 0, JSON.stringify(extra.errors ?? []), code],
    );

  await db.query(`UPDATE phone_list_imports SET status = 'running', progress = 5 WHERE id = $1`, [importId]);
  // Rows are checked as the reader streams them: only valid phones and the error report are kept.
  const checker = new RowChecker(job.default_country);
  try {
    await eachSpreadsheetRow(job.file ?? Buffer.alloc(0), limits, (cells) => checker.push(cells));
  } catch (error) {
    if (error instanceof SpreadsheetRefused) return void (await fail(error.code, error.reason));
    throw error;
  }
  await progress(30);
  const { valid, errors } = checker;
  const total = valid.length + errors.length;
  if (errors.length)
    return void (await fail('rows_invalid', `${errors.length} rows have problems; nothing was imported`, { total, errors }));
  if (valid.length === 0) return void (await fail('no_phones', 'the file has no phone numbers', { total }));
  await progress(50);

  await db.transaction(async (manager) => {
    const list: { id: string }[] = await manager.query(
      `INSERT INTO phone_lists (client_id, name, entry_count) VALUES ($1, $2, $3) RETURNING id`,
      [job.client_id, job.list_name, valid.length],
    );
    const listId = list[0].id;
    for (let i = 0; i < valid.length; i += BATCH) {
      const batch = valid.slice(i, i + BATCH);
      await manager.query(
        `INSERT INTO phone_list_entries (list_id, client_id, phone, name, line, fields)
         SELECT $1, $2, * FROM unnest($3::text[], $4::text[], $5::int[], $6::jsonb[])`,
        [
          listId,
          job.client_id,
          batch.map((r) => r.phone),
          batch.map((r) => r.name),
          batch.map((r) => r.line),
          batch.map((r) => (r.fields ? JSON.stringify(r.fields) : null)),
        ],
      );
      // Progress is written outside the transaction so the console sees it move.
      await progress(50 + Math.floor((45 * Math.min(valid.length, i + BATCH)) / valid.length));
    }
    await manager.query(
      `UPDATE phone_list_imports SET status = 'done', progress = 100, total_rows = $2, imported_rows = $2, error_rows = 0, errors = '[]'::jsonb,
              phone_list_id = $3, file = NULL, finished_at = now() WHERE id = $1`,
      [importId, valid.length, listId],
    );
  });
}

/**
 * Ends an import whose job failed for good (its last attempt threw): the console shows a reason
 * instead of "importing" forever. A finished import is left as it is.
 */
export async function failPhoneListImport(db: DataSource, importId: string): Promise<void> {
  await db.query(
    `UPDATE phone_list_imports SET status = 'failed', progress = 100, failure = $2, failure_code = 'import_failed', file = NULL, finished_at = now()
      WHERE id = $1 AND status IN ('queued', 'running')`,
    [importId, 'the import could not be completed; try again'],
  );
}
