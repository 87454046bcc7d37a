/**
 * Child process of the shared-file-store suite: the real worker (createWorker from apps/worker) in
 * its own process, with its own temporary directory, so an export it writes can only reach an API
 * process through the shared store. Env: DATABASE_URL, REDIS_URL, QUEUE_PREFIX. Prints "ready" once
 * the report-export consumer is listening.
 */
import 'reflect-metadata';
import { createWorker } from '../../../worker/src/main';
import { ReportExportProcessor } from '../../../worker/src/reports/report-export.processor';

async function main(): Promise<void> {
  const app = await createWorker({ logger: ['error'] });
  await app.get(ReportExportProcessor).worker.waitUntilReady();
  process.stdout.write('ready\n');
  process.on('SIGTERM', () => {
    void app.close().finally(() => process.exit(0));
  });
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
