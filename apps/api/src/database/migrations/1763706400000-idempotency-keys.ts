import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Issue 18 item 6: state-changing calls take an `Idempotency-Key` header. The first call's answer
 * is kept per (tenant, caller, key) for 24 hours, so a repeat gets it back instead of acting twice
 * (apps/api/src/modules/idempotency). `status_code` is null while the first call still runs;
 * `request_hash` tells a repeat from a different request reusing the key. Expired rows are swept
 * by `expires_at`.
 */
export class IdempotencyKeys1763706400000 implements MigrationInterface {
  name = 'IdempotencyKeys1763706400000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE "idempotency_keys" (
        "tenant_id" uuid NOT NULL,
        "caller" character varying(80) NOT NULL,
        "key" character varying(255) NOT NULL,
        "request_hash" character(64) NOT NULL,
        "status_code" smallint,
        "response" jsonb,
        "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(),
        "expires_at" TIMESTAMP WITH TIME ZONE NOT NULL,
        CONSTRAINT "pk_idempotency_keys" PRIMARY KEY ("tenant_id", "caller", "key"),
        CONSTRAINT "fk_idempotency_keys_tenant" FOREIGN KEY ("tenant_id") REFERENCES "clients"("id") ON DELETE CASCADE
      )`);
    await q.query(`CREATE INDEX "ix_idempotency_keys_expires_at" ON "idempotency_keys" ("expires_at")`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE "idempotency_keys"`);
  }
}
