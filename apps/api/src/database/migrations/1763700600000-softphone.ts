import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Softphone: the tenant's SIP server (WebSocket URL, domain, ICE servers), each agent's SIP
 * account (password encrypted by the API like channel secrets) and the dispositions of calls.
 */
export class Softphone1763700600000 implements MigrationInterface {
  name = 'Softphone1763700600000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE "softphone_configs" (
        "client_id" uuid NOT NULL,
        "ws_url" character varying(300) NOT NULL,
        "domain" character varying(200) NOT NULL,
        "ice_servers" text array NOT NULL DEFAULT '{}',
        "updated_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(),
        CONSTRAINT "pk_softphone_configs" PRIMARY KEY ("client_id"),
        CONSTRAINT "fk_softphone_configs_client" FOREIGN KEY ("client_id") REFERENCES "clients"("id") ON DELETE CASCADE
      )`);
    await q.query(`
      CREATE TABLE "softphone_accounts" (
        "user_id" uuid NOT NULL,
        "client_id" uuid NOT NULL,
        "extension" character varying(40) NOT NULL,
        "auth_user" character varying(80) NOT NULL,
        "password_secret" text,
        "updated_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(),
        CONSTRAINT "pk_softphone_accounts" PRIMARY KEY ("user_id"),
        CONSTRAINT "uq_softphone_accounts_client_extension" UNIQUE ("client_id", "extension"),
        CONSTRAINT "fk_softphone_accounts_user" FOREIGN KEY ("user_id") REFERENCES "users"("id") ON DELETE CASCADE,
        CONSTRAINT "fk_softphone_accounts_client" FOREIGN KEY ("client_id") REFERENCES "clients"("id") ON DELETE CASCADE
      )`);
    await q.query(`
      CREATE TABLE "softphone_calls" (
        "id" uuid NOT NULL DEFAULT gen_random_uuid(),
        "client_id" uuid NOT NULL,
        "user_id" uuid NOT NULL,
        "call_id" character varying(200) NOT NULL,
        "direction" character varying(10) NOT NULL,
        "remote_number" character varying(80) NOT NULL,
        "contact_name" character varying(160),
        "disposition" character varying(40) NOT NULL,
        "notes" character varying(1000),
        "duration_seconds" integer,
        "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(),
        CONSTRAINT "pk_softphone_calls" PRIMARY KEY ("id"),
        CONSTRAINT "uq_softphone_calls_user_call" UNIQUE ("user_id", "call_id"),
        CONSTRAINT "fk_softphone_calls_client" FOREIGN KEY ("client_id") REFERENCES "clients"("id") ON DELETE CASCADE,
        CONSTRAINT "fk_softphone_calls_user" FOREIGN KEY ("user_id") REFERENCES "users"("id") ON DELETE CASCADE
      )`);
    await q.query(`CREATE INDEX "ix_softphone_calls_client_created" ON "softphone_calls" ("client_id", "created_at")`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE "softphone_calls"`);
    await q.query(`DROP TABLE "softphone_accounts"`);
    await q.query(`DROP TABLE "softphone_configs"`);
  }
}
