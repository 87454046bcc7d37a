/**
 * A second API process for suites that need two (sessions ending across processes): the real API
 * on 127.0.0.1 and a free port, against the run's PostgreSQL and Redis (environment inherited), with
 * the per-IP limits raised as startTestApp does. Prints "listening <url>", then "ready".
 */
import 'reflect-metadata';
import { createApp } from '../../src/main';

async function main(): Promise<void> {
  const app = await createApp({
    config: {
      rateLimits: {
        loginPerIp: { limit: 10_000, windowSeconds: 60 },
        resetPerIp: { limit: 10_000, windowSeconds: 60 },
      },
    },
    logger: ['error'],
  });
  await app.listen(0, '127.0.0.1');
  const url = (await app.getUrl()).replace('[::1]', '127.0.0.1');
  process.stdout.write(`listening ${url}\nready\n`);
  const stop = () => void app.close().then(() => process.exit(0));
  process.once('SIGTERM', stop);
  process.once('SIGINT', stop);
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
