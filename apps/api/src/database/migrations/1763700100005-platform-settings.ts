import type { MigrationInterface, QueryRunner } from 'typeorm';

/** Tenant platform settings (with emoticons) and per-channel configuration (secrets encrypted by the API). */
export class PlatformSettings1763700100005 implements MigrationInterface {
  name = 'PlatformSettings1763700100005';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE "platform_settings" (
        "client_id" uuid NOT NULL,
        "settings" jsonb NOT NULL DEFAULT '{}',
        "emoticons" text array NOT NULL DEFAULT '{}',
        "updated_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(),
        CONSTRAINT "pk_platform_settings" PRIMARY KEY ("client_id"),
        CONSTRAINT "fk_platform_settings_client" FOREIGN KEY ("client_id") REFERENCES "clients"("id") ON DELETE CASCADE ON UPDATE NO ACTION
      )`);
    await q.query(`
      CREATE TABLE "channel_configs" (
        "id" uuid NOT NULL DEFAULT gen_random_uuid(),
        "client_id" uuid NOT NULL,
        "channel" character varying(40) NOT NULL,
        "enabled" boolean NOT NULL DEFAULT false,
        "settings" jsonb NOT NULL DEFAULT '{}',
        "secrets" jsonb NOT NULL DEFAULT '{}',
        "updated_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(),
        CONSTRAINT "pk_channel_configs" PRIMARY KEY ("id"),
        CONSTRAINT "uq_channel_configs_client_channel" UNIQUE ("client_id", "channel"),
        CONSTRAINT "fk_channel_configs_client" FOREIGN KEY ("client_id") REFERENCES "clients"("id") ON DELETE CASCADE ON UPDATE NO ACTION
      )`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE "channel_configs"`);
    await q.query(`DROP TABLE "platform_settings"`);
  }
}
