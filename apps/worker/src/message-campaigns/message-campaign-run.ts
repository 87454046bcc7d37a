import { randomUUID } from 'node:crypto';
import {
  ChannelError,
  type ChannelAccount,
  type ChannelRegistry,
  type MessagingChannelKind,
  type TemplateSend,
} from '@centralita/channels';
import { insertOutbox, messageCampaignBoardEffect, readMessageCampaignBoard, type ConfigCrypto } from '@centralita/contracts/server';
import { templateParameterNames, type HeaderMediaInput } from '@centralita/contracts';
import type { CallingWindows } from '@centralita/domain';
import type { DataSource } from 'typeorm';
import { sendingSlot } from './sending-window';

/** Where a campaign run sends from. */
export interface MessageCampaignDeps {
  db: DataSource;
  registry: ChannelRegistry;
  crypto: ConfigCrypto;
  /**
   * How long a recipient left `sending` by a dead run waits for the provider's `sent` status (which
   * carries the recipient's id as callback data) before it is sent again. Meta reports every message
   * it accepted within seconds; after this window a silent one was never accepted.
   */
  reconcileAfterMs: number;
  sleep?: (ms: number) => Promise<void>;
  /** The clock the sending windows and recipients' `not_before` are read with (tests move it); Date.now by default. */
  now?: () => number;
  /** How often at most a run pushes its campaign's board (outbox socket row) while it sends; 1 s by default. */
  boardEveryMs?: number;
}

/** One template parameter: a phone-list column, or a fixed text. */
export interface ParameterSource {
  source: 'name' | 'phone' | 'fixed';
  value?: string;
  fallback?: string;
}
export interface ParameterMapping {
  header?: ParameterSource[];
  body?: ParameterSource[];
  /** A media header's image, video or document (a public https link or an uploaded media id). */
  headerMedia?: HeaderMediaInput;
}

interface CampaignRow {
  id: string;
  tenant_id: string;
  status: string;
  rate_per_second: number;
  parameter_mapping: ParameterMapping;
  template_name: string;
  template_language: string;
  template_status: string;
  /** Meta's components: a NAMED template's parameter names and a media header's format are read from them. */
  template_components: Record<string, unknown>[];
  account_id: string;
  kind: MessagingChannelKind;
  external_account_id: string;
  settings: Record<string, string>;
  secrets: Record<string, string>;
  verify_token: string;
  usable: boolean;
  calling_windows: CallingWindows | null;
  idle_reason: string | null;
}

interface RecipientRow {
  id: string;
  phone: string;
  name: string | null;
}

/** Meta's throughput limit (messages per second per number) and its pair limit (one user, ~6 s). */
const THROUGHPUT_CODE = '130429';
const PAIR_LIMIT_CODE = '131056';
const IDLE_POLL_MS = 250;
/**
 * A campaign whose next recipient is due later than this (its window opens later) is parked: the
 * run ends and MessageCampaignTimerSweeper (API) starts a new one at `resume_at`, so no worker holds
 * a job for hours and the wait survives any restart. Shorter waits (the pair limit's ~6 s) are slept.
 */
const PARK_AFTER_MS = 30_000;

/**
 * The template a recipient gets: values in the template's order, with their names for a NAMED
 * template (parameter_name) and the campaign's medium for a media header.
 */
export function campaignTemplateSend(
  campaign: Pick<CampaignRow, 'template_name' | 'template_language' | 'template_components' | 'parameter_mapping'>,
  recipient: { phone: string; name: string | null },
): TemplateSend {
  const parameters = templateParameterNames(campaign.template_components ?? []);
  const media = parameters.headerFormat && parameters.headerFormat !== 'TEXT' ? campaign.parameter_mapping.headerMedia : undefined;
  return {
    name: campaign.template_name,
    language: campaign.template_language,
    bodyParameters: parameterValues(campaign.parameter_mapping.body, recipient),
    headerParameters: media ? [] : parameterValues(campaign.parameter_mapping.header, recipient),
    ...(parameters.format === 'NAMED' ? { parameterNames: { header: parameters.header, body: parameters.body } } : {}),
    ...(media ? { headerMedia: { kind: parameters.headerFormat!.toLowerCase() as 'image' | 'video' | 'document', ...media } } : {}),
  };
}

/** A recipient's parameter values, from its phone-list row, in the template's order. */
export function parameterValues(sources: ParameterSource[] | undefined, recipient: { phone: string; name: string | null }): string[] {
  return (sources ?? []).map((source) => {
    const raw = source.source === 'fixed' ? (source.value ?? '') : source.source === 'name' ? (recipient.name ?? '') : recipient.phone;
    return raw.trim() ? raw.trim() : (source.fallback ?? '').trim();
  });
}

/**
 * Runs one message campaign (QUEUES.messageCampaigns) until it is finished, paused or stopped.
 *
 * Each recipient is a small state machine kept in PostgreSQL: queued → sending → sent → delivered →
 * read, or failed / skipped. A batch (the campaign's messages per second) is claimed with
 * FOR NO KEY UPDATE SKIP LOCKED and marked `sending` with this run's token BEFORE the provider is called,
 * and the provider gets the recipient's id as callback data (Meta echoes it in every status).
 *
 * The Cloud API has no idempotency key, so a run that died mid-send leaves `sending` rows whose fate
 * is unknown. Decision (issue 21, "no recipient twice, none skipped"): such a row is not resent at
 * once; it waits `reconcileAfterMs` for Meta's `sent` status, which the API applies by callback
 * data (the row moves to sent and gets its provider id). A row still silent after the window was
 * never accepted by Meta and goes back to `queued`. The same wait covers a send whose answer was
 * lost on the network (accepted or not, nobody knows).
 */
export async function runMessageCampaign(deps: MessageCampaignDeps, job: { tenantId: string; campaignId: string }): Promise<string> {
  const sleep = deps.sleep ?? ((ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms)));
  const now = deps.now ?? Date.now;
  const run = randomUUID();
  let waitUntil = 0;
  let pushedAt = 0;
  const pushBoard = async (force: boolean): Promise<void> => {
    if (!force && Date.now() - pushedAt < (deps.boardEveryMs ?? 1000)) return;
    pushedAt = Date.now();
    await pushCampaignBoard(deps, job.campaignId);
  };
  for (;;) {
    const campaign = await loadCampaign(deps, job);
    if (!campaign) return 'gone';
    if (campaign.status !== 'running') {
      await pushBoard(true);
      return campaign.status;
    }
    if (!campaign.usable) return pause(deps, campaign, 'account_disabled', 'The channel account is disabled or disconnected');
    if (campaign.template_status !== 'APPROVED') {
      return pause(deps, campaign, 'template_not_approved', `The template is ${campaign.template_status}`);
    }
    const adapter = deps.registry.get(campaign.kind);
    if (!adapter) return pause(deps, campaign, 'account_disabled', `No adapter for ${campaign.kind}`);

    await reconcile(deps, campaign.id, run);
    const wait = waitUntil - Date.now();
    if (wait > 0) await sleep(wait);

    const room = await dailyRoom(deps, campaign);
    if (room === 0) return pause(deps, campaign, 'daily_limit', 'The account reached its daily messaging limit');
    const batchStarted = Date.now();
    const claimedNow = await claim(deps, campaign.id, run, Math.min(campaign.rate_per_second, room), now());
    const claimed = await outsideWindows(deps, campaign, run, claimedNow, now());
    if (!claimedNow.length) {
      const [left] = (await deps.db.query(
        `SELECT count(*) FILTER (WHERE status = 'queued')::int AS queued, count(*) FILTER (WHERE status = 'sending')::int AS sending,
           min(not_before) FILTER (WHERE status = 'queued') AS next_due
         FROM message_campaign_recipients WHERE campaign_id = $1`,
        [campaign.id],
      )) as { queued: number; sending: number; next_due: Date | null }[];
      if (!left || (left.queued === 0 && left.sending === 0)) {
        await deps.db.query(
          `UPDATE message_campaigns SET status = 'finished', finished_at = now(), idle_reason = NULL, idle_until = NULL, updated_at = now()
           WHERE id = $1 AND status = 'running'`,
          [campaign.id],
        );
        await pushBoard(true);
        return 'finished';
      }
      const nextDue = left.next_due ? new Date(left.next_due).getTime() : null;
      if (left.sending === 0 && nextDue !== null && nextDue - now() > PARK_AFTER_MS) {
        // Everyone left waits for their window: park until the earliest opening (the sweeper resumes it).
        const [, parked] = (await deps.db.query(
          `UPDATE message_campaigns SET idle_reason = 'outside_sending_window', idle_until = $2, resume_at = $2, updated_at = now()
           WHERE id = $1 AND status = 'running'`,
          [campaign.id, new Date(nextDue)],
        )) as [unknown, number];
        await pushBoard(true);
        if (parked > 0) return 'waiting';
        continue;
      }
      await pushBoard(false);
      await sleep(IDLE_POLL_MS);
      continue;
    }
    if (campaign.idle_reason) {
      await deps.db.query(`UPDATE message_campaigns SET idle_reason = NULL, idle_until = NULL, updated_at = now() WHERE id = $1`, [
        campaign.id,
      ]);
    }
    if (!claimed.length) continue;
    const account: ChannelAccount = {
      id: campaign.account_id,
      kind: campaign.kind,
      externalAccountId: campaign.external_account_id,
      settings: campaign.settings ?? {},
      secrets: Object.fromEntries(Object.entries(campaign.secrets ?? {}).map(([name, value]) => [name, deps.crypto.decrypt(value)])),
      verifyToken: campaign.verify_token,
    };
    const optedOut = await optedOutPhones(deps, campaign, claimed);
    const outcomes = await Promise.all(
      claimed.map(async (recipient) => {
        if (optedOut.has(digits(recipient.phone))) {
          await settle(deps, recipient.id, run, { status: 'skipped', skipReason: 'opted_out' });
          return 0;
        }
        try {
          const sent = await adapter.send(
            account,
            {
              to: recipient.phone,
              template: campaignTemplateSend(campaign, recipient),
              callbackData: recipient.id,
            },
            { idempotencyKey: `message-campaign.${recipient.id}` },
          );
          await deps.db.query(
            `UPDATE message_campaign_recipients SET provider_message_id = $2,
               status = CASE WHEN status = 'sending' THEN 'sent' ELSE status END,
               sent_at = COALESCE(sent_at, now()), claim_token = NULL, updated_at = now()
             WHERE id = $1`,
            [recipient.id, sent.providerMessageId],
          );
          return 0;
        } catch (error) {
          return failedSend(deps, recipient.id, run, error, now());
        }
      }),
    );
    // A rate limit holds the whole campaign back for as long as Meta asked.
    waitUntil = Math.max(waitUntil, Date.now() + Math.max(0, ...outcomes));
    await pushBoard(false);
    // Pace: a batch of `rate_per_second` messages per second at most.
    const elapsed = Date.now() - batchStarted;
    if (elapsed < 1000) await sleep(1000 - elapsed);
  }
}

async function loadCampaign(deps: MessageCampaignDeps, job: { tenantId: string; campaignId: string }): Promise<CampaignRow | undefined> {
  const [campaign] = (await deps.db.query(
    `SELECT c.id, c.tenant_id, c.status, c.rate_per_second, c.parameter_mapping, c.calling_windows, c.idle_reason,
       t.name AS template_name, t.language AS template_language, t.status AS template_status, t.components AS template_components,
       a.id AS account_id, a.kind, a.external_account_id, a.settings, a.secrets, a.verify_token,
       (a.enabled AND a.deleted_at IS NULL) AS usable
     FROM message_campaigns c JOIN channel_templates t ON t.id = c.template_id JOIN channel_accounts a ON a.id = c.account_id
     WHERE c.id = $1 AND c.tenant_id = $2`,
    [job.campaignId, job.tenantId],
  )) as CampaignRow[];
  return campaign;
}

async function pause(deps: MessageCampaignDeps, campaign: CampaignRow, reason: string, detail: string): Promise<string> {
  await deps.db.query(
    `UPDATE message_campaigns SET status = 'paused', paused_reason = $2, paused_detail = $3, idle_reason = NULL, idle_until = NULL, updated_at = now()
     WHERE id = $1 AND status = 'running'`,
    [campaign.id, reason, detail.slice(0, 500)],
  );
  await pushCampaignBoard(deps, campaign.id);
  return 'paused';
}

/** The campaign's board, pushed to its tenant's room through the outbox (the API's relay delivers the worker's rows). */
export async function pushCampaignBoard(deps: Pick<MessageCampaignDeps, 'db'>, campaignId: string): Promise<void> {
  const read = await readMessageCampaignBoard(deps.db, campaignId);
  if (read) await insertOutbox(deps.db, [messageCampaignBoardEffect(read.tenantId, read.board)], { wakeRelay: true });
}

/**
 * Of a claimed batch, the recipients inside their sending window (answered, to send now). The
 * others go back to the queue until their window opens (`not_before`, read by `claim` with the
 * run's clock), or are skipped when their number's zone is unknown.
 */
async function outsideWindows(
  deps: MessageCampaignDeps,
  campaign: CampaignRow,
  run: string,
  claimed: RecipientRow[],
  at: number,
): Promise<RecipientRow[]> {
  if (!campaign.calling_windows) return claimed;
  const inside: RecipientRow[] = [];
  for (const recipient of claimed) {
    const slot = sendingSlot(recipient.phone, at, campaign.calling_windows);
    if (slot.kind === 'now') inside.push(recipient);
    else if (slot.kind === 'unknownZone') await settle(deps, recipient.id, run, { status: 'skipped', skipReason: 'unknown_time_zone' });
    else await settle(deps, recipient.id, run, { status: 'queued', notBefore: new Date(slot.at) });
  }
  return inside;
}

/** Rows a dead run (or a lost answer) left `sending`: back to the queue once Meta had time to say it took them. */
async function reconcile(deps: MessageCampaignDeps, campaignId: string, run: string): Promise<void> {
  await deps.db.query(
    `UPDATE message_campaign_recipients SET status = 'queued', claim_token = NULL, updated_at = now()
     WHERE campaign_id = $1 AND status = 'sending' AND claim_token IS DISTINCT FROM $2 AND provider_message_id IS NULL
       AND claimed_at < now() - make_interval(secs => $3::double precision / 1000)`,
    [campaignId, run, deps.reconcileAfterMs],
  );
}

/** What the account's daily messaging limit (setting `dailyLimit`, Meta's tier) still allows; Infinity without one. */
async function dailyRoom(deps: MessageCampaignDeps, campaign: CampaignRow): Promise<number> {
  const limit = Number(campaign.settings?.dailyLimit);
  if (!Number.isFinite(limit) || limit <= 0) return Number.POSITIVE_INFINITY;
  const [row] = (await deps.db.query(
    `SELECT count(*)::int AS used FROM message_campaign_recipients
     WHERE account_id = $1 AND (sent_at > now() - interval '24 hours' OR status = 'sending')`,
    [campaign.account_id],
  )) as { used: number }[];
  return Math.max(0, limit - (row?.used ?? 0));
}

async function claim(deps: MessageCampaignDeps, campaignId: string, run: string, limit: number, at: number): Promise<RecipientRow[]> {
  // A CTE so the driver answers the rows (a bare UPDATE … RETURNING answers [rows, count]).
  return (await deps.db.query(
    `WITH claimed AS (UPDATE message_campaign_recipients r SET status = 'sending', claim_token = $2, claimed_at = now(), attempts = r.attempts + 1, updated_at = now()
     WHERE r.id IN (
       SELECT q.id FROM message_campaign_recipients q
       WHERE q.campaign_id = $1 AND q.status = 'queued' AND (q.not_before IS NULL OR q.not_before <= $4)
         AND EXISTS (SELECT 1 FROM message_campaigns c WHERE c.id = $1 AND c.status = 'running')
       ORDER BY q.seq FOR NO KEY UPDATE SKIP LOCKED LIMIT $3)
     RETURNING r.id, r.phone, r.name, r.seq)
     SELECT id, phone, name FROM claimed ORDER BY seq`,
    [campaignId, run, Math.max(1, Math.floor(limit)), new Date(at)],
  )) as RecipientRow[];
}

async function optedOutPhones(deps: MessageCampaignDeps, campaign: CampaignRow, recipients: RecipientRow[]): Promise<Set<string>> {
  const rows = (await deps.db.query(
    `SELECT external_id FROM contacts WHERE tenant_id = $1 AND channel = $2 AND channel_account_id = $3
       AND external_id = ANY($4::text[]) AND opted_out_at IS NOT NULL`,
    [campaign.tenant_id, campaign.kind, campaign.account_id, recipients.map((recipient) => digits(recipient.phone))],
  )) as { external_id: string }[];
  return new Set(rows.map((row) => row.external_id));
}

async function settle(
  deps: MessageCampaignDeps,
  id: string,
  run: string,
  outcome: { status: 'failed' | 'skipped' | 'queued'; skipReason?: string; code?: string; text?: string; notBefore?: Date },
): Promise<void> {
  await deps.db.query(
    `UPDATE message_campaign_recipients SET status = $3, skip_reason = $4, error_code = $5, error_text = $6,
       not_before = COALESCE($7::timestamptz, not_before),
       claim_token = NULL, updated_at = now()
     WHERE id = $1 AND status = 'sending' AND claim_token = $2`,
    [
      id,
      run,
      outcome.status,
      outcome.skipReason ?? null,
      outcome.code ?? null,
      outcome.text?.slice(0, 500) ?? null,
      outcome.notBefore ?? null,
    ],
  );
}

/**
 * A failed send: a rate limit puts the recipient back in the queue (the pair limit for ~6 s) and
 * answers how long the campaign waits; a network failure is ambiguous and left `sending` for
 * reconcile (above); any other provider refusal fails the recipient with Meta's code and text.
 */
async function failedSend(deps: MessageCampaignDeps, id: string, run: string, error: unknown, at: number): Promise<number> {
  const channelError = error instanceof ChannelError ? error : undefined;
  const code = channelError?.details.code ?? 'unknown';
  const wait = channelError?.details.retryAfterMs ?? 1000;
  if (code === PAIR_LIMIT_CODE) {
    await settle(deps, id, run, { status: 'queued', code, text: channelError?.message, notBefore: new Date(at + Math.max(wait, 6000)) });
    return 0;
  }
  if (channelError?.details.retryable && code !== 'network') {
    await settle(deps, id, run, { status: 'queued', code, text: channelError.message });
    return code === THROUGHPUT_CODE ? wait : Math.min(wait, 5000);
  }
  if (code === 'network') {
    // Accepted or not, nobody knows: reconcile decides once Meta had time to report it.
    await deps.db.query(`UPDATE message_campaign_recipients SET claim_token = NULL WHERE id = $1 AND claim_token = $2`, [id, run]);
    return 0;
  }
  await settle(deps, id, run, {
    status: 'failed',
    code,
    text: (error as Error)?.message ?? 'The provider refused the message',
  });
  return 0;
}

function digits(phone: string): string {
  return phone.replace(/\D/g, '');
}
