import type { MessageCampaignBoardPush, MessageCampaignIdleReason } from '../message-campaign-schedule';
import type { RecipientStatus } from '../message-campaigns';
import { roomName } from '../realtime';
import { socketEffect, type OutboxEffect } from './outbox';

type Db = { query: (sql: string, params?: unknown[]) => Promise<unknown> };

const STATUSES: RecipientStatus[] = ['queued', 'sending', 'sent', 'delivered', 'read', 'failed', 'skipped'];

const iso = (value: unknown): string | null => (value ? new Date(value as string).toISOString() : null);

/**
 * A message campaign's counters: recipients per status, the total, those who replied, and the
 * skipped ones per reason. One grouped count over the campaign's recipients; the board push and the
 * API's campaign view both read them here.
 */
export async function readMessageCampaignCounts(
  db: Db,
  campaignId: string,
): Promise<{ counts: MessageCampaignBoardPush['counts']; skipped: Record<string, number> }> {
  const rows = (await db.query(
    `SELECT status, skip_reason, count(*)::int AS n, count(*) FILTER (WHERE replied_at IS NOT NULL)::int AS replied
     FROM message_campaign_recipients WHERE campaign_id = $1 GROUP BY status, skip_reason`,
    [campaignId],
  )) as { status: RecipientStatus; skip_reason: string | null; n: number; replied: number }[];
  const counts = Object.fromEntries(STATUSES.map((status) => [status, 0])) as MessageCampaignBoardPush['counts'];
  counts.total = 0;
  counts.replied = 0;
  const skipped: Record<string, number> = {};
  for (const row of rows) {
    counts[row.status] += row.n;
    counts.total += row.n;
    counts.replied += row.replied;
    if (row.status === 'skipped' && row.skip_reason) skipped[row.skip_reason] = (skipped[row.skip_reason] ?? 0) + row.n;
  }
  return { counts, skipped };
}

/**
 * A message campaign's board (state and counters) read now, with its tenant: what the API and the
 * worker push to the tenant room when it changes (issue 21). One grouped count over the campaign's
 * recipients (index ix_message_campaign_recipients_next).
 */
export async function readMessageCampaignBoard(
  db: Db,
  campaignId: string,
): Promise<{ tenantId: string; board: MessageCampaignBoardPush } | null> {
  const at = Date.now();
  const [row] = (await db.query(
    `SELECT id, tenant_id, status, paused_reason, paused_detail, idle_reason, idle_until, starts_at, ends_at, started_at, finished_at
     FROM message_campaigns WHERE id = $1`,
    [campaignId],
  )) as Record<string, unknown>[];
  if (!row) return null;
  const { counts, skipped } = await readMessageCampaignCounts(db, campaignId);
  return {
    tenantId: row.tenant_id as string,
    board: {
      id: row.id as string,
      status: row.status as MessageCampaignBoardPush['status'],
      pausedReason: (row.paused_reason as string | null) ?? null,
      pausedDetail: (row.paused_detail as string | null) ?? null,
      idleReason: (row.idle_reason as MessageCampaignIdleReason | null) ?? null,
      idleUntil: iso(row.idle_until),
      startsAt: iso(row.starts_at),
      endsAt: iso(row.ends_at),
      startedAt: iso(row.started_at),
      finishedAt: iso(row.finished_at),
      counts,
      skipped,
      at,
    },
  };
}

/** The outbox effect pushing a board to its tenant's staff room. */
export function messageCampaignBoardEffect(tenantId: string, board: MessageCampaignBoardPush): OutboxEffect {
  return socketEffect({
    namespace: 'staff',
    rooms: [roomName({ kind: 'tenant', id: tenantId })],
    event: 'messageCampaign.board',
    data: board,
  });
}
