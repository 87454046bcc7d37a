import type { MigrationInterface, QueryRunner } from 'typeorm';

/** The widget's expected wait counts a line's arrivals of the last hour (RoutingService.newcomerWait). */
export class LineArrivalsIndex1763700960000 implements MigrationInterface {
  name = 'LineArrivalsIndex1763700960000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`CREATE INDEX "ix_conversations_line_queued" ON "conversations" ("attention_line_id", "queued_at")`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP INDEX "ix_conversations_line_queued"`);
  }
}
