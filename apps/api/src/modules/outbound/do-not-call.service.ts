import { type DoNotCallEntry, type Page, type PagedQuery } from '@centralita/contracts';
import { isE164 } from '@centralita/domain';
import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { AppException } from '../../common/app.exception';
import { AuditService } from '../admin/audit.service';
import { escapeLike } from '../admin/paginate';
import { assertRules } from '../admin/rule-check';
import type { Principal } from '../auth/principal';
import { CampaignAdminService } from './campaign-admin.service';

/** The do-not-call row as the console shows it: scope by campaign name, who added it. */
const DNC_SELECT = `SELECT d.id, d.phone, d.campaign_id AS "campaignId", c.name AS "campaignName", d.reason, d.created_at AS "createdAt",
    d.created_by AS "createdBy", u.name AS "createdByName"
  FROM do_not_call d LEFT JOIN dialer_campaigns c ON c.id = d.campaign_id LEFT JOIN users u ON u.id = d.created_by`;

export interface DncListQuery extends PagedQuery {
  campaignId?: string;
  /** 'tenant': only entries for every campaign; 'campaign': only per-campaign entries. */
  scope?: 'tenant' | 'campaign';
}

/** The do-not-call lists: the tenant's (every campaign) and each campaign's. */
@Injectable()
export class DoNotCallService {
  constructor(
    private readonly dataSource: DataSource,
    private readonly campaigns: CampaignAdminService,
    private readonly audit: AuditService,
  ) {}

  async dncList(principal: Principal, query: DncListQuery): Promise<Page<DoNotCallEntry>> {
    const page = query.page ?? 1;
    const pageSize = query.pageSize ?? 25;
    const params: unknown[] = [principal.clientId];
    let where = 'd.tenant_id = $1';
    // Numbers are stored without separators: '+34 911' finds '+34911…'.
    const digits = (query.q ?? '').replace(/[\s().-]/g, '');
    if (digits) {
      params.push(`%${escapeLike(digits)}%`);
      where += ` AND d.phone ILIKE $${params.length}`;
    }
    if (query.campaignId) {
      params.push(query.campaignId);
      where += ` AND d.campaign_id = $${params.length}`;
    }
    if (query.scope === 'tenant') where += ' AND d.campaign_id IS NULL';
    else if (query.scope === 'campaign') where += ' AND d.campaign_id IS NOT NULL';
    const [{ total }] = (await this.dataSource.query(`SELECT count(*)::int AS total FROM do_not_call d WHERE ${where}`, params)) as {
      total: number;
    }[];
    const rows = (await this.dataSource.query(
      `${DNC_SELECT} WHERE ${where} ORDER BY d.created_at DESC, d.id LIMIT ${pageSize} OFFSET ${(page - 1) * pageSize}`,
      params,
    )) as DoNotCallEntry[];
    return { items: rows, total, page, pageSize } as Page<DoNotCallEntry>;
  }

  async dncAdd(principal: Principal, body: { phone: string; campaignId?: string | null; reason?: string | null }): Promise<DoNotCallEntry> {
    const phone = String(body.phone ?? '').replace(/[\s().-]/g, '');
    if (!isE164(phone)) assertRules([{ field: 'phone', key: 'pattern' }]);
    if (body.campaignId) await this.campaigns.get(principal, body.campaignId);
    const rows = (await this.dataSource.query(
      `INSERT INTO do_not_call (tenant_id, campaign_id, phone, reason, created_by) VALUES ($1, $2, $3, $4, $5)
       ON CONFLICT DO NOTHING RETURNING id, phone, campaign_id AS "campaignId", reason, created_at AS "createdAt"`,
      [principal.clientId, body.campaignId ?? null, phone, body.reason?.trim() || null, principal.userId],
    )) as DoNotCallEntry[];
    if (rows.length === 0)
      throw new AppException('conflict', {
        message: `${phone} is already on that do-not-call list`,
        messageKey: 'dncAlreadyListed',
        params: { phone },
        data: { fields: { phone: [`${phone} is already on that do-not-call list`] } },
      });
    await this.audit.record(principal, { entityType: 'do_not_call', entityId: rows[0].id, action: 'create', before: null, after: rows[0] });
    const [entry] = (await this.dataSource.query(`${DNC_SELECT} WHERE d.id = $1`, [rows[0].id])) as DoNotCallEntry[];
    return entry ?? rows[0];
  }

  async dncRemove(principal: Principal, id: string): Promise<void> {
    const rows = (await this.dataSource.query(`DELETE FROM do_not_call WHERE id = $1 AND tenant_id = $2 RETURNING id, phone`, [
      id,
      principal.clientId,
    ])) as [{ id: string; phone: string }[], number];
    const deleted = rows[0];
    if (!deleted || deleted.length === 0) throw AppException.notFound();
    await this.audit.record(principal, { entityType: 'do_not_call', entityId: id, action: 'delete', before: deleted[0], after: null });
  }
}
