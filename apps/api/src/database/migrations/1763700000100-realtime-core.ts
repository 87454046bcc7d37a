import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The real-time core: conversations and agent presence (each row carries its machine snapshot and
 * a version), the append-only transition log, messages, private notes, the transactional outbox,
 * agent ↔ attention-line links, per-line routing settings and per-tenant pause reasons.
 * Routing settings live in their own table so the attention-line admin keeps its table to itself.
 */
export class RealtimeCore1763700000100 implements MigrationInterface {
  name = 'RealtimeCore1763700000100';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE "agent_attention_lines" (
        "user_id" uuid NOT NULL,
        "attention_line_id" uuid NOT NULL,
        "tenant_id" uuid NOT NULL,
        CONSTRAINT "pk_agent_attention_lines" PRIMARY KEY ("user_id", "attention_line_id"),
        CONSTRAINT "fk_agent_attention_lines_user" FOREIGN KEY ("user_id") REFERENCES "users"("id") ON DELETE CASCADE,
        CONSTRAINT "fk_agent_attention_lines_line" FOREIGN KEY ("attention_line_id") REFERENCES "attention_lines"("id") ON DELETE CASCADE,
        CONSTRAINT "fk_agent_attention_lines_tenant" FOREIGN KEY ("tenant_id") REFERENCES "clients"("id") ON DELETE CASCADE
      )`);
    await q.query(`CREATE INDEX "ix_agent_attention_lines_line" ON "agent_attention_lines" ("attention_line_id")`);
    await q.query(`
      CREATE TABLE "attention_line_routing" (
        "attention_line_id" uuid NOT NULL,
        "tenant_id" uuid NOT NULL,
        "routing_policy" character varying(20) NOT NULL DEFAULT 'longest-idle',
        "queue_timeout_seconds" integer NOT NULL DEFAULT 1800,
        "poll_id" character varying(64),
        "priority" smallint NOT NULL DEFAULT 0,
        CONSTRAINT "pk_attention_line_routing" PRIMARY KEY ("attention_line_id"),
        CONSTRAINT "ck_attention_line_routing_policy" CHECK ("routing_policy" IN ('longest-idle', 'least-occupied')),
        CONSTRAINT "ck_attention_line_routing_timeout" CHECK ("queue_timeout_seconds" > 0),
        CONSTRAINT "fk_attention_line_routing_line" FOREIGN KEY ("attention_line_id") REFERENCES "attention_lines"("id") ON DELETE CASCADE
      )`);
    await q.query(`
      CREATE TABLE "pause_reasons" (
        "tenant_id" uuid NOT NULL,
        "code" character varying(40) NOT NULL,
        "label" character varying(80) NOT NULL,
        "position" smallint NOT NULL DEFAULT 0,
        CONSTRAINT "pk_pause_reasons" PRIMARY KEY ("tenant_id", "code"),
        CONSTRAINT "fk_pause_reasons_tenant" FOREIGN KEY ("tenant_id") REFERENCES "clients"("id") ON DELETE CASCADE
      )`);
    await q.query(`
      CREATE TABLE "conversations" (
        "id" uuid NOT NULL,
        "tenant_id" uuid NOT NULL,
        "channel" character varying(40) NOT NULL,
        "entry_line_id" uuid NOT NULL,
        "attention_line_id" uuid,
        "agent_id" uuid,
        "status" character varying(20) NOT NULL,
        "priority" smallint NOT NULL DEFAULT 0,
        "queued_at" TIMESTAMP WITH TIME ZONE,
        "customer_name" character varying(120) NOT NULL,
        "customer_email" character varying(254),
        "visitor_id" character varying(64),
        "snapshot" jsonb NOT NULL,
        "version" integer NOT NULL,
        "last_event" character varying(60) NOT NULL,
        "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(),
        "updated_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(),
        "closed_at" TIMESTAMP WITH TIME ZONE,
        CONSTRAINT "pk_conversations" PRIMARY KEY ("id"),
        CONSTRAINT "fk_conversations_tenant" FOREIGN KEY ("tenant_id") REFERENCES "clients"("id") ON DELETE CASCADE
      )`);
    await q.query(`CREATE INDEX "ix_conversations_tenant_status" ON "conversations" ("tenant_id", "status")`);
    await q.query(`CREATE INDEX "ix_conversations_agent" ON "conversations" ("agent_id") WHERE "status" = 'Active'`);
    await q.query(
      `CREATE INDEX "ix_conversations_queue" ON "conversations" ("attention_line_id", "priority" DESC, "queued_at", "id") WHERE "status" = 'LiningUp'`,
    );
    await q.query(`
      CREATE TABLE "agent_presence" (
        "user_id" uuid NOT NULL,
        "tenant_id" uuid NOT NULL,
        "status" character varying(24) NOT NULL,
        "capacity" smallint NOT NULL,
        "active_count" smallint NOT NULL DEFAULT 0,
        "snapshot" jsonb NOT NULL,
        "version" integer NOT NULL,
        "last_event" character varying(60) NOT NULL,
        "state_since" TIMESTAMP WITH TIME ZONE NOT NULL,
        "updated_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(),
        CONSTRAINT "pk_agent_presence" PRIMARY KEY ("user_id"),
        CONSTRAINT "ck_agent_presence_capacity" CHECK ("active_count" >= 0 AND "capacity" BETWEEN 1 AND 5),
        CONSTRAINT "fk_agent_presence_user" FOREIGN KEY ("user_id") REFERENCES "users"("id") ON DELETE CASCADE,
        CONSTRAINT "fk_agent_presence_tenant" FOREIGN KEY ("tenant_id") REFERENCES "clients"("id") ON DELETE CASCADE
      )`);
    await q.query(`CREATE INDEX "ix_agent_presence_tenant" ON "agent_presence" ("tenant_id")`);
    await q.query(`
      CREATE TABLE "transition_log" (
        "id" bigserial NOT NULL,
        "tenant_id" uuid NOT NULL,
        "entity_type" character varying(20) NOT NULL,
        "entity_id" uuid NOT NULL,
        "from_state" character varying(24),
        "to_state" character varying(24) NOT NULL,
        "event" character varying(60) NOT NULL,
        "actor_kind" character varying(12) NOT NULL,
        "actor_id" character varying(64),
        "at" TIMESTAMP WITH TIME ZONE NOT NULL,
        "at_ms" bigint NOT NULL,
        "version" integer NOT NULL,
        CONSTRAINT "pk_transition_log" PRIMARY KEY ("id"),
        CONSTRAINT "uq_transition_log_entity_version" UNIQUE ("entity_type", "entity_id", "version")
      )`);
    await q.query(`CREATE INDEX "ix_transition_log_tenant_at" ON "transition_log" ("tenant_id", "at")`);
    // Append-only: the KPIs are computed from this log, so rows are never changed or removed.
    await q.query(`
      CREATE FUNCTION "transition_log_append_only"() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN RAISE EXCEPTION 'transition_log is append-only'; END $$`);
    await q.query(`
      CREATE TRIGGER "tr_transition_log_append_only" BEFORE UPDATE OR DELETE ON "transition_log"
      FOR EACH ROW EXECUTE FUNCTION "transition_log_append_only"()`);
    await q.query(`
      CREATE TABLE "messages" (
        "id" uuid NOT NULL DEFAULT gen_random_uuid(),
        "conversation_id" uuid NOT NULL,
        "tenant_id" uuid NOT NULL,
        "sequence" integer NOT NULL,
        "sender_kind" character varying(12) NOT NULL,
        "sender_id" character varying(64),
        "text" character varying(500) NOT NULL,
        "client_message_id" character varying(64),
        "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(),
        "delivered_at" TIMESTAMP WITH TIME ZONE,
        "read_at" TIMESTAMP WITH TIME ZONE,
        CONSTRAINT "pk_messages" PRIMARY KEY ("id"),
        CONSTRAINT "uq_messages_sequence" UNIQUE ("conversation_id", "sequence"),
        CONSTRAINT "uq_messages_client_id" UNIQUE ("conversation_id", "client_message_id"),
        CONSTRAINT "ck_messages_text" CHECK (length(btrim("text")) > 0),
        CONSTRAINT "fk_messages_conversation" FOREIGN KEY ("conversation_id") REFERENCES "conversations"("id") ON DELETE CASCADE
      )`);
    await q.query(`
      CREATE TABLE "conversation_notes" (
        "id" uuid NOT NULL DEFAULT gen_random_uuid(),
        "conversation_id" uuid NOT NULL,
        "tenant_id" uuid NOT NULL,
        "author_id" uuid NOT NULL,
        "text" character varying(2000) NOT NULL,
        "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(),
        CONSTRAINT "pk_conversation_notes" PRIMARY KEY ("id"),
        CONSTRAINT "fk_conversation_notes_conversation" FOREIGN KEY ("conversation_id") REFERENCES "conversations"("id") ON DELETE CASCADE
      )`);
    await q.query(`CREATE INDEX "ix_conversation_notes_conversation" ON "conversation_notes" ("conversation_id")`);
    await q.query(`
      CREATE TABLE "outbox" (
        "id" bigserial NOT NULL,
        "topic" character varying(40) NOT NULL,
        "payload" jsonb NOT NULL,
        "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT clock_timestamp(),
        "delivered_at" TIMESTAMP WITH TIME ZONE,
        "attempts" integer NOT NULL DEFAULT 0,
        CONSTRAINT "pk_outbox" PRIMARY KEY ("id")
      )`);
    await q.query(`CREATE INDEX "ix_outbox_pending" ON "outbox" ("id") WHERE "delivered_at" IS NULL`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE "outbox"`);
    await q.query(`DROP TABLE "conversation_notes"`);
    await q.query(`DROP TABLE "messages"`);
    await q.query(`DROP TABLE "transition_log"`);
    await q.query(`DROP FUNCTION "transition_log_append_only"()`);
    await q.query(`DROP TABLE "agent_presence"`);
    await q.query(`DROP TABLE "conversations"`);
    await q.query(`DROP TABLE "pause_reasons"`);
    await q.query(`DROP TABLE "attention_line_routing"`);
    await q.query(`DROP TABLE "agent_attention_lines"`);
  }
}
