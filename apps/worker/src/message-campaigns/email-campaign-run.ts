import { randomUUID } from 'node:crypto';
import {
  ChannelError,
  domainOf,
  emailNetworkFromEnv,
  emailSettingsOf,
  newMessageId,
  sendSmtp,
  smtpError,
  type EmailNetwork,
} from '@centralita/channels';
import {
  EMAIL_CAMPAIGN_DEFAULT_PER_MINUTE,
  EMAIL_CAMPAIGN_MAX_PER_MINUTE,
  emailParameterValues,
  renderEmailTemplate,
  type ParameterSourceInput,
} from '@centralita/contracts';
import {
  isMailBlocked,
  recordHardBounce,
  unsubscribeHeaders,
  type ConfigCrypto,
  type UnsubscribeSigner,
} from '@centralita/contracts/server';
import type { DataSource } from 'typeorm';
import type { CallingWindows } from '@centralita/domain';
import { pushCampaignBoard } from './message-campaign-run';
import { sendingSlot } from './sending-window';

export interface EmailCampaignDeps {
  db: DataSource;
  crypto: ConfigCrypto;
  signer: UnsubscribeSigner;
  /** The console's public origin (PUBLIC_URL): the unsubscribe link's host. */
  publicUrl: string;
  /** How long a recipient left `sending` by another run waits before this run decides its fate (see reconcile). */
  reconcileAfterMs: number;
  network?: EmailNetwork;
  sleep?: (ms: number) => Promise<void>;
  /** Wait before a recipient refused with a temporary error (4xx, network) is tried again. */
  retryAfterMs?: number;
}

interface EmailCampaignRow {
  id: string;
  tenant_id: string;
  status: string;
  parameter_mapping: { body?: ParameterSourceInput[] };
  calling_windows: CallingWindows | null;
  components: Record<string, unknown>[];
  template_language: string;
  account_id: string;
  external_account_id: string;
  settings: Record<string, string> | null;
  secrets: Record<string, string> | null;
  usable: boolean;
}

interface EmailRecipientRow {
  id: string;
  phone: string;
  name: string | null;
  address: string;
  attempts: number;
  fields: Record<string, string> | null;
}

const IDLE_POLL_MS = 250;
/** While every recipient left waits for its sending window, the run looks again this often (it does not park). */
const WINDOW_POLL_MS = 5000;
/** A temporary refusal (4xx, the server unreachable) is tried this many times in all before the recipient fails. */
const MAX_ATTEMPTS = 3;
export const UNCONFIRMED_TEXT = 'Sent once, unconfirmed: the worker stopped after handing it to the mail server and did not send it again';

/** The account's pace (setting campaignPerMinute), within 1…6000; 60 when unset or unreadable. */
export function perMinuteOf(settings: Record<string, string> | null): number {
  const value = Number(settings?.campaignPerMinute?.trim() || NaN);
  if (!Number.isFinite(value) || value < 1) return EMAIL_CAMPAIGN_DEFAULT_PER_MINUTE;
  return Math.min(EMAIL_CAMPAIGN_MAX_PER_MINUTE, Math.floor(value));
}

/**
 * Runs one email campaign (QUEUES.messageCampaigns, channel 'email') until it is finished, paused
 * or stopped: the template rendered per recipient, one SMTP transaction per recipient through the
 * email channel's sender, with List-Unsubscribe / List-Unsubscribe-Post and the signed link.
 *
 * Pace: the account's messages per minute, in batches of a second's worth (at least one).
 *
 * Never twice (the email desk's rule, apps/worker/src/email/email-send.ts): a recipient is claimed
 * (`sending`, this run's token), then `send_started_at` and its Message-ID are committed right
 * before the SMTP transaction, and `sent` after the server's 250. A recipient another run left
 * `sending` (that run died) is, after `reconcileAfterMs`: back in the queue when its SMTP
 * transaction never started, or `sent` and marked unconfirmed when it did (the server may have
 * taken it), never sent again. A failure this run saw (a refusal, the server unreachable) clears
 * the mark: a 4xx or network failure is tried again later (three attempts in all), a 5xx fails
 * the recipient with the server's code and text.
 */
export async function runEmailCampaign(deps: EmailCampaignDeps, job: { tenantId: string; campaignId: string }): Promise<string> {
  const sleep = deps.sleep ?? ((ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms)));
  const run = randomUUID();
  // The open boards follow the sends (outbox socket rows, as the WhatsApp run's): at most once a second, and at the end.
  let pushedAt = 0;
  const pushBoard = async (force: boolean) => {
    if (!force && Date.now() - pushedAt < 1000) return;
    pushedAt = Date.now();
    await pushCampaignBoard(deps, job.campaignId);
  };
  try {
    return await sendAll(deps, job, run, sleep, pushBoard);
  } finally {
    await pushBoard(true).catch(() => undefined);
  }
}

async function sendAll(
  deps: EmailCampaignDeps,
  job: { tenantId: string; campaignId: string },
  run: string,
  sleep: (ms: number) => Promise<void>,
  pushBoard: (force: boolean) => Promise<void>,
): Promise<string> {
  for (;;) {
    const campaign = await loadCampaign(deps, job);
    if (!campaign) return 'gone';
    if (campaign.status !== 'running') return campaign.status;
    if (!campaign.usable) return pause(deps, campaign.id, 'account_disabled', 'The email account is disabled or deleted');
    if (!deps.signer.configured) {
      return pause(
        deps,
        campaign.id,
        'unsubscribe_unavailable',
        'CONFIG_ENCRYPTION_KEY is not set: campaign mail cannot carry an unsubscribe link',
      );
    }
    let settings: ReturnType<typeof emailSettingsOf>;
    try {
      const secrets = Object.fromEntries(Object.entries(campaign.secrets ?? {}).map(([name, value]) => [name, deps.crypto.decrypt(value)]));
      settings = emailSettingsOf({ settings: { ...campaign.settings }, secrets, externalAccountId: campaign.external_account_id });
    } catch (error) {
      return pause(deps, campaign.id, 'account_disabled', error instanceof Error ? error.message : String(error));
    }

    await reconcile(deps, campaign.id, run);
    const perMinute = perMinuteOf(campaign.settings);
    const batchSize = Math.max(1, Math.floor(perMinute / 60));
    const batchStarted = Date.now();
    const claimed = await claim(deps, campaign.id, run, batchSize);
    if (!claimed.length) {
      const [left] = (await deps.db.query(
        `SELECT count(*) FILTER (WHERE status = 'queued')::int AS queued, count(*) FILTER (WHERE status = 'sending')::int AS sending
         FROM message_campaign_recipients WHERE campaign_id = $1`,
        [campaign.id],
      )) as { queued: number; sending: number }[];
      if (!left || (left.queued === 0 && left.sending === 0)) {
        await deps.db.query(
          `UPDATE message_campaigns SET status = 'finished', finished_at = now(), updated_at = now() WHERE id = $1 AND status = 'running'`,
          [campaign.id],
        );
        return 'finished';
      }
      const [next] = (await deps.db.query(
        `SELECT count(*) FILTER (WHERE not_before IS NULL OR not_before <= now() + interval '1 second')::int AS due
         FROM message_campaign_recipients WHERE campaign_id = $1 AND status = 'queued'`,
        [campaign.id],
      )) as { due: number }[];
      await sleep(left.sending === 0 && next?.due === 0 ? WINDOW_POLL_MS : IDLE_POLL_MS);
      continue;
    }
    for (const recipient of claimed) await sendOne(deps, campaign, settings, run, recipient);
    await pushBoard(false);
    const spacing = (batchSize * 60_000) / perMinute;
    const elapsed = Date.now() - batchStarted;
    if (elapsed < spacing) await sleep(spacing - elapsed);
  }
}

async function loadCampaign(deps: EmailCampaignDeps, job: { tenantId: string; campaignId: string }): Promise<EmailCampaignRow | undefined> {
  const [campaign] = (await deps.db.query(
    `SELECT c.id, c.tenant_id, c.status, c.parameter_mapping, c.calling_windows, t.components, t.language AS template_language,
       a.id AS account_id, a.external_account_id, a.settings, a.secrets, (a.enabled AND a.deleted_at IS NULL) AS usable
     FROM message_campaigns c JOIN channel_templates t ON t.id = c.template_id JOIN channel_accounts a ON a.id = c.account_id
     WHERE c.id = $1 AND c.tenant_id = $2 AND c.channel = 'email'`,
    [job.campaignId, job.tenantId],
  )) as EmailCampaignRow[];
  return campaign;
}

async function pause(deps: EmailCampaignDeps, campaignId: string, reason: string, detail: string): Promise<string> {
  await deps.db.query(
    `UPDATE message_campaigns SET status = 'paused', paused_reason = $2, paused_detail = $3, updated_at = now() WHERE id = $1 AND status = 'running'`,
    [campaignId, reason, detail.slice(0, 500)],
  );
  return 'paused';
}

/** Recipients a dead run left `sending`: queued again when their SMTP transaction never started, sent unconfirmed when it did. */
async function reconcile(deps: EmailCampaignDeps, campaignId: string, run: string): Promise<void> {
  await deps.db.query(
    `UPDATE message_campaign_recipients SET
       status = CASE WHEN send_started_at IS NULL THEN 'queued' ELSE 'sent' END,
       sent_at = CASE WHEN send_started_at IS NULL THEN sent_at ELSE COALESCE(sent_at, send_started_at) END,
       error_code = CASE WHEN send_started_at IS NULL THEN error_code ELSE 'unconfirmed' END,
       error_text = CASE WHEN send_started_at IS NULL THEN error_text ELSE $4 END,
       claim_token = NULL, updated_at = now()
     WHERE campaign_id = $1 AND status = 'sending' AND claim_token IS DISTINCT FROM $2
       AND claimed_at < now() - make_interval(secs => $3::double precision / 1000)`,
    [campaignId, run, deps.reconcileAfterMs, UNCONFIRMED_TEXT],
  );
}

async function claim(deps: EmailCampaignDeps, campaignId: string, run: string, limit: number): Promise<EmailRecipientRow[]> {
  return (await deps.db.query(
    `WITH claimed AS (UPDATE message_campaign_recipients r SET status = 'sending', claim_token = $2, claimed_at = now(),
       attempts = r.attempts + 1, send_started_at = NULL, updated_at = now()
     WHERE r.id IN (
       SELECT q.id FROM message_campaign_recipients q
       WHERE q.campaign_id = $1 AND q.status = 'queued' AND (q.not_before IS NULL OR q.not_before <= now())
         AND EXISTS (SELECT 1 FROM message_campaigns c WHERE c.id = $1 AND c.status = 'running')
       ORDER BY q.seq FOR NO KEY UPDATE SKIP LOCKED LIMIT $3)
     RETURNING r.id, r.phone, r.name, r.address, r.attempts, r.seq, r.campaign_id)
     SELECT c.id, c.phone, c.name, c.address, c.attempts, e.fields
     FROM claimed c JOIN message_campaigns m ON m.id = c.campaign_id
       LEFT JOIN phone_list_entries e ON e.list_id = m.phone_list_id AND e.phone = c.phone
     ORDER BY c.seq`,
    [campaignId, run, Math.max(1, Math.floor(limit))],
  )) as EmailRecipientRow[];
}

async function settle(
  deps: EmailCampaignDeps,
  id: string,
  run: string,
  outcome: { status: 'failed' | 'skipped' | 'queued'; skipReason?: string; code?: string; text?: string; notBeforeMs?: number },
): Promise<void> {
  await deps.db.query(
    `UPDATE message_campaign_recipients SET status = $3, skip_reason = $4, error_code = $5, error_text = $6, send_started_at = NULL,
       provider_message_id = NULL,
       not_before = CASE WHEN $7::int IS NULL THEN not_before ELSE now() + make_interval(secs => $7::int / 1000.0) END,
       claim_token = NULL, updated_at = now()
     WHERE id = $1 AND status = 'sending' AND claim_token = $2`,
    [
      id,
      run,
      outcome.status,
      outcome.skipReason ?? null,
      outcome.code ?? null,
      outcome.text?.slice(0, 500) ?? null,
      outcome.notBeforeMs ?? null,
    ],
  );
}

async function sendOne(
  deps: EmailCampaignDeps,
  campaign: EmailCampaignRow,
  settings: ReturnType<typeof emailSettingsOf>,
  run: string,
  recipient: EmailRecipientRow,
): Promise<void> {
  // The campaign's sending windows, judged by the row's phone as the WhatsApp run does (no windows: any hour).
  const slot = sendingSlot(recipient.phone, Date.now(), campaign.calling_windows);
  if (slot.kind === 'unknownZone') {
    await settle(deps, recipient.id, run, { status: 'skipped', skipReason: 'unknown_time_zone' });
    return;
  }
  if (slot.kind === 'later') {
    // Back in the queue until its window opens; waiting is no attempt.
    await deps.db.query(
      `UPDATE message_campaign_recipients SET status = 'queued', claim_token = NULL, attempts = greatest(0, attempts - 1),
         not_before = to_timestamp($3::double precision / 1000), updated_at = now()
       WHERE id = $1 AND status = 'sending' AND claim_token = $2`,
      [recipient.id, run, slot.at],
    );
    return;
  }
  // Checked right before the send: the address may have unsubscribed since the campaign started.
  const blocked = await isMailBlocked(deps.db, campaign.tenant_id, recipient.address);
  if (blocked) {
    await settle(deps, recipient.id, run, {
      status: 'skipped',
      skipReason: blocked === 'unsubscribe' ? 'unsubscribed' : 'mail_blacklisted',
    });
    return;
  }
  const rendered = renderEmailTemplate(campaign.components, emailParameterValues(campaign.parameter_mapping.body, recipient));
  const messageId = newMessageId(settings.from.address);
  const [, started] = (await deps.db.query(
    `UPDATE message_campaign_recipients SET send_started_at = now(), provider_message_id = $3, updated_at = now()
     WHERE id = $1 AND claim_token = $2 AND status = 'sending' AND send_started_at IS NULL
       AND EXISTS (SELECT 1 FROM message_campaigns c WHERE c.id = campaign_id AND c.status = 'running')`,
    [recipient.id, run, messageId],
  )) as [unknown, number];
  if (!started) {
    // Paused or stopped meanwhile: the recipient goes back to the queue unsent.
    await settle(deps, recipient.id, run, { status: 'queued' });
    return;
  }
  try {
    const headers = unsubscribeHeaders({
      tenantId: campaign.tenant_id,
      address: recipient.address,
      publicUrl: deps.publicUrl,
      mailtoDomain: domainOf(settings.from.address),
      language: campaign.template_language.slice(0, 2),
      signer: deps.signer,
    });
    await sendSmtp(settings.smtp, deps.network ?? emailNetworkFromEnv(), {
      from: settings.from,
      to: [{ address: recipient.address, name: recipient.name }],
      cc: [],
      bcc: [],
      subject: rendered.subject,
      text: rendered.text,
      html: rendered.html,
      messageId,
      inReplyTo: null,
      references: [],
      replyTo: null,
      attachments: [],
      headers,
    });
    await deps.db.query(
      `UPDATE message_campaign_recipients SET status = 'sent', sent_at = now(), error_code = NULL, error_text = NULL, claim_token = NULL,
         updated_at = now()
       WHERE id = $1 AND status = 'sending'`,
      [recipient.id],
    );
  } catch (caught) {
    // The platform saw the failure: the server did not take the mail (settle clears the mark).
    const error = caught instanceof ChannelError ? caught : smtpError(caught);
    const code = error.details.status ? String(error.details.status) : error.details.code;
    if (error.details.retryable && recipient.attempts < MAX_ATTEMPTS) {
      await settle(deps, recipient.id, run, { status: 'queued', code, text: error.message, notBeforeMs: deps.retryAfterMs ?? 30_000 });
      return;
    }
    await settle(deps, recipient.id, run, { status: 'failed', code: code.slice(0, 20), text: error.message });
    // A permanent refusal of the address itself (5xx with 5.1.x: no such mailbox, bad address) lists it as a hard bounce.
    if (error.details.status && error.details.status >= 500 && /\b5\.1\.\d{1,3}\b/.test(error.message)) {
      await recordHardBounce(deps.db, campaign.tenant_id, recipient.address, `${code} ${error.message}`);
    }
  }
}
