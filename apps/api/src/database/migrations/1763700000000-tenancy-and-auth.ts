import type { MigrationInterface, QueryRunner } from 'typeorm';

/** Resellers, clients (tenants), roles and their menus, users, refresh and reset tokens. */
export class TenancyAndAuth1763700000000 implements MigrationInterface {
  name = 'TenancyAndAuth1763700000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE "resellers" (
        "id" uuid NOT NULL DEFAULT gen_random_uuid(),
        "name" character varying(120) NOT NULL,
        "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(),
        "updated_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(),
        CONSTRAINT "pk_resellers" PRIMARY KEY ("id"),
        CONSTRAINT "uq_resellers_name" UNIQUE ("name")
      )`);
    await q.query(`
      CREATE TABLE "clients" (
        "id" uuid NOT NULL DEFAULT gen_random_uuid(),
        "reseller_id" uuid NOT NULL,
        "name" character varying(160) NOT NULL,
        "banner_url" character varying(2048),
        "login_image_url" character varying(2048),
        "main_color" character varying(32),
        "menu_logo_url" character varying(2048),
        "complete_menu_logo_url" character varying(2048),
        "subscription_plan" character varying(60),
        "allowed_origins" text array NOT NULL DEFAULT '{}',
        "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(),
        "updated_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(),
        CONSTRAINT "pk_clients" PRIMARY KEY ("id"),
        CONSTRAINT "uq_clients_reseller_name" UNIQUE ("reseller_id", "name"),
        CONSTRAINT "fk_clients_reseller" FOREIGN KEY ("reseller_id") REFERENCES "resellers"("id") ON DELETE RESTRICT ON UPDATE NO ACTION
      )`);
    await q.query(`
      CREATE TABLE "roles" (
        "id" uuid NOT NULL DEFAULT gen_random_uuid(),
        "client_id" uuid NOT NULL,
        "code" character varying(40) NOT NULL,
        "name" character varying(120) NOT NULL,
        "permissions" text array NOT NULL DEFAULT '{}',
        "built_in" boolean NOT NULL DEFAULT false,
        "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(),
        "updated_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(),
        CONSTRAINT "pk_roles" PRIMARY KEY ("id"),
        CONSTRAINT "uq_roles_client_code" UNIQUE ("client_id", "code"),
        CONSTRAINT "uq_roles_id_client" UNIQUE ("id", "client_id"),
        CONSTRAINT "fk_roles_client" FOREIGN KEY ("client_id") REFERENCES "clients"("id") ON DELETE CASCADE ON UPDATE NO ACTION
      )`);
    await q.query(`CREATE INDEX "ix_roles_client" ON "roles" ("client_id")`);
    await q.query(`
      CREATE TABLE "role_menus" (
        "id" uuid NOT NULL DEFAULT gen_random_uuid(),
        "client_id" uuid NOT NULL,
        "role_id" uuid NOT NULL,
        "route_path" character varying(200) NOT NULL,
        "position" integer NOT NULL DEFAULT 0,
        CONSTRAINT "pk_role_menus" PRIMARY KEY ("id"),
        CONSTRAINT "uq_role_menus_role_path" UNIQUE ("role_id", "route_path"),
        CONSTRAINT "fk_role_menus_role" FOREIGN KEY ("role_id") REFERENCES "roles"("id") ON DELETE CASCADE ON UPDATE NO ACTION
      )`);
    await q.query(`CREATE INDEX "ix_role_menus_client" ON "role_menus" ("client_id")`);
    await q.query(`
      CREATE TABLE "users" (
        "id" uuid NOT NULL DEFAULT gen_random_uuid(),
        "client_id" uuid NOT NULL,
        "email" character varying(254) NOT NULL,
        "name" character varying(160) NOT NULL,
        "avatar_url" character varying(2048),
        "role_id" uuid NOT NULL,
        "password_hash" character varying(255) NOT NULL,
        "password_expires_at" TIMESTAMP WITH TIME ZONE,
        "active" boolean NOT NULL DEFAULT true,
        "token_version" integer NOT NULL DEFAULT 0,
        "session_time_minutes" integer NOT NULL DEFAULT 480,
        "last_login_at" TIMESTAMP WITH TIME ZONE,
        "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(),
        "updated_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(),
        CONSTRAINT "pk_users" PRIMARY KEY ("id"),
        CONSTRAINT "uq_users_email" UNIQUE ("email"),
        CONSTRAINT "fk_users_client" FOREIGN KEY ("client_id") REFERENCES "clients"("id") ON DELETE CASCADE ON UPDATE NO ACTION,
        CONSTRAINT "fk_users_role" FOREIGN KEY ("role_id") REFERENCES "roles"("id") ON DELETE RESTRICT ON UPDATE NO ACTION,
        CONSTRAINT "fk_users_role_same_client" FOREIGN KEY ("role_id", "client_id") REFERENCES "roles"("id", "client_id") ON DELETE RESTRICT ON UPDATE NO ACTION
      )`);
    await q.query(`CREATE INDEX "ix_users_client" ON "users" ("client_id")`);
    await q.query(`CREATE INDEX "ix_users_role" ON "users" ("role_id")`);
    await q.query(`
      CREATE TABLE "refresh_tokens" (
        "id" uuid NOT NULL DEFAULT gen_random_uuid(),
        "user_id" uuid NOT NULL,
        "client_id" uuid NOT NULL,
        "family_id" uuid NOT NULL,
        "token_hash" character(64) NOT NULL,
        "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(),
        "expires_at" TIMESTAMP WITH TIME ZONE NOT NULL,
        "family_expires_at" TIMESTAMP WITH TIME ZONE NOT NULL,
        "rotated_at" TIMESTAMP WITH TIME ZONE,
        "revoked_at" TIMESTAMP WITH TIME ZONE,
        "created_ip" character varying(64),
        "user_agent" character varying(400),
        CONSTRAINT "pk_refresh_tokens" PRIMARY KEY ("id"),
        CONSTRAINT "uq_refresh_tokens_hash" UNIQUE ("token_hash"),
        CONSTRAINT "fk_refresh_tokens_user" FOREIGN KEY ("user_id") REFERENCES "users"("id") ON DELETE CASCADE ON UPDATE NO ACTION
      )`);
    await q.query(`CREATE INDEX "ix_refresh_tokens_user" ON "refresh_tokens" ("user_id")`);
    await q.query(`CREATE INDEX "ix_refresh_tokens_family" ON "refresh_tokens" ("family_id")`);
    await q.query(`
      CREATE TABLE "password_reset_tokens" (
        "id" uuid NOT NULL DEFAULT gen_random_uuid(),
        "user_id" uuid NOT NULL,
        "token_hash" character(64) NOT NULL,
        "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(),
        "expires_at" TIMESTAMP WITH TIME ZONE NOT NULL,
        "used_at" TIMESTAMP WITH TIME ZONE,
        "requested_ip" character varying(64),
        CONSTRAINT "pk_password_reset_tokens" PRIMARY KEY ("id"),
        CONSTRAINT "uq_password_reset_tokens_hash" UNIQUE ("token_hash"),
        CONSTRAINT "fk_password_reset_tokens_user" FOREIGN KEY ("user_id") REFERENCES "users"("id") ON DELETE CASCADE ON UPDATE NO ACTION
      )`);
    await q.query(`CREATE INDEX "ix_password_reset_tokens_user" ON "password_reset_tokens" ("user_id")`);
  }

  async down(q: QueryRunner): Promise<void> {
    for (const table of ['password_reset_tokens', 'refresh_tokens', 'users', 'role_menus', 'roles', 'clients', 'resellers']) {
      await q.query(`DROP TABLE "${table}"`);
    }
  }
}
