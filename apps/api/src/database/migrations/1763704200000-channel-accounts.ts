import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Issue 19, the platform side of messaging channels:
 * - `channel_accounts`: one connected provider account per row (a WhatsApp number, a page, a bot),
 *   feeding one attention line. Secrets are ConfigCrypto ciphertexts; `verify_token` is what the
 *   provider echoes in its handshake or secret header. A provider account is connected once
 *   platform-wide while live (a webhook names the account, not the tenant).
 * - `channel_events`: every verified webhook body, stored raw once per (account, delivery key):
 *   the provider's delivery id, else the sha256 of the body. Processed from the channel-inbound
 *   queue; `processed_at` makes a re-run a no-op, `last_error` keeps why a body could not be read.
 * - `contacts.opted_out_at` / `opt_out_reason`: the customer blocked the bot, stopped marketing or
 *   wrote STOP; every later send respects it.
 */
export class ChannelAccounts1763704200000 implements MigrationInterface {
  name = 'ChannelAccounts1763704200000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE "channel_accounts" (
        "id" uuid NOT NULL DEFAULT gen_random_uuid(),
        "tenant_id" uuid NOT NULL,
        "kind" character varying(20) NOT NULL,
        "name" character varying(120) NOT NULL,
        "external_account_id" character varying(200) NOT NULL,
        "attention_line_id" uuid NOT NULL,
        "settings" jsonb NOT NULL DEFAULT '{}',
        "secrets" jsonb NOT NULL DEFAULT '{}',
        "verify_token" character varying(64) NOT NULL,
        "enabled" boolean NOT NULL DEFAULT true,
        "last_check" jsonb,
        "last_event_at" TIMESTAMP WITH TIME ZONE,
        "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(),
        "updated_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(),
        "deleted_at" TIMESTAMP WITH TIME ZONE,
        CONSTRAINT "pk_channel_accounts" PRIMARY KEY ("id"),
        CONSTRAINT "fk_channel_accounts_tenant" FOREIGN KEY ("tenant_id") REFERENCES "clients"("id") ON DELETE CASCADE,
        CONSTRAINT "fk_channel_accounts_line" FOREIGN KEY ("attention_line_id") REFERENCES "attention_lines"("id")
      )`);
    await q.query(
      `CREATE UNIQUE INDEX "uq_channel_accounts_external" ON "channel_accounts" ("kind", "external_account_id") WHERE "deleted_at" IS NULL`,
    );
    await q.query(`CREATE INDEX "ix_channel_accounts_tenant" ON "channel_accounts" ("tenant_id") WHERE "deleted_at" IS NULL`);
    await q.query(`
      CREATE TABLE "channel_events" (
        "id" uuid NOT NULL DEFAULT gen_random_uuid(),
        "tenant_id" uuid NOT NULL,
        "account_id" uuid NOT NULL,
        "delivery_key" character varying(300) NOT NULL,
        "raw_body" bytea NOT NULL,
        "headers" jsonb NOT NULL DEFAULT '{}',
        "received_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(),
        "processed_at" TIMESTAMP WITH TIME ZONE,
        "attempts" integer NOT NULL DEFAULT 0,
        "last_error" text,
        CONSTRAINT "pk_channel_events" PRIMARY KEY ("id"),
        CONSTRAINT "uq_channel_events_delivery" UNIQUE ("account_id", "delivery_key"),
        CONSTRAINT "fk_channel_events_tenant" FOREIGN KEY ("tenant_id") REFERENCES "clients"("id") ON DELETE CASCADE,
        CONSTRAINT "fk_channel_events_account" FOREIGN KEY ("account_id") REFERENCES "channel_accounts"("id") ON DELETE CASCADE
      )`);
    // Events still to take in, oldest first (a sweep or an operator looks for these).
    await q.query(`CREATE INDEX "ix_channel_events_unprocessed" ON "channel_events" ("received_at") WHERE "processed_at" IS NULL`);
    await q.query(`ALTER TABLE "contacts" ADD "opted_out_at" TIMESTAMP WITH TIME ZONE, ADD "opt_out_reason" character varying(20)`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE "contacts" DROP COLUMN "opt_out_reason", DROP COLUMN "opted_out_at"`);
    await q.query(`DROP TABLE "channel_events"`);
    await q.query(`DROP TABLE "channel_accounts"`);
  }
}
