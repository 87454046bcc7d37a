import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * One file store for every process (libs/contracts/src/server/file-store.ts): a row per file, its
 * bytes in a PostgreSQL large object. Deleting the row (directly, or by a tenant's cascade) unlinks
 * the large object in the same transaction. Report exports point at their file; exports finished
 * before this point had their file on one process's disk, which the API no longer reads: they expire.
 */
export class FileStore1763703400000 implements MigrationInterface {
  name = 'FileStore1763703400000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE "stored_files" (
        "id" uuid NOT NULL DEFAULT gen_random_uuid(),
        "tenant_id" uuid NOT NULL,
        "kind" character varying(40) NOT NULL,
        "driver" character varying(12) NOT NULL,
        "lo_oid" oid,
        "byte_size" bigint,
        "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(),
        "completed_at" TIMESTAMP WITH TIME ZONE,
        CONSTRAINT "pk_stored_files" PRIMARY KEY ("id"),
        CONSTRAINT "ck_stored_files_driver" CHECK ("driver" IN ('postgres')),
        CONSTRAINT "ck_stored_files_postgres" CHECK ("driver" <> 'postgres' OR "lo_oid" IS NOT NULL),
        CONSTRAINT "fk_stored_files_tenant" FOREIGN KEY ("tenant_id") REFERENCES "clients"("id") ON DELETE CASCADE
      )`);
    await q.query(`CREATE UNIQUE INDEX "ux_stored_files_lo_oid" ON "stored_files" ("lo_oid") WHERE "lo_oid" IS NOT NULL`);
    // The abandoned-upload sweep reads incomplete files by age.
    await q.query(`CREATE INDEX "ix_stored_files_incomplete" ON "stored_files" ("created_at") WHERE "completed_at" IS NULL`);
    await q.query(`
      CREATE FUNCTION "stored_files_unlink"() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF OLD.lo_oid IS NOT NULL AND EXISTS (SELECT 1 FROM pg_largeobject_metadata WHERE oid = OLD.lo_oid) THEN
          PERFORM lo_unlink(OLD.lo_oid);
        END IF;
        RETURN OLD;
      END $$`);
    await q.query(
      `CREATE TRIGGER "stored_files_unlink" AFTER DELETE ON "stored_files" FOR EACH ROW EXECUTE FUNCTION "stored_files_unlink"()`,
    );
    await q.query(
      `ALTER TABLE "report_exports" ADD "file_id" uuid CONSTRAINT "fk_report_exports_file" REFERENCES "stored_files"("id") ON DELETE SET NULL`,
    );
    await q.query(`UPDATE "report_exports" SET "status" = 'expired' WHERE "status" = 'done'`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE "report_exports" DROP COLUMN "file_id"`);
    await q.query(`DROP TABLE "stored_files"`);
    await q.query(`DROP FUNCTION "stored_files_unlink"()`);
  }
}
