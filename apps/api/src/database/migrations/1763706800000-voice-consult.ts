import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Issue 22 item 2, attended transfer: a connected call remembers the agent its agent consults, so the API can refuse a
 * second consultation, complete only an answered one and cancel a running one, and presence can follow the consulted
 * agent. `consult_state` is 'ringing' from the request until the worker reports their phone answered ('active'),
 * 'completing' / 'cancelling' once the desk asked; `consult_connected_at` says the consulted agent talked (their call
 * ends for presence when the consultation does). All three are cleared when the worker reports its end.
 */
export class VoiceConsult1763706800000 implements MigrationInterface {
  name = 'VoiceConsult1763706800000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      ALTER TABLE "voice_calls"
        ADD COLUMN "consult_agent_id" uuid,
        ADD COLUMN "consult_state" text,
        ADD COLUMN "consult_connected_at" TIMESTAMP WITH TIME ZONE,
        ADD CONSTRAINT "fk_voice_calls_consult_agent" FOREIGN KEY ("consult_agent_id") REFERENCES "users"("id") ON DELETE SET NULL,
        ADD CONSTRAINT "ck_voice_calls_consult_state"
          CHECK ("consult_state" IS NULL OR "consult_state" IN ('ringing', 'active', 'completing', 'cancelling'))`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`
      ALTER TABLE "voice_calls"
        DROP CONSTRAINT "ck_voice_calls_consult_state",
        DROP CONSTRAINT "fk_voice_calls_consult_agent",
        DROP COLUMN "consult_connected_at",
        DROP COLUMN "consult_state",
        DROP COLUMN "consult_agent_id"`);
  }
}
