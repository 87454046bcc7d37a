// Baseline of P1 and P2: a bare BullMQ worker (concurrency 16, as the API's queue workers) on
// BENCH_QUEUE under QUEUE_PREFIX. Its processor does nothing but answer how long the job waited
// between add (job.timestamp) and pickup. Prints {"port": 0} once the worker is running.
const { Worker } = require('bullmq');
const Redis = require('ioredis');

const connection = new Redis(process.env.REDIS_URL, { maxRetriesPerRequest: null });
const worker = new Worker(process.env.BENCH_QUEUE, async (job) => Date.now() - job.timestamp, {
  connection,
  prefix: process.env.QUEUE_PREFIX,
  concurrency: 16,
});
worker.waitUntilReady().then(() => process.stdout.write(`${JSON.stringify({ port: 0 })}\n`));
process.on('SIGTERM', () => {
  setTimeout(() => process.exit(0), 3000).unref();
  worker.close().then(() => {
    connection.disconnect();
    process.exit(0);
  });
});
