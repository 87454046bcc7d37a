import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Live queues per campaign: an attention line may belong to a campaign, and an agent's presence
 * remembers the campaign they logged into. The post-conversation poll is the line's own (admin
 * form); the routing settings' free-text poll id is dropped so there is one source.
 */
export class CampaignQueuesAndLinePolls1763700150000 implements MigrationInterface {
  name = 'CampaignQueuesAndLinePolls1763700150000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE "attention_lines" ADD "campaign_id" uuid`);
    await q.query(`CREATE INDEX "ix_attention_lines_campaign" ON "attention_lines" ("campaign_id")`);
    await q.query(
      `ALTER TABLE "attention_lines" ADD CONSTRAINT "fk_attention_lines_campaign" FOREIGN KEY ("campaign_id") REFERENCES "campaigns"("id") ON DELETE SET NULL`,
    );
    await q.query(`ALTER TABLE "agent_presence" ADD "campaign_id" uuid`);
    await q.query(`ALTER TABLE "attention_line_routing" DROP COLUMN "poll_id"`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE "attention_line_routing" ADD "poll_id" character varying(64)`);
    await q.query(`ALTER TABLE "agent_presence" DROP COLUMN "campaign_id"`);
    await q.query(`ALTER TABLE "attention_lines" DROP CONSTRAINT "fk_attention_lines_campaign"`);
    await q.query(`DROP INDEX "ix_attention_lines_campaign"`);
    await q.query(`ALTER TABLE "attention_lines" DROP COLUMN "campaign_id"`);
  }
}
