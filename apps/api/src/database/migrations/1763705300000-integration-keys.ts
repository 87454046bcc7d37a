import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Issue 22 item 5: the external dialer sign-in (the spec's ExternLoginVicidial).
 *
 * `integration_keys`: keys a tenant's administrators give outside systems. The key is shown once and
 * stored only as its SHA-256 (`key_hash`); `hint` keeps its first characters so the list can tell
 * keys apart. `callback_origins` restricts where a sign-in may return (empty: any public address).
 * `vicidial_login_links`: one single-use sign-in link per request, bound to its tenant, key and
 * agent; the random id travels in the URL and is stored as its SHA-256 (`token_hash`). Rows stay
 * after use as the trail of who asked for which agent, when, and whether it was used.
 */
export class IntegrationKeys1763705300000 implements MigrationInterface {
  name = 'IntegrationKeys1763705300000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE "integration_keys" (
        "id" uuid NOT NULL DEFAULT gen_random_uuid(),
        "tenant_id" uuid NOT NULL,
        "name" character varying(80) NOT NULL,
        "key_hash" character(64) NOT NULL,
        "hint" character varying(16) NOT NULL,
        "callback_origins" text[] NOT NULL DEFAULT '{}',
        "created_by" uuid,
        "created_by_name" character varying(160),
        "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(),
        "last_used_at" TIMESTAMP WITH TIME ZONE,
        "revoked_at" TIMESTAMP WITH TIME ZONE,
        CONSTRAINT "pk_integration_keys" PRIMARY KEY ("id"),
        CONSTRAINT "uq_integration_keys_hash" UNIQUE ("key_hash"),
        CONSTRAINT "fk_integration_keys_tenant" FOREIGN KEY ("tenant_id") REFERENCES "clients"("id") ON DELETE CASCADE
      )`);
    await q.query(`CREATE INDEX "ix_integration_keys_tenant" ON "integration_keys" ("tenant_id", "created_at")`);
    await q.query(`
      CREATE TABLE "vicidial_login_links" (
        "id" uuid NOT NULL DEFAULT gen_random_uuid(),
        "tenant_id" uuid NOT NULL,
        "key_id" uuid NOT NULL,
        "user_id" uuid NOT NULL,
        "token_hash" character(64) NOT NULL,
        "callback" character varying(2000),
        "issued_ip" character varying(64),
        "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(),
        "expires_at" TIMESTAMP WITH TIME ZONE NOT NULL,
        "used_at" TIMESTAMP WITH TIME ZONE,
        "used_ip" character varying(64),
        CONSTRAINT "pk_vicidial_login_links" PRIMARY KEY ("id"),
        CONSTRAINT "uq_vicidial_login_links_token" UNIQUE ("token_hash"),
        CONSTRAINT "fk_vicidial_login_links_tenant" FOREIGN KEY ("tenant_id") REFERENCES "clients"("id") ON DELETE CASCADE,
        CONSTRAINT "fk_vicidial_login_links_key" FOREIGN KEY ("key_id") REFERENCES "integration_keys"("id") ON DELETE CASCADE,
        CONSTRAINT "fk_vicidial_login_links_user" FOREIGN KEY ("user_id") REFERENCES "users"("id") ON DELETE CASCADE
      )`);
    await q.query(`CREATE INDEX "ix_vicidial_login_links_key" ON "vicidial_login_links" ("key_id", "created_at")`);
    await q.query(`CREATE INDEX "ix_vicidial_login_links_user" ON "vicidial_login_links" ("user_id")`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE "vicidial_login_links"`);
    await q.query(`DROP TABLE "integration_keys"`);
  }
}
