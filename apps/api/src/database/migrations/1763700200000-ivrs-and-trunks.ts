import type { MigrationInterface, QueryRunner } from 'typeorm';

/** IVRs (draft and published trees as JSON, versioned by apply) and SIP trunks (secret encrypted at rest). */
export class IvrsAndTrunks1763700200000 implements MigrationInterface {
  name = 'IvrsAndTrunks1763700200000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE "ivrs" (
        "id" uuid NOT NULL DEFAULT gen_random_uuid(),
        "client_id" uuid NOT NULL,
        "name" character varying(160) NOT NULL,
        "description" character varying(500),
        "active" boolean NOT NULL DEFAULT true,
        "draft_tree" jsonb NOT NULL,
        "published_tree" jsonb,
        "published_version" integer NOT NULL DEFAULT 0,
        "published_at" TIMESTAMP WITH TIME ZONE,
        "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(),
        "updated_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(),
        "deleted_at" TIMESTAMP WITH TIME ZONE,
        CONSTRAINT "pk_ivrs" PRIMARY KEY ("id"),
        CONSTRAINT "fk_ivrs_client" FOREIGN KEY ("client_id") REFERENCES "clients"("id") ON DELETE CASCADE ON UPDATE NO ACTION
      )`);
    await q.query(`CREATE INDEX "ix_ivrs_client" ON "ivrs" ("client_id")`);
    await q.query(`
      CREATE TABLE "trunks" (
        "id" uuid NOT NULL DEFAULT gen_random_uuid(),
        "client_id" uuid NOT NULL,
        "name" character varying(160) NOT NULL,
        "host" character varying(253) NOT NULL,
        "port" integer NOT NULL DEFAULT 5060,
        "transport" character varying(8) NOT NULL,
        "username" character varying(128),
        "password_encrypted" text,
        "caller_id" character varying(16),
        "max_concurrent_calls" integer NOT NULL,
        "active" boolean NOT NULL DEFAULT true,
        "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(),
        "updated_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(),
        "deleted_at" TIMESTAMP WITH TIME ZONE,
        CONSTRAINT "pk_trunks" PRIMARY KEY ("id"),
        CONSTRAINT "fk_trunks_client" FOREIGN KEY ("client_id") REFERENCES "clients"("id") ON DELETE CASCADE ON UPDATE NO ACTION
      )`);
    await q.query(`CREATE INDEX "ix_trunks_client" ON "trunks" ("client_id")`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE "trunks"`);
    await q.query(`DROP TABLE "ivrs"`);
  }
}
