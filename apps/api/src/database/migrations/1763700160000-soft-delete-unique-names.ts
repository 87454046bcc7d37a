import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Names of soft-deleted rows are free again: the line-name and campaign-identifier uniqueness
 * becomes a partial unique index over live rows only (same names, so the services' conflict
 * mapping keeps working).
 */
export class SoftDeleteUniqueNames1763700160000 implements MigrationInterface {
  name = 'SoftDeleteUniqueNames1763700160000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE "attention_lines" DROP CONSTRAINT "uq_attention_lines_client_name"`);
    await q.query(
      `CREATE UNIQUE INDEX "uq_attention_lines_client_name" ON "attention_lines" ("client_id", "name") WHERE "deleted_at" IS NULL`,
    );
    await q.query(`ALTER TABLE "campaigns" DROP CONSTRAINT "uq_campaigns_client_identifier"`);
    await q.query(
      `CREATE UNIQUE INDEX "uq_campaigns_client_identifier" ON "campaigns" ("client_id", "identifier") WHERE "deleted_at" IS NULL`,
    );
  }

  async down(q: QueryRunner): Promise<void> {
    // Deleted rows that reuse a live row's name would block the old constraint: rename them first.
    await q.query(`
      UPDATE "campaigns" c SET "identifier" = left(c."identifier", 11) || '~' || left(replace(c."id"::text, '-', ''), 8)
      WHERE c."deleted_at" IS NOT NULL
        AND EXISTS (SELECT 1 FROM "campaigns" o WHERE o."client_id" = c."client_id" AND o."identifier" = c."identifier" AND o."id" <> c."id")`);
    await q.query(`DROP INDEX "uq_campaigns_client_identifier"`);
    await q.query(`ALTER TABLE "campaigns" ADD CONSTRAINT "uq_campaigns_client_identifier" UNIQUE ("client_id", "identifier")`);
    await q.query(`
      UPDATE "attention_lines" l SET "name" = left(l."name", 150) || ' ~' || left(replace(l."id"::text, '-', ''), 8)
      WHERE l."deleted_at" IS NOT NULL
        AND EXISTS (SELECT 1 FROM "attention_lines" o WHERE o."client_id" = l."client_id" AND o."name" = l."name" AND o."id" <> l."id")`);
    await q.query(`DROP INDEX "uq_attention_lines_client_name"`);
    await q.query(`ALTER TABLE "attention_lines" ADD CONSTRAINT "uq_attention_lines_client_name" UNIQUE ("client_id", "name")`);
  }
}
