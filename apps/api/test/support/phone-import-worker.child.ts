/**
 * Child process of the hostile-imports suite: the real worker (createWorker from apps/worker),
 * run under whatever heap cap the parent sets in NODE_OPTIONS, so a file that blows the heap
 * kills this process instead of the test runner. Env: DATABASE_URL, REDIS_URL, QUEUE_PREFIX.
 * Prints "ready" once the phone-list import consumer is listening.
 */
import 'reflect-metadata';
import { createWorker } from '../../../worker/src/main';
import { PhoneListImportProcessor } from '../../../worker/src/phone-lists/phone-list-import.processor';

async function main(): Promise<void> {
  const app = await createWorker({ logger: ['error'] });
  await app.get(PhoneListImportProcessor).worker.waitUntilReady();
  process.stdout.write('ready\n');
  process.on('SIGTERM', () => {
    void app.close().finally(() => process.exit(0));
  });
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
