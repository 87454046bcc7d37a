import { randomBytes } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { QUEUES, type MailJob } from '@centralita/contracts';
import { Queue } from 'bullmq';
import { SMTPServer, type SMTPServerDataStream } from 'smtp-server';
import { eventually } from '../../../test/support/eventually';
import { MailQueueService } from '../src/modules/mail/mail-queue.service';
import { spawnChild, type ChildWorker } from './support/processes';

jest.setTimeout(90_000);

/** BullMQ lock / stalled-check periods of the child workers (production: 30 s each). */
const LOCK_MS = 5000;
const STALLED_MS = 1000;

interface Attempt {
  subjectLine: string;
  accepted: boolean;
}

/**
 * QUALITY.md (Reliability): a job whose worker died is picked up again by BullMQ's stalled-job
 * recovery and its effect is idempotent. The real mail worker (createWorker, in a child process)
 * sends to a real SMTP server that holds the first DATA, so the SIGKILL lands mid-job, while the
 * message is on the wire but not yet accepted.
 *
 * Guarantee proven: BullMQ is at-least-once; the same job (same id, no new job) is executed again
 * by another worker after the first one died, and because SMTP only delivers a message on the
 * final 250 after DATA, a kill before that reply yields exactly one delivered mail. (A kill in
 * the window between the server's 250 and BullMQ's completion would deliver twice: the mail job
 * has no idempotency key at the SMTP server; that window is not claimed to be covered here.)
 */
describe('mail worker SIGKILLed mid-job', () => {
  const prefix = `${process.env.QUEUE_PREFIX ?? 'ct'}-crash-${randomBytes(3).toString('hex')}`;
  const redisUrl = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
  const attempts: Attempt[] = [];
  const delivered: string[] = [];
  let holdFirst: (() => void) | null = null;
  const firstDataHeld = new Promise<void>((resolve) => (holdFirst = resolve));
  let smtp: SMTPServer;
  let queue: Queue<MailJob>;
  const children: ChildWorker[] = [];

  const startWorker = (port: number): ChildWorker => {
    const worker = spawnChild('mail-worker.child.ts', {
      ...process.env,
      NODE_ENV: 'test',
      REDIS_URL: redisUrl,
      QUEUE_PREFIX: prefix,
      SMTP_URL: `smtp://127.0.0.1:${port}`,
      MAIL_FROM: 'Centralita <no-reply@centralita.test>',
      TEST_LOCK_DURATION_MS: String(LOCK_MS),
      TEST_STALLED_INTERVAL_MS: String(STALLED_MS),
    });
    children.push(worker);
    return worker;
  };

  beforeAll(async () => {
    smtp = new SMTPServer({
      authOptional: true,
      disabledCommands: ['STARTTLS', 'AUTH'],
      logger: false,
      onData(stream: SMTPServerDataStream, _session, callback) {
        const chunks: Buffer[] = [];
        const attempt: Attempt = { subjectLine: '', accepted: false };
        attempts.push(attempt);
        const first = attempts.length === 1;
        stream.on('data', (chunk: Buffer) => chunks.push(chunk));
        stream.on('end', () => {
          const raw = Buffer.concat(chunks).toString('utf8');
          attempt.subjectLine = /^Subject: (.*)$/m.exec(raw)?.[1]?.trim() ?? '';
          // The first message is held: no 250, so it is not delivered, and the worker is killed now.
          if (first) return holdFirst?.();
          attempt.accepted = true;
          delivered.push(attempt.subjectLine);
          callback();
        });
      },
    });
    await new Promise<void>((resolve) => smtp.listen(0, '127.0.0.1', resolve));
    queue = new Queue<MailJob>(QUEUES.mail, { connection: { url: redisUrl }, prefix });
  });

  afterAll(async () => {
    for (const { child, exited } of children) {
      if (child.exitCode === null && child.signalCode === null) {
        child.kill('SIGTERM');
        await Promise.race([exited, new Promise((resolve) => setTimeout(resolve, 5000).unref())]);
        if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
      }
    }
    // Only this suite's keys (its own prefix) on the shared Redis.
    await queue?.obliterate({ force: true }).catch(() => undefined);
    await queue?.close();
    await new Promise<void>((resolve) => smtp.close(() => resolve()));
  });

  it('recovers the job in another worker and delivers the mail exactly once', async () => {
    const { port } = smtp.server.address() as AddressInfo;
    const first = startWorker(port);
    await first.ready;

    const subject = `crash test ${randomBytes(4).toString('hex')}`;
    // The API's own producer (same attempts/backoff as a password-reset mail).
    await new MailQueueService(queue).enqueue({ to: 'someone@centralita.test', subject, text: 'hello once' });

    // The first worker is inside process(): DATA is on the wire, the server has not answered.
    await firstDataHeld;
    const [active] = await queue.getJobs(['active']);
    expect(active).toBeDefined();
    const jobId = active.id!;
    expect(await queue.getJobCounts('active', 'wait', 'completed')).toEqual({ active: 1, wait: 0, completed: 0 });

    first.child.kill('SIGKILL');
    expect(await first.exited).toEqual({ code: null, signal: 'SIGKILL' });
    expect(delivered).toEqual([]);

    // Another worker process: its stalled checker finds the dead worker's expired lock and retries.
    const second = startWorker(port);
    await second.ready;
    await eventually(async () => expect(await queue.getJobState(jobId)).toBe('completed'), { timeoutMs: 30_000, intervalMs: 100 });

    const job = (await queue.getJob(jobId))!;
    // The same job, recovered as stalled once (not failed, not re-added as a new job).
    expect(job.stalledCounter).toBe(1);
    expect(job.failedReason).toBeFalsy();
    expect(await queue.getJobCounts('active', 'wait', 'delayed', 'failed', 'completed')).toEqual({
      active: 0,
      wait: 0,
      delayed: 0,
      failed: 0,
      completed: 1,
    });
    // Two SMTP transactions were attempted (the killed one and the recovered one), one delivered.
    expect(attempts.map((attempt) => attempt.accepted)).toEqual([false, true]);
    expect(attempts.every((attempt) => attempt.subjectLine === subject)).toBe(true);
    expect(delivered).toEqual([subject]);
  });
});
