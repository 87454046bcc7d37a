import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Report exports: one row per requested file. The worker writes the file under REPORT_EXPORT_DIR,
 * progress and the row count here; files (and then rows) expire after the retention period.
 */
export class ReportExports1763700800000 implements MigrationInterface {
  name = 'ReportExports1763700800000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE "report_exports" (
        "id" uuid NOT NULL DEFAULT gen_random_uuid(),
        "tenant_id" uuid NOT NULL,
        "user_id" uuid NOT NULL,
        "report_type" character varying(30) NOT NULL,
        "format" character varying(8) NOT NULL,
        "filters" jsonb NOT NULL,
        "status" character varying(12) NOT NULL DEFAULT 'queued',
        "progress" smallint NOT NULL DEFAULT 0,
        "row_count" integer NOT NULL DEFAULT 0,
        "total_rows" integer,
        "file_name" character varying(120) NOT NULL,
        "byte_size" bigint,
        "failure" character varying(300),
        "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(),
        "finished_at" TIMESTAMP WITH TIME ZONE,
        CONSTRAINT "pk_report_exports" PRIMARY KEY ("id"),
        CONSTRAINT "ck_report_exports_format" CHECK ("format" IN ('csv', 'xlsx')),
        CONSTRAINT "ck_report_exports_status" CHECK ("status" IN ('queued', 'running', 'done', 'failed', 'expired')),
        CONSTRAINT "ck_report_exports_progress" CHECK ("progress" BETWEEN 0 AND 100),
        CONSTRAINT "fk_report_exports_tenant" FOREIGN KEY ("tenant_id") REFERENCES "clients"("id") ON DELETE CASCADE
      )`);
    await q.query(`CREATE INDEX "ix_report_exports_tenant_created" ON "report_exports" ("tenant_id", "created_at")`);
    // Report windows and export batches walk conversations by (tenant, creation time, id).
    await q.query(`CREATE INDEX "ix_conversations_tenant_created" ON "conversations" ("tenant_id", "created_at", "id")`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP INDEX "ix_conversations_tenant_created"`);
    await q.query(`DROP TABLE "report_exports"`);
  }
}
