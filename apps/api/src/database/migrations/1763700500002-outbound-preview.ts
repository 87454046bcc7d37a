import type { MigrationInterface, QueryRunner } from 'typeorm';

/** Preview dialing: the agent a contact is reserved for, and when they asked to dial it. */
export class OutboundPreview1763700500002 implements MigrationInterface {
  name = 'OutboundPreview1763700500002';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE "outbound_contacts" ADD "preview_agent_id" uuid`);
    await q.query(`ALTER TABLE "outbound_contacts" ADD "preview_dial_at" TIMESTAMP WITH TIME ZONE`);
    await q.query(
      `CREATE INDEX "ix_outbound_contacts_preview" ON "outbound_contacts" ("preview_agent_id") WHERE "preview_agent_id" IS NOT NULL`,
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP INDEX "ix_outbound_contacts_preview"`);
    await q.query(`ALTER TABLE "outbound_contacts" DROP COLUMN "preview_dial_at"`);
    await q.query(`ALTER TABLE "outbound_contacts" DROP COLUMN "preview_agent_id"`);
  }
}
