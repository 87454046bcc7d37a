import type { MigrationInterface, QueryRunner } from 'typeorm';

/** A stable code next to the English refusal text of a phone-list import, so the console can translate it. */
export class PhoneListImportFailureCode1763700160001 implements MigrationInterface {
  name = 'PhoneListImportFailureCode1763700160001';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE "phone_list_imports" ADD "failure_code" character varying(40)`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE "phone_list_imports" DROP COLUMN "failure_code"`);
  }
}
