import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Issue 17 item 4: self-registration (SELF_REGISTRATION=on) no longer signs anyone in at once. A
 * registration is kept here, password already hashed, until its owner opens the link mailed to
 * the address; only then is a new tenant created with the user as its ADMIN. Rows are stored by
 * the SHA-256 of their random token, single use, and expire.
 */
export class SelfRegistration1763702400000 implements MigrationInterface {
  name = 'SelfRegistration1763702400000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE "registration_requests" (
        "id" uuid NOT NULL DEFAULT gen_random_uuid(),
        "email" character varying(254) NOT NULL,
        "name" character varying(160) NOT NULL,
        "password_hash" character varying(255) NOT NULL,
        "token_hash" character(64) NOT NULL,
        "expires_at" TIMESTAMP WITH TIME ZONE NOT NULL,
        "confirmed_at" TIMESTAMP WITH TIME ZONE,
        "requested_ip" character varying(64),
        "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(),
        CONSTRAINT "pk_registration_requests" PRIMARY KEY ("id"),
        CONSTRAINT "uq_registration_requests_hash" UNIQUE ("token_hash")
      )`);
    await q.query(`CREATE INDEX "ix_registration_requests_email" ON "registration_requests" ("email") `);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE "registration_requests"`);
  }
}
