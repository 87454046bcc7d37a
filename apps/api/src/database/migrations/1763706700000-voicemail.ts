import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Issue 22 item 1: the IVR's voicemail destination. A caller's message is stored like a call recording (a
 * 'call-recording' file, the same retention) and told apart by voice_recordings.kind ('call' | 'voicemail'); the call
 * row's stage 'voicemail' is where the caller is while they speak.
 */
export class Voicemail1763706700000 implements MigrationInterface {
  name = 'Voicemail1763706700000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE "voice_recordings" ADD "kind" character varying(12) NOT NULL DEFAULT 'call'`);
    await q.query(`ALTER TABLE "voice_recordings" ADD CONSTRAINT "ck_voice_recordings_kind" CHECK ("kind" IN ('call', 'voicemail'))`);
    await q.query(`ALTER TABLE "voice_calls" DROP CONSTRAINT "ck_voice_calls_stage"`);
    await q.query(
      `ALTER TABLE "voice_calls" ADD CONSTRAINT "ck_voice_calls_stage" CHECK ("stage" IN ('new', 'ivr', 'queue', 'agent', 'connected', 'voicemail', 'ended'))`,
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`UPDATE "voice_calls" SET "stage" = 'ended' WHERE "stage" = 'voicemail'`);
    await q.query(`ALTER TABLE "voice_calls" DROP CONSTRAINT "ck_voice_calls_stage"`);
    await q.query(
      `ALTER TABLE "voice_calls" ADD CONSTRAINT "ck_voice_calls_stage" CHECK ("stage" IN ('new', 'ivr', 'queue', 'agent', 'connected', 'ended'))`,
    );
    await q.query(`ALTER TABLE "voice_recordings" DROP COLUMN "kind"`);
  }
}
