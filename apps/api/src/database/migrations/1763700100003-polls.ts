import type { MigrationInterface, QueryRunner } from 'typeorm';

/** Polls (surveys): questions, reusable answer groups (catalogs) and the answers given. */
export class Polls1763700100003 implements MigrationInterface {
  name = 'Polls1763700100003';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE "polls" (
        "id" uuid NOT NULL DEFAULT gen_random_uuid(),
        "client_id" uuid NOT NULL,
        "name" character varying(160) NOT NULL,
        "description" character varying(500),
        "active" boolean NOT NULL DEFAULT true,
        "lower_rank" smallint NOT NULL,
        "upper_rank" smallint NOT NULL,
        "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(),
        "updated_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(),
        "deleted_at" TIMESTAMP WITH TIME ZONE,
        CONSTRAINT "pk_polls" PRIMARY KEY ("id"),
        CONSTRAINT "ck_polls_rank_sum" CHECK ("lower_rank" + "upper_rank" = 100),
        CONSTRAINT "fk_polls_client" FOREIGN KEY ("client_id") REFERENCES "clients"("id") ON DELETE CASCADE ON UPDATE NO ACTION
      )`);
    await q.query(`CREATE INDEX "ix_polls_client" ON "polls" ("client_id")`);
    await q.query(`
      CREATE TABLE "poll_answer_groups" (
        "id" uuid NOT NULL DEFAULT gen_random_uuid(),
        "client_id" uuid NOT NULL,
        "name" character varying(160) NOT NULL,
        "options" text array NOT NULL DEFAULT '{}',
        CONSTRAINT "pk_poll_answer_groups" PRIMARY KEY ("id"),
        CONSTRAINT "fk_poll_answer_groups_client" FOREIGN KEY ("client_id") REFERENCES "clients"("id") ON DELETE CASCADE ON UPDATE NO ACTION
      )`);
    await q.query(`CREATE INDEX "ix_poll_answer_groups_client" ON "poll_answer_groups" ("client_id")`);
    await q.query(`
      CREATE TABLE "poll_questions" (
        "id" uuid NOT NULL DEFAULT gen_random_uuid(),
        "poll_id" uuid NOT NULL,
        "client_id" uuid NOT NULL,
        "position" smallint NOT NULL,
        "text" character varying(300) NOT NULL,
        "response_type" character varying(20) NOT NULL,
        "options" text array NOT NULL DEFAULT '{}',
        "answer_group_id" uuid,
        "retired_at" TIMESTAMP WITH TIME ZONE,
        CONSTRAINT "pk_poll_questions" PRIMARY KEY ("id"),
        CONSTRAINT "fk_poll_questions_poll" FOREIGN KEY ("poll_id") REFERENCES "polls"("id") ON DELETE CASCADE ON UPDATE NO ACTION,
        CONSTRAINT "fk_poll_questions_group" FOREIGN KEY ("answer_group_id") REFERENCES "poll_answer_groups"("id") ON DELETE SET NULL ON UPDATE NO ACTION
      )`);
    await q.query(`CREATE INDEX "ix_poll_questions_poll" ON "poll_questions" ("poll_id")`);
    await q.query(`
      CREATE TABLE "poll_responses" (
        "id" uuid NOT NULL DEFAULT gen_random_uuid(),
        "client_id" uuid NOT NULL,
        "poll_id" uuid NOT NULL,
        "question_id" uuid NOT NULL,
        "conversation_id" uuid,
        "value" character varying(1000) NOT NULL,
        "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(),
        CONSTRAINT "pk_poll_responses" PRIMARY KEY ("id"),
        CONSTRAINT "fk_poll_responses_poll" FOREIGN KEY ("poll_id") REFERENCES "polls"("id") ON DELETE CASCADE ON UPDATE NO ACTION,
        CONSTRAINT "fk_poll_responses_question" FOREIGN KEY ("question_id") REFERENCES "poll_questions"("id") ON DELETE CASCADE ON UPDATE NO ACTION
      )`);
    await q.query(`CREATE INDEX "ix_poll_responses_poll" ON "poll_responses" ("poll_id")`);
    await q.query(`CREATE INDEX "ix_poll_responses_question" ON "poll_responses" ("question_id", "created_at")`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE "poll_responses"`);
    await q.query(`DROP TABLE "poll_questions"`);
    await q.query(`DROP TABLE "poll_answer_groups"`);
    await q.query(`DROP TABLE "polls"`);
  }
}
