import {
  MAIL_BLACKLIST_LIMITS,
  MAIL_BLACKLIST_REASONS,
  isValidMailAddress,
  maskMailAddress,
  normaliseMailAddress,
  type MailBlacklistEntry,
  type MailBlacklistImportResult,
  type MailBlacklistInput,
  type MailBlacklistReason,
  type Page,
  type PagedQuery,
  type UnsubscribeResult,
  type UnsubscribeView,
} from '@centralita/contracts';
import { UnsubscribeSigner, isMailBlocked, recordHardBounce } from '@centralita/contracts/server';
import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import { AppException } from '../../common/app.exception';
import { AuditService } from '../admin/audit.service';
import { rawListParts } from '../admin/paginate';
import type { Principal } from '../auth/principal';

interface EntryRow {
  id: string;
  address: string;
  reason: MailBlacklistReason;
  source: string;
  note: string | null;
  created_by: string | null;
  created_by_name: string | null;
  created_at: Date;
}

const toEntry = (row: EntryRow): MailBlacklistEntry => ({
  id: row.id,
  address: row.address,
  reason: row.reason,
  source: row.source,
  note: row.note,
  createdBy: row.created_by,
  createdByName: row.created_by_name,
  createdAt: new Date(row.created_at).toISOString(),
});

const AUDIT_TYPE = 'mail-blacklist';
const SELECT = `SELECT b.id, b.address, b.reason, b.source, b.note, b.created_by, u.name AS created_by_name, b.created_at
                  FROM mail_blacklist b LEFT JOIN users u ON u.id = b.created_by`;

const invalid = (field: string, message: string) => new AppException('validation', { message, data: { fields: { [field]: [message] } } });

/** The message of a link that does not verify: the same whatever is wrong with it, and nothing is stored. */
export const INVALID_UNSUBSCRIBE_LINK =
  'This unsubscribe link is not valid for this address (it was altered or cut): open the link from the mail again, or reply to the mail asking to unsubscribe.';

/**
 * A tenant's mail blacklist (the spec's BlackListMail): the admin screen's CRUD and CSV import, the
 * public unsubscribe confirmations (signed links only) and the send-time check.
 */
@Injectable()
export class MailBlacklistService {
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly audit: AuditService,
    private readonly signer: UnsubscribeSigner,
  ) {}

  async list(clientId: string, query: PagedQuery & { reason?: MailBlacklistReason }): Promise<Page<MailBlacklistEntry>> {
    const parts = rawListParts(
      query,
      {
        sortable: { createdAt: 'b.created_at', address: 'b.address', reason: 'b.reason', source: 'b.source' },
        defaultSort: { field: 'createdAt', order: 'desc' },
      },
      'b.id',
    );
    const where = [`b.tenant_id = $1`];
    const params: unknown[] = [clientId];
    if (parts.like) {
      params.push(parts.like);
      where.push(`(b.address ILIKE $${params.length} OR b.note ILIKE $${params.length})`);
    }
    if (query.reason) {
      params.push(query.reason);
      where.push(`b.reason = $${params.length}`);
    }
    const [rows, [{ total }]] = await Promise.all([
      this.dataSource.query(`${SELECT} WHERE ${where.join(' AND ')} ORDER BY ${parts.orderBy} ${parts.limit}`, params) as Promise<
        EntryRow[]
      >,
      this.dataSource.query(`SELECT count(*)::int AS total FROM mail_blacklist b WHERE ${where.join(' AND ')}`, params) as Promise<
        { total: number }[]
      >,
    ]);
    return { items: rows.map(toEntry), total, page: parts.page, pageSize: parts.pageSize };
  }

  async get(clientId: string, id: string): Promise<MailBlacklistEntry> {
    const [row] = (await this.dataSource.query(`${SELECT} WHERE b.id = $1 AND b.tenant_id = $2`, [id, clientId])) as EntryRow[];
    if (!row) throw AppException.notFound();
    return toEntry(row);
  }

  /** An administrator lists an address; 409 when it is already listed (the answer names why it is). */
  async add(principal: Principal, input: Partial<MailBlacklistInput>): Promise<MailBlacklistEntry> {
    const { address, reason, note } = this.checked(input);
    return this.dataSource.transaction(async (manager) => {
      const [row] = (await manager.query(
        `INSERT INTO mail_blacklist (tenant_id, address, reason, source, note, created_by)
         VALUES ($1, $2, $3, 'admin', $4, $5)
         ON CONFLICT (tenant_id, address) DO NOTHING
         RETURNING id`,
        [principal.clientId, address, reason, note, principal.userId],
      )) as { id: string }[];
      if (!row) {
        const [existing] = (await manager.query(`SELECT reason FROM mail_blacklist WHERE tenant_id = $1 AND address = $2`, [
          principal.clientId,
          address,
        ])) as { reason: string }[];
        throw new AppException('conflict', {
          message: `${address} is already on the mail blacklist (reason: ${existing?.reason ?? 'unknown'})`,
          data: { fields: { address: ['already listed'] } },
        });
      }
      const [created] = (await manager.query(`${SELECT} WHERE b.id = $1`, [row.id])) as EntryRow[];
      const entry = toEntry(created);
      await this.audit.record(
        principal,
        { entityType: AUDIT_TYPE, entityId: entry.id, action: 'create', before: null, after: entry },
        manager,
      );
      return entry;
    });
  }

  async remove(principal: Principal, id: string): Promise<{ deleted: true }> {
    const before = await this.get(principal.clientId, id);
    await this.dataSource.transaction(async (manager) => {
      await manager.query(`DELETE FROM mail_blacklist WHERE id = $1 AND tenant_id = $2`, [id, principal.clientId]);
      await this.audit.record(principal, { entityType: AUDIT_TYPE, entityId: id, action: 'delete', before, after: null }, manager);
    });
    return { deleted: true };
  }

  /**
   * A CSV or plain list: one address per line, or a header row with an "email" (or "address",
   * "correo") column. Every valid address is listed as 'manual' (source 'import'); invalid ones
   * are reported by line, nothing else stops the import.
   */
  async importCsv(principal: Principal, text: string): Promise<MailBlacklistImportResult> {
    const lines = text.replace(/^\uFEFF/, '').split(/\r?\n/);
    if (lines.length > MAIL_BLACKLIST_LIMITS.importRowsMax + 1)
      throw invalid('file', `The file has more than ${MAIL_BLACKLIST_LIMITS.importRowsMax} lines: split it`);
    const cells = (line: string) =>
      line.split(/[,;\t]/).map((cell) =>
        cell
          .trim()
          .replace(/^"(.*)"$/, '$1')
          .trim(),
      );
    const header = cells(lines[0] ?? '').map((cell) => cell.toLowerCase());
    const column = header.findIndex((cell) => ['email', 'e-mail', 'address', 'correo', 'mail'].includes(cell));
    const start = column >= 0 ? 1 : 0;
    const valid = new Set<string>();
    const invalidRows: MailBlacklistImportResult['invalid'] = [];
    for (let i = start; i < lines.length; i++) {
      const row = cells(lines[i]);
      const value = column >= 0 ? (row[column] ?? '') : (row.find((cell) => cell.includes('@')) ?? row[0] ?? '');
      if (!value) continue;
      if (isValidMailAddress(value)) valid.add(normaliseMailAddress(value));
      else if (invalidRows.length < 100) invalidRows.push({ line: i + 1, value: value.slice(0, 120) });
    }
    if (valid.size === 0 && invalidRows.length === 0) throw invalid('file', 'The file holds no addresses');
    const addresses = [...valid];
    const added = await this.dataSource.transaction(async (manager) => {
      const rows = (await manager.query(
        `INSERT INTO mail_blacklist (tenant_id, address, reason, source, created_by)
         SELECT $1, a, 'manual', 'import', $2 FROM unnest($3::text[]) AS a
         ON CONFLICT (tenant_id, address) DO NOTHING
         RETURNING id`,
        [principal.clientId, principal.userId, addresses],
      )) as { id: string }[];
      await this.audit.record(
        principal,
        { entityType: AUDIT_TYPE, entityId: principal.clientId, action: 'create', before: null, after: { imported: rows.length } },
        manager,
      );
      return rows.length;
    });
    return { added, alreadyListed: addresses.length - added, invalid: invalidRows };
  }

  /** What the public page shows for a signed link (400 for anything but a genuine one). */
  async unsubscribeView(address: string, token: string): Promise<UnsubscribeView> {
    const { tenantId, normalised } = this.verified(address, token);
    const tenant = await this.tenant(tenantId);
    return {
      maskedAddress: maskMailAddress(normalised),
      tenantName: tenant.name,
      logoUrl: tenant.logo,
      unsubscribed: (await isMailBlocked(this.dataSource, tenantId, normalised)) !== null,
    };
  }

  /** The recipient confirms (page button, one-click POST or mailto): listed as 'unsubscribe', idempotent. */
  async unsubscribe(address: string, token: string, source: 'link' | 'one-click' | 'mailto'): Promise<UnsubscribeResult> {
    const { tenantId, normalised } = this.verified(address, token);
    const tenant = await this.tenant(tenantId);
    const rows = (await this.dataSource.query(
      `INSERT INTO mail_blacklist (tenant_id, address, reason, source) VALUES ($1, $2, 'unsubscribe', $3)
       ON CONFLICT (tenant_id, address) DO NOTHING RETURNING id`,
      [tenantId, normalised, source],
    )) as { id: string }[];
    return { maskedAddress: maskMailAddress(normalised), tenantName: tenant.name, unsubscribed: true, added: rows.length > 0 };
  }

  /** The send-time check (the same SQL the worker runs through @centralita/contracts/server). */
  isBlocked(tenantId: string, address: string): Promise<MailBlacklistReason | null> {
    return isMailBlocked(this.dataSource, tenantId, address);
  }

  recordHardBounce(tenantId: string, address: string, detail: string): Promise<boolean> {
    return recordHardBounce(this.dataSource, tenantId, address, detail);
  }

  private verified(address: string, token: string | undefined): { tenantId: string; normalised: string } {
    if (!this.signer.configured)
      throw new AppException('service_unavailable', { message: 'Unsubscribe links cannot be checked: CONFIG_ENCRYPTION_KEY is not set' });
    if (!token) throw invalid('token', 'The unsubscribe link has no token: open the link from the mail again');
    if (!isValidMailAddress(address)) throw invalid('email', 'The unsubscribe link does not name a valid address');
    const verified = this.signer.verify(token, address);
    if (!verified) throw invalid('token', INVALID_UNSUBSCRIBE_LINK);
    return { tenantId: verified.tenantId, normalised: normaliseMailAddress(address) };
  }

  /** A link's tenant; a tenant deleted since the mail was sent answers the same 400 as a forged link. */
  private async tenant(tenantId: string): Promise<{ name: string; logo: string | null }> {
    const [row] = (await this.dataSource.query(`SELECT name, complete_menu_logo_url AS logo FROM clients WHERE id = $1`, [tenantId])) as {
      name: string;
      logo: string | null;
    }[];
    if (!row) throw invalid('token', INVALID_UNSUBSCRIBE_LINK);
    return row;
  }

  private checked(input: Partial<MailBlacklistInput>): { address: string; reason: MailBlacklistReason; note: string | null } {
    const address = typeof input.address === 'string' ? normaliseMailAddress(input.address) : '';
    if (!address) throw invalid('address', 'address is required');
    if (!isValidMailAddress(address)) throw invalid('address', `address must be one valid email address (got "${address.slice(0, 80)}")`);
    const reason = input.reason ?? 'manual';
    if (!(MAIL_BLACKLIST_REASONS as readonly string[]).includes(reason))
      throw invalid('reason', `reason must be one of ${MAIL_BLACKLIST_REASONS.join(', ')}`);
    const note = typeof input.note === 'string' ? input.note.trim() : null;
    if (note && note.length > MAIL_BLACKLIST_LIMITS.noteMax)
      throw invalid('note', `note must be at most ${MAIL_BLACKLIST_LIMITS.noteMax} characters`);
    return { address, reason, note: note || null };
  }
}
