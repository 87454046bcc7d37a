import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Issue 18 item 1: a campaign's start and end timers become a deadline on its row, written by the
 * same UPDATE that steps the campaign's machine (so a process dying after commit cannot lose them)
 * and swept with FOR UPDATE SKIP LOCKED by every API process. A campaign guards at most one timer
 * at a time (its start while scheduled, its window's end while live): `timer_event` is the event
 * it sends and `timer_at` when (epoch ms, echoed as the event's `armedAt`). Campaigns already
 * scheduled or live get theirs from their snapshot.
 */
export class CampaignTimerDeadlines1763703600000 implements MigrationInterface {
  name = 'CampaignTimerDeadlines1763703600000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE "dialer_campaigns" ADD "timer_event" character varying(40), ADD "timer_at" bigint`);
    await q.query(`
      UPDATE "dialer_campaigns" SET "timer_event" = 'campaign.startTimeReached', "timer_at" = ("snapshot"->'context'->>'startsAt')::bigint
       WHERE "status" = 'scheduled' AND jsonb_typeof("snapshot"->'context'->'startsAt') = 'number'`);
    await q.query(`
      UPDATE "dialer_campaigns" SET "timer_event" = 'campaign.endTimeReached', "timer_at" = ("snapshot"->'context'->>'endsAt')::bigint
       WHERE "status" IN ('running', 'paused') AND jsonb_typeof("snapshot"->'context'->'endsAt') = 'number'`);
    await q.query(
      `CREATE INDEX "ix_dialer_campaigns_timer_due" ON "dialer_campaigns" ("timer_at") WHERE "timer_at" IS NOT NULL AND "deleted_at" IS NULL`,
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP INDEX "ix_dialer_campaigns_timer_due"`);
    await q.query(`ALTER TABLE "dialer_campaigns" DROP COLUMN "timer_at", DROP COLUMN "timer_event"`);
  }
}
