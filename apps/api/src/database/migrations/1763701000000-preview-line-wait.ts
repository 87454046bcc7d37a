import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * A preview call the agent asked to dial may wait for a free line on its campaign's trunk: the
 * dialer records since when, and the agent's desk says so (cleared when the dialer places it).
 */
export class PreviewLineWait1763701000000 implements MigrationInterface {
  name = 'PreviewLineWait1763701000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE "outbound_contacts" ADD "preview_line_wait_since" TIMESTAMP WITH TIME ZONE`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE "outbound_contacts" DROP COLUMN "preview_line_wait_since"`);
  }
}
