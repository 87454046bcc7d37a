/**
 * Child process of the dialer fault test: the real worker (createWorker from apps/worker) with the
 * dialer on (DIALER_ENABLED=true, DIALER_TENANTS, DIALER_DRIVER, SIMULATOR_PROFILE from the env).
 * Prints "ready" once the worker is up; the dialer starts in the background right after.
 */
import 'reflect-metadata';
import { createWorker } from '../../../worker/src/main';

async function main(): Promise<void> {
  const app = await createWorker({ logger: ['error'] });
  process.stdout.write('ready\n');
  process.on('SIGTERM', () => {
    void app.close().finally(() => process.exit(0));
  });
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
