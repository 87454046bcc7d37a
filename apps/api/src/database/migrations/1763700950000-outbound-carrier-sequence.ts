import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The last carrier event applied to each outbound call (the dialer numbers them 1, 2, … per call).
 * With it the API may consume `outbound-call-events` from several processes and with concurrency:
 * an event whose predecessor is not applied yet waits for it, a re-delivered one is dropped.
 */
export class OutboundCarrierSequence1763700950000 implements MigrationInterface {
  name = 'OutboundCarrierSequence1763700950000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE "outbound_calls" ADD COLUMN "carrier_seq" integer NOT NULL DEFAULT 0`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE "outbound_calls" DROP COLUMN "carrier_seq"`);
  }
}
