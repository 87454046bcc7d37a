import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Administration: the audit trail, campaign fields of the admin screens (template, customer,
 * soft delete, identifier ≤ 20), predefined messages, the campaigns an agent serves and the pause
 * reasons they may use (none listed = every reason). Lines served live in the real-time core's
 * `agent_attention_lines`.
 */
export class AdminFramework1763700100000 implements MigrationInterface {
  name = 'AdminFramework1763700100000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE "audit_log" (
        "id" uuid NOT NULL DEFAULT gen_random_uuid(),
        "client_id" uuid NOT NULL,
        "actor_user_id" uuid,
        "actor_name" character varying(160),
        "entity_type" character varying(60) NOT NULL,
        "entity_id" uuid NOT NULL,
        "action" character varying(10) NOT NULL,
        "before" jsonb,
        "after" jsonb,
        "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(),
        CONSTRAINT "pk_audit_log" PRIMARY KEY ("id"),
        CONSTRAINT "fk_audit_log_client" FOREIGN KEY ("client_id") REFERENCES "clients"("id") ON DELETE CASCADE ON UPDATE NO ACTION
      )`);
    await q.query(`CREATE INDEX "ix_audit_log_entity" ON "audit_log" ("client_id", "entity_type", "entity_id", "created_at")`);

    await q.query(`ALTER TABLE "campaigns" ADD "template_campaign" boolean NOT NULL DEFAULT false`);
    await q.query(`ALTER TABLE "campaigns" ADD "customer" character varying(160)`);
    await q.query(`ALTER TABLE "campaigns" ADD "deleted_at" TIMESTAMP WITH TIME ZONE`);
    await q.query(`ALTER TABLE "campaigns" ADD CONSTRAINT "ck_campaigns_identifier_length" CHECK (char_length("identifier") <= 20)`);

    await q.query(`
      CREATE TABLE "predefined_messages" (
        "id" uuid NOT NULL DEFAULT gen_random_uuid(),
        "client_id" uuid NOT NULL,
        "message" character varying(500) NOT NULL,
        "shortcut" character varying(40) NOT NULL,
        "scope" character varying(10) NOT NULL,
        "attention_line_id" uuid,
        "owner_user_id" uuid,
        "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(),
        "updated_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(),
        "deleted_at" TIMESTAMP WITH TIME ZONE,
        CONSTRAINT "pk_predefined_messages" PRIMARY KEY ("id"),
        CONSTRAINT "ck_predefined_messages_scope" CHECK ("scope" IN ('tenant', 'line', 'personal')),
        CONSTRAINT "fk_predefined_messages_client" FOREIGN KEY ("client_id") REFERENCES "clients"("id") ON DELETE CASCADE ON UPDATE NO ACTION,
        CONSTRAINT "fk_predefined_messages_line" FOREIGN KEY ("attention_line_id") REFERENCES "attention_lines"("id") ON DELETE CASCADE ON UPDATE NO ACTION,
        CONSTRAINT "fk_predefined_messages_owner" FOREIGN KEY ("owner_user_id") REFERENCES "users"("id") ON DELETE CASCADE ON UPDATE NO ACTION
      )`);
    await q.query(`CREATE INDEX "ix_predefined_messages_client" ON "predefined_messages" ("client_id")`);

    await q.query(`
      CREATE TABLE "agent_campaigns" (
        "user_id" uuid NOT NULL,
        "campaign_id" uuid NOT NULL,
        "tenant_id" uuid NOT NULL,
        CONSTRAINT "pk_agent_campaigns" PRIMARY KEY ("user_id", "campaign_id"),
        CONSTRAINT "fk_agent_campaigns_user" FOREIGN KEY ("user_id") REFERENCES "users"("id") ON DELETE CASCADE,
        CONSTRAINT "fk_agent_campaigns_campaign" FOREIGN KEY ("campaign_id") REFERENCES "campaigns"("id") ON DELETE CASCADE,
        CONSTRAINT "fk_agent_campaigns_tenant" FOREIGN KEY ("tenant_id") REFERENCES "clients"("id") ON DELETE CASCADE
      )`);
    await q.query(`CREATE INDEX "ix_agent_campaigns_campaign" ON "agent_campaigns" ("campaign_id")`);
    await q.query(`
      CREATE TABLE "user_pause_reasons" (
        "user_id" uuid NOT NULL,
        "tenant_id" uuid NOT NULL,
        "pause_reason_code" character varying(40) NOT NULL,
        CONSTRAINT "pk_user_pause_reasons" PRIMARY KEY ("user_id", "pause_reason_code"),
        CONSTRAINT "fk_user_pause_reasons_user" FOREIGN KEY ("user_id") REFERENCES "users"("id") ON DELETE CASCADE,
        CONSTRAINT "fk_user_pause_reasons_reason" FOREIGN KEY ("tenant_id", "pause_reason_code") REFERENCES "pause_reasons"("tenant_id", "code") ON DELETE CASCADE
      )`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE "user_pause_reasons"`);
    await q.query(`DROP TABLE "agent_campaigns"`);
    await q.query(`DROP TABLE "predefined_messages"`);
    await q.query(`ALTER TABLE "campaigns" DROP CONSTRAINT "ck_campaigns_identifier_length"`);
    await q.query(`ALTER TABLE "campaigns" DROP COLUMN "deleted_at"`);
    await q.query(`ALTER TABLE "campaigns" DROP COLUMN "customer"`);
    await q.query(`ALTER TABLE "campaigns" DROP COLUMN "template_campaign"`);
    await q.query(`DROP TABLE "audit_log"`);
  }
}
