import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Outbound dialing: dialer campaigns (dialer-campaign machine rows), their contacts (attempt
 * bookkeeping, one row per phone-list entry), outbound calls (outbound-call machine rows, one per
 * attempt), the numbers being dialled right now (a number is never dialled twice at once),
 * callbacks and do-not-call entries (tenant-wide when campaign_id is null).
 */
export class OutboundDialer1763700500001 implements MigrationInterface {
  name = 'OutboundDialer1763700500001';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE "dialer_campaigns" (
        "id" uuid NOT NULL DEFAULT gen_random_uuid(),
        "tenant_id" uuid NOT NULL,
        "name" character varying(120) NOT NULL,
        "phone_list_id" uuid NOT NULL,
        "mode" character varying(12) NOT NULL,
        "abandon_cap_percent" numeric(5,2) NOT NULL DEFAULT 3,
        "abandon_threshold_ms" integer NOT NULL DEFAULT 2000,
        "max_attempts" smallint NOT NULL DEFAULT 3,
        "retry_delays" jsonb NOT NULL DEFAULT '{}',
        "calling_windows" jsonb NOT NULL DEFAULT '{}',
        "schedule_from" TIMESTAMP WITH TIME ZONE,
        "schedule_to" TIMESTAMP WITH TIME ZONE,
        "trunk_id" uuid,
        "caller_id" character varying(20),
        "agent_ids" uuid[] NOT NULL DEFAULT '{}',
        "status" character varying(12) NOT NULL,
        "snapshot" jsonb NOT NULL,
        "version" integer NOT NULL,
        "last_event" character varying(60) NOT NULL,
        "created_by" uuid,
        "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(),
        "updated_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(),
        "deleted_at" TIMESTAMP WITH TIME ZONE,
        CONSTRAINT "pk_dialer_campaigns" PRIMARY KEY ("id"),
        CONSTRAINT "ck_dialer_campaigns_mode" CHECK ("mode" IN ('preview', 'progressive', 'predictive')),
        CONSTRAINT "fk_dialer_campaigns_tenant" FOREIGN KEY ("tenant_id") REFERENCES "clients"("id") ON DELETE CASCADE,
        CONSTRAINT "fk_dialer_campaigns_list" FOREIGN KEY ("phone_list_id") REFERENCES "phone_lists"("id")
      )`);
    await q.query(`CREATE INDEX "ix_dialer_campaigns_tenant" ON "dialer_campaigns" ("tenant_id")`);
    await q.query(`CREATE INDEX "ix_dialer_campaigns_running" ON "dialer_campaigns" ("status") WHERE "status" = 'running'`);
    await q.query(`
      CREATE TABLE "outbound_contacts" (
        "id" uuid NOT NULL DEFAULT gen_random_uuid(),
        "tenant_id" uuid NOT NULL,
        "campaign_id" uuid NOT NULL,
        "entry_id" uuid NOT NULL,
        "phone" character varying(20) NOT NULL,
        "name" character varying(160),
        "attempts" smallint NOT NULL DEFAULT 0,
        "next_attempt_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(),
        "active_call_id" uuid,
        "dialer_owner" character varying(64),
        "reserved_at" TIMESTAMP WITH TIME ZONE,
        "finished" boolean NOT NULL DEFAULT false,
        "last_outcome" character varying(20),
        "disposition" character varying(40),
        "skip_reason" character varying(40),
        "updated_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(),
        CONSTRAINT "pk_outbound_contacts" PRIMARY KEY ("id"),
        CONSTRAINT "uq_outbound_contacts_entry" UNIQUE ("campaign_id", "entry_id"),
        CONSTRAINT "fk_outbound_contacts_campaign" FOREIGN KEY ("campaign_id") REFERENCES "dialer_campaigns"("id") ON DELETE CASCADE
      )`);
    await q.query(
      `CREATE INDEX "ix_outbound_contacts_due" ON "outbound_contacts" ("campaign_id", "next_attempt_at") WHERE "finished" = false AND "active_call_id" IS NULL`,
    );
    await q.query(`
      CREATE TABLE "outbound_calls" (
        "id" uuid NOT NULL,
        "tenant_id" uuid NOT NULL,
        "campaign_id" uuid NOT NULL,
        "contact_id" uuid NOT NULL,
        "phone" character varying(20) NOT NULL,
        "attempt" smallint NOT NULL,
        "status" character varying(20) NOT NULL,
        "snapshot" jsonb NOT NULL,
        "version" integer NOT NULL,
        "last_event" character varying(60) NOT NULL,
        "outcome" character varying(20),
        "disposition" character varying(40),
        "agent_id" uuid,
        "end_reason" character varying(120),
        "created_at" TIMESTAMP WITH TIME ZONE NOT NULL,
        "answered_at" TIMESTAMP WITH TIME ZONE,
        "connected_at" TIMESTAMP WITH TIME ZONE,
        "hung_up_at" TIMESTAMP WITH TIME ZONE,
        "finished_at" TIMESTAMP WITH TIME ZONE,
        "updated_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(),
        CONSTRAINT "pk_outbound_calls" PRIMARY KEY ("id"),
        CONSTRAINT "uq_outbound_calls_attempt" UNIQUE ("contact_id", "attempt"),
        CONSTRAINT "fk_outbound_calls_campaign" FOREIGN KEY ("campaign_id") REFERENCES "dialer_campaigns"("id") ON DELETE CASCADE,
        CONSTRAINT "fk_outbound_calls_contact" FOREIGN KEY ("contact_id") REFERENCES "outbound_contacts"("id") ON DELETE CASCADE
      )`);
    await q.query(`CREATE INDEX "ix_outbound_calls_campaign" ON "outbound_calls" ("campaign_id", "created_at")`);
    await q.query(`CREATE INDEX "ix_outbound_calls_agent" ON "outbound_calls" ("agent_id") WHERE "agent_id" IS NOT NULL`);
    // A number is never dialled twice at once: one live carrier leg per tenant and number.
    await q.query(
      `CREATE UNIQUE INDEX "uq_outbound_calls_live_number" ON "outbound_calls" ("tenant_id", "phone")
       WHERE "status" IN ('queued', 'dialing', 'ringing', 'answeredByHuman', 'connected')`,
    );
    // The dialer's reservation, taken before the INVITE leaves and released when the attempt ends.
    await q.query(`
      CREATE TABLE "outbound_live_numbers" (
        "tenant_id" uuid NOT NULL,
        "phone" character varying(20) NOT NULL,
        "call_id" uuid NOT NULL,
        "contact_id" uuid NOT NULL,
        "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(),
        CONSTRAINT "pk_outbound_live_numbers" PRIMARY KEY ("tenant_id", "phone"),
        CONSTRAINT "uq_outbound_live_numbers_call" UNIQUE ("call_id")
      )`);
    await q.query(`
      CREATE TABLE "outbound_callbacks" (
        "id" uuid NOT NULL DEFAULT gen_random_uuid(),
        "tenant_id" uuid NOT NULL,
        "campaign_id" uuid NOT NULL,
        "contact_id" uuid NOT NULL,
        "due_at" TIMESTAMP WITH TIME ZONE NOT NULL,
        "agent_id" uuid,
        "status" character varying(10) NOT NULL DEFAULT 'pending',
        "created_by" uuid,
        "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(),
        CONSTRAINT "pk_outbound_callbacks" PRIMARY KEY ("id"),
        CONSTRAINT "fk_outbound_callbacks_contact" FOREIGN KEY ("contact_id") REFERENCES "outbound_contacts"("id") ON DELETE CASCADE
      )`);
    await q.query(`CREATE INDEX "ix_outbound_callbacks_campaign" ON "outbound_callbacks" ("campaign_id", "due_at")`);
    await q.query(`
      CREATE TABLE "do_not_call" (
        "id" uuid NOT NULL DEFAULT gen_random_uuid(),
        "tenant_id" uuid NOT NULL,
        "campaign_id" uuid,
        "phone" character varying(20) NOT NULL,
        "reason" character varying(200),
        "created_by" uuid,
        "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(),
        CONSTRAINT "pk_do_not_call" PRIMARY KEY ("id"),
        CONSTRAINT "fk_do_not_call_tenant" FOREIGN KEY ("tenant_id") REFERENCES "clients"("id") ON DELETE CASCADE,
        CONSTRAINT "fk_do_not_call_campaign" FOREIGN KEY ("campaign_id") REFERENCES "dialer_campaigns"("id") ON DELETE CASCADE
      )`);
    await q.query(`CREATE UNIQUE INDEX "uq_do_not_call_tenant" ON "do_not_call" ("tenant_id", "phone") WHERE "campaign_id" IS NULL`);
    await q.query(
      `CREATE UNIQUE INDEX "uq_do_not_call_campaign" ON "do_not_call" ("campaign_id", "phone") WHERE "campaign_id" IS NOT NULL`,
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE "do_not_call"`);
    await q.query(`DROP TABLE "outbound_callbacks"`);
    await q.query(`DROP TABLE "outbound_live_numbers"`);
    await q.query(`DROP TABLE "outbound_calls"`);
    await q.query(`DROP TABLE "outbound_contacts"`);
    await q.query(`DROP TABLE "dialer_campaigns"`);
  }
}
