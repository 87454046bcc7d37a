import {
  INTEGRATION_KEY_LIMITS,
  type CreatedIntegrationKey,
  type IntegrationKeyInput,
  type IntegrationKeySummary,
} from '@centralita/contracts';
import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { AppException } from '../../common/app.exception';
import { AuditService } from '../admin/audit.service';
import type { Principal } from '../auth/principal';
import { canonicalOrigin, newIntegrationKey, returnedRows, sha256Hex } from './vicidial-links';

interface KeyRow {
  id: string;
  name: string;
  hint: string;
  callback_origins: string[];
  created_at: Date;
  created_by_name: string | null;
  last_used_at: Date | null;
  revoked_at: Date | null;
}

const COLUMNS = 'id, name, hint, callback_origins, created_at, created_by_name, last_used_at, revoked_at';

function toSummary(row: KeyRow): IntegrationKeySummary {
  return {
    id: row.id,
    name: row.name,
    hint: row.hint,
    callbackOrigins: row.callback_origins,
    createdAt: row.created_at.toISOString(),
    createdByName: row.created_by_name,
    lastUsedAt: row.last_used_at?.toISOString() ?? null,
    revokedAt: row.revoked_at?.toISOString() ?? null,
  };
}

function invalid(field: string, problem: string): AppException {
  return new AppException('validation', { message: problem, data: { fields: { [field]: [problem] } } });
}

/**
 * A tenant's integration keys: administrators create them (the key is answered once and kept only
 * as its SHA-256), list them (name, hint, allowed origins, last use) and revoke them. Only
 * customer tenants have keys: a key signs in that tenant's agents and nobody else.
 */
@Injectable()
export class IntegrationKeysService {
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly audit: AuditService,
  ) {}

  async list(principal: Principal): Promise<IntegrationKeySummary[]> {
    this.assertTenant(principal);
    const rows = await this.dataSource.query<KeyRow[]>(
      `SELECT ${COLUMNS} FROM integration_keys WHERE tenant_id = $1 ORDER BY revoked_at IS NOT NULL, created_at DESC, id LIMIT 200`,
      [principal.clientId],
    );
    return rows.map(toSummary);
  }

  async create(principal: Principal, input: IntegrationKeyInput): Promise<CreatedIntegrationKey> {
    this.assertTenant(principal);
    const name = (input.name ?? '').trim();
    if (!name) throw invalid('name', 'name is required');
    if (name.length > INTEGRATION_KEY_LIMITS.nameMax)
      throw invalid('name', `name must be at most ${INTEGRATION_KEY_LIMITS.nameMax} characters`);
    const origins: string[] = [];
    for (const raw of input.callbackOrigins ?? []) {
      const origin = canonicalOrigin(raw);
      if (!origin) throw invalid('callbackOrigins', `"${raw}" is not an http(s) origin (scheme, host and optional port, no path)`);
      if (!origins.includes(origin)) origins.push(origin);
    }
    if (origins.length > INTEGRATION_KEY_LIMITS.callbackOriginsMax)
      throw invalid('callbackOrigins', `at most ${INTEGRATION_KEY_LIMITS.callbackOriginsMax} origins`);

    const { key, hint } = newIntegrationKey();
    const created = await this.dataSource.transaction(async (manager) => {
      // One tenant's creations queue here, so the cap on active keys holds under concurrent requests.
      await manager.query(`SELECT pg_advisory_xact_lock(hashtext('integration_keys:' || $1))`, [principal.clientId]);
      const [{ count }] = await manager.query<{ count: string }[]>(
        `SELECT count(*) AS count FROM integration_keys WHERE tenant_id = $1 AND revoked_at IS NULL`,
        [principal.clientId],
      );
      if (Number(count) >= INTEGRATION_KEY_LIMITS.activeKeysMax)
        throw new AppException('conflict', {
          message: `This organisation already has ${INTEGRATION_KEY_LIMITS.activeKeysMax} active integration keys: revoke one first.`,
        });
      const [row] = await manager.query<KeyRow[]>(
        `INSERT INTO integration_keys (tenant_id, name, key_hash, hint, callback_origins, created_by, created_by_name)
         SELECT $1, $2, $3, $4, $5::text[], u.id, u.name FROM users u WHERE u.id = $6
         RETURNING ${COLUMNS}`,
        [principal.clientId, name, sha256Hex(key), hint, origins, principal.userId],
      );
      const summary = toSummary(row);
      await this.audit.record(
        principal,
        { entityType: 'integration-key', entityId: row.id, action: 'create', before: null, after: summary },
        manager,
      );
      return summary;
    });
    return { ...created, key };
  }

  /** Revoking stops the key at once, and every link it issued that was not used yet. */
  async revoke(principal: Principal, id: string): Promise<{ revoked: true }> {
    this.assertTenant(principal);
    await this.dataSource.transaction(async (manager) => {
      const [before] = await manager.query<KeyRow[]>(
        `SELECT ${COLUMNS} FROM integration_keys WHERE id = $1 AND tenant_id = $2 FOR NO KEY UPDATE`,
        [id, principal.clientId],
      );
      if (!before) throw AppException.notFound();
      if (before.revoked_at) return;
      const [after] = returnedRows<KeyRow>(
        await manager.query(`UPDATE integration_keys SET revoked_at = now() WHERE id = $1 RETURNING ${COLUMNS}`, [id]),
      );
      await this.audit.record(
        principal,
        { entityType: 'integration-key', entityId: id, action: 'delete', before: toSummary(before), after: toSummary(after) },
        manager,
      );
    });
    return { revoked: true };
  }

  private assertTenant(principal: Principal): void {
    if (principal.level !== 'tenant') throw AppException.forbidden('Integration keys belong to customer organisations.');
  }
}
