import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Issue 23 item 3: the bot in front of a line's queue.
 *
 * `bot_line_settings`: one row per attention line whose bot was configured (no row = the defaults,
 * disabled). `bot_synonyms`: the tenant's groups of words that mean the same to its customers.
 * `bot_sessions`: the bot's side of one conversation (turns taken, low-confidence streak, when and
 * why it handed off; after that it never speaks again). `bot_turns`: one row per customer message
 * the bot took, keyed by the message, so a re-run of a channel event answers once; it is also what
 * the agent's "bot summary" shows. `bot_unanswered`: the questions it could not answer, one row per
 * tenant, line and folded text, counted, for the administrator's report.
 */
export class LineBot1763705000000 implements MigrationInterface {
  name = 'LineBot1763705000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE "bot_line_settings" (
        "attention_line_id" uuid NOT NULL,
        "tenant_id" uuid NOT NULL,
        "enabled" boolean NOT NULL DEFAULT false,
        "handoff_keywords" text[] NOT NULL,
        "max_turns" integer NOT NULL,
        "min_score" real NOT NULL,
        "texts" jsonb NOT NULL,
        "updated_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(),
        CONSTRAINT "pk_bot_line_settings" PRIMARY KEY ("attention_line_id"),
        CONSTRAINT "ck_bot_line_settings_turns" CHECK ("max_turns" BETWEEN 1 AND 50),
        CONSTRAINT "ck_bot_line_settings_score" CHECK ("min_score" > 0 AND "min_score" <= 1),
        CONSTRAINT "fk_bot_line_settings_line" FOREIGN KEY ("attention_line_id") REFERENCES "attention_lines"("id") ON DELETE CASCADE,
        CONSTRAINT "fk_bot_line_settings_tenant" FOREIGN KEY ("tenant_id") REFERENCES "clients"("id") ON DELETE CASCADE
      )`);
    await q.query(`CREATE INDEX "ix_bot_line_settings_tenant" ON "bot_line_settings" ("tenant_id")`);
    await q.query(`
      CREATE TABLE "bot_synonyms" (
        "id" uuid NOT NULL DEFAULT gen_random_uuid(),
        "tenant_id" uuid NOT NULL,
        "position" integer NOT NULL,
        "terms" text[] NOT NULL,
        "updated_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(),
        CONSTRAINT "pk_bot_synonyms" PRIMARY KEY ("id"),
        CONSTRAINT "fk_bot_synonyms_tenant" FOREIGN KEY ("tenant_id") REFERENCES "clients"("id") ON DELETE CASCADE
      )`);
    await q.query(`CREATE INDEX "ix_bot_synonyms_tenant" ON "bot_synonyms" ("tenant_id", "position")`);
    await q.query(`
      CREATE TABLE "bot_sessions" (
        "conversation_id" uuid NOT NULL,
        "tenant_id" uuid NOT NULL,
        "attention_line_id" uuid,
        "turns" integer NOT NULL DEFAULT 0,
        "low_streak" integer NOT NULL DEFAULT 0,
        "language" character varying(2),
        "greeted_at" TIMESTAMP WITH TIME ZONE,
        "handed_off_at" TIMESTAMP WITH TIME ZONE,
        "handoff_reason" character varying(20),
        "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(),
        CONSTRAINT "pk_bot_sessions" PRIMARY KEY ("conversation_id"),
        CONSTRAINT "fk_bot_sessions_conversation" FOREIGN KEY ("conversation_id") REFERENCES "conversations"("id") ON DELETE CASCADE
      )`);
    await q.query(`
      CREATE TABLE "bot_turns" (
        "id" uuid NOT NULL DEFAULT gen_random_uuid(),
        "conversation_id" uuid NOT NULL,
        "tenant_id" uuid NOT NULL,
        "customer_message_id" uuid NOT NULL,
        "text" character varying(4000) NOT NULL,
        "language" character varying(2) NOT NULL,
        "outcome" character varying(20) NOT NULL,
        "qna_id" uuid,
        "qna_question" character varying(300),
        "score" real NOT NULL DEFAULT 0,
        "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(),
        CONSTRAINT "pk_bot_turns" PRIMARY KEY ("id"),
        CONSTRAINT "uq_bot_turns_message" UNIQUE ("customer_message_id"),
        CONSTRAINT "ck_bot_turns_outcome" CHECK ("outcome" IN ('pending', 'answered', 'unknown', 'handoff', 'greeting')),
        CONSTRAINT "fk_bot_turns_conversation" FOREIGN KEY ("conversation_id") REFERENCES "conversations"("id") ON DELETE CASCADE
      )`);
    await q.query(`CREATE INDEX "ix_bot_turns_conversation" ON "bot_turns" ("conversation_id", "created_at")`);
    await q.query(`
      CREATE TABLE "bot_unanswered" (
        "id" uuid NOT NULL DEFAULT gen_random_uuid(),
        "tenant_id" uuid NOT NULL,
        "attention_line_id" uuid,
        "folded" character varying(500) NOT NULL,
        "text" character varying(500) NOT NULL,
        "language" character varying(2) NOT NULL,
        "count" integer NOT NULL DEFAULT 1,
        "first_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(),
        "last_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(),
        "resolved_at" TIMESTAMP WITH TIME ZONE,
        CONSTRAINT "pk_bot_unanswered" PRIMARY KEY ("id"),
        CONSTRAINT "fk_bot_unanswered_tenant" FOREIGN KEY ("tenant_id") REFERENCES "clients"("id") ON DELETE CASCADE,
        CONSTRAINT "fk_bot_unanswered_line" FOREIGN KEY ("attention_line_id") REFERENCES "attention_lines"("id") ON DELETE SET NULL
      )`);
    // One row per tenant, line and folded question (a line of NULL, after its deletion, is its own key).
    await q.query(
      `CREATE UNIQUE INDEX "uq_bot_unanswered_text" ON "bot_unanswered" ("tenant_id", COALESCE("attention_line_id", '00000000-0000-0000-0000-000000000000'::uuid), "folded")`,
    );
    await q.query(`CREATE INDEX "ix_bot_unanswered_tenant_last" ON "bot_unanswered" ("tenant_id", "last_at" DESC)`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE "bot_unanswered"`);
    await q.query(`DROP TABLE "bot_turns"`);
    await q.query(`DROP TABLE "bot_sessions"`);
    await q.query(`DROP TABLE "bot_synonyms"`);
    await q.query(`DROP TABLE "bot_line_settings"`);
  }
}
