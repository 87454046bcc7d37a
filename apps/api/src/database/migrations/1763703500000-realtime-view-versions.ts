import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Issue 18 items 4 and 6(d): views computed from many rows (a line's queue, a customer's position
 * in it, a campaign's live queue) carry a version, so a client keeps the newest whatever order the
 * API processes' pushes arrive in. A push takes its view's row lock, then the next value of one
 * sequence (versions grow across views too: a customer moved to another line keeps rising), then
 * reads the view: a higher version was read later. `told` is what each waiting customer of a line
 * was last told (conversation id → "position/estimate"), so only changes are pushed, whichever
 * process pushed before.
 */
export class RealtimeViewVersions1763703500000 implements MigrationInterface {
  name = 'RealtimeViewVersions1763703500000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`CREATE SEQUENCE "realtime_view_version_seq"`);
    await q.query(`
      CREATE TABLE "realtime_view_versions" (
        "view_key" character varying(80) PRIMARY KEY,
        "version" bigint NOT NULL,
        "told" jsonb NOT NULL DEFAULT '{}'::jsonb
      )`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE "realtime_view_versions"`);
    await q.query(`DROP SEQUENCE "realtime_view_version_seq"`);
  }
}
