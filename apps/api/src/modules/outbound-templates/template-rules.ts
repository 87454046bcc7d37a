import {
  describeTemplateIssue,
  renderOutboundTemplate,
  type RenderedScript,
  type TemplateContact,
  type TemplateIssue,
  type TemplateParameter,
} from '@centralita/contracts';
import { AppException } from '../../common/app.exception';

/** The validation envelope for the template rules' issues (same shape as assertRules'). */
export function assertTemplateRules(issues: TemplateIssue[]): void {
  if (!issues.length) return;
  const fields: Record<string, string[]> = {};
  for (const issue of issues) (fields[issue.field] ??= []).push(describeTemplateIssue(issue));
  throw new AppException('validation', { message: Object.values(fields).flat().join('; '), data: { fields, issues } });
}

/** Anything that runs SQL: the DataSource or a transaction's EntityManager. */
export interface Queryable {
  query(sql: string, parameters?: unknown[]): Promise<unknown>;
}

/**
 * The script of a campaign's template rendered for one contact (the agent's screen pop), or null
 * when the campaign has no template (or it was deleted, which detaches it anyway).
 */
export async function campaignScript(db: Queryable, campaignId: string, contact: TemplateContact): Promise<RenderedScript | null> {
  const [row] = (await db.query(
    `SELECT t.id, t.name, t.script, t.parameters FROM dialer_campaigns c
       JOIN outbound_templates t ON t.id = c.template_id AND t.tenant_id = c.tenant_id AND t.deleted_at IS NULL
      WHERE c.id = $1`,
    [campaignId],
  )) as { id: string; name: string; script: string; parameters: TemplateParameter[] }[];
  if (!row) return null;
  const { text, missing } = renderOutboundTemplate(row, contact);
  return { templateId: row.id, templateName: row.name, text, missing };
}
