import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Issue 20 item 3, the CRM case registry (/crm/crmlist):
 * - `case_types`, `identification_types`, `geo_areas` (provinces → cantons → districts in one
 *   table, `parent_id` pointing one level up): per-tenant catalogues, seeded for a tenant the first
 *   time it uses the CRM (`case_catalogue_seeds` marks it), with Costa Rica's defaults.
 * - `case_counters`: one row per tenant; the next case number is taken by an UPSERT on it, so
 *   concurrent creations never share a code.
 * - `cases` and its children: links to conversations (a conversation belongs to one case:
 *   `conversation_id` is the key), notes with mentions, activities, assignees, and the history of
 *   who did what.
 */
export class Cases1763704600000 implements MigrationInterface {
  name = 'Cases1763704600000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE "case_catalogue_seeds" (
        "tenant_id" uuid NOT NULL,
        "seeded_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(),
        CONSTRAINT "pk_case_catalogue_seeds" PRIMARY KEY ("tenant_id"),
        CONSTRAINT "fk_case_catalogue_seeds_tenant" FOREIGN KEY ("tenant_id") REFERENCES "clients"("id") ON DELETE CASCADE
      )`);
    await q.query(`
      CREATE TABLE "case_types" (
        "id" uuid NOT NULL DEFAULT gen_random_uuid(),
        "tenant_id" uuid NOT NULL,
        "code" character varying(40) NOT NULL,
        "name" character varying(120) NOT NULL,
        "position" smallint NOT NULL DEFAULT 0,
        "active" boolean NOT NULL DEFAULT true,
        CONSTRAINT "pk_case_types" PRIMARY KEY ("id"),
        CONSTRAINT "uq_case_types_code" UNIQUE ("tenant_id", "code"),
        CONSTRAINT "fk_case_types_tenant" FOREIGN KEY ("tenant_id") REFERENCES "clients"("id") ON DELETE CASCADE
      )`);
    await q.query(`
      CREATE TABLE "identification_types" (
        "id" uuid NOT NULL DEFAULT gen_random_uuid(),
        "tenant_id" uuid NOT NULL,
        "code" character varying(40) NOT NULL,
        "name" character varying(120) NOT NULL,
        "pattern" character varying(200),
        "position" smallint NOT NULL DEFAULT 0,
        "active" boolean NOT NULL DEFAULT true,
        CONSTRAINT "pk_identification_types" PRIMARY KEY ("id"),
        CONSTRAINT "uq_identification_types_code" UNIQUE ("tenant_id", "code"),
        CONSTRAINT "fk_identification_types_tenant" FOREIGN KEY ("tenant_id") REFERENCES "clients"("id") ON DELETE CASCADE
      )`);
    await q.query(`
      CREATE TABLE "geo_areas" (
        "id" uuid NOT NULL DEFAULT gen_random_uuid(),
        "tenant_id" uuid NOT NULL,
        "level" character varying(10) NOT NULL,
        "parent_id" uuid,
        "code" character varying(200) NOT NULL,
        "name" character varying(120) NOT NULL,
        CONSTRAINT "pk_geo_areas" PRIMARY KEY ("id"),
        CONSTRAINT "uq_geo_areas_code" UNIQUE ("tenant_id", "level", "code"),
        CONSTRAINT "ck_geo_areas_level" CHECK (("level" = 'province' AND "parent_id" IS NULL) OR ("level" IN ('canton', 'district') AND "parent_id" IS NOT NULL)),
        CONSTRAINT "fk_geo_areas_parent" FOREIGN KEY ("parent_id") REFERENCES "geo_areas"("id") ON DELETE CASCADE,
        CONSTRAINT "fk_geo_areas_tenant" FOREIGN KEY ("tenant_id") REFERENCES "clients"("id") ON DELETE CASCADE
      )`);
    await q.query(`CREATE INDEX "ix_geo_areas_parent" ON "geo_areas" ("tenant_id", "parent_id", "name")`);
    await q.query(`
      CREATE TABLE "geo_imports" (
        "id" uuid NOT NULL DEFAULT gen_random_uuid(),
        "tenant_id" uuid NOT NULL,
        "created_by" uuid,
        "file_name" character varying(255) NOT NULL,
        "status" character varying(10) NOT NULL DEFAULT 'queued',
        "total_rows" integer NOT NULL DEFAULT 0,
        "imported_areas" integer NOT NULL DEFAULT 0,
        "errors" jsonb NOT NULL DEFAULT '[]',
        "failure" character varying(300),
        "failure_code" character varying(40),
        "file" bytea,
        "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(),
        "finished_at" TIMESTAMP WITH TIME ZONE,
        CONSTRAINT "pk_geo_imports" PRIMARY KEY ("id"),
        CONSTRAINT "ck_geo_imports_status" CHECK ("status" IN ('queued', 'running', 'done', 'failed')),
        CONSTRAINT "fk_geo_imports_tenant" FOREIGN KEY ("tenant_id") REFERENCES "clients"("id") ON DELETE CASCADE
      )`);
    await q.query(`CREATE INDEX "ix_geo_imports_tenant" ON "geo_imports" ("tenant_id", "created_at")`);
    await q.query(`
      CREATE TABLE "case_counters" (
        "tenant_id" uuid NOT NULL,
        "last_number" integer NOT NULL,
        CONSTRAINT "pk_case_counters" PRIMARY KEY ("tenant_id"),
        CONSTRAINT "fk_case_counters_tenant" FOREIGN KEY ("tenant_id") REFERENCES "clients"("id") ON DELETE CASCADE
      )`);
    await q.query(`
      CREATE TABLE "cases" (
        "id" uuid NOT NULL DEFAULT gen_random_uuid(),
        "tenant_id" uuid NOT NULL,
        "number" integer NOT NULL,
        "type_id" uuid,
        "subject" character varying(200) NOT NULL,
        "description" character varying(4000) NOT NULL,
        "status" character varying(20) NOT NULL DEFAULT 'open',
        "owner_id" uuid,
        "contact_name" character varying(160),
        "contact_email" character varying(254),
        "contact_phone" character varying(40),
        "province_id" uuid,
        "canton_id" uuid,
        "district_id" uuid,
        "identification_type_id" uuid,
        "identification_number" character varying(40),
        "created_by" uuid,
        "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(),
        "updated_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(),
        "closed_at" TIMESTAMP WITH TIME ZONE,
        CONSTRAINT "pk_cases" PRIMARY KEY ("id"),
        CONSTRAINT "uq_cases_number" UNIQUE ("tenant_id", "number"),
        CONSTRAINT "ck_cases_description" CHECK (length(btrim("description")) > 0),
        CONSTRAINT "ck_cases_status" CHECK ("status" IN ('open', 'in_progress', 'pending', 'resolved', 'closed')),
        CONSTRAINT "fk_cases_tenant" FOREIGN KEY ("tenant_id") REFERENCES "clients"("id") ON DELETE CASCADE,
        CONSTRAINT "fk_cases_type" FOREIGN KEY ("type_id") REFERENCES "case_types"("id") ON DELETE SET NULL,
        CONSTRAINT "fk_cases_owner" FOREIGN KEY ("owner_id") REFERENCES "users"("id") ON DELETE SET NULL,
        CONSTRAINT "fk_cases_province" FOREIGN KEY ("province_id") REFERENCES "geo_areas"("id") ON DELETE SET NULL,
        CONSTRAINT "fk_cases_canton" FOREIGN KEY ("canton_id") REFERENCES "geo_areas"("id") ON DELETE SET NULL,
        CONSTRAINT "fk_cases_district" FOREIGN KEY ("district_id") REFERENCES "geo_areas"("id") ON DELETE SET NULL,
        CONSTRAINT "fk_cases_identification_type" FOREIGN KEY ("identification_type_id") REFERENCES "identification_types"("id") ON DELETE SET NULL
      )`);
    await q.query(`CREATE INDEX "ix_cases_tenant_created" ON "cases" ("tenant_id", "created_at" DESC)`);
    await q.query(`CREATE INDEX "ix_cases_tenant_status" ON "cases" ("tenant_id", "status")`);
    await q.query(`CREATE INDEX "ix_cases_owner" ON "cases" ("owner_id") WHERE "owner_id" IS NOT NULL`);
    await q.query(`
      CREATE TABLE "case_conversations" (
        "conversation_id" uuid NOT NULL,
        "case_id" uuid NOT NULL,
        "tenant_id" uuid NOT NULL,
        "linked_by" uuid,
        "linked_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(),
        CONSTRAINT "pk_case_conversations" PRIMARY KEY ("conversation_id"),
        CONSTRAINT "fk_case_conversations_case" FOREIGN KEY ("case_id") REFERENCES "cases"("id") ON DELETE CASCADE,
        CONSTRAINT "fk_case_conversations_conversation" FOREIGN KEY ("conversation_id") REFERENCES "conversations"("id") ON DELETE CASCADE
      )`);
    await q.query(`CREATE INDEX "ix_case_conversations_case" ON "case_conversations" ("case_id")`);
    await q.query(`
      CREATE TABLE "case_notes" (
        "id" uuid NOT NULL DEFAULT gen_random_uuid(),
        "case_id" uuid NOT NULL,
        "tenant_id" uuid NOT NULL,
        "author_id" uuid,
        "text" character varying(4000) NOT NULL,
        "mentions" uuid[] NOT NULL DEFAULT '{}',
        "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT clock_timestamp(),
        CONSTRAINT "pk_case_notes" PRIMARY KEY ("id"),
        CONSTRAINT "ck_case_notes_text" CHECK (length(btrim("text")) > 0),
        CONSTRAINT "fk_case_notes_case" FOREIGN KEY ("case_id") REFERENCES "cases"("id") ON DELETE CASCADE,
        CONSTRAINT "fk_case_notes_author" FOREIGN KEY ("author_id") REFERENCES "users"("id") ON DELETE SET NULL
      )`);
    await q.query(`CREATE INDEX "ix_case_notes_case" ON "case_notes" ("case_id", "created_at")`);
    await q.query(`CREATE INDEX "ix_case_notes_mentions" ON "case_notes" USING gin ("mentions")`);
    await q.query(`
      CREATE TABLE "case_activities" (
        "id" uuid NOT NULL DEFAULT gen_random_uuid(),
        "case_id" uuid NOT NULL,
        "tenant_id" uuid NOT NULL,
        "kind" character varying(10) NOT NULL,
        "title" character varying(200) NOT NULL,
        "due_at" TIMESTAMP WITH TIME ZONE,
        "done_at" TIMESTAMP WITH TIME ZONE,
        "assignee_id" uuid,
        "created_by" uuid,
        "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT clock_timestamp(),
        CONSTRAINT "pk_case_activities" PRIMARY KEY ("id"),
        CONSTRAINT "ck_case_activities_kind" CHECK ("kind" IN ('call', 'task', 'meeting')),
        CONSTRAINT "fk_case_activities_case" FOREIGN KEY ("case_id") REFERENCES "cases"("id") ON DELETE CASCADE,
        CONSTRAINT "fk_case_activities_assignee" FOREIGN KEY ("assignee_id") REFERENCES "users"("id") ON DELETE SET NULL
      )`);
    await q.query(`CREATE INDEX "ix_case_activities_case" ON "case_activities" ("case_id", "created_at")`);
    await q.query(`
      CREATE TABLE "case_assignees" (
        "case_id" uuid NOT NULL,
        "user_id" uuid NOT NULL,
        "tenant_id" uuid NOT NULL,
        "assigned_by" uuid,
        "assigned_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(),
        CONSTRAINT "pk_case_assignees" PRIMARY KEY ("case_id", "user_id"),
        CONSTRAINT "fk_case_assignees_case" FOREIGN KEY ("case_id") REFERENCES "cases"("id") ON DELETE CASCADE,
        CONSTRAINT "fk_case_assignees_user" FOREIGN KEY ("user_id") REFERENCES "users"("id") ON DELETE CASCADE
      )`);
    await q.query(`CREATE INDEX "ix_case_assignees_user" ON "case_assignees" ("user_id")`);
    await q.query(`
      CREATE TABLE "case_history" (
        "id" bigserial NOT NULL,
        "case_id" uuid NOT NULL,
        "tenant_id" uuid NOT NULL,
        "actor_id" uuid,
        "action" character varying(30) NOT NULL,
        "field" character varying(40),
        "old_value" character varying(4000),
        "new_value" character varying(4000),
        "at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT clock_timestamp(),
        CONSTRAINT "pk_case_history" PRIMARY KEY ("id"),
        CONSTRAINT "fk_case_history_case" FOREIGN KEY ("case_id") REFERENCES "cases"("id") ON DELETE CASCADE,
        CONSTRAINT "fk_case_history_actor" FOREIGN KEY ("actor_id") REFERENCES "users"("id") ON DELETE SET NULL
      )`);
    await q.query(`CREATE INDEX "ix_case_history_case" ON "case_history" ("case_id", "id")`);
  }

  async down(q: QueryRunner): Promise<void> {
    for (const table of [
      'case_history',
      'case_assignees',
      'case_activities',
      'case_notes',
      'case_conversations',
      'cases',
      'case_counters',
      'geo_imports',
      'geo_areas',
      'identification_types',
      'case_types',
      'case_catalogue_seeds',
    ])
      await q.query(`DROP TABLE "${table}"`);
  }
}
