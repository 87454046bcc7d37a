import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource, EntityManager } from 'typeorm';
import { costaRicaGeoRows, DEFAULT_CASE_TYPES, DEFAULT_IDENTIFICATION_TYPES } from './costa-rica-catalogues';

export interface CaseRow {
  id: string;
  tenant_id: string;
  number: number;
  type_id: string | null;
  subject: string;
  description: string;
  status: string;
  owner_id: string | null;
  contact_name: string | null;
  contact_email: string | null;
  contact_phone: string | null;
  province_id: string | null;
  canton_id: string | null;
  district_id: string | null;
  identification_type_id: string | null;
  identification_number: string | null;
  created_by: string | null;
  created_at: Date;
  updated_at: Date;
  closed_at: Date | null;
}

/** Columns a person may change on a case, by their API name. */
export const CASE_COLUMNS = {
  typeId: 'type_id',
  subject: 'subject',
  description: 'description',
  status: 'status',
  ownerId: 'owner_id',
  contactName: 'contact_name',
  contactEmail: 'contact_email',
  contactPhone: 'contact_phone',
  provinceId: 'province_id',
  cantonId: 'canton_id',
  districtId: 'district_id',
  identificationTypeId: 'identification_type_id',
  identificationNumber: 'identification_number',
} as const;
export type CaseField = keyof typeof CASE_COLUMNS;

export interface HistoryInsert {
  action: string;
  field?: string | null;
  oldValue?: string | null;
  newValue?: string | null;
}

/** Every SQL of the cases module: the service holds the rules, this the tables. */
@Injectable()
export class CasesRepository {
  /** Tenants whose catalogues this process already knows are seeded. */
  private readonly seeded = new Set<string>();

  constructor(@InjectDataSource() readonly dataSource: DataSource) {}

  transaction<T>(work: (manager: EntityManager) => Promise<T>): Promise<T> {
    return this.dataSource.transaction(work);
  }

  /** Seeds a tenant's catalogues once (Costa Rica's defaults); concurrent first calls seed once. */
  async ensureCatalogues(tenantId: string): Promise<void> {
    if (this.seeded.has(tenantId)) return;
    await this.dataSource.transaction(async (m) => {
      const claimed: unknown[] = await m.query(
        `INSERT INTO case_catalogue_seeds (tenant_id) VALUES ($1) ON CONFLICT DO NOTHING RETURNING tenant_id`,
        [tenantId],
      );
      if (claimed.length === 0) return;
      await m.query(
        `INSERT INTO case_types (tenant_id, code, name, position)
         SELECT $1, t.code, t.name, t.ord FROM unnest($2::text[], $3::text[]) WITH ORDINALITY AS t(code, name, ord)`,
        [tenantId, DEFAULT_CASE_TYPES.map((t) => t.code), DEFAULT_CASE_TYPES.map((t) => t.name)],
      );
      await m.query(
        `INSERT INTO identification_types (tenant_id, code, name, pattern, position)
         SELECT $1, t.code, t.name, t.pattern, t.ord FROM unnest($2::text[], $3::text[], $4::text[]) WITH ORDINALITY AS t(code, name, pattern, ord)`,
        [
          tenantId,
          DEFAULT_IDENTIFICATION_TYPES.map((t) => t.code),
          DEFAULT_IDENTIFICATION_TYPES.map((t) => t.name),
          DEFAULT_IDENTIFICATION_TYPES.map((t) => t.pattern),
        ],
      );
      await this.insertGeo(m, tenantId, costaRicaGeoRows());
    });
    this.seeded.add(tenantId);
  }

  /** Inserts areas level by level (parents resolved by code); existing codes get the new name. */
  async insertGeo(
    m: EntityManager,
    tenantId: string,
    rows: { level: 'province' | 'canton' | 'district'; code: string; parentCode: string | null; name: string }[],
  ): Promise<number> {
    let written = 0;
    const parentLevel = { province: null, canton: 'province', district: 'canton' } as const;
    for (const level of ['province', 'canton', 'district'] as const) {
      const of = rows.filter((row) => row.level === level);
      if (of.length === 0) continue;
      const result: unknown[] = await m.query(
        `INSERT INTO geo_areas (tenant_id, level, code, name, parent_id)
         SELECT $1, $2, t.code, t.name, p.id
         FROM unnest($3::text[], $4::text[], $5::text[]) AS t(code, name, parent)
         LEFT JOIN geo_areas p ON p.tenant_id = $1 AND p.level = $6 AND p.code = t.parent
         ON CONFLICT (tenant_id, level, code) DO UPDATE SET name = EXCLUDED.name, parent_id = EXCLUDED.parent_id
         RETURNING id`,
        [tenantId, level, of.map((r) => r.code), of.map((r) => r.name), of.map((r) => r.parentCode ?? ''), parentLevel[level] ?? ''],
      );
      written += result.length;
    }
    return written;
  }

  /** The next case number of a tenant: one UPSERT, so concurrent creations each get their own. */
  async nextNumber(m: EntityManager, tenantId: string): Promise<number> {
    const [row]: { last_number: number }[] = await m.query(
      `INSERT INTO case_counters (tenant_id, last_number) VALUES ($1, 1)
       ON CONFLICT (tenant_id) DO UPDATE SET last_number = case_counters.last_number + 1
       RETURNING last_number`,
      [tenantId],
    );
    return row.last_number;
  }

  async insertCase(
    m: EntityManager,
    tenantId: string,
    number: number,
    values: Record<string, unknown>,
    createdBy: string,
  ): Promise<CaseRow> {
    const columns = Object.keys(values);
    const [row]: CaseRow[] = await m.query(
      `INSERT INTO cases (tenant_id, number, created_by, ${columns.map((c) => `"${c}"`).join(', ')})
       VALUES ($1, $2, $3, ${columns.map((_, i) => `$${i + 4}`).join(', ')}) RETURNING *`,
      [tenantId, number, createdBy, ...columns.map((c) => values[c])],
    );
    return row;
  }

  async updateCase(m: EntityManager, tenantId: string, id: string, values: Record<string, unknown>): Promise<void> {
    const columns = Object.keys(values);
    if (columns.length === 0) return;
    await m.query(
      `UPDATE cases SET ${columns.map((c, i) => `"${c}" = $${i + 3}`).join(', ')}, updated_at = now() WHERE id = $1 AND tenant_id = $2`,
      [id, tenantId, ...columns.map((c) => values[c])],
    );
  }

  async touch(m: EntityManager, id: string): Promise<void> {
    await m.query(`UPDATE cases SET updated_at = now() WHERE id = $1`, [id]);
  }

  async findCase(m: EntityManager | null, tenantId: string, id: string, lock = false): Promise<CaseRow | null> {
    const [row]: CaseRow[] = await (m ?? this.dataSource.manager).query(
      `SELECT * FROM cases WHERE id = $1 AND tenant_id = $2${lock ? ' FOR NO KEY UPDATE' : ''}`,
      [id, tenantId],
    );
    return row ?? null;
  }

  async history(m: EntityManager, tenantId: string, caseId: string, actorId: string | null, entries: HistoryInsert[]): Promise<void> {
    if (entries.length === 0) return;
    await m.query(
      `INSERT INTO case_history (case_id, tenant_id, actor_id, action, field, old_value, new_value)
       SELECT $1, $2, $3, t.action, t.field, t.old_value, t.new_value
       FROM unnest($4::text[], $5::text[], $6::text[], $7::text[]) WITH ORDINALITY AS t(action, field, old_value, new_value, ord)
       ORDER BY t.ord`,
      [
        caseId,
        tenantId,
        actorId,
        entries.map((e) => e.action),
        entries.map((e) => e.field ?? null),
        entries.map((e) => (e.oldValue == null ? null : e.oldValue.slice(0, 4000))),
        entries.map((e) => (e.newValue == null ? null : e.newValue.slice(0, 4000))),
      ],
    );
  }

  /** Ids of `ids` that are active users of the tenant. */
  async tenantUsers(tenantId: string, ids: string[]): Promise<Map<string, string>> {
    if (ids.length === 0) return new Map();
    const rows: { id: string; name: string }[] = await this.dataSource.query(
      `SELECT id, name FROM users WHERE client_id = $1 AND id = ANY($2::uuid[])`,
      [tenantId, ids],
    );
    return new Map(rows.map((row) => [row.id, row.name]));
  }

  async geoArea(tenantId: string, id: string): Promise<{ id: string; level: string; parent_id: string | null; name: string } | null> {
    const [row] = await this.dataSource.query(`SELECT id, level, parent_id, name FROM geo_areas WHERE id = $1 AND tenant_id = $2`, [
      id,
      tenantId,
    ]);
    return row ?? null;
  }

  async catalogueRow(
    table: 'case_types' | 'identification_types',
    tenantId: string,
    id: string,
  ): Promise<{ id: string; name: string; pattern?: string | null } | null> {
    const [row] = await this.dataSource.query(`SELECT * FROM ${table} WHERE id = $1 AND tenant_id = $2`, [id, tenantId]);
    return row ?? null;
  }

  async conversation(
    m: EntityManager | null,
    tenantId: string,
    id: string,
  ): Promise<{
    id: string;
    channel: string;
    customer_name: string;
    customer_email: string | null;
    status: string;
    created_at: Date;
    contact_id: string | null;
  } | null> {
    const [row] = await (m ?? this.dataSource.manager).query(
      `SELECT id, channel, customer_name, customer_email, status, created_at, contact_id FROM conversations WHERE id = $1 AND tenant_id = $2`,
      [id, tenantId],
    );
    return row ?? null;
  }
}
