import { spawn } from 'node:child_process';
import path from 'node:path';
import { QUEUES, type ConversationView, type StartChatResult } from '@centralita/contracts';
import { Queue } from 'bullmq';
import { eventually } from '../../../test/support/eventually';
import { connectVisitor, createLine, createTenant, data, record } from './support/realtime';
import { startTestApp, type TestApp } from './support/test-app';

function runChild(args: string[]): Promise<{ signal: NodeJS.Signals | null; code: number | null; stdout: string; stderr: string }> {
  const child = spawn(
    process.execPath,
    ['-r', path.join(__dirname, 'support/register-ts.cjs'), path.join(__dirname, 'support/commit-then-die.child.ts'), ...args],
    {
      env: process.env,
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  return new Promise((resolve) => child.on('exit', (code, signal) => resolve({ code, signal, stdout, stderr })));
}

describe('outbox relay', () => {
  let t: TestApp;
  let queue: Queue;
  const saved = { poll: process.env.OUTBOX_POLL_MS, stale: process.env.OUTBOX_STALE_MS };

  beforeAll(async () => {
    process.env.OUTBOX_POLL_MS = '200';
    process.env.OUTBOX_STALE_MS = '300';
    t = await startTestApp();
    queue = new Queue(QUEUES.machineTimers, { connection: { url: process.env.REDIS_URL! }, prefix: process.env.QUEUE_PREFIX });
  });

  afterAll(async () => {
    await queue.close();
    await t.close();
    process.env.OUTBOX_POLL_MS = saved.poll;
    process.env.OUTBOX_STALE_MS = saved.stale;
  });

  it('delivers, exactly once, the effects of a process killed between commit and publish', async () => {
    const tenant = await createTenant(t.dataSource);
    const lineId = await createLine(t.dataSource, tenant, 'Crash line');
    const started = data<StartChatResult>(
      await t.http().post('/api/webchat/conversations').send({ attentionLineId: lineId, name: 'Crash test' }),
    );
    // The creation's own effects (the version 1 push) must be out before the visitor listens, or
    // a relay slowed by a loaded machine delivers them to it and they look like the child's.
    await eventually(async () => {
      const [{ pending }] = await t.dataSource.query(
        `SELECT count(*)::int AS pending FROM outbox WHERE delivered_at IS NULL AND payload::text LIKE '%' || $1 || '%'`,
        [started.conversation.id],
      );
      expect(pending).toBe(0);
    });
    const visitor = await connectVisitor(t.url, started.visitorToken);
    const received = record(visitor);
    try {
      const child = await runChild([started.conversation.id, lineId]);
      expect(child.stderr).toBe('');
      expect(child.signal).toBe('SIGKILL');
      const ids = /committed ([\d,]+)/.exec(child.stdout)![1].split(',');

      // Committed by the dead process: the conversation is queued, with its effects pending.
      const [row] = await t.dataSource.query(`SELECT status, version, snapshot FROM conversations WHERE id = $1`, [
        started.conversation.id,
      ]);
      expect(row).toMatchObject({ status: 'LiningUp', version: 2 });

      // This process's poller delivers them: each row once, the timer armed once, the push sent once.
      await eventually(
        async () => {
          const rows = await t.dataSource.query(`SELECT attempts, delivered_at FROM outbox WHERE id = ANY($1::bigint[])`, [ids]);
          expect(rows).toHaveLength(ids.length);
          for (const outbox of rows) expect(outbox).toMatchObject({ attempts: 1, delivered_at: expect.any(Date) });
        },
        { timeoutMs: 10_000 },
      );
      const armedAt = row.snapshot.context.queuedAt as number;
      const job = await queue.getJob(`cqt.${started.conversation.id}.${armedAt}`);
      expect(job?.name).toBe('conversation.queueTimedOut');
      expect(await job?.getState()).toBe('delayed');
      await eventually(() =>
        expect(
          received.filter((entry) => entry.event === 'conversation.updated').map((entry) => (entry.data as ConversationView).version),
        ).toEqual([2]),
      );
    } finally {
      visitor.close();
    }
  });
});
