import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Issue 18 item 3, the conversation intake: a contact is a customer as one channel account knows
 * them (unique per tenant, channel, account and the provider's id for them); a conversation names
 * its contact and account, and a contact has at most one open conversation (Transitory, LiningUp
 * or Active), so concurrent first messages cannot open two. A message may carry the provider's id
 * (`external_id`, text: provider ids are long and unique per account, not per conversation as the
 * client-chosen `client_message_id` is), unique per tenant, channel and account, so a provider's
 * retried delivery is stored once.
 */
export class ConversationIntake1763703300000 implements MigrationInterface {
  name = 'ConversationIntake1763703300000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE "contacts" (
        "id" uuid NOT NULL DEFAULT gen_random_uuid(),
        "tenant_id" uuid NOT NULL,
        "channel" character varying(40) NOT NULL,
        "channel_account_id" text NOT NULL,
        "external_id" text NOT NULL,
        "name" character varying(120) NOT NULL,
        "email" character varying(254),
        "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(),
        "updated_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(),
        CONSTRAINT "pk_contacts" PRIMARY KEY ("id"),
        CONSTRAINT "uq_contacts_external_id" UNIQUE ("tenant_id", "channel", "channel_account_id", "external_id"),
        CONSTRAINT "ck_contacts_ids" CHECK (length("channel_account_id") BETWEEN 1 AND 200 AND length("external_id") BETWEEN 1 AND 512),
        CONSTRAINT "fk_contacts_tenant" FOREIGN KEY ("tenant_id") REFERENCES "clients"("id") ON DELETE CASCADE
      )`);
    await q.query(`ALTER TABLE "conversations" ADD "contact_id" uuid, ADD "channel_account_id" text`);
    await q.query(
      `ALTER TABLE "conversations" ADD CONSTRAINT "fk_conversations_contact" FOREIGN KEY ("contact_id") REFERENCES "contacts"("id") ON DELETE SET NULL`,
    );
    await q.query(
      `CREATE UNIQUE INDEX "uq_conversations_open_contact" ON "conversations" ("contact_id") WHERE "status" IN ('Transitory', 'LiningUp', 'Active')`,
    );
    await q.query(`ALTER TABLE "messages" ADD "channel" character varying(40), ADD "channel_account_id" text, ADD "external_id" text`);
    await q.query(
      `ALTER TABLE "messages" ADD CONSTRAINT "ck_messages_external_id" CHECK ("external_id" IS NULL OR ("channel" IS NOT NULL AND "channel_account_id" IS NOT NULL AND length("external_id") BETWEEN 1 AND 512))`,
    );
    await q.query(
      `CREATE UNIQUE INDEX "uq_messages_external_id" ON "messages" ("tenant_id", "channel", "channel_account_id", "external_id") WHERE "external_id" IS NOT NULL`,
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP INDEX "uq_messages_external_id"`);
    await q.query(`ALTER TABLE "messages" DROP CONSTRAINT "ck_messages_external_id"`);
    await q.query(`ALTER TABLE "messages" DROP COLUMN "external_id", DROP COLUMN "channel_account_id", DROP COLUMN "channel"`);
    await q.query(`DROP INDEX "uq_conversations_open_contact"`);
    await q.query(`ALTER TABLE "conversations" DROP CONSTRAINT "fk_conversations_contact"`);
    await q.query(`ALTER TABLE "conversations" DROP COLUMN "channel_account_id", DROP COLUMN "contact_id"`);
    await q.query(`DROP TABLE "contacts"`);
  }
}
