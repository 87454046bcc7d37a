import { eventually } from '../../../../test/support/eventually';
import { OutboxRetention } from '../../src/modules/machine-host/outbox-retention.service';
import { createLine, createTenant } from '../support/realtime';
import { startTestApp, type TestApp } from '../support/test-app';
import { queueCustomer } from './consistency';

const RETENTION_SECONDS = 2;

/** Test rows of one kind, told apart by a marker in their payload (the relay never delivers them: see OUTBOX_STALE_MS below). */
async function insertRows(t: TestApp, marker: string, count: number, createdAgo: string, deliveredAgo: string | null): Promise<void> {
  await t.dataSource.query(
    `INSERT INTO outbox (topic, payload, created_at, delivered_at)
     SELECT 'socket', jsonb_build_object('emits', '[]'::jsonb, 'marker', $1::text), now() - $2::interval,
            CASE WHEN $3::interval IS NULL THEN NULL ELSE now() - $3::interval END
     FROM generate_series(1, $4)`,
    [marker, createdAgo, deliveredAgo, count],
  );
}

async function countRows(t: TestApp, marker: string): Promise<number> {
  const [{ n }] = await t.dataSource.query(`SELECT count(*)::int AS n FROM outbox WHERE payload->>'marker' = $1`, [marker]);
  return n as number;
}

/**
 * Issue 18, item 1 (retention): delivered outbox rows are deleted once older than the retention,
 * undelivered ones never, and two API processes sweeping at once do not get in each other's way.
 */
describe(OutboxRetention.name, () => {
  let a: TestApp;
  let b: TestApp;
  const saved = {
    OUTBOX_RETENTION_SECONDS: process.env.OUTBOX_RETENTION_SECONDS,
    OUTBOX_SWEEP_MS: process.env.OUTBOX_SWEEP_MS,
    OUTBOX_STALE_MS: process.env.OUTBOX_STALE_MS,
  };

  beforeAll(async () => {
    process.env.OUTBOX_RETENTION_SECONDS = String(RETENTION_SECONDS);
    process.env.OUTBOX_SWEEP_MS = '200';
    // The poller leaves rows younger than an hour to their writer: the test's undelivered rows stay undelivered.
    process.env.OUTBOX_STALE_MS = '3600000';
    [a, b] = await Promise.all([startTestApp(), startTestApp()]);
  });
  afterAll(async () => {
    await Promise.all([a.close(), b.close()]);
    for (const [name, value] of Object.entries(saved)) {
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
    }
  });

  it('deletes the rows the relay delivered once the retention has passed', async () => {
    const tenant = await createTenant(a.dataSource);
    const line = await createLine(a.dataSource, tenant, 'Retention');
    const [{ before }] = await a.dataSource.query(`SELECT coalesce(max(id), 0)::text AS before FROM outbox`);
    const conversations: string[] = [];
    for (let i = 0; i < 5; i++) conversations.push(await queueCustomer(i % 2 ? a : b, line, `C${i}`));
    // This test's rows only: every API process of the run (other suites' too) writes outbox rows
    // all the time, so rows are told apart by the tenant, line or conversations they name.
    const ours = [tenant.client.id, line, ...conversations].map((id) => `%${id}%`);
    const mine = `id > $1::bigint AND payload::text LIKE ANY($2::text[])`;
    const written = async () =>
      Number((await a.dataSource.query(`SELECT count(*)::int AS n FROM outbox WHERE ${mine}`, [before, ours]))[0].n);
    // Each customer wrote rows (pushes, routing and timer jobs); the relay delivers them at once…
    expect(await written()).toBeGreaterThanOrEqual(10);
    await eventually(async () => {
      const [{ undelivered }] = await a.dataSource.query(
        `SELECT count(*)::int AS undelivered FROM outbox WHERE ${mine} AND delivered_at IS NULL`,
        [before, ours],
      );
      expect(undelivered).toBe(0);
    });
    // …and a sweep deletes them once they are RETENTION_SECONDS old.
    await eventually(async () => expect(await written()).toBe(0), { timeoutMs: 15_000, intervalMs: 100 });
  });

  it('never deletes an undelivered row, nor a delivered one younger than the retention', async () => {
    await insertRows(a, 'undelivered-old', 300, '10 minutes', null);
    // Held FOR UPDATE so that no relay poller of this run (other suites' processes share the database)
    // delivers them meanwhile: pollers claim with SKIP LOCKED, and the sweep never locks an undelivered row.
    const holder = a.dataSource.createQueryRunner();
    await holder.connect();
    await holder.startTransaction();
    await holder.query(`SELECT id FROM outbox WHERE payload->>'marker' = 'undelivered-old' FOR UPDATE`);
    try {
      await insertRows(a, 'delivered-old', 300, '10 minutes', '9 minutes');
      await insertRows(a, 'delivered-late', 300, '10 minutes', '0 seconds');
      await insertRows(a, 'delivered-young', 300, '0 seconds', '0 seconds');

      await eventually(async () => expect(await countRows(a, 'delivered-old')).toBe(0), { timeoutMs: 10_000, intervalMs: 50 });
      // Delivered just now (the poller's late delivery of an old row, a fresh one): kept for the retention.
      expect(await countRows(a, 'delivered-late')).toBe(300);
      expect(await countRows(a, 'delivered-young')).toBe(300);
      expect(await countRows(a, 'undelivered-old')).toBe(300);
      await eventually(async () => expect(await countRows(a, 'delivered-young')).toBe(0), { timeoutMs: 15_000, intervalMs: 100 });
      expect(await countRows(a, 'delivered-late')).toBe(0);
      expect(await countRows(a, 'undelivered-old')).toBe(300);
    } finally {
      await holder.rollbackTransaction();
      await holder.release();
    }
    await a.dataSource.query(`DELETE FROM outbox WHERE payload->>'marker' = 'undelivered-old'`);
  });

  it('lets one process sweep at a time: two sweeping at once delete each row once, without an error', async () => {
    const sweepers = [a.app.get(OutboxRetention), b.app.get(OutboxRetention)];
    // More than one statement's worth (5,000 a batch), so the sweeps overlap.
    await insertRows(a, 'backlog', 12_000, '1 hour', '1 hour');
    await insertRows(a, 'pending', 50, '30 minutes', null);
    // Held FOR UPDATE as above: other suites' relay pollers would deliver these stale rows.
    const pendingHolder = a.dataSource.createQueryRunner();
    await pendingHolder.connect();
    await pendingHolder.startTransaction();
    await pendingHolder.query(`SELECT id FROM outbox WHERE payload->>'marker' = 'pending' FOR UPDATE`);
    try {
      await sweepAndHold(sweepers);
    } finally {
      await pendingHolder.rollbackTransaction();
      await pendingHolder.release();
    }
    await a.dataSource.query(`DELETE FROM outbox WHERE payload->>'marker' = 'pending'`);
  });

  async function sweepAndHold(sweepers: OutboxRetention[]): Promise<void> {
    const outcomes = await Promise.all(Array.from({ length: 6 }, (_, i) => sweepers[i % 2].sweep()));
    // Each sweep answered (a count, or null when another held the sweep), none failed. Their counts
    // are not summed: a sweep deletes every delivered row past the retention, other suites' too.
    expect(outcomes.every((outcome) => outcome === null || Number.isInteger(outcome))).toBe(true);
    await eventually(async () => expect(await countRows(a, 'backlog')).toBe(0));
    expect(await countRows(a, 'pending')).toBe(50);

    // While another process holds the sweep, a sweep skips its turn (null) and deletes nothing.
    // The lock is taken before the rows exist: every API process of this run (other suites' too)
    // sweeps on its own timer, and one could delete them between the insert and the lock.
    const holder = a.dataSource.createQueryRunner();
    await holder.connect();
    try {
      await holder.startTransaction();
      await holder.query(`SELECT pg_advisory_xact_lock(hashtext('outbox-retention'))`);
      await insertRows(a, 'held', 100, '1 hour', '1 hour');
      expect(await sweepers[1].sweep()).toBeNull();
      expect(await countRows(a, 'held')).toBe(100);
      await holder.commitTransaction();
    } finally {
      if (holder.isTransactionActive) await holder.rollbackTransaction();
      await holder.release();
    }
    await eventually(async () => expect(await countRows(a, 'held')).toBe(0));
    expect(await countRows(a, 'pending')).toBe(50);
  }
});
