import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Issue 20 items 5 and 6.
 *
 * `mail_blacklist` (the spec's BlackListMail): addresses a tenant never mails again, one row per
 * tenant and lower-cased address, with why ('unsubscribe' from the signed link or the RFC 8058
 * one-click POST, 'hard_bounce' from a permanent 5xx, 'complaint', or 'manual' from the admin
 * screen), where it came from (`source`: 'link', 'one-click', 'admin', 'import', 'smtp'…) and who
 * added it. Whatever sends mail asks it before each send (isMailBlocked in
 * @centralita/contracts/server, by SQL, so the worker needs no API call).
 *
 * `contact_persons`: one customer as a person. A contact stays what the intake creates (one channel
 * identity: tenant, channel, account, provider id); `contacts.person_id` links identities an agent
 * merged. A contact without a person is a person of its own, so nothing changes for the intake.
 * `contact_merges` keeps who merged or unmerged which identities, and when.
 */
export class MailBlacklistAndPersons1763704800000 implements MigrationInterface {
  name = 'MailBlacklistAndPersons1763704800000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE "mail_blacklist" (
        "id" uuid NOT NULL DEFAULT gen_random_uuid(),
        "tenant_id" uuid NOT NULL,
        "address" character varying(254) NOT NULL,
        "reason" character varying(20) NOT NULL,
        "source" character varying(40) NOT NULL,
        "note" character varying(500),
        "created_by" uuid,
        "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(),
        CONSTRAINT "pk_mail_blacklist" PRIMARY KEY ("id"),
        CONSTRAINT "uq_mail_blacklist_address" UNIQUE ("tenant_id", "address"),
        CONSTRAINT "ck_mail_blacklist_address" CHECK ("address" = lower("address") AND position('@' in "address") > 1),
        CONSTRAINT "ck_mail_blacklist_reason" CHECK ("reason" IN ('unsubscribe', 'hard_bounce', 'manual', 'complaint')),
        CONSTRAINT "fk_mail_blacklist_tenant" FOREIGN KEY ("tenant_id") REFERENCES "clients"("id") ON DELETE CASCADE,
        CONSTRAINT "fk_mail_blacklist_created_by" FOREIGN KEY ("created_by") REFERENCES "users"("id") ON DELETE SET NULL
      )`);
    await q.query(`CREATE INDEX "ix_mail_blacklist_tenant_created" ON "mail_blacklist" ("tenant_id", "created_at" DESC)`);

    await q.query(`
      CREATE TABLE "contact_persons" (
        "id" uuid NOT NULL DEFAULT gen_random_uuid(),
        "tenant_id" uuid NOT NULL,
        "created_by" uuid,
        "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(),
        CONSTRAINT "pk_contact_persons" PRIMARY KEY ("id"),
        CONSTRAINT "uq_contact_persons_tenant_id" UNIQUE ("tenant_id", "id"),
        CONSTRAINT "fk_contact_persons_tenant" FOREIGN KEY ("tenant_id") REFERENCES "clients"("id") ON DELETE CASCADE,
        CONSTRAINT "fk_contact_persons_created_by" FOREIGN KEY ("created_by") REFERENCES "users"("id") ON DELETE SET NULL
      )`);
    await q.query(`ALTER TABLE "contacts" ADD "person_id" uuid`);
    // (tenant_id, person_id) → contact_persons (tenant_id, id): an identity can only join a person of its own tenant.
    await q.query(
      `ALTER TABLE "contacts" ADD CONSTRAINT "fk_contacts_person" FOREIGN KEY ("tenant_id", "person_id") REFERENCES "contact_persons"("tenant_id", "id")`,
    );
    await q.query(`CREATE INDEX "ix_contacts_person" ON "contacts" ("person_id") WHERE "person_id" IS NOT NULL`);
    await q.query(
      `CREATE INDEX "ix_conversations_contact" ON "conversations" ("contact_id", "created_at" DESC) WHERE "contact_id" IS NOT NULL`,
    );

    await q.query(`
      CREATE TABLE "contact_merges" (
        "id" uuid NOT NULL DEFAULT gen_random_uuid(),
        "tenant_id" uuid NOT NULL,
        "action" character varying(10) NOT NULL,
        "person_id" uuid NOT NULL,
        "contact_id" uuid NOT NULL,
        "other_contact_id" uuid,
        "actor_id" uuid,
        "at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(),
        CONSTRAINT "pk_contact_merges" PRIMARY KEY ("id"),
        CONSTRAINT "ck_contact_merges_action" CHECK ("action" IN ('merge', 'unmerge')),
        CONSTRAINT "fk_contact_merges_tenant" FOREIGN KEY ("tenant_id") REFERENCES "clients"("id") ON DELETE CASCADE,
        CONSTRAINT "fk_contact_merges_actor" FOREIGN KEY ("actor_id") REFERENCES "users"("id") ON DELETE SET NULL
      )`);
    await q.query(`CREATE INDEX "ix_contact_merges_person" ON "contact_merges" ("tenant_id", "person_id", "at" DESC)`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE "contact_merges"`);
    await q.query(`DROP INDEX "ix_conversations_contact"`);
    await q.query(`DROP INDEX "ix_contacts_person"`);
    await q.query(`ALTER TABLE "contacts" DROP CONSTRAINT "fk_contacts_person"`);
    await q.query(`ALTER TABLE "contacts" DROP COLUMN "person_id"`);
    await q.query(`DROP TABLE "contact_persons"`);
    await q.query(`DROP TABLE "mail_blacklist"`);
  }
}
