import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Issue 19, outbound messaging and attachments. An agent's message on a messaging channel is sent
 * by the worker: its way to the customer is `delivery_status` (pending → sent → delivered → read,
 * or failed with the provider's reason in `delivery_error`; null for web chat and for customers'
 * messages), under the provider's id for it (`provider_message_id`, unique per channel account so a
 * receipt names exactly one message). A template message keeps the template it was sent with.
 *
 * Files travel as `message_attachments`: the bytes in the shared file store (stored_files), the
 * row naming the message, the kind the desk shows it as and the name and type it was checked as.
 * A message may then carry no text at all (a photo without caption), so the text check is
 * relaxed to "no longer than a message may be"; "text or an attachment" is the service's rule
 * (MessagesService), since a CHECK cannot see another table.
 */
export class MessageDeliveryAndAttachments1763704300000 implements MigrationInterface {
  name = 'MessageDeliveryAndAttachments1763704300000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      ALTER TABLE "messages"
        ADD "delivery_status" character varying(12),
        ADD "provider_message_id" character varying(512),
        ADD "delivery_error" text,
        ADD "delivery_updated_at" TIMESTAMP WITH TIME ZONE,
        ADD "template" jsonb`);
    await q.query(
      `ALTER TABLE "messages" ADD CONSTRAINT "ck_messages_delivery_status" CHECK ("delivery_status" IN ('pending', 'sent', 'delivered', 'read', 'failed'))`,
    );
    await q.query(`ALTER TABLE "messages" DROP CONSTRAINT "ck_messages_text"`);
    // Receipts arrive by the provider's id, per account (B1's inbound processing looks them up so).
    await q.query(
      `CREATE UNIQUE INDEX "uq_messages_provider_message_id" ON "messages" ("channel_account_id", "provider_message_id") WHERE "provider_message_id" IS NOT NULL`,
    );
    await q.query(`
      CREATE TABLE "message_attachments" (
        "id" uuid NOT NULL DEFAULT gen_random_uuid(),
        "tenant_id" uuid NOT NULL,
        "message_id" uuid NOT NULL,
        "file_id" uuid NOT NULL,
        "kind" character varying(16) NOT NULL,
        "file_name" character varying(255) NOT NULL,
        "mime_type" character varying(127) NOT NULL,
        "size" integer NOT NULL,
        "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(),
        CONSTRAINT "pk_message_attachments" PRIMARY KEY ("id"),
        CONSTRAINT "ck_message_attachments_kind" CHECK ("kind" IN ('image', 'document', 'audio', 'video')),
        CONSTRAINT "ck_message_attachments_size" CHECK ("size" >= 0),
        CONSTRAINT "fk_message_attachments_tenant" FOREIGN KEY ("tenant_id") REFERENCES "clients"("id") ON DELETE CASCADE,
        CONSTRAINT "fk_message_attachments_message" FOREIGN KEY ("message_id") REFERENCES "messages"("id") ON DELETE CASCADE,
        CONSTRAINT "fk_message_attachments_file" FOREIGN KEY ("file_id") REFERENCES "stored_files"("id") ON DELETE CASCADE
      )`);
    // Message lists aggregate the attachments of their messages in one join.
    await q.query(`CREATE INDEX "ix_message_attachments_message" ON "message_attachments" ("message_id")`);
    // Deleting an attachment (or its message's cascade) leaves no file behind.
    await q.query(`
      CREATE FUNCTION "message_attachments_remove_file"() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        DELETE FROM stored_files WHERE id = OLD.file_id;
        RETURN OLD;
      END $$`);
    await q.query(
      `CREATE TRIGGER "message_attachments_remove_file" AFTER DELETE ON "message_attachments" FOR EACH ROW EXECUTE FUNCTION "message_attachments_remove_file"()`,
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE "message_attachments"`);
    await q.query(`DROP FUNCTION "message_attachments_remove_file"()`);
    await q.query(`DROP INDEX "uq_messages_provider_message_id"`);
    await q.query(`ALTER TABLE "messages" ADD CONSTRAINT "ck_messages_text" CHECK (length(btrim("text")) > 0) NOT VALID`);
    await q.query(`ALTER TABLE "messages" DROP CONSTRAINT "ck_messages_delivery_status"`);
    await q.query(
      `ALTER TABLE "messages" DROP COLUMN "template", DROP COLUMN "delivery_updated_at", DROP COLUMN "delivery_error", DROP COLUMN "provider_message_id", DROP COLUMN "delivery_status"`,
    );
  }
}
