import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The S3 file store (FILE_STORE=s3, libs/contracts/src/server/s3-file-store.ts): a `stored_files`
 * row may now say its bytes are an object in the bucket (`object_key`). Deleting such a row, by
 * any path (the store, a report expiry's SQL, a tenant's cascade), queues its key in
 * `stored_file_deletions` in the same transaction; the store sends the DeleteObject and the
 * worker's sweep sends whatever is still queued. Large-object rows are unlinked as before.
 */
export class S3FileStore1763704900000 implements MigrationInterface {
  name = 'S3FileStore1763704900000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE "stored_files" ADD "object_key" character varying(400)`);
    await q.query(`ALTER TABLE "stored_files" DROP CONSTRAINT "ck_stored_files_driver"`);
    await q.query(`ALTER TABLE "stored_files" ADD CONSTRAINT "ck_stored_files_driver" CHECK ("driver" IN ('postgres', 's3'))`);
    await q.query(`ALTER TABLE "stored_files" ADD CONSTRAINT "ck_stored_files_s3" CHECK ("driver" <> 's3' OR "object_key" IS NOT NULL)`);
    await q.query(`
      CREATE TABLE "stored_file_deletions" (
        "id" bigserial NOT NULL,
        "object_key" character varying(400) NOT NULL,
        "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(),
        CONSTRAINT "pk_stored_file_deletions" PRIMARY KEY ("id")
      )`);
    await q.query(`CREATE INDEX "ix_stored_file_deletions_key" ON "stored_file_deletions" ("object_key")`);
    await q.query(`
      CREATE OR REPLACE FUNCTION "stored_files_unlink"() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF OLD.lo_oid IS NOT NULL AND EXISTS (SELECT 1 FROM pg_largeobject_metadata WHERE oid = OLD.lo_oid) THEN
          PERFORM lo_unlink(OLD.lo_oid);
        END IF;
        IF OLD.driver = 's3' THEN
          INSERT INTO stored_file_deletions (object_key) VALUES (OLD.object_key);
        END IF;
        RETURN OLD;
      END $$`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE OR REPLACE FUNCTION "stored_files_unlink"() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF OLD.lo_oid IS NOT NULL AND EXISTS (SELECT 1 FROM pg_largeobject_metadata WHERE oid = OLD.lo_oid) THEN
          PERFORM lo_unlink(OLD.lo_oid);
        END IF;
        RETURN OLD;
      END $$`);
    await q.query(`DROP TABLE "stored_file_deletions"`);
    await q.query(`DELETE FROM "stored_files" WHERE "driver" = 's3'`);
    await q.query(`ALTER TABLE "stored_files" DROP CONSTRAINT "ck_stored_files_s3"`);
    await q.query(`ALTER TABLE "stored_files" DROP CONSTRAINT "ck_stored_files_driver"`);
    await q.query(`ALTER TABLE "stored_files" ADD CONSTRAINT "ck_stored_files_driver" CHECK ("driver" IN ('postgres'))`);
    await q.query(`ALTER TABLE "stored_files" DROP COLUMN "object_key"`);
  }
}
