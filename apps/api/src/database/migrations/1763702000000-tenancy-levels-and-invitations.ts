import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Issue 17 item 1: organisations get a level (clients.kind). Customer tenants stay 'tenant'; each
 * reseller may have one 'reseller' staff organisation and the platform operator one 'platform'
 * organisation (the only row without a reseller). Tenant roles lose the permissions that reached
 * across tenants (resellers.manage; tenants.manage and platform.manage are new and staff-only).
 * Invitations become the way accounts are created for someone else.
 */
export class TenancyLevelsAndInvitations1763702000000 implements MigrationInterface {
  name = 'TenancyLevelsAndInvitations1763702000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE "clients" ADD "kind" character varying(16) NOT NULL DEFAULT 'tenant'`);
    await q.query(`ALTER TABLE "clients" ALTER COLUMN "reseller_id" DROP NOT NULL`);
    await q.query(`ALTER TABLE "clients" ADD CONSTRAINT "ck_clients_kind" CHECK ("kind" IN ('tenant', 'reseller', 'platform'))`);
    await q.query(
      `ALTER TABLE "clients" ADD CONSTRAINT "ck_clients_reseller_by_kind" CHECK (("kind" = 'platform') = ("reseller_id" IS NULL))`,
    );
    await q.query(`CREATE UNIQUE INDEX "uq_clients_platform" ON "clients" ("kind") WHERE "kind" = 'platform'`);
    await q.query(`CREATE UNIQUE INDEX "uq_clients_reseller_home" ON "clients" ("reseller_id") WHERE "kind" = 'reseller'`);
    await q.query(`
      UPDATE "roles" r
         SET "permissions" = ARRAY(
               SELECT p FROM unnest(r."permissions") AS p
                WHERE p NOT IN ('resellers.manage', 'tenants.manage', 'platform.manage'))
        FROM "clients" c
       WHERE c."id" = r."client_id" AND c."kind" = 'tenant'
         AND r."permissions" && ARRAY['resellers.manage', 'tenants.manage', 'platform.manage']::text[]`);

    await q.query(`
      CREATE TABLE "user_invitations" (
        "id" uuid NOT NULL DEFAULT gen_random_uuid(),
        "client_id" uuid NOT NULL,
        "email" character varying(254) NOT NULL,
        "name" character varying(160) NOT NULL,
        "role_id" uuid NOT NULL,
        "attention_line_ids" uuid array NOT NULL DEFAULT '{}',
        "campaign_ids" uuid array NOT NULL DEFAULT '{}',
        "pause_reason_codes" text array NOT NULL DEFAULT '{}',
        "token_hash" character(64) NOT NULL,
        "existing_account" boolean NOT NULL DEFAULT false,
        "expires_at" TIMESTAMP WITH TIME ZONE NOT NULL,
        "accepted_at" TIMESTAMP WITH TIME ZONE,
        "revoked_at" TIMESTAMP WITH TIME ZONE,
        "invited_by" uuid,
        "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(),
        CONSTRAINT "pk_user_invitations" PRIMARY KEY ("id"),
        CONSTRAINT "uq_user_invitations_token_hash" UNIQUE ("token_hash"),
        CONSTRAINT "fk_user_invitations_client" FOREIGN KEY ("client_id") REFERENCES "clients"("id") ON DELETE CASCADE ON UPDATE NO ACTION,
        CONSTRAINT "fk_user_invitations_role" FOREIGN KEY ("role_id") REFERENCES "roles"("id") ON DELETE CASCADE ON UPDATE NO ACTION,
        CONSTRAINT "fk_user_invitations_role_same_client" FOREIGN KEY ("role_id", "client_id")
          REFERENCES "roles"("id", "client_id") ON DELETE CASCADE ON UPDATE NO ACTION,
        CONSTRAINT "fk_user_invitations_invited_by" FOREIGN KEY ("invited_by") REFERENCES "users"("id") ON DELETE SET NULL ON UPDATE NO ACTION
      )`);
    await q.query(
      `CREATE UNIQUE INDEX "uq_user_invitations_pending_email" ON "user_invitations" ("client_id", "email") WHERE "accepted_at" IS NULL AND "revoked_at" IS NULL`,
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE "user_invitations"`);
    // Staff organisations have no place in the older model: their users, roles and rows go with them.
    await q.query(`DELETE FROM "clients" WHERE "kind" <> 'tenant'`);
    await q.query(`DROP INDEX "uq_clients_reseller_home"`);
    await q.query(`DROP INDEX "uq_clients_platform"`);
    await q.query(`ALTER TABLE "clients" DROP CONSTRAINT "ck_clients_reseller_by_kind"`);
    await q.query(`ALTER TABLE "clients" DROP CONSTRAINT "ck_clients_kind"`);
    await q.query(`ALTER TABLE "clients" ALTER COLUMN "reseller_id" SET NOT NULL`);
    await q.query(`ALTER TABLE "clients" DROP COLUMN "kind"`);
  }
}
