/**
 * Child process of the email suite: the real worker (createWorker from apps/worker), whose mailbox
 * readers read the suite's Dovecot and whose channel-send processor talks to its SMTP peer. It takes
 * jobs of QUEUE_PREFIX only and logs warnings too (a mailbox's connection problems are warnings).
 * Prints "ready" once the channel-send consumer is running.
 */
import 'reflect-metadata';
import { createWorker } from '../../../../worker/src/main';
import { ChannelSendProcessor } from '../../../../worker/src/channels/channel-send.processor';

async function main(): Promise<void> {
  const app = await createWorker({ logger: ['error', 'warn'] });
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
