import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Issue 23 (the bot's menu as buttons): `messages.buttons`, the reply buttons a bot message offers
 * ([{payload, title}], null for every other message). The worker sends them with the text through
 * the channel's adapter (WhatsApp interactive, Messenger/Instagram quick replies, Telegram inline
 * keyboard, X quick reply options); the customer's tap comes back with the payload. A tap on a
 * menu topic is a bot turn of its own: bot_turns.outcome 'menu'.
 */
export class MessageButtons1763705400000 implements MigrationInterface {
  name = 'MessageButtons1763705400000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE "messages" ADD COLUMN "buttons" jsonb`);
    await q.query(`ALTER TABLE "bot_turns" DROP CONSTRAINT "ck_bot_turns_outcome"`);
    await q.query(
      `ALTER TABLE "bot_turns" ADD CONSTRAINT "ck_bot_turns_outcome" CHECK ("outcome" IN ('pending', 'answered', 'unknown', 'handoff', 'greeting', 'menu'))`,
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`UPDATE "bot_turns" SET "outcome" = 'greeting' WHERE "outcome" = 'menu'`);
    await q.query(`ALTER TABLE "bot_turns" DROP CONSTRAINT "ck_bot_turns_outcome"`);
    await q.query(
      `ALTER TABLE "bot_turns" ADD CONSTRAINT "ck_bot_turns_outcome" CHECK ("outcome" IN ('pending', 'answered', 'unknown', 'handoff', 'greeting'))`,
    );
    await q.query(`ALTER TABLE "messages" DROP COLUMN "buttons"`);
  }
}
