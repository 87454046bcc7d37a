import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Issue 21: outbound message campaigns (WhatsApp templates sent to a phone list).
 *
 * `channel_templates`: the message templates of one channel account, as submitted to the
 * provider (WhatsApp: name + language unique per account, Meta's category, the components as Meta
 * takes them), with the provider's id and the status its webhook or a sync reports (PENDING,
 * APPROVED, REJECTED with reason, PAUSED, DISABLED).
 * `message_campaigns`: a template sent through an account to a phone list, with the mapping of
 * list columns to the template's parameters, its pace and its state (draft → running ⇄ paused →
 * stopped | finished) and why it paused.
 * `message_campaign_recipients`: one row per phone (unique per campaign), the send's state machine
 * (queued → sending → sent → delivered → read, or failed / skipped with the reason), the provider's
 * message id (unique per account) and the conversation a reply opened.
 */
export class MessageCampaigns1763705200000 implements MigrationInterface {
  name = 'MessageCampaigns1763705200000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE "channel_templates" (
        "id" uuid NOT NULL DEFAULT gen_random_uuid(),
        "tenant_id" uuid NOT NULL,
        "account_id" uuid NOT NULL,
        "name" character varying(512) NOT NULL,
        "language" character varying(15) NOT NULL,
        "category" character varying(20) NOT NULL,
        "components" jsonb NOT NULL DEFAULT '[]',
        "status" character varying(20) NOT NULL DEFAULT 'DRAFT',
        "reason" character varying(500),
        "provider_template_id" character varying(64),
        "submitted_at" TIMESTAMP WITH TIME ZONE,
        "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(),
        "updated_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(),
        CONSTRAINT "pk_channel_templates" PRIMARY KEY ("id"),
        CONSTRAINT "uq_channel_templates_name" UNIQUE ("account_id", "name", "language"),
        CONSTRAINT "fk_channel_templates_tenant" FOREIGN KEY ("tenant_id") REFERENCES "clients"("id") ON DELETE CASCADE,
        CONSTRAINT "fk_channel_templates_account" FOREIGN KEY ("account_id") REFERENCES "channel_accounts"("id") ON DELETE CASCADE
      )`);
    await q.query(`CREATE INDEX "ix_channel_templates_provider" ON "channel_templates" ("tenant_id", "provider_template_id")`);
    await q.query(`
      CREATE TABLE "message_campaigns" (
        "id" uuid NOT NULL DEFAULT gen_random_uuid(),
        "tenant_id" uuid NOT NULL,
        "name" character varying(160) NOT NULL,
        "channel" character varying(20) NOT NULL DEFAULT 'whatsapp',
        "account_id" uuid NOT NULL,
        "template_id" uuid NOT NULL,
        "phone_list_id" uuid NOT NULL,
        "parameter_mapping" jsonb NOT NULL DEFAULT '{}',
        "rate_per_second" integer NOT NULL DEFAULT 20,
        "status" character varying(12) NOT NULL DEFAULT 'draft',
        "paused_reason" character varying(40),
        "paused_detail" character varying(500),
        "starts_at" TIMESTAMP WITH TIME ZONE,
        "run_generation" integer NOT NULL DEFAULT 0,
        "started_at" TIMESTAMP WITH TIME ZONE,
        "finished_at" TIMESTAMP WITH TIME ZONE,
        "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(),
        "updated_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(),
        CONSTRAINT "pk_message_campaigns" PRIMARY KEY ("id"),
        CONSTRAINT "ck_message_campaigns_rate" CHECK ("rate_per_second" BETWEEN 1 AND 1000),
        CONSTRAINT "fk_message_campaigns_tenant" FOREIGN KEY ("tenant_id") REFERENCES "clients"("id") ON DELETE CASCADE,
        CONSTRAINT "fk_message_campaigns_account" FOREIGN KEY ("account_id") REFERENCES "channel_accounts"("id"),
        CONSTRAINT "fk_message_campaigns_template" FOREIGN KEY ("template_id") REFERENCES "channel_templates"("id"),
        CONSTRAINT "fk_message_campaigns_list" FOREIGN KEY ("phone_list_id") REFERENCES "phone_lists"("id")
      )`);
    await q.query(`CREATE INDEX "ix_message_campaigns_tenant" ON "message_campaigns" ("tenant_id", "created_at")`);
    await q.query(`
      CREATE TABLE "message_campaign_recipients" (
        "id" uuid NOT NULL DEFAULT gen_random_uuid(),
        "tenant_id" uuid NOT NULL,
        "campaign_id" uuid NOT NULL,
        "account_id" uuid NOT NULL,
        "seq" integer NOT NULL,
        "phone" character varying(20) NOT NULL,
        "name" character varying(160),
        "status" character varying(10) NOT NULL DEFAULT 'queued',
        "skip_reason" character varying(20),
        "provider_message_id" character varying(200),
        "error_code" character varying(20),
        "error_text" character varying(500),
        "attempts" integer NOT NULL DEFAULT 0,
        "not_before" TIMESTAMP WITH TIME ZONE,
        "claimed_at" TIMESTAMP WITH TIME ZONE,
        "claim_token" uuid,
        "sent_at" TIMESTAMP WITH TIME ZONE,
        "delivered_at" TIMESTAMP WITH TIME ZONE,
        "read_at" TIMESTAMP WITH TIME ZONE,
        "replied_at" TIMESTAMP WITH TIME ZONE,
        "conversation_id" uuid,
        "updated_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(),
        CONSTRAINT "pk_message_campaign_recipients" PRIMARY KEY ("id"),
        CONSTRAINT "uq_message_campaign_recipients_phone" UNIQUE ("campaign_id", "phone"),
        CONSTRAINT "ck_message_campaign_recipients_status"
          CHECK ("status" IN ('queued', 'sending', 'sent', 'delivered', 'read', 'failed', 'skipped')),
        CONSTRAINT "fk_message_campaign_recipients_campaign" FOREIGN KEY ("campaign_id") REFERENCES "message_campaigns"("id") ON DELETE CASCADE
      )`);
    await q.query(`CREATE INDEX "ix_message_campaign_recipients_next" ON "message_campaign_recipients" ("campaign_id", "status", "seq")`);
    await q.query(
      `CREATE UNIQUE INDEX "uq_message_campaign_recipients_provider" ON "message_campaign_recipients" ("account_id", "provider_message_id") WHERE "provider_message_id" IS NOT NULL`,
    );
    await q.query(
      `CREATE INDEX "ix_message_campaign_recipients_reply" ON "message_campaign_recipients" ("account_id", "phone", "sent_at")`,
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE "message_campaign_recipients"`);
    await q.query(`DROP TABLE "message_campaigns"`);
    await q.query(`DROP TABLE "channel_templates"`);
  }
}
