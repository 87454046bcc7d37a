import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Issue 24 item 7: a running campaign that dials nobody says why. The dialer writes, when a round
 * places no call, the reason (`idle_reason`: outside the calling window, no agent waiting, trunk
 * busy, …), since when, and until when it expects it to last where it can tell (`idle_until`: the
 * next calling window, the next due retry); it clears them when it places a call again.
 */
export class CampaignIdleReason1763704100000 implements MigrationInterface {
  name = 'CampaignIdleReason1763704100000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(
      `ALTER TABLE "dialer_campaigns" ADD "idle_reason" character varying(40), ADD "idle_since" TIMESTAMP WITH TIME ZONE, ADD "idle_until" TIMESTAMP WITH TIME ZONE`,
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE "dialer_campaigns" DROP COLUMN "idle_until", DROP COLUMN "idle_since", DROP COLUMN "idle_reason"`);
  }
}
