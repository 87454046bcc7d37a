import { scheduleProblem, type CallingWindowsInput, type MessageCampaignScheduleInput } from '@centralita/contracts';
import { AppException } from '../../common/app.exception';

type Db = { query: (sql: string, params?: unknown[]) => Promise<unknown> };

export interface ScheduleColumns {
  startsAt: Date | null;
  endsAt: Date | null;
  callingWindows: CallingWindowsInput | null;
}

/** A campaign's schedule from its input, checked (400 naming the field). */
export function scheduleColumns(input: MessageCampaignScheduleInput): ScheduleColumns {
  const problem = scheduleProblem(input, Date.now());
  if (problem) throw new AppException('validation', { message: problem });
  return {
    startsAt: input.startsAt ? new Date(input.startsAt) : null,
    endsAt: input.endsAt ? new Date(input.endsAt) : null,
    callingWindows: input.callingWindows ?? null,
  };
}

export async function saveSchedule(db: Db, campaignId: string, schedule: ScheduleColumns): Promise<void> {
  await db.query(`UPDATE message_campaigns SET starts_at = $2, ends_at = $3, calling_windows = $4::jsonb WHERE id = $1`, [
    campaignId,
    schedule.startsAt,
    schedule.endsAt,
    schedule.callingWindows === null ? null : JSON.stringify(schedule.callingWindows),
  ]);
}

/**
 * Started while its start time is still ahead: the draft becomes `scheduled` and nothing else
 * happens now; its deadline is `starts_at` itself, which the timer sweeper fires (durable: it is
 * the row). Answers whether it was scheduled.
 */
export async function scheduleInstead(db: Db, campaign: { id: string; status: string }): Promise<boolean> {
  if (campaign.status !== 'draft') return false;
  const rows = (await db.query(
    `WITH moved AS (UPDATE message_campaigns SET status = 'scheduled', updated_at = now()
       WHERE id = $1 AND status = 'draft' AND starts_at > now() RETURNING id) SELECT id FROM moved`,
    [campaign.id],
  )) as unknown[];
  return rows.length > 0;
}

const iso = (value: unknown): string | null => (value ? new Date(value as string).toISOString() : null);

/** The schedule part of a campaign's view. */
export function scheduleView(row: Record<string, unknown>): {
  startsAt: string | null;
  endsAt: string | null;
  callingWindows: CallingWindowsInput | null;
  idleReason: string | null;
  idleUntil: string | null;
} {
  return {
    startsAt: iso(row.starts_at),
    endsAt: iso(row.ends_at),
    callingWindows: (row.calling_windows as CallingWindowsInput | null) ?? null,
    idleReason: (row.idle_reason as string | null) ?? null,
    idleUntil: iso(row.idle_until),
  };
}
