import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Issue 22 (inbound voice): the numbers a trunk answers and the IVRs' spoken prompts.
 *
 * `trunk_inbound_numbers`: the called numbers (E.164 with its "+") a trunk's carrier sends us, each
 * routed to an IVR or straight to an attention line (exactly one). Unique platform-wide: one SIP
 * server answers every tenant and finds the tenant by the called number.
 * `ivrs.language`: the language its text prompts are spoken in (espeak-ng at publish); existing
 * IVRs take their tenant's language.
 * `ivr_prompt_audio`: prompts already rendered, by SHA-256 of (language, text), so a republish
 * reuses the audio of unchanged prompts; the file goes with its row.
 */
export class InboundNumbersAndIvrPrompts1763705900000 implements MigrationInterface {
  name = 'InboundNumbersAndIvrPrompts1763705900000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE "trunk_inbound_numbers" (
        "id" uuid NOT NULL DEFAULT gen_random_uuid(),
        "client_id" uuid NOT NULL,
        "trunk_id" uuid NOT NULL,
        "number" character varying(16) NOT NULL,
        "ivr_id" uuid,
        "attention_line_id" uuid,
        "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(),
        "updated_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(),
        CONSTRAINT "pk_trunk_inbound_numbers" PRIMARY KEY ("id"),
        CONSTRAINT "uq_trunk_inbound_numbers_number" UNIQUE ("number"),
        CONSTRAINT "ck_trunk_inbound_numbers_target" CHECK (("ivr_id" IS NULL) <> ("attention_line_id" IS NULL)),
        CONSTRAINT "fk_trunk_inbound_numbers_client" FOREIGN KEY ("client_id") REFERENCES "clients"("id") ON DELETE CASCADE,
        CONSTRAINT "fk_trunk_inbound_numbers_trunk" FOREIGN KEY ("trunk_id") REFERENCES "trunks"("id") ON DELETE CASCADE,
        CONSTRAINT "fk_trunk_inbound_numbers_ivr" FOREIGN KEY ("ivr_id") REFERENCES "ivrs"("id") ON DELETE CASCADE,
        CONSTRAINT "fk_trunk_inbound_numbers_line" FOREIGN KEY ("attention_line_id") REFERENCES "attention_lines"("id") ON DELETE CASCADE
      )`);
    await q.query(`CREATE INDEX "ix_trunk_inbound_numbers_trunk" ON "trunk_inbound_numbers" ("trunk_id")`);
    await q.query(`CREATE INDEX "ix_trunk_inbound_numbers_ivr" ON "trunk_inbound_numbers" ("ivr_id") WHERE "ivr_id" IS NOT NULL`);
    await q.query(
      `CREATE INDEX "ix_trunk_inbound_numbers_line" ON "trunk_inbound_numbers" ("attention_line_id") WHERE "attention_line_id" IS NOT NULL`,
    );

    await q.query(`ALTER TABLE "ivrs" ADD "language" character varying(2)`);
    await q.query(`UPDATE "ivrs" i SET "language" = c."language" FROM "clients" c WHERE c."id" = i."client_id"`);
    await q.query(`UPDATE "ivrs" SET "language" = 'es' WHERE "language" IS NULL`);
    await q.query(`ALTER TABLE "ivrs" ALTER COLUMN "language" SET NOT NULL`);
    await q.query(`ALTER TABLE "ivrs" ALTER COLUMN "language" SET DEFAULT 'es'`);
    await q.query(`ALTER TABLE "ivrs" ADD CONSTRAINT "ck_ivrs_language" CHECK ("language" IN ('es', 'en', 'el', 'it', 'sr', 'de', 'ru'))`);
    // Whether the last publish could render every text prompt (false: espeak-ng or sox missing).
    await q.query(`ALTER TABLE "ivrs" ADD "prompts_rendered" boolean`);
    // The draft and language as published: the published tree carries rendered audio ids the draft
    // has not, so "unapplied changes" compares the draft with this.
    await q.query(`ALTER TABLE "ivrs" ADD "published_source_tree" jsonb`);
    await q.query(`UPDATE "ivrs" SET "published_source_tree" = "published_tree"`);
    await q.query(`ALTER TABLE "ivrs" ADD "published_language" character varying(2)`);
    await q.query(`UPDATE "ivrs" SET "published_language" = "language" WHERE "published_tree" IS NOT NULL`);

    await q.query(`
      CREATE TABLE "ivr_prompt_audio" (
        "id" uuid NOT NULL DEFAULT gen_random_uuid(),
        "client_id" uuid NOT NULL,
        "cache_key" character(64) NOT NULL,
        "language" character varying(2) NOT NULL,
        "file_id" uuid NOT NULL,
        "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(),
        CONSTRAINT "pk_ivr_prompt_audio" PRIMARY KEY ("id"),
        CONSTRAINT "uq_ivr_prompt_audio_key" UNIQUE ("client_id", "cache_key"),
        CONSTRAINT "fk_ivr_prompt_audio_client" FOREIGN KEY ("client_id") REFERENCES "clients"("id") ON DELETE CASCADE,
        CONSTRAINT "fk_ivr_prompt_audio_file" FOREIGN KEY ("file_id") REFERENCES "stored_files"("id") ON DELETE CASCADE
      )`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE "ivr_prompt_audio"`);
    await q.query(`ALTER TABLE "ivrs" DROP COLUMN "published_language"`);
    await q.query(`ALTER TABLE "ivrs" DROP COLUMN "published_source_tree"`);
    await q.query(`ALTER TABLE "ivrs" DROP COLUMN "prompts_rendered"`);
    await q.query(`ALTER TABLE "ivrs" DROP CONSTRAINT "ck_ivrs_language"`);
    await q.query(`ALTER TABLE "ivrs" DROP COLUMN "language"`);
    await q.query(`DROP TABLE "trunk_inbound_numbers"`);
  }
}
