import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The language an export's headers are written in: the requester's (their console sends it as
 * Accept-Language). Exports asked for before it are in Spanish, the default.
 */
export class ReportExportLanguage1763700980000 implements MigrationInterface {
  name = 'ReportExportLanguage1763700980000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE "report_exports" ADD "language" character varying(2) NOT NULL DEFAULT 'es'`);
    await q.query(
      `ALTER TABLE "report_exports" ADD CONSTRAINT "ck_report_exports_language" CHECK ("language" IN ('es', 'en', 'el', 'it', 'sr', 'de', 'ru'))`,
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE "report_exports" DROP CONSTRAINT "ck_report_exports_language"`);
    await q.query(`ALTER TABLE "report_exports" DROP COLUMN "language"`);
  }
}
