import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Issue 19: a provider's delivery receipt can arrive before the message it names is known by its
 * provider id (Meta's status webhook can beat its own answer to the send; a busy or restarting
 * worker stores that answer later still). Such a receipt is kept here, once per (account,
 * provider id, status), and applied by the database the moment a message takes that provider id
 * (insert or update), with the same forward-only rule as any receipt (sent < delivered < read;
 * failed is terminal and never follows read), in the order the provider stamped them. The receipt's processing and the message's write both hold the
 * transaction lock `channel-receipt:<provider id>`, so neither can miss the other.
 * Receipts for ids no message ever takes (a message campaign's, a send of another system on the
 * same number) are swept after 30 days by whoever keeps a new one (the processor).
 */
export class ChannelPendingReceipts1763706500000 implements MigrationInterface {
  name = 'ChannelPendingReceipts1763706500000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE "channel_pending_receipts" (
        "tenant_id" uuid NOT NULL,
        "account_id" uuid NOT NULL,
        "provider_message_id" character varying(512) NOT NULL,
        "status" character varying(12) NOT NULL,
        "error" text,
        "at" TIMESTAMP WITH TIME ZONE NOT NULL,
        "received_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(),
        CONSTRAINT "pk_channel_pending_receipts" PRIMARY KEY ("account_id", "provider_message_id", "status"),
        CONSTRAINT "ck_channel_pending_receipts_status" CHECK ("status" IN ('sent', 'delivered', 'read', 'failed')),
        CONSTRAINT "fk_channel_pending_receipts_account" FOREIGN KEY ("account_id") REFERENCES "channel_accounts"("id") ON DELETE CASCADE
      )`);
    await q.query(`CREATE INDEX "ix_channel_pending_receipts_received_at" ON "channel_pending_receipts" ("received_at")`);
    // BEFORE the row is written: the message's own write carries the receipts' statuses, so the
    // push that follows it (the worker's message.updated) shows them.
    await q.query(`
      CREATE FUNCTION "messages_apply_pending_receipts"() RETURNS trigger LANGUAGE plpgsql AS $$
      DECLARE
        r record;
      BEGIN
        IF NEW.channel_account_id IS NULL THEN RETURN NEW; END IF;
        PERFORM pg_advisory_xact_lock(hashtext('channel-receipt:' || NEW.provider_message_id));
        FOR r IN
          WITH taken AS (
            DELETE FROM channel_pending_receipts p
            WHERE p.account_id::text = NEW.channel_account_id AND p.provider_message_id = NEW.provider_message_id
            RETURNING p.status, p.error, p.at
          )
          SELECT * FROM taken
          ORDER BY at, CASE status WHEN 'sent' THEN 1 WHEN 'delivered' THEN 2 WHEN 'read' THEN 3 ELSE 4 END
        LOOP
          IF r.status = 'failed' THEN
            IF NEW.delivery_status IS NULL OR NEW.delivery_status NOT IN ('read', 'failed') THEN
              NEW.delivery_status := 'failed';
              NEW.delivery_error := r.error;
              NEW.delivery_updated_at := now();
            END IF;
          ELSIF NEW.delivery_status IS NULL OR NEW.delivery_status = 'pending'
            OR (NEW.delivery_status <> 'failed'
              AND (CASE NEW.delivery_status WHEN 'sent' THEN 1 WHEN 'delivered' THEN 2 WHEN 'read' THEN 3 ELSE 0 END)
                < (CASE r.status WHEN 'sent' THEN 1 WHEN 'delivered' THEN 2 WHEN 'read' THEN 3 ELSE 0 END)) THEN
            NEW.delivery_status := r.status;
            NEW.delivery_updated_at := now();
            IF r.status IN ('delivered', 'read') THEN NEW.delivered_at := COALESCE(NEW.delivered_at, r.at); END IF;
            IF r.status = 'read' THEN NEW.read_at := COALESCE(NEW.read_at, r.at); END IF;
          END IF;
        END LOOP;
        RETURN NEW;
      END $$`);
    await q.query(`
      CREATE TRIGGER "messages_apply_pending_receipts_insert" BEFORE INSERT ON "messages"
      FOR EACH ROW WHEN (NEW.provider_message_id IS NOT NULL)
      EXECUTE FUNCTION "messages_apply_pending_receipts"()`);
    await q.query(`
      CREATE TRIGGER "messages_apply_pending_receipts_update" BEFORE UPDATE OF "provider_message_id" ON "messages"
      FOR EACH ROW WHEN (NEW.provider_message_id IS NOT NULL AND NEW.provider_message_id IS DISTINCT FROM OLD.provider_message_id)
      EXECUTE FUNCTION "messages_apply_pending_receipts"()`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TRIGGER "messages_apply_pending_receipts_update" ON "messages"`);
    await q.query(`DROP TRIGGER "messages_apply_pending_receipts_insert" ON "messages"`);
    await q.query(`DROP FUNCTION "messages_apply_pending_receipts"()`);
    await q.query(`DROP TABLE "channel_pending_receipts"`);
  }
}
