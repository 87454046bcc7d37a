import { PHONE_IMPORT_LIMITS } from '@centralita/contracts';
import type { DataSource, EntityManager } from 'typeorm';
import { eachSpreadsheetRow, SpreadsheetRefused, type Limits } from '../phone-lists/spreadsheet-reader';
import { GeoRowChecker, type GeoEntry } from './geo-rows';

interface Existing {
  id: string;
  level: string;
  parent_id: string | null;
  code: string;
  name: string;
}

const fold = (text: string) => text.normalize('NFD').replace(/\p{M}/gu, '').toLowerCase().trim();

/**
 * Imports one geographic spreadsheet for a tenant with the phone lists' bounded reader: every row
 * checked first, then all areas written in one transaction, or none when any row has a problem.
 * An area is matched by its code when the file gives one, else by its name under the same parent
 * (so a file of names completes the seeded catalogue instead of doubling it); a match takes the
 * file's name, anything else is added. Running it twice is harmless.
 */
export async function runGeoImport(db: DataSource, importId: string, limits: Limits = PHONE_IMPORT_LIMITS): Promise<void> {
  const [job]: { tenant_id: string; status: string; file: Buffer | null }[] = await db.query(
    `SELECT tenant_id, status, file FROM geo_imports WHERE id = $1`,
    [importId],
  );
  if (!job || job.status === 'done' || job.status === 'failed') return;
  const fail = (code: string, failure: string, extra: { total?: number; errors?: unknown[] } = {}) =>
    db.query(
      `UPDATE geo_imports SET status = 'failed', failure = $2, failure_code = $3, total_rows = $4, errors = $5::jsonb, file = NULL, finished_at = now()
       WHERE id = $1`,
      [importId, failure.slice(0, 300), code, extra.total ?? 0, JSON.stringify(extra.errors ?? [])],
    );
  await db.query(`UPDATE geo_imports SET status = 'running' WHERE id = $1`, [importId]);
  const checker = new GeoRowChecker();
  try {
    await eachSpreadsheetRow(job.file ?? Buffer.alloc(0), limits, (cells) => checker.push(cells));
  } catch (error) {
    if (error instanceof SpreadsheetRefused) return void (await fail(error.code, error.reason));
    throw error;
  }
  if (checker.errors.length)
    return void (await fail('rows_invalid', `${checker.errors.length} rows have problems; nothing was imported`, {
      total: checker.rows,
      errors: checker.errors,
    }));
  const areas = checker.areas;
  if (areas.length === 0) return void (await fail('no_areas', 'the file has no provinces', { total: checker.rows }));

  await db.transaction(async (m) => {
    // One import per tenant at a time: concurrent ones would both add the same new names.
    await m.query(`SELECT pg_advisory_xact_lock(hashtext('geo-import:' || $1))`, [job.tenant_id]);
    const written = await writeAreas(m, job.tenant_id, areas);
    await m.query(
      `UPDATE geo_imports SET status = 'done', total_rows = $2, imported_areas = $3, errors = '[]'::jsonb, file = NULL, finished_at = now() WHERE id = $1`,
      [importId, checker.rows, written],
    );
  });
}

async function writeAreas(m: EntityManager, tenantId: string, areas: GeoEntry[]): Promise<number> {
  const existing: Existing[] = await m.query(`SELECT id, level, parent_id, code, name FROM geo_areas WHERE tenant_id = $1`, [tenantId]);
  const byCode = new Map(existing.map((row) => [`${row.level}#${row.code}`, row]));
  const byName = new Map(existing.map((row) => [`${row.level}|${row.parent_id ?? ''}|${fold(row.name)}`, row]));
  const idOf = new Map<string, { id: string; code: string }>();
  let written = 0;
  for (const area of areas) {
    const parent = area.parentKey ? idOf.get(area.parentKey)! : null;
    const byItsCode = area.code ? byCode.get(`${area.level}#${area.code}`) : undefined;
    const match = byItsCode ?? byName.get(`${area.level}|${parent?.id ?? ''}|${fold(area.name)}`);
    if (match) {
      // A code names the area: the file's name and parent win. A name match is the same area already.
      if (byItsCode && (match.name !== area.name || match.parent_id !== (parent?.id ?? null))) {
        await m.query(`UPDATE geo_areas SET name = $2, parent_id = $3 WHERE id = $1`, [match.id, area.name, parent?.id ?? null]);
        written += 1;
      }
      idOf.set(area.key, { id: match.id, code: match.code });
      continue;
    }
    // No official code: one made from the parent's code and the name keeps (tenant, level, code) unique.
    const code = area.code ?? `${parent ? `${parent.code}/` : ''}${fold(area.name).replace(/\s+/g, '-')}`.slice(0, 200);
    const [row]: { id: string }[] = await m.query(
      `INSERT INTO geo_areas (tenant_id, level, parent_id, code, name) VALUES ($1, $2, $3, $4, $5)
       ON CONFLICT (tenant_id, level, code) DO UPDATE SET name = EXCLUDED.name, parent_id = EXCLUDED.parent_id RETURNING id`,
      [tenantId, area.level, parent?.id ?? null, code, area.name],
    );
    idOf.set(area.key, { id: row!.id, code });
    written += 1;
  }
  return written;
}

/** Ends an import whose job failed for good, so the console shows a reason instead of waiting. */
export async function failGeoImport(db: DataSource, importId: string): Promise<void> {
  await db.query(
    `UPDATE geo_imports SET status = 'failed', failure = $2, failure_code = 'import_failed', file = NULL, finished_at = now()
     WHERE id = $1 AND status IN ('queued', 'running')`,
    [importId, 'the import could not be completed; try again'],
  );
}
