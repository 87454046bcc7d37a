import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Issue 22, inbound voice leftovers:
 * - trunks.country_code / national_prefix: how the carrier writes called numbers that are not E.164 ("020 7946 0000"
 *   on a UK trunk is +442079460000); both null = only E.164 matches, as before.
 * - voice_settings (one row per tenant, absent = defaults): the tenant's own hold music (a stored 8 kHz mono WAV,
 *   null = the built-in one) and how often a queued caller hears their position (seconds, 0 = never, default 60).
 */
export class VoiceIvrSettings1763706300000 implements MigrationInterface {
  name = 'VoiceIvrSettings1763706300000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE "trunks" ADD "country_code" character varying(3), ADD "national_prefix" character varying(2)`);
    await q.query(`
      CREATE TABLE "voice_settings" (
        "client_id" uuid NOT NULL,
        "hold_music_file_id" uuid,
        "queue_announcement_seconds" integer NOT NULL DEFAULT 60,
        "updated_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(),
        CONSTRAINT "pk_voice_settings" PRIMARY KEY ("client_id"),
        CONSTRAINT "fk_voice_settings_client" FOREIGN KEY ("client_id") REFERENCES "clients"("id") ON DELETE CASCADE,
        CONSTRAINT "fk_voice_settings_hold_music" FOREIGN KEY ("hold_music_file_id") REFERENCES "stored_files"("id") ON DELETE SET NULL,
        CONSTRAINT "ck_voice_settings_announcement" CHECK ("queue_announcement_seconds" BETWEEN 0 AND 600)
      )`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE "voice_settings"`);
    await q.query(`ALTER TABLE "trunks" DROP COLUMN "national_prefix", DROP COLUMN "country_code"`);
  }
}
