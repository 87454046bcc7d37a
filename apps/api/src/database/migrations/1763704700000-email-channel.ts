import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Issue 20, email as a channel (accounts are `channel_accounts` of kind 'email'):
 * - `email_mailbox_state`: where the worker's reader is in each (account, folder): the folder's
 *   UIDVALIDITY and the last UID stored. Never "the last N" or unread flags, which another client
 *   changes. A new UIDVALIDITY reads the folder again; channel_events' (account, delivery key =
 *   Message-ID) makes that re-read store nothing twice.
 * - `message_emails`: the email a conversation message is (the message keeps a short preview, as
 *   every channel's list shows): subject, addresses, Message-ID / In-Reply-To / References, the
 *   HTML as received (the console sanitises it in a sandboxed frame) and the text with its quoted
 *   part apart, SPF/DKIM/DMARC verdicts. Inbound rows are keyed by the message's external id (the
 *   Message-ID), outbound ones by (conversation, client message id), so each is written in the
 *   transaction of, or before, its message. Threading looks ids up per account.
 * - Outbound idempotency: the Message-ID is generated when the reply is stored; the worker marks
 *   `send_started_at` before it talks SMTP and `send_confirmed_at` after the 250. A retry that finds
 *   an attempt without confirmation (a worker killed after the server's 250) does not send again.
 */
export class EmailChannel1763704700000 implements MigrationInterface {
  name = 'EmailChannel1763704700000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE "email_mailbox_state" (
        "account_id" uuid NOT NULL,
        "folder" character varying(200) NOT NULL,
        "tenant_id" uuid NOT NULL,
        "uid_validity" character varying(20) NOT NULL,
        "last_uid" bigint NOT NULL DEFAULT 0,
        "last_sync_at" TIMESTAMP WITH TIME ZONE,
        "last_error" text,
        "updated_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(),
        CONSTRAINT "pk_email_mailbox_state" PRIMARY KEY ("account_id", "folder"),
        CONSTRAINT "ck_email_mailbox_state_uid" CHECK ("last_uid" >= 0),
        CONSTRAINT "fk_email_mailbox_state_tenant" FOREIGN KEY ("tenant_id") REFERENCES "clients"("id") ON DELETE CASCADE,
        CONSTRAINT "fk_email_mailbox_state_account" FOREIGN KEY ("account_id") REFERENCES "channel_accounts"("id") ON DELETE CASCADE
      )`);
    await q.query(`
      CREATE TABLE "message_emails" (
        "id" uuid NOT NULL DEFAULT gen_random_uuid(),
        "tenant_id" uuid NOT NULL,
        "account_id" uuid NOT NULL,
        "direction" character varying(3) NOT NULL,
        "conversation_id" uuid,
        "client_message_id" text,
        "message_id_header" character varying(512) NOT NULL,
        "in_reply_to" character varying(512),
        "references" text[] NOT NULL DEFAULT '{}',
        "subject" character varying(998) NOT NULL DEFAULT '',
        "from_address" jsonb NOT NULL,
        "to_addresses" jsonb NOT NULL DEFAULT '[]',
        "cc_addresses" jsonb NOT NULL DEFAULT '[]',
        "bcc_addresses" jsonb NOT NULL DEFAULT '[]',
        "text" text NOT NULL DEFAULT '',
        "quoted" text NOT NULL DEFAULT '',
        "html" text,
        "auth" jsonb,
        "reply_token" character varying(40),
        "thread_conversation_id" uuid,
        "sent_at" TIMESTAMP WITH TIME ZONE,
        "send_started_at" TIMESTAMP WITH TIME ZONE,
        "send_confirmed_at" TIMESTAMP WITH TIME ZONE,
        "smtp_response" text,
        "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(),
        CONSTRAINT "pk_message_emails" PRIMARY KEY ("id"),
        CONSTRAINT "ck_message_emails_direction" CHECK ("direction" IN ('in', 'out')),
        CONSTRAINT "ck_message_emails_out_key" CHECK ("direction" = 'in' OR ("conversation_id" IS NOT NULL AND "client_message_id" IS NOT NULL)),
        CONSTRAINT "fk_message_emails_tenant" FOREIGN KEY ("tenant_id") REFERENCES "clients"("id") ON DELETE CASCADE,
        CONSTRAINT "fk_message_emails_account" FOREIGN KEY ("account_id") REFERENCES "channel_accounts"("id") ON DELETE CASCADE,
        CONSTRAINT "fk_message_emails_conversation" FOREIGN KEY ("conversation_id") REFERENCES "conversations"("id") ON DELETE CASCADE
      )`);
    // An inbound mail once per account (its Message-ID is its message's external id).
    await q.query(
      `CREATE UNIQUE INDEX "uq_message_emails_inbound" ON "message_emails" ("account_id", "message_id_header") WHERE "direction" = 'in'`,
    );
    // An outbound mail once per composed message (the composer's client id).
    await q.query(
      `CREATE UNIQUE INDEX "uq_message_emails_outbound" ON "message_emails" ("conversation_id", "client_message_id") WHERE "direction" = 'out'`,
    );
    // Threading: a reply's In-Reply-To / References, looked up per account, either direction.
    await q.query(`CREATE INDEX "ix_message_emails_thread" ON "message_emails" ("account_id", "message_id_header")`);
    await q.query(`CREATE INDEX "ix_message_emails_conversation" ON "message_emails" ("conversation_id", "created_at")`);
    await q.query(
      `CREATE UNIQUE INDEX "uq_message_emails_reply_token" ON "message_emails" ("reply_token") WHERE "reply_token" IS NOT NULL`,
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE "message_emails"`);
    await q.query(`DROP TABLE "email_mailbox_state"`);
  }
}
