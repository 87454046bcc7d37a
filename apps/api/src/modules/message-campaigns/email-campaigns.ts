import {
  EMAIL_TEMPLATE_CATEGORY,
  emailComponents,
  emailMappingProblem,
  emailPlaceholders,
  emailTemplateProblem,
  renderEmailTemplate,
  type EmailTemplateInput,
  type MessageCampaignInput,
  type RenderedEmail,
} from '@centralita/contracts';
import { AppException } from '../../common/app.exception';
import type { ChannelAccountRow } from '../channels/channel-account.row';
import { campaignBoardChanged } from './campaign-board-signal';

/**
 * The email side of message campaigns (issue 21, "or email, through the email channel"): email
 * templates, the checks of an email campaign, its recipients (written at its first start) and the
 * link of a customer's reply to the campaign mail it answers. The worker sends
 * (apps/worker/src/message-campaigns/email-campaign-run.ts).
 */

type Db = { query: (sql: string, params?: unknown[]) => Promise<unknown> };

const invalid = (message: string) => new AppException('validation', { message });

/** The address rule of the mail blacklist (isValidMailAddress), in PostgreSQL's regex dialect. */
const ADDRESS_SQL = String.raw`^[^[:space:]@<>(),;:"\\]+@[^[:space:]@<>(),;:"\\]+\.[^[:space:]@<>(),;:"\\]+$`;

export const isEmailTemplate = (row: { category: string }) => row.category === EMAIL_TEMPLATE_CATEGORY;

/** Parameter count of an email template (subject and body together). */
export function emailParameterCount(components: Record<string, unknown>[]): number {
  const part = (type: string) => components.find((one) => one.type === type)?.text;
  return emailPlaceholders({ subject: part('SUBJECT'), text: part('BODY'), html: part('HTML') }).count;
}

/** Stores an email template: usable at once (APPROVED), no provider reviews it. Answers the new row. */
export async function insertEmailTemplate(db: Db, tenantId: string, account: ChannelAccountRow, input: Partial<EmailTemplateInput>) {
  const problem = emailTemplateProblem(input);
  if (problem) throw invalid(problem);
  const valid = input as EmailTemplateInput;
  try {
    const [row] = (await db.query(
      `INSERT INTO channel_templates (tenant_id, account_id, name, language, category, components, status, submitted_at)
       VALUES ($1, $2, $3, $4, $5, $6::jsonb, 'APPROVED', now()) RETURNING *`,
      [tenantId, account.id, valid.name, valid.language, EMAIL_TEMPLATE_CATEGORY, JSON.stringify(emailComponents(valid))],
    )) as Record<string, unknown>[];
    return row!;
  } catch (error) {
    if ((error as { code?: string }).code === '23505') {
      throw new AppException('conflict', { message: `The account already has a template ${valid.name} in ${valid.language}` });
    }
    throw error;
  }
}

/** The preview of an email template with sample values (its examples when none are given). */
export function previewEmailTemplate(components: Record<string, unknown>[], values: string[] | undefined): RenderedEmail {
  const count = emailParameterCount(components);
  if (values?.length && (values.length !== count || values.some((value) => typeof value !== 'string'))) {
    throw invalid(`body must give the template's ${count} values`);
  }
  return renderEmailTemplate(components, values);
}

/** The columns a phone list carries besides phone and name (lower-cased headers, as imported). */
export async function listColumns(db: Db, tenantId: string, listId: string): Promise<string[]> {
  const [list] = (await db.query(`SELECT id FROM phone_lists WHERE id = $1 AND client_id = $2 AND deleted_at IS NULL`, [
    listId,
    tenantId,
  ])) as unknown[];
  if (!list) throw AppException.notFound();
  const rows = (await db.query(
    `SELECT DISTINCT key FROM (SELECT fields FROM phone_list_entries WHERE list_id = $1 AND client_id = $2 AND fields IS NOT NULL LIMIT 1000) e,
       jsonb_object_keys(e.fields) AS key ORDER BY key`,
    [listId, tenantId],
  )) as { key: string }[];
  return rows.map((row) => row.key);
}

/** The checks of an email campaign's address column and mapping against its list and template (400 naming the field). */
export async function checkEmailCampaign(
  db: Db,
  tenantId: string,
  input: MessageCampaignInput,
  template: { category: string; components: Record<string, unknown>[] },
): Promise<{ addressColumn: string }> {
  if (!isEmailTemplate(template)) throw invalid('templateId must be an email template for an email account');
  const columns = await listColumns(db, tenantId, input.phoneListId!);
  const problem = emailMappingProblem(input.addressColumn, input.parameterMapping, emailParameterCount(template.components), columns);
  if (problem) throw invalid(problem);
  return { addressColumn: input.addressColumn!.toLowerCase() };
}

/**
 * An email campaign's recipients, at its first start: one row per list entry with the address of
 * its column (trimmed, lower-cased). Skipped, with the reason: an invalid address, a repeat of an
 * earlier row's address (`duplicate`), an address on the tenant's mail blacklist (`unsubscribed`
 * when the recipient asked, `mail_blacklisted` otherwise) and a contact of the account who opted out.
 */
export async function insertEmailRecipients(
  db: Db,
  campaign: { id: string; tenant_id: string; account_id: string; phone_list_id: string; address_column: string },
): Promise<void> {
  await db.query(
    `INSERT INTO message_campaign_recipients (tenant_id, campaign_id, account_id, seq, phone, name, address, status, skip_reason)
     SELECT $1::uuid, $2::uuid, $3::uuid, e.line, e.phone, e.name, left(e.address, 320),
       CASE WHEN e.reason IS NULL THEN 'queued' ELSE 'skipped' END, e.reason
     FROM (
       SELECT e.*, CASE
         WHEN e.address = '' OR length(e.address) > 254 OR e.address !~ $6 THEN 'invalid_address'
         WHEN e.first_line < e.line THEN 'duplicate'
         WHEN b.reason = 'unsubscribe' THEN 'unsubscribed'
         WHEN b.reason IS NOT NULL THEN 'mail_blacklisted'
         WHEN EXISTS (SELECT 1 FROM contacts k WHERE k.tenant_id = $1 AND k.channel_account_id = $3::text
                        AND lower(k.external_id) = e.address AND k.opted_out_at IS NOT NULL) THEN 'opted_out'
         END AS reason
       FROM (
         SELECT x.line, x.phone, x.name, lower(btrim(COALESCE(x.fields ->> $5, ''))) AS address,
           min(x.line) OVER (PARTITION BY lower(btrim(COALESCE(x.fields ->> $5, '')))) AS first_line
         FROM phone_list_entries x WHERE x.list_id = $4 AND x.client_id = $1
       ) e
       LEFT JOIN mail_blacklist b ON b.tenant_id = $1 AND b.address = e.address
     ) e
     ON CONFLICT DO NOTHING`,
    [campaign.tenant_id, campaign.id, campaign.account_id, campaign.phone_list_id, campaign.address_column, ADDRESS_SQL],
  );
}

/**
 * A customer's mail that answers a campaign mail (its In-Reply-To or References names the mail's
 * Message-ID): the recipient is marked replied and linked to the conversation the mail landed in.
 */
export async function linkEmailCampaignReply(
  db: Db,
  account: Pick<ChannelAccountRow, 'id' | 'tenant_id'>,
  mail: { inReplyTo: string | null; references: string[] },
  conversationId: string,
): Promise<void> {
  const ids = [...new Set([mail.inReplyTo, ...mail.references].filter((id): id is string => Boolean(id)))].slice(0, 50);
  if (!ids.length) return;
  const rows = (await db.query(
    `WITH linked AS (UPDATE message_campaign_recipients r SET replied_at = COALESCE(r.replied_at, now()), conversation_id = COALESCE(r.conversation_id, $3::uuid),
       updated_at = now()
     WHERE r.id = (SELECT q.id FROM message_campaign_recipients q
       WHERE q.tenant_id = $1 AND q.account_id = $2 AND q.provider_message_id = ANY($4::text[]) AND q.status = 'sent'
       ORDER BY q.sent_at DESC NULLS LAST LIMIT 1)
     RETURNING r.campaign_id) SELECT campaign_id FROM linked`,
    [account.tenant_id, account.id, conversationId, ids],
  )) as { campaign_id: string }[];
  // The open boards count the reply at once (MessageCampaignBoardService pushes them).
  if (rows.length) campaignBoardChanged(...rows.map((row) => row.campaign_id));
}

/** Stores an email campaign (draft) after its checks; answers its id. Its pace is the account's (setting campaignPerMinute). */
export async function insertEmailCampaign(
  db: Db,
  tenantId: string,
  input: MessageCampaignInput,
  account: ChannelAccountRow,
  template: { id: string; category: string; components: Record<string, unknown>[] },
): Promise<string> {
  const { addressColumn } = await checkEmailCampaign(db, tenantId, input, template);
  const [row] = (await db.query(
    `INSERT INTO message_campaigns (tenant_id, name, channel, account_id, template_id, phone_list_id, parameter_mapping, address_column)
     VALUES ($1, $2, 'email', $3, $4, $5, $6::jsonb, $7) RETURNING id`,
    [
      tenantId,
      input.name!.trim(),
      account.id,
      template.id,
      input.phoneListId,
      JSON.stringify({ header: [], body: input.parameterMapping?.body ?? [] }),
      addressColumn,
    ],
  )) as { id: string }[];
  return row!.id;
}
