import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Issue 23 items 1 and 2: video calls and their recordings.
 *
 * `video_calls`: one call offered from a conversation by its agent. The customer's link carries a
 * random token stored only as its SHA-256 (`token_hash`); it is single use (`used_at`), expires
 * (`expires_at`) and is bound to its conversation and agent. Joining hands the customer a guest key
 * (also stored hashed) that authenticates the call's signalling and TURN credentials until it ends.
 * `video_recordings`: what the agent's browser recorded, uploaded in ordered chunks
 * (`video_recording_chunks`, one stored file each, idempotent by index); the worker concatenates
 * them into one file, reads its duration and sets `finalised_at`.
 */
export class VideoCalls1763705100000 implements MigrationInterface {
  name = 'VideoCalls1763705100000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE "video_calls" (
        "id" uuid NOT NULL DEFAULT gen_random_uuid(),
        "tenant_id" uuid NOT NULL,
        "conversation_id" uuid NOT NULL,
        "agent_id" uuid NOT NULL,
        "token_hash" character(64) NOT NULL,
        "guest_key_hash" character(64),
        "status" character varying(12) NOT NULL DEFAULT 'offered',
        "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(),
        "expires_at" TIMESTAMP WITH TIME ZONE NOT NULL,
        "used_at" TIMESTAMP WITH TIME ZONE,
        "started_at" TIMESTAMP WITH TIME ZONE,
        "ended_at" TIMESTAMP WITH TIME ZONE,
        "ended_by" character varying(20),
        "recording_consent_at" TIMESTAMP WITH TIME ZONE,
        CONSTRAINT "pk_video_calls" PRIMARY KEY ("id"),
        CONSTRAINT "uq_video_calls_token" UNIQUE ("token_hash"),
        CONSTRAINT "ck_video_calls_status" CHECK ("status" IN ('offered', 'live', 'ended')),
        CONSTRAINT "ck_video_calls_ended_by" CHECK ("ended_by" IS NULL OR "ended_by" IN ('agent', 'customer', 'agent_left', 'replaced', 'conversation_closed')),
        CONSTRAINT "fk_video_calls_tenant" FOREIGN KEY ("tenant_id") REFERENCES "clients"("id") ON DELETE CASCADE,
        CONSTRAINT "fk_video_calls_conversation" FOREIGN KEY ("conversation_id") REFERENCES "conversations"("id") ON DELETE CASCADE,
        CONSTRAINT "fk_video_calls_agent" FOREIGN KEY ("agent_id") REFERENCES "users"("id") ON DELETE CASCADE
      )`);
    await q.query(`CREATE INDEX "ix_video_calls_conversation" ON "video_calls" ("conversation_id", "created_at")`);
    await q.query(`CREATE INDEX "ix_video_calls_tenant" ON "video_calls" ("tenant_id")`);
    await q.query(`CREATE UNIQUE INDEX "uq_video_calls_guest_key" ON "video_calls" ("guest_key_hash") WHERE "guest_key_hash" IS NOT NULL`);
    await q.query(`
      CREATE TABLE "video_recordings" (
        "id" uuid NOT NULL DEFAULT gen_random_uuid(),
        "tenant_id" uuid NOT NULL,
        "call_id" uuid NOT NULL,
        "conversation_id" uuid NOT NULL,
        "started_by" uuid NOT NULL,
        "mime_type" character varying(80) NOT NULL,
        "chunks" integer NOT NULL DEFAULT 0,
        "byte_size" bigint NOT NULL DEFAULT 0,
        "file_id" uuid,
        "duration_ms" integer,
        "format" character varying(40),
        "status" character varying(12) NOT NULL DEFAULT 'recording',
        "failure" text,
        "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(),
        "stopped_at" TIMESTAMP WITH TIME ZONE,
        "finalised_at" TIMESTAMP WITH TIME ZONE,
        CONSTRAINT "pk_video_recordings" PRIMARY KEY ("id"),
        CONSTRAINT "ck_video_recordings_status" CHECK ("status" IN ('recording', 'finalising', 'ready', 'failed')),
        CONSTRAINT "fk_video_recordings_tenant" FOREIGN KEY ("tenant_id") REFERENCES "clients"("id") ON DELETE CASCADE,
        CONSTRAINT "fk_video_recordings_call" FOREIGN KEY ("call_id") REFERENCES "video_calls"("id") ON DELETE CASCADE,
        CONSTRAINT "fk_video_recordings_conversation" FOREIGN KEY ("conversation_id") REFERENCES "conversations"("id") ON DELETE CASCADE,
        CONSTRAINT "fk_video_recordings_file" FOREIGN KEY ("file_id") REFERENCES "stored_files"("id") ON DELETE SET NULL
      )`);
    await q.query(`CREATE INDEX "ix_video_recordings_call" ON "video_recordings" ("call_id")`);
    await q.query(`CREATE INDEX "ix_video_recordings_conversation" ON "video_recordings" ("conversation_id")`);
    await q.query(`
      CREATE TABLE "video_recording_chunks" (
        "recording_id" uuid NOT NULL,
        "index" integer NOT NULL,
        "tenant_id" uuid NOT NULL,
        "file_id" uuid NOT NULL,
        "byte_size" integer NOT NULL,
        "sha256" character(64) NOT NULL,
        "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(),
        CONSTRAINT "pk_video_recording_chunks" PRIMARY KEY ("recording_id", "index"),
        CONSTRAINT "ck_video_recording_chunks_index" CHECK ("index" >= 0),
        CONSTRAINT "fk_video_recording_chunks_recording" FOREIGN KEY ("recording_id") REFERENCES "video_recordings"("id") ON DELETE CASCADE,
        CONSTRAINT "fk_video_recording_chunks_file" FOREIGN KEY ("file_id") REFERENCES "stored_files"("id") ON DELETE CASCADE
      )`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE "video_recording_chunks"`);
    await q.query(`DROP TABLE "video_recordings"`);
    await q.query(`DROP TABLE "video_calls"`);
  }
}
