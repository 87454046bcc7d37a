import { roomName, type SentimentAlertView } from '@centralita/contracts';
import { insertOutbox, socketEffect } from '@centralita/contracts/server';
import { Client } from 'pg';
import { eventually } from '../../../test/support/eventually';
import { OutboxRelay } from '../src/modules/machine-host/outbox-relay.service';
import { OutboxWakeListener } from '../src/modules/machine-host/outbox-wake.listener';
import { connectStaff, createStaff, createTenant, record, type StaffSocket } from './support/realtime';
import { startTestApp, type TestApp } from './support/test-app';

/**
 * Rows the worker writes (it has no relay) reach the desk as soon as their transaction commits:
 * the commit notifies every API process, one of them claims and delivers the rows. These two
 * processes' pollers are pushed out of the picture (10 minutes), so what they deliver was delivered
 * by the wake-up (suites running alongside share the database and may poll sooner: run alone, this
 * suite fails without the listener).
 */
describe('outbox wake-ups from a process without a relay', () => {
  const saved = { poll: process.env.OUTBOX_POLL_MS, stale: process.env.OUTBOX_STALE_MS };
  let first: TestApp;
  let second: TestApp;
  let worker: Client;
  let supervisor: StaffSocket;
  let tenantId: string;

  beforeAll(async () => {
    process.env.OUTBOX_POLL_MS = '600000';
    process.env.OUTBOX_STALE_MS = '600000';
    // Two API processes on one database: both hear every notification.
    first = await startTestApp();
    second = await startTestApp();
    worker = new Client({ connectionString: process.env.DATABASE_URL });
    await worker.connect();
    const tenant = await createTenant(first.dataSource);
    tenantId = tenant.client.id;
    const staff = await createStaff(first, tenant, 'SUPER');
    supervisor = await connectStaff(second.url, staff.token);
    await eventually(() => {
      expect(first.app.get(OutboxWakeListener).listeningSession).toEqual(expect.any(Number));
      expect(second.app.get(OutboxWakeListener).listeningSession).toEqual(expect.any(Number));
    });
  });

  afterAll(async () => {
    supervisor?.close();
    await worker?.end();
    await second?.close();
    await first?.close();
    process.env.OUTBOX_POLL_MS = saved.poll;
    process.env.OUTBOX_STALE_MS = saved.stale;
  });

  const alert = (customerName: string): SentimentAlertView => ({
    tenantId,
    conversationId: '00000000-0000-4000-8000-000000000001',
    customerName,
    attentionLineId: null,
    agentId: null,
    status: 'Active',
    rolling: -0.8,
    lastMessageAt: Date.now(),
  });

  /** The worker's way: the rows and their notification in one transaction. */
  async function writeAsWorker(effects: Parameters<typeof insertOutbox>[1], options: { rollback?: boolean } = {}) {
    await worker.query('BEGIN');
    const rowsOf = { query: async (sql: string, params: unknown[]) => (await worker.query(sql, params)).rows };
    const written = await insertOutbox(rowsOf, effects, { wakeRelay: true });
    await worker.query(options.rollback ? 'ROLLBACK' : 'COMMIT');
    return written.ids;
  }

  const pushOf = (name: string) =>
    socketEffect({ namespace: 'staff', rooms: [roomName({ kind: 'tenant', id: tenantId })], event: 'sentiment.alert', data: alert(name) });

  it('delivers committed rows at once, exactly once across processes, and nothing of a rolled-back transaction', async () => {
    const received = record(supervisor);
    await writeAsWorker([pushOf('Rolled back')], { rollback: true });
    const [woken] = await writeAsWorker([pushOf('Woken')]);

    await eventually(async () => {
      const [row] = await first.dataSource.query(`SELECT attempts, delivered_at FROM outbox WHERE id = $1`, [woken]);
      expect(row).toMatchObject({ attempts: 1, delivered_at: expect.any(Date) });
    });
    await eventually(() => expect(received.map((event) => (event.data as SentimentAlertView).customerName)).toContain('Woken'));
    // Both relays heard it; the one that lost the claim found nothing to deliver (no second push).
    await Promise.all([first, second].map((t) => t.app.get(OutboxRelay).idle()));
    expect(received.filter((event) => (event.data as SentimentAlertView).customerName === 'Woken')).toHaveLength(1);
    // A rolled-back transaction's notification is never sent (nor its row written).
    expect(received.map((event) => (event.data as SentimentAlertView).customerName)).not.toContain('Rolled back');
  });

  it('hears again after its connection is cut', async () => {
    // The database ends both listening sessions, as a restart or failover would.
    const listeners = [first, second].map((t) => t.app.get(OutboxWakeListener));
    const cut = listeners.map((listener) => listener.listeningSession!);
    await worker.query(`SELECT pg_terminate_backend(pid) FROM unnest($1::int[]) AS pid`, [cut]);
    await eventually(
      () => {
        for (const [n, listener] of listeners.entries()) {
          expect(listener.listeningSession).toEqual(expect.any(Number));
          expect(listener.listeningSession).not.toBe(cut[n]);
        }
      },
      { timeoutMs: 10_000 },
    );
    const received = record(supervisor);
    const [woken] = await writeAsWorker([pushOf('After reconnect')]);
    await eventually(async () => {
      const [row] = await first.dataSource.query(`SELECT delivered_at FROM outbox WHERE id = $1`, [woken]);
      expect(row.delivered_at).toBeInstanceOf(Date);
    });
    await eventually(() => expect(received.map((event) => (event.data as SentimentAlertView).customerName)).toContain('After reconnect'));
  });
});
