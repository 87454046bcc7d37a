import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * A line's routing settings become editable on the line's form: its queue timeout may now be left
 * empty, meaning the account's "Maximum queue wait" (platform settings), which is what a line
 * without a routing row already waited. Rows written so far keep their value.
 */
export class LineRoutingSettings1763700990000 implements MigrationInterface {
  name = 'LineRoutingSettings1763700990000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE "attention_line_routing" ALTER COLUMN "queue_timeout_seconds" DROP NOT NULL`);
    await q.query(`ALTER TABLE "attention_line_routing" ALTER COLUMN "queue_timeout_seconds" DROP DEFAULT`);
    await q.query(
      `ALTER TABLE "attention_line_routing" ADD CONSTRAINT "ck_attention_line_routing_priority" CHECK ("priority" BETWEEN 0 AND 9)`,
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE "attention_line_routing" DROP CONSTRAINT "ck_attention_line_routing_priority"`);
    await q.query(`UPDATE "attention_line_routing" SET "queue_timeout_seconds" = 1800 WHERE "queue_timeout_seconds" IS NULL`);
    await q.query(`ALTER TABLE "attention_line_routing" ALTER COLUMN "queue_timeout_seconds" SET DEFAULT 1800`);
    await q.query(`ALTER TABLE "attention_line_routing" ALTER COLUMN "queue_timeout_seconds" SET NOT NULL`);
  }
}
