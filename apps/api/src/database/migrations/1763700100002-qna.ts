import type { MigrationInterface, QueryRunner } from 'typeorm';

/** Questions-and-answers knowledge entries (searched with PostgreSQL full text, 'simple' configuration). */
export class Qna1763700100002 implements MigrationInterface {
  name = 'Qna1763700100002';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE "qna_entries" (
        "id" uuid NOT NULL DEFAULT gen_random_uuid(),
        "client_id" uuid NOT NULL,
        "question" character varying(300) NOT NULL,
        "answer" character varying(4000) NOT NULL,
        "category" character varying(80),
        "active" boolean NOT NULL DEFAULT true,
        "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(),
        "updated_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(),
        "deleted_at" TIMESTAMP WITH TIME ZONE,
        CONSTRAINT "pk_qna_entries" PRIMARY KEY ("id"),
        CONSTRAINT "fk_qna_entries_client" FOREIGN KEY ("client_id") REFERENCES "clients"("id") ON DELETE CASCADE ON UPDATE NO ACTION
      )`);
    await q.query(`CREATE INDEX "ix_qna_entries_client" ON "qna_entries" ("client_id")`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE "qna_entries"`);
  }
}
