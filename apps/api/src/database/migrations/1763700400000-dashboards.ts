import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Dashboards: the data bag the KPIs read on each transition-log row (line, channel, agent, pause
 * reason; see libs/domain/src/kpi/kpi-log.ts), per-client dashboard settings, and the sentiment
 * of customer messages (scored by the worker).
 */
export class Dashboards1763700400000 implements MigrationInterface {
  name = 'Dashboards1763700400000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE "transition_log" ADD "data" jsonb`);
    await q.query(`
      CREATE TABLE "dashboard_settings" (
        "client_id" uuid NOT NULL,
        "settings" jsonb NOT NULL DEFAULT '{}',
        "updated_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(),
        CONSTRAINT "pk_dashboard_settings" PRIMARY KEY ("client_id"),
        CONSTRAINT "fk_dashboard_settings_client" FOREIGN KEY ("client_id") REFERENCES "clients"("id") ON DELETE CASCADE ON UPDATE NO ACTION
      )`);
    await q.query(`ALTER TABLE "messages" ADD "sentiment_score" real`);
    await q.query(`ALTER TABLE "messages" ADD "sentiment_label" character varying(8)`);
    await q.query(`CREATE INDEX "ix_messages_tenant_created" ON "messages" ("tenant_id", "created_at")`);
    // The worker's sweep of customer messages whose scoring request was lost.
    await q.query(
      `CREATE INDEX "ix_messages_unscored" ON "messages" ("created_at") WHERE "sender_kind" = 'customer' AND "sentiment_score" IS NULL`,
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP INDEX "ix_messages_unscored"`);
    await q.query(`DROP INDEX "ix_messages_tenant_created"`);
    await q.query(`ALTER TABLE "messages" DROP COLUMN "sentiment_label"`);
    await q.query(`ALTER TABLE "messages" DROP COLUMN "sentiment_score"`);
    await q.query(`DROP TABLE "dashboard_settings"`);
    // The log is append-only (a trigger refuses UPDATE/DELETE), but dropping a column is DDL.
    await q.query(`ALTER TABLE "transition_log" DROP COLUMN "data"`);
  }
}
