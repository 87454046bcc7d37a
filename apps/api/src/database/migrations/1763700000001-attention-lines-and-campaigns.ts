import type { MigrationInterface, QueryRunner } from 'typeorm';

/** Minimal attention lines and campaigns for the demo tenant; the admin issue extends them. */
export class AttentionLinesAndCampaigns1763700000001 implements MigrationInterface {
  name = 'AttentionLinesAndCampaigns1763700000001';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE "attention_lines" (
        "id" uuid NOT NULL DEFAULT gen_random_uuid(),
        "client_id" uuid NOT NULL,
        "name" character varying(160) NOT NULL,
        "type" character varying(40) NOT NULL,
        "channel" character varying(40) NOT NULL,
        "internal" boolean NOT NULL DEFAULT false,
        "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(),
        "updated_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(),
        CONSTRAINT "pk_attention_lines" PRIMARY KEY ("id"),
        CONSTRAINT "uq_attention_lines_client_name" UNIQUE ("client_id", "name"),
        CONSTRAINT "fk_attention_lines_client" FOREIGN KEY ("client_id") REFERENCES "clients"("id") ON DELETE CASCADE ON UPDATE NO ACTION
      )`);
    await q.query(`CREATE INDEX "ix_attention_lines_client" ON "attention_lines" ("client_id")`);
    await q.query(`
      CREATE TABLE "campaigns" (
        "id" uuid NOT NULL DEFAULT gen_random_uuid(),
        "client_id" uuid NOT NULL,
        "name" character varying(160) NOT NULL,
        "description" character varying(500) NOT NULL,
        "from_date" date NOT NULL,
        "to_date" date NOT NULL,
        "identifier" character varying(40) NOT NULL,
        "allowed_chats_per_agent" smallint NOT NULL,
        "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(),
        "updated_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(),
        CONSTRAINT "pk_campaigns" PRIMARY KEY ("id"),
        CONSTRAINT "uq_campaigns_client_identifier" UNIQUE ("client_id", "identifier"),
        CONSTRAINT "ck_campaigns_allowed_chats" CHECK ("allowed_chats_per_agent" BETWEEN 1 AND 5),
        CONSTRAINT "ck_campaigns_dates" CHECK ("to_date" >= "from_date"),
        CONSTRAINT "fk_campaigns_client" FOREIGN KEY ("client_id") REFERENCES "clients"("id") ON DELETE CASCADE ON UPDATE NO ACTION
      )`);
    await q.query(`CREATE INDEX "ix_campaigns_client" ON "campaigns" ("client_id")`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE "campaigns"`);
    await q.query(`DROP TABLE "attention_lines"`);
  }
}
