import type { MigrationInterface, QueryRunner } from 'typeorm';

/** Phone lists imported from spreadsheets, their entries (E.164) and the import jobs. */
export class PhoneLists1763700100004 implements MigrationInterface {
  name = 'PhoneLists1763700100004';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE "phone_lists" (
        "id" uuid NOT NULL DEFAULT gen_random_uuid(),
        "client_id" uuid NOT NULL,
        "name" character varying(160) NOT NULL,
        "entry_count" integer NOT NULL DEFAULT 0,
        "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(),
        "deleted_at" TIMESTAMP WITH TIME ZONE,
        CONSTRAINT "pk_phone_lists" PRIMARY KEY ("id"),
        CONSTRAINT "fk_phone_lists_client" FOREIGN KEY ("client_id") REFERENCES "clients"("id") ON DELETE CASCADE ON UPDATE NO ACTION
      )`);
    await q.query(`CREATE INDEX "ix_phone_lists_client" ON "phone_lists" ("client_id")`);
    await q.query(`
      CREATE TABLE "phone_list_entries" (
        "id" uuid NOT NULL DEFAULT gen_random_uuid(),
        "list_id" uuid NOT NULL,
        "client_id" uuid NOT NULL,
        "phone" character varying(20) NOT NULL,
        "name" character varying(160),
        "line" integer NOT NULL,
        CONSTRAINT "pk_phone_list_entries" PRIMARY KEY ("id"),
        CONSTRAINT "uq_phone_list_entries_list_phone" UNIQUE ("list_id", "phone"),
        CONSTRAINT "fk_phone_list_entries_list" FOREIGN KEY ("list_id") REFERENCES "phone_lists"("id") ON DELETE CASCADE ON UPDATE NO ACTION
      )`);
    await q.query(`
      CREATE TABLE "phone_list_imports" (
        "id" uuid NOT NULL DEFAULT gen_random_uuid(),
        "client_id" uuid NOT NULL,
        "created_by" uuid,
        "list_name" character varying(160) NOT NULL,
        "file_name" character varying(255) NOT NULL,
        "default_country" character varying(2),
        "status" character varying(10) NOT NULL DEFAULT 'queued',
        "progress" smallint NOT NULL DEFAULT 0,
        "total_rows" integer NOT NULL DEFAULT 0,
        "imported_rows" integer NOT NULL DEFAULT 0,
        "error_rows" integer NOT NULL DEFAULT 0,
        "errors" jsonb NOT NULL DEFAULT '[]',
        "failure" character varying(300),
        "phone_list_id" uuid,
        "file" bytea,
        "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(),
        "finished_at" TIMESTAMP WITH TIME ZONE,
        CONSTRAINT "pk_phone_list_imports" PRIMARY KEY ("id"),
        CONSTRAINT "fk_phone_list_imports_client" FOREIGN KEY ("client_id") REFERENCES "clients"("id") ON DELETE CASCADE ON UPDATE NO ACTION
      )`);
    await q.query(`CREATE INDEX "ix_phone_list_imports_client" ON "phone_list_imports" ("client_id")`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE "phone_list_imports"`);
    await q.query(`DROP TABLE "phone_list_entries"`);
    await q.query(`DROP TABLE "phone_lists"`);
  }
}
