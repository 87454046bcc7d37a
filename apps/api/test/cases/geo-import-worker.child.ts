/**
 * Child process of the geographic import suite: the real worker (createWorker from apps/worker).
 * Env: DATABASE_URL, REDIS_URL, QUEUE_PREFIX. Prints "ready" once the geo-import consumer listens.
 */
import 'reflect-metadata';
import { createWorker } from '../../../worker/src/main';
import { GeoImportProcessor } from '../../../worker/src/cases/geo-import.processor';

async function main(): Promise<void> {
  const app = await createWorker({ logger: ['error'] });
  await app.get(GeoImportProcessor).worker.waitUntilReady();
  process.stdout.write('ready\n');
  process.on('SIGTERM', () => {
    void app.close().finally(() => process.exit(0));
  });
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
