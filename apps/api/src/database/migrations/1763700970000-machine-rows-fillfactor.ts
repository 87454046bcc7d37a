import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Conversation and agent rows are rewritten at every machine step (a customer's message is one),
 * mostly without touching an indexed column. Free room on their pages lets PostgreSQL keep those
 * new row versions on the same page as heap-only tuples, updating none of the tables' indexes
 * (seven on conversations). Applies to pages written from now on.
 */
export class MachineRowsFillfactor1763700970000 implements MigrationInterface {
  name = 'MachineRowsFillfactor1763700970000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE "conversations" SET (fillfactor = 80)`);
    await q.query(`ALTER TABLE "agent_presence" SET (fillfactor = 50)`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE "conversations" RESET (fillfactor)`);
    await q.query(`ALTER TABLE "agent_presence" RESET (fillfactor)`);
  }
}
