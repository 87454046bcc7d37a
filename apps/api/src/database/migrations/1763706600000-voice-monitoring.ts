import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Issue 22 item 4, supervisor monitoring: a connected call remembers who monitors it and how, so the API can refuse a
 * second supervisor, switch or stop only a running monitoring, and the console can show it. `monitor_state` is
 * 'ringing' from the request until the worker reports the supervisor's phone answered ('active'); all three columns
 * are cleared when the worker reports the monitoring ended or failed.
 */
export class VoiceMonitoring1763706600000 implements MigrationInterface {
  name = 'VoiceMonitoring1763706600000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      ALTER TABLE "voice_calls"
        ADD COLUMN "monitor_supervisor_id" uuid,
        ADD COLUMN "monitor_mode" text,
        ADD COLUMN "monitor_state" text,
        ADD CONSTRAINT "fk_voice_calls_monitor_supervisor" FOREIGN KEY ("monitor_supervisor_id") REFERENCES "users"("id") ON DELETE SET NULL,
        ADD CONSTRAINT "ck_voice_calls_monitor_mode" CHECK ("monitor_mode" IS NULL OR "monitor_mode" IN ('listen', 'whisper', 'barge')),
        ADD CONSTRAINT "ck_voice_calls_monitor_state" CHECK ("monitor_state" IS NULL OR "monitor_state" IN ('ringing', 'active'))`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`
      ALTER TABLE "voice_calls"
        DROP CONSTRAINT "ck_voice_calls_monitor_state",
        DROP CONSTRAINT "ck_voice_calls_monitor_mode",
        DROP CONSTRAINT "fk_voice_calls_monitor_supervisor",
        DROP COLUMN "monitor_state",
        DROP COLUMN "monitor_mode",
        DROP COLUMN "monitor_supervisor_id"`);
  }
}
