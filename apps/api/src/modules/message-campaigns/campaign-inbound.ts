import type { InboundEvent } from '@centralita/channels';
import { tierDailyLimit } from '@centralita/contracts';
import type { ChannelAccountRow } from '../channels/channel-account.row';
import { campaignBoardChanged } from './campaign-board-signal';

type Db = { query: (sql: string, params?: unknown[]) => Promise<unknown> };

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * A receipt for a campaign message (called by the channel intake when no platform message has the
 * provider id). Found by provider id, or by the callback data (the recipient's id) when the status
 * beat the send's answer; the status only moves forward (sent < delivered < read; failed is final
 * and never follows read; skipped is never touched), so duplicates and any order end in the same
 * state. Answers whether the receipt was a campaign message's.
 */
export async function applyCampaignReceipt(
  db: Db,
  account: Pick<ChannelAccountRow, 'id' | 'tenant_id'>,
  receipt: Extract<InboundEvent, { type: 'receipt' }>,
): Promise<boolean> {
  const callback = receipt.callbackData && UUID.test(receipt.callbackData) ? receipt.callbackData : null;
  const rows = (await db.query(
    `WITH moved AS (
       UPDATE message_campaign_recipients r SET
         provider_message_id = COALESCE(r.provider_message_id, $3),
         status = CASE
           WHEN r.status IN ('skipped', 'failed') THEN r.status
           WHEN $5::text = 'failed' THEN CASE WHEN r.status = 'read' THEN r.status ELSE 'failed' END
           WHEN (CASE $5::text WHEN 'sent' THEN 2 WHEN 'delivered' THEN 3 WHEN 'read' THEN 4 ELSE 0 END)
              > (CASE r.status WHEN 'sent' THEN 2 WHEN 'delivered' THEN 3 WHEN 'read' THEN 4 ELSE 0 END) THEN $5::text
           ELSE r.status END,
         sent_at = COALESCE(r.sent_at, $6::timestamptz),
         delivered_at = CASE WHEN $5::text IN ('delivered', 'read') THEN COALESCE(r.delivered_at, $6::timestamptz) ELSE r.delivered_at END,
         read_at = CASE WHEN $5::text = 'read' THEN COALESCE(r.read_at, $6::timestamptz) ELSE r.read_at END,
         error_code = CASE WHEN $5::text = 'failed' AND r.status NOT IN ('read', 'skipped', 'failed') THEN $7 ELSE r.error_code END,
         error_text = CASE WHEN $5::text = 'failed' AND r.status NOT IN ('read', 'skipped', 'failed') THEN $8 ELSE r.error_text END,
         updated_at = now()
       WHERE r.tenant_id = $1 AND r.account_id = $2
         AND (r.provider_message_id = $3 OR ($4::uuid IS NOT NULL AND r.id = $4::uuid AND r.provider_message_id IS NULL))
       RETURNING r.id, r.campaign_id)
     SELECT id, campaign_id FROM moved`,
    [
      account.tenant_id,
      account.id,
      receipt.providerMessageId,
      callback,
      receipt.status,
      receipt.at,
      receipt.error?.code?.slice(0, 20) ?? null,
      receipt.error?.message?.slice(0, 500) ?? null,
    ],
  )) as { campaign_id: string }[];
  campaignBoardChanged(...rows.map((row) => row.campaign_id));
  return rows.length > 0;
}

/**
 * The phone a customer's message may answer a campaign from: WhatsApp contacts are their phone
 * numbers (digits only); any other contact id (Telegram, Messenger, …) never received a campaign
 * message, so there is nothing to link.
 */
export function campaignReplyPhone(contactExternalId: string): string | null {
  const phone = contactExternalId.replace(/\D/g, '');
  return phone && phone === contactExternalId ? phone : null;
}

/** A customer's message to link to the campaign that reached them (see LINK_CAMPAIGN_REPLIES_SQL). */
export interface CampaignReply {
  tenantId: string;
  accountId: string;
  phone: string;
}

/**
 * A customer's message (a reply or a button tap) after a campaign reached them entered the intake
 * like any message (opening or joining the conversation on the account's line); this links it to
 * the campaign's latest recipient row for that phone, with the conversation. A data-modifying CTE
 * named `linked` (answering campaign_id) over three arrays of one entry per message — tenant ids,
 * account ids, phones at parameters $first, $first+1, $first+2 — so the channel intake writes it in
 * the statement that marks its events processed (one round trip per batch of events, C1), not in
 * one of its own per message.
 */
export function linkCampaignRepliesCte(first: number): string {
  const [tenants, accounts, phones] = [first, first + 1, first + 2].map((n) => `$${n}`);
  return `linked AS (
       UPDATE message_campaign_recipients r SET replied_at = COALESCE(r.replied_at, now()),
         conversation_id = COALESCE(r.conversation_id, (
           SELECT c.id FROM conversations c JOIN contacts k ON k.id = c.contact_id
           WHERE k.tenant_id = l.tenant_id AND k.channel_account_id = l.account_id::text AND k.external_id = l.phone
           ORDER BY c.created_at DESC LIMIT 1)),
         updated_at = now()
       FROM unnest(${tenants}::uuid[], ${accounts}::uuid[], ${phones}::text[]) AS l(tenant_id, account_id, phone)
       CROSS JOIN LATERAL (
         SELECT q.id FROM message_campaign_recipients q
         WHERE q.tenant_id = l.tenant_id AND q.account_id = l.account_id AND q.phone IN (l.phone, '+' || l.phone)
           AND q.status IN ('sent', 'delivered', 'read')
         ORDER BY q.sent_at DESC NULLS LAST LIMIT 1) AS pick
       WHERE r.id = pick.id
       RETURNING r.campaign_id)`;
}

/** The parameters of linkCampaignRepliesCte, in its order. */
export function campaignReplyParams(replies: CampaignReply[]): [string[], string[], string[]] {
  return [replies.map((one) => one.tenantId), replies.map((one) => one.accountId), replies.map((one) => one.phone)];
}

/** The campaigns whose replies a statement with linkCampaignRepliesCte linked: their boards are told. */
export function campaignRepliesLinked(campaignIds: string[]): void {
  if (campaignIds.length) campaignBoardChanged(...new Set(campaignIds));
}

/**
 * A template's status from the provider (webhook or sync): stored with its reason; a template that
 * is paused or disabled pauses the running campaigns that send it, saying why.
 */
export async function applyTemplateStatus(
  db: Db,
  account: Pick<ChannelAccountRow, 'id' | 'tenant_id'>,
  update: { providerTemplateId: string; name: string; language: string; status: string; reason?: string },
): Promise<void> {
  const rows = (await db.query(
    `WITH moved AS (UPDATE channel_templates SET status = $5, reason = $6, provider_template_id = COALESCE(provider_template_id, $2), updated_at = now()
     WHERE tenant_id = $1 AND (provider_template_id = $2 OR (account_id = $7 AND name = $3 AND language = $4))
       AND status IS DISTINCT FROM $5 RETURNING id) SELECT id FROM moved`,
    [
      account.tenant_id,
      update.providerTemplateId,
      update.name,
      update.language,
      update.status.slice(0, 20),
      update.reason?.slice(0, 500) ?? null,
      account.id,
    ],
  )) as { id: string }[];
  if (!rows.length || !['PAUSED', 'DISABLED', 'REJECTED', 'PENDING_DELETION'].includes(update.status)) return;
  const paused = (await db.query(
    `WITH paused AS (UPDATE message_campaigns SET status = 'paused', paused_reason = $2, paused_detail = $3, idle_reason = NULL, idle_until = NULL,
       resume_at = NULL, updated_at = now()
     WHERE template_id = ANY($1::uuid[]) AND status = 'running' RETURNING id) SELECT id FROM paused`,
    [rows.map((row) => row.id), `template_${update.status.toLowerCase()}`.slice(0, 40), update.reason?.slice(0, 500) ?? null],
  )) as { id: string }[];
  campaignBoardChanged(...paused.map((row) => row.id));
}

/** Meta's quality events that pause the number's campaigns: the number was flagged, or its limit went down. */
const PAUSING_QUALITY_EVENTS: Record<string, string> = { FLAGGED: 'quality_flagged', DOWNGRADE: 'quality_downgrade' };

/**
 * The number's quality or messaging limit moved (WhatsApp phone_number_quality_update). The new
 * tier becomes the account's daily limit (setting `dailyLimit`, which the campaign run paces by;
 * a tier without a number removes it). A flag or a downgrade pauses every running campaign of the
 * account, saying why (`quality_flagged` / `quality_downgrade`, the tiers in the detail); a
 * supervisor resumes them when the quality is back.
 */
export async function applyQualityUpdate(
  db: Db,
  account: Pick<ChannelAccountRow, 'id' | 'tenant_id'>,
  update: { event: string; currentLimit?: string; oldLimit?: string },
): Promise<void> {
  const limit = tierDailyLimit(update.currentLimit);
  if (update.currentLimit) {
    await db.query(
      `UPDATE channel_accounts SET settings = CASE WHEN $3::text IS NULL THEN COALESCE(settings, '{}'::jsonb) - 'dailyLimit'
         ELSE jsonb_set(COALESCE(settings, '{}'::jsonb), '{dailyLimit}', to_jsonb($3::text)) END, updated_at = now()
       WHERE id = $1 AND tenant_id = $2`,
      [account.id, account.tenant_id, limit === null ? null : String(limit)],
    );
  }
  const reason = PAUSING_QUALITY_EVENTS[update.event];
  if (!reason) return;
  const detail = [update.event, update.oldLimit ? `${update.oldLimit} → ${update.currentLimit ?? '?'}` : update.currentLimit]
    .filter(Boolean)
    .join(': ');
  const paused = (await db.query(
    `WITH paused AS (UPDATE message_campaigns SET status = 'paused', paused_reason = $3, paused_detail = $4, idle_reason = NULL, idle_until = NULL,
       resume_at = NULL, updated_at = now()
     WHERE tenant_id = $1 AND account_id = $2 AND status = 'running' RETURNING id) SELECT id FROM paused`,
    [account.tenant_id, account.id, reason, detail.slice(0, 500)],
  )) as { id: string }[];
  campaignBoardChanged(...paused.map((row) => row.id));
}
