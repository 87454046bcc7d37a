import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Issue 22 item 3: inbound call recordings. One row per stored recording of a connected call (the worker's
 * call.recorded): the WAV is a stored_files row (kind 'call-recording'), and deleting that file — the retention
 * sweep does — deletes this row with it. The tenant's settings (record, announce, retention days) live in
 * platform_settings.settings (callRecording, announceCallRecording, callRecordingRetentionDays): no column here.
 */
export class VoiceRecordings1763706100000 implements MigrationInterface {
  name = 'VoiceRecordings1763706100000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE "voice_recordings" (
        "id" uuid NOT NULL DEFAULT gen_random_uuid(),
        "client_id" uuid NOT NULL,
        "call_id" uuid NOT NULL,
        "conversation_id" uuid,
        "agent_id" uuid,
        "file_id" uuid NOT NULL,
        "duration_ms" integer NOT NULL,
        "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(),
        CONSTRAINT "pk_voice_recordings" PRIMARY KEY ("id"),
        CONSTRAINT "uq_voice_recordings_file" UNIQUE ("file_id"),
        CONSTRAINT "ck_voice_recordings_duration" CHECK ("duration_ms" >= 0),
        CONSTRAINT "fk_voice_recordings_client" FOREIGN KEY ("client_id") REFERENCES "clients"("id") ON DELETE CASCADE,
        CONSTRAINT "fk_voice_recordings_call" FOREIGN KEY ("call_id") REFERENCES "voice_calls"("id") ON DELETE CASCADE,
        CONSTRAINT "fk_voice_recordings_conversation" FOREIGN KEY ("conversation_id") REFERENCES "conversations"("id") ON DELETE SET NULL,
        CONSTRAINT "fk_voice_recordings_agent" FOREIGN KEY ("agent_id") REFERENCES "users"("id") ON DELETE SET NULL,
        CONSTRAINT "fk_voice_recordings_file" FOREIGN KEY ("file_id") REFERENCES "stored_files"("id") ON DELETE CASCADE
      )`);
    // The conversation's recordings (API) and the retention sweep by age.
    await q.query(
      `CREATE INDEX "ix_voice_recordings_conversation" ON "voice_recordings" ("conversation_id") WHERE "conversation_id" IS NOT NULL`,
    );
    await q.query(`CREATE INDEX "ix_voice_recordings_created" ON "voice_recordings" ("created_at")`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE "voice_recordings"`);
  }
}
