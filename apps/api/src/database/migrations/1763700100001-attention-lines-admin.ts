import type { MigrationInterface, QueryRunner } from 'typeorm';

/** Attention line fields of the admin screen, business hours, the post-conversation poll and soft delete. */
export class AttentionLinesAdmin1763700100001 implements MigrationInterface {
  name = 'AttentionLinesAdmin1763700100001';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE "attention_lines" ADD "business_unit" character varying(120)`);
    await q.query(`ALTER TABLE "attention_lines" ADD "origin_type" character varying(40)`);
    await q.query(`ALTER TABLE "attention_lines" ADD "origin_line" character varying(120)`);
    await q.query(`ALTER TABLE "attention_lines" ADD "service_type" character varying(40)`);
    await q.query(`ALTER TABLE "attention_lines" ADD "business_hours" jsonb NOT NULL DEFAULT '[]'`);
    await q.query(`ALTER TABLE "attention_lines" ADD "poll_id" uuid`);
    await q.query(`ALTER TABLE "attention_lines" ADD "deleted_at" TIMESTAMP WITH TIME ZONE`);
  }

  async down(q: QueryRunner): Promise<void> {
    for (const column of ['deleted_at', 'poll_id', 'business_hours', 'service_type', 'origin_line', 'origin_type', 'business_unit']) {
      await q.query(`ALTER TABLE "attention_lines" DROP COLUMN "${column}"`);
    }
  }
}
