import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Issue 22: inbound calls as the API knows them (libs/contracts voice.ts). One row per call leg of
 * the worker's voice server, keyed by its callId. `last_seq` is the last event applied in the
 * worker's numbering; `pending_events` holds events that came ahead of a gap until it fills.
 * `stage` is where the caller is now (new, ivr, queue, agent, connected, ended); `abandon_stage`
 * tells an abandon in the IVR from one in the queue for reports.
 */
export class VoiceCalls1763706000000 implements MigrationInterface {
  name = 'VoiceCalls1763706000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE "voice_calls" (
        "id" uuid NOT NULL,
        "client_id" uuid NOT NULL,
        "trunk_id" uuid,
        "from_number" character varying(64),
        "to_number" character varying(64),
        "ivr_id" uuid,
        "conversation_id" uuid,
        "attention_line_id" uuid,
        "agent_id" uuid,
        "last_seq" integer NOT NULL DEFAULT 0,
        "pending_events" jsonb NOT NULL DEFAULT '[]',
        "stage" character varying(12) NOT NULL DEFAULT 'new',
        "ivr_path" jsonb NOT NULL DEFAULT '[]',
        "started_at" TIMESTAMP WITH TIME ZONE,
        "queued_at" TIMESTAMP WITH TIME ZONE,
        "connected_at" TIMESTAMP WITH TIME ZONE,
        "ended_at" TIMESTAMP WITH TIME ZONE,
        "abandon_stage" character varying(8),
        "ended_by" character varying(8),
        "end_reason" character varying(200),
        "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(),
        "updated_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(),
        CONSTRAINT "pk_voice_calls" PRIMARY KEY ("id"),
        CONSTRAINT "ck_voice_calls_stage" CHECK ("stage" IN ('new', 'ivr', 'queue', 'agent', 'connected', 'ended')),
        CONSTRAINT "ck_voice_calls_abandon_stage" CHECK ("abandon_stage" IS NULL OR "abandon_stage" IN ('ivr', 'queue')),
        CONSTRAINT "ck_voice_calls_ended_by" CHECK ("ended_by" IS NULL OR "ended_by" IN ('caller', 'agent', 'system')),
        CONSTRAINT "fk_voice_calls_client" FOREIGN KEY ("client_id") REFERENCES "clients"("id") ON DELETE CASCADE,
        CONSTRAINT "fk_voice_calls_trunk" FOREIGN KEY ("trunk_id") REFERENCES "trunks"("id") ON DELETE SET NULL,
        CONSTRAINT "fk_voice_calls_ivr" FOREIGN KEY ("ivr_id") REFERENCES "ivrs"("id") ON DELETE SET NULL,
        CONSTRAINT "fk_voice_calls_conversation" FOREIGN KEY ("conversation_id") REFERENCES "conversations"("id") ON DELETE SET NULL,
        CONSTRAINT "fk_voice_calls_line" FOREIGN KEY ("attention_line_id") REFERENCES "attention_lines"("id") ON DELETE SET NULL
      )`);
    await q.query(`CREATE INDEX "ix_voice_calls_client_started" ON "voice_calls" ("client_id", "started_at")`);
    await q.query(`CREATE INDEX "ix_voice_calls_conversation" ON "voice_calls" ("conversation_id") WHERE "conversation_id" IS NOT NULL`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE "voice_calls"`);
  }
}
