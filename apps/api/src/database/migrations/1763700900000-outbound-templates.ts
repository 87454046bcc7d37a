import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Outbound campaign templates: the script an agent reads on an outbound call with its parameters
 * (jsonb list of {key, label, source, value, defaultValue}), and the template a dialer campaign uses.
 * Names are unique per tenant among live rows, ignoring case.
 */
export class OutboundTemplates1763700900000 implements MigrationInterface {
  name = 'OutboundTemplates1763700900000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE "outbound_templates" (
        "id" uuid NOT NULL DEFAULT gen_random_uuid(),
        "tenant_id" uuid NOT NULL,
        "name" character varying(120) NOT NULL,
        "description" character varying(500) NOT NULL DEFAULT '',
        "script" character varying(4000) NOT NULL,
        "parameters" jsonb NOT NULL DEFAULT '[]',
        "created_by" uuid,
        "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(),
        "updated_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(),
        "deleted_at" TIMESTAMP WITH TIME ZONE,
        CONSTRAINT "pk_outbound_templates" PRIMARY KEY ("id"),
        CONSTRAINT "fk_outbound_templates_tenant" FOREIGN KEY ("tenant_id") REFERENCES "clients"("id") ON DELETE CASCADE
      )`);
    await q.query(
      `CREATE UNIQUE INDEX "uq_outbound_templates_tenant_name" ON "outbound_templates" ("tenant_id", lower("name")) WHERE "deleted_at" IS NULL`,
    );
    await q.query(`ALTER TABLE "dialer_campaigns" ADD "template_id" uuid`);
    await q.query(
      `ALTER TABLE "dialer_campaigns" ADD CONSTRAINT "fk_dialer_campaigns_template" FOREIGN KEY ("template_id") REFERENCES "outbound_templates"("id")`,
    );
    await q.query(`CREATE INDEX "ix_dialer_campaigns_template" ON "dialer_campaigns" ("template_id") WHERE "template_id" IS NOT NULL`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP INDEX "ix_dialer_campaigns_template"`);
    await q.query(`ALTER TABLE "dialer_campaigns" DROP CONSTRAINT "fk_dialer_campaigns_template"`);
    await q.query(`ALTER TABLE "dialer_campaigns" DROP COLUMN "template_id"`);
    await q.query(`DROP TABLE "outbound_templates"`);
  }
}
