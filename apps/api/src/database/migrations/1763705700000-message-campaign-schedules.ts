import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Issue 21 (schedules, sending windows, quality pause): a message campaign's schedule and the
 * deadlines its timer sweeper fires (MessageCampaignTimerSweeper), as the dialer's campaigns keep
 * theirs (`timer_at` there, one column per deadline here because a running campaign can wait for
 * its window and for its end at once).
 *
 * - `calling_windows`: the dialer's calling windows (weekday → HH:MM ranges, the recipient's local
 *   time, zone from the number); NULL = no window (sends at any hour).
 * - `starts_at` (already there) / `ends_at`: a campaign started with a future `starts_at` is
 *   `scheduled` until then; at `ends_at` it finishes and its unsent recipients are skipped.
 * - `resume_at`: a running campaign whose recipients are all outside their window is parked (no
 *   worker holds it) and resumed at the next opening.
 * - `idle_reason` / `idle_until`: why a running campaign sends nothing now and until when, for
 *   the board ("waiting for the sending window, opens at …").
 */
export class MessageCampaignSchedules1763705700000 implements MigrationInterface {
  name = 'MessageCampaignSchedules1763705700000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      ALTER TABLE "message_campaigns"
        ADD COLUMN "calling_windows" jsonb,
        ADD COLUMN "ends_at" TIMESTAMP WITH TIME ZONE,
        ADD COLUMN "resume_at" TIMESTAMP WITH TIME ZONE,
        ADD COLUMN "idle_reason" character varying(40),
        ADD COLUMN "idle_until" TIMESTAMP WITH TIME ZONE`);
    await q.query(`CREATE INDEX "ix_message_campaigns_starts" ON "message_campaigns" ("starts_at") WHERE "status" = 'scheduled'`);
    await q.query(
      `CREATE INDEX "ix_message_campaigns_ends" ON "message_campaigns" ("ends_at") WHERE "ends_at" IS NOT NULL AND "status" IN ('scheduled', 'running', 'paused')`,
    );
    await q.query(`CREATE INDEX "ix_message_campaigns_resume" ON "message_campaigns" ("resume_at") WHERE "resume_at" IS NOT NULL`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP INDEX "ix_message_campaigns_resume"`);
    await q.query(`DROP INDEX "ix_message_campaigns_ends"`);
    await q.query(`DROP INDEX "ix_message_campaigns_starts"`);
    await q.query(
      `ALTER TABLE "message_campaigns" DROP COLUMN "calling_windows", DROP COLUMN "ends_at", DROP COLUMN "resume_at", DROP COLUMN "idle_reason", DROP COLUMN "idle_until"`,
    );
  }
}
