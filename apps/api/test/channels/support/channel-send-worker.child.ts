/**
 * Child process of the platform channel suites: the real worker (createWorker from apps/worker),
 * whose channel-send processor calls the providers at the URLs of its environment
 * (META_GRAPH_URL, META_GRAPH_VERSION, TELEGRAM_API_URL, X_API_URL: the suite's fakes) and takes
 * jobs of QUEUE_PREFIX only (the suite's own prefix, so no other suite's worker sends its messages).
 * Prints "ready" once the channel-send consumer is running.
 */
import 'reflect-metadata';
import { createWorker } from '../../../../worker/src/main';
import { ChannelSendProcessor } from '../../../../worker/src/channels/channel-send.processor';

async function main(): Promise<void> {
  const app = await createWorker({ logger: ['error'] });
  await app.get(ChannelSendProcessor).worker.waitUntilReady();
  process.stdout.write('ready\n');
  process.on('SIGTERM', () => {
    void app.close().finally(() => process.exit(0));
  });
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
