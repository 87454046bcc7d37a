import {
  normaliseOutboundTemplate,
  renderOutboundTemplate,
  validateOutboundTemplate,
  validateTemplateSamples,
  type OutboundTemplateInput,
  type OutboundTemplateView,
  type Page,
  type PagedQuery,
  type TemplateIssue,
  type TemplateParameter,
  type TemplateTestInput,
  type TemplateTestResult,
} from '@centralita/contracts';
import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { AppException } from '../../common/app.exception';
import { AuditService } from '../admin/audit.service';
import { rawListParts } from '../admin/paginate';
import { isUniqueViolation } from '../admin/rule-check';
import type { Principal } from '../auth/principal';
import { assertTemplateRules } from './template-rules';

const AUDIT_TYPE = 'outbound_template';
const NAME_INDEX = 'uq_outbound_templates_tenant_name';
const SORTABLE: Record<string, string> = { name: 't.name', createdAt: 't.created_at', updatedAt: 't.updated_at' };

interface TemplateRow {
  id: string;
  name: string;
  description: string;
  script: string;
  parameters: TemplateParameter[];
  campaign_count: number;
  created_at: Date;
  updated_at: Date;
}

const SELECT = `SELECT t.*, (SELECT count(*)::int FROM dialer_campaigns c WHERE c.template_id = t.id AND c.deleted_at IS NULL) AS campaign_count
  FROM outbound_templates t`;

function view(row: TemplateRow): OutboundTemplateView {
  return {
    id: row.id,
    name: row.name,
    description: row.description,
    script: row.script,
    parameters: row.parameters,
    campaignCount: row.campaign_count,
    createdAt: new Date(row.created_at).toISOString(),
    updatedAt: new Date(row.updated_at).toISOString(),
  };
}

const duplicateName = () =>
  new AppException('conflict', {
    message: 'name is already used by another outbound template',
    data: {
      fields: { name: ['name is already used by another outbound template'] },
      issues: [{ field: 'name', key: 'duplicate' } satisfies TemplateIssue],
    },
  });

/** Outbound campaign templates (/api/outbound/templates): tenant-scoped CRUD, soft delete, and the test send. */
@Injectable()
export class OutboundTemplatesService {
  constructor(
    private readonly dataSource: DataSource,
    private readonly audit: AuditService,
  ) {}

  async list(principal: Principal, query: PagedQuery): Promise<Page<OutboundTemplateView>> {
    const { page, pageSize, orderBy, limit, like } = rawListParts(
      query,
      { sortable: SORTABLE, defaultSort: { field: 'name', order: 'asc' } },
      't.id',
    );
    const params: unknown[] = [principal.clientId];
    let where = 't.tenant_id = $1 AND t.deleted_at IS NULL';
    if (like) {
      params.push(like);
      where += ` AND (t.name ILIKE $${params.length} OR t.description ILIKE $${params.length})`;
    }
    const [{ total }] = (await this.dataSource.query(`SELECT count(*)::int AS total FROM outbound_templates t WHERE ${where}`, params)) as {
      total: number;
    }[];
    const rows = (await this.dataSource.query(`${SELECT} WHERE ${where} ORDER BY ${orderBy} ${limit}`, params)) as TemplateRow[];
    return { items: rows.map(view), total, page, pageSize };
  }

  async get(principal: Principal, id: string): Promise<OutboundTemplateView> {
    const [row] = (await this.dataSource.query(`${SELECT} WHERE t.id = $1 AND t.tenant_id = $2 AND t.deleted_at IS NULL`, [
      id,
      principal.clientId,
    ])) as TemplateRow[];
    if (!row) throw AppException.notFound();
    return view(row);
  }

  async create(principal: Principal, body: Partial<OutboundTemplateInput>): Promise<OutboundTemplateView> {
    const input = this.checked(body);
    const id = await this.saving(async () =>
      this.dataSource.transaction(async (manager) => {
        const [row] = (await manager.query(
          `INSERT INTO outbound_templates (tenant_id, name, description, script, parameters, created_by) VALUES ($1, $2, $3, $4, $5, $6) RETURNING id`,
          [principal.clientId, input.name, input.description, input.script, JSON.stringify(input.parameters), principal.userId],
        )) as { id: string }[];
        await this.audit.record(
          principal,
          { entityType: AUDIT_TYPE, entityId: row.id, action: 'create', before: null, after: input },
          manager,
        );
        return row.id;
      }),
    );
    return this.get(principal, id);
  }

  async update(principal: Principal, id: string, body: Partial<OutboundTemplateInput>): Promise<OutboundTemplateView> {
    const before = await this.get(principal, id);
    // The DTO instance carries every declared field, undefined when omitted: omitted keeps the stored value.
    const given = Object.fromEntries(Object.entries(body).filter(([, value]) => value !== undefined));
    const input = this.checked({ ...before, ...given });
    await this.saving(() =>
      this.dataSource.transaction(async (manager) => {
        await manager.query(
          `UPDATE outbound_templates SET name = $3, description = $4, script = $5, parameters = $6, updated_at = now()
            WHERE id = $1 AND tenant_id = $2 AND deleted_at IS NULL`,
          [id, principal.clientId, input.name, input.description, input.script, JSON.stringify(input.parameters)],
        );
        await this.audit.record(principal, { entityType: AUDIT_TYPE, entityId: id, action: 'update', before, after: input }, manager);
      }),
    );
    return this.get(principal, id);
  }

  /**
   * Soft delete that detaches the template from the campaigns using it: they keep dialing and
   * their agents simply get no script (refusing would leave a supervisor hunting for campaigns,
   * some of them finished, just to retire an outdated script). The audit row names them.
   */
  async remove(principal: Principal, id: string): Promise<{ deleted: true; detachedCampaigns: number }> {
    const before = await this.get(principal, id);
    const detached = await this.dataSource.transaction(async (manager) => {
      const [rows] = (await manager.query(
        `UPDATE dialer_campaigns SET template_id = NULL, updated_at = now() WHERE template_id = $1 AND tenant_id = $2 RETURNING id`,
        [id, principal.clientId],
      )) as [{ id: string }[], number];
      await manager.query(`UPDATE outbound_templates SET deleted_at = now() WHERE id = $1 AND tenant_id = $2`, [id, principal.clientId]);
      await this.audit.record(
        principal,
        {
          entityType: AUDIT_TYPE,
          entityId: id,
          action: 'delete',
          before: { ...before, detachedCampaignIds: rows.map((row) => row.id) },
          after: null,
        },
        manager,
      );
      return rows.length;
    });
    return { deleted: true, detachedCampaigns: detached };
  }

  /**
   * "Test send": the script rendered for one of the tenant's contacts (an outbound contact or a
   * phone-list row) and/or sample values per parameter key. Nothing is stored.
   */
  async test(principal: Principal, id: string, body: TemplateTestInput): Promise<TemplateTestResult> {
    const template = await this.get(principal, id);
    const issues = validateTemplateSamples(template.parameters, body.values);
    let contact: TemplateTestResult['contact'] = null;
    if (body.contactId) {
      const [row] = (await this.dataSource.query(
        `SELECT name, phone FROM outbound_contacts WHERE id = $1 AND tenant_id = $2
         UNION ALL
         SELECT e.name, e.phone FROM phone_list_entries e JOIN phone_lists l ON l.id = e.list_id
          WHERE e.id = $1 AND e.client_id = $2 AND l.deleted_at IS NULL
         LIMIT 1`,
        [body.contactId, principal.clientId],
      )) as { name: string | null; phone: string | null }[];
      if (!row) issues.push({ field: 'contactId', key: 'unknown', values: { values: body.contactId } });
      else contact = row;
    }
    assertTemplateRules(issues);
    const { text, missing } = renderOutboundTemplate(template, contact, body.values ?? {});
    return { templateId: template.id, templateName: template.name, text, missing, contact };
  }

  private checked(body: Partial<Record<keyof OutboundTemplateInput, unknown>>): OutboundTemplateInput {
    assertTemplateRules(validateOutboundTemplate(body));
    return normaliseOutboundTemplate(body);
  }

  /** The partial unique index is the judge of a duplicate name (two saves at once cannot both pass a pre-check). */
  private async saving<T>(work: () => Promise<T>): Promise<T> {
    try {
      return await work();
    } catch (error) {
      if (isUniqueViolation(error, NAME_INDEX)) throw duplicateName();
      throw error;
    }
  }
}
