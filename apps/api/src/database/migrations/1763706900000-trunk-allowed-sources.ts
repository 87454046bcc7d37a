import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Issue 22, carrier source check: trunks.allowed_sources, the IP addresses and CIDR networks the carrier's INVITEs for
 * the trunk's numbers may come from (the voice server answers any other source 403). Empty (the default, and every
 * existing trunk): only the trunk's host is accepted.
 */
export class TrunkAllowedSources1763706900000 implements MigrationInterface {
  name = 'TrunkAllowedSources1763706900000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE "trunks" ADD "allowed_sources" text array NOT NULL DEFAULT '{}'`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE "trunks" DROP COLUMN "allowed_sources"`);
  }
}
