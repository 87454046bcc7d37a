import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Issue 24 item 8: a tenant's own language, the language of the content the platform writes for it
 * (its seeded demo content, what a customer put back in the queue is told when the customer's own
 * language is unknown). Existing organisations are Spanish, the platform's default.
 */
export class TenantLanguage1763704500000 implements MigrationInterface {
  name = 'TenantLanguage1763704500000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE "clients" ADD "language" character varying(2) NOT NULL DEFAULT 'es'`);
    await q.query(
      `ALTER TABLE "clients" ADD CONSTRAINT "ck_clients_language" CHECK ("language" IN ('es', 'en', 'el', 'it', 'sr', 'de', 'ru'))`,
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE "clients" DROP CONSTRAINT "ck_clients_language"`);
    await q.query(`ALTER TABLE "clients" DROP COLUMN "language"`);
  }
}
