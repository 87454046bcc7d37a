/**
 * Child process of the worker-crash test: the real mail worker (createWorker from apps/worker),
 * with BullMQ's lock and stalled-check periods shortened through the environment so a job whose
 * worker was SIGKILLed is recovered in seconds instead of the 30 s defaults.
 * Env: REDIS_URL, QUEUE_PREFIX, SMTP_URL, TEST_LOCK_DURATION_MS, TEST_STALLED_INTERVAL_MS.
 * Prints "ready" once its BullMQ workers are running.
 */
import 'reflect-metadata';
import { createWorker } from '../../../worker/src/main';
import { MailProcessor } from '../../../worker/src/mail/mail.processor';

// @nestjs/bullmq reads the worker options of a processor from this metadata key (WORKER_METADATA,
// not exported by the package); the production value is kept and only the timings are shortened.
const WORKER_METADATA = 'bullmq:worker_metadata';

async function main(): Promise<void> {
  const options = (Reflect.getMetadata(WORKER_METADATA, MailProcessor) ?? {}) as Record<string, unknown>;
  Reflect.defineMetadata(
    WORKER_METADATA,
    {
      ...options,
      lockDuration: Number(process.env.TEST_LOCK_DURATION_MS ?? 30_000),
      stalledInterval: Number(process.env.TEST_STALLED_INTERVAL_MS ?? 30_000),
    },
    MailProcessor,
  );
  const app = await createWorker({ logger: ['error'] });
  const processor = app.get(MailProcessor);
  await processor.worker.waitUntilReady();
  process.stdout.write('ready\n');
  process.on('SIGTERM', () => {
    void app.close().finally(() => process.exit(0));
  });
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
