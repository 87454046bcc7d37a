import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Issue 21, email campaigns: a message campaign whose channel is 'email' sends an email template
 * (channel_templates, category 'EMAIL') to the addresses of a phone list's column.
 *
 * `phone_list_entries.fields`: the row's other columns as imported (header → cell), so a campaign
 * can map a column to the recipient address and columns to parameters.
 * `message_campaigns.address_column`: the list column holding the address (email campaigns).
 * `message_campaign_recipients.address`: the recipient address (lower-cased), unique per campaign
 * among the recipients it mails; `send_started_at`: set before the SMTP transaction, so a run that
 * died after it marks the mail "sent, unconfirmed" instead of sending it again (the email desk's rule).
 */
export class EmailCampaigns1763705600000 implements MigrationInterface {
  name = 'EmailCampaigns1763705600000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE "phone_list_entries" ADD "fields" jsonb`);
    await q.query(`ALTER TABLE "message_campaigns" ADD "address_column" character varying(60)`);
    await q.query(`ALTER TABLE "message_campaign_recipients" ADD "address" character varying(320)`);
    await q.query(`ALTER TABLE "message_campaign_recipients" ADD "send_started_at" TIMESTAMP WITH TIME ZONE`);
    await q.query(
      `CREATE UNIQUE INDEX "uq_message_campaign_recipients_address" ON "message_campaign_recipients" ("campaign_id", "address")
       WHERE "address" IS NOT NULL AND "status" <> 'skipped'`,
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP INDEX "uq_message_campaign_recipients_address"`);
    await q.query(`ALTER TABLE "message_campaign_recipients" DROP COLUMN "send_started_at"`);
    await q.query(`ALTER TABLE "message_campaign_recipients" DROP COLUMN "address"`);
    await q.query(`ALTER TABLE "message_campaigns" DROP COLUMN "address_column"`);
    await q.query(`ALTER TABLE "phone_list_entries" DROP COLUMN "fields"`);
  }
}
