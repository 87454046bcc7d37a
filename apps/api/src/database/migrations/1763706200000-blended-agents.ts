import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Issue 22, blended agents and connect: each line says how calls and chats mix for its agents
 * (`chats_during_call`: chats an agent on a call may hold, 0 = none; `offer_calls_with_chats`:
 * whether a call may go to an agent holding chats). A call remembers the agent its IVR sent it to
 * (`requested_agent_id`: only that agent is offered it) and the agents whose phone did not take it
 * (`failed_agents`: agent id → epoch ms of the failure), so routing does not ring them again at once.
 */
export class BlendedAgents1763706200000 implements MigrationInterface {
  name = 'BlendedAgents1763706200000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      ALTER TABLE "attention_line_routing"
        ADD COLUMN "chats_during_call" smallint NOT NULL DEFAULT 0,
        ADD COLUMN "offer_calls_with_chats" boolean NOT NULL DEFAULT false,
        ADD CONSTRAINT "ck_attention_line_routing_chats_during_call" CHECK ("chats_during_call" BETWEEN 0 AND 5)`);
    await q.query(`
      ALTER TABLE "voice_calls"
        ADD COLUMN "requested_agent_id" uuid,
        ADD COLUMN "failed_agents" jsonb NOT NULL DEFAULT '{}'`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE "voice_calls" DROP COLUMN "failed_agents", DROP COLUMN "requested_agent_id"`);
    await q.query(`
      ALTER TABLE "attention_line_routing"
        DROP CONSTRAINT "ck_attention_line_routing_chats_during_call",
        DROP COLUMN "offer_calls_with_chats",
        DROP COLUMN "chats_during_call"`);
  }
}
