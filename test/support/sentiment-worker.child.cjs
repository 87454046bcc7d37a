// The worker's sentiment scoring alone, from the build, for the browser tier (whose global setup
// starts only the API): the dashboards spec starts it and stops it by pid.
const path = require('node:path');
const { Worker } = require('bullmq');
const { DataSource } = require('typeorm');
const { QUEUES } = require('@centralita/contracts');

const dist = path.join(__dirname, '../../apps/worker/dist');
const { scoreMessage } = require(path.join(dist, 'sentiment/sentiment-store.js'));
const { loadWorkerConfig } = require(path.join(dist, 'config/worker-config.js'));

const config = loadWorkerConfig(process.env);
const db = new DataSource({ type: 'postgres', url: config.databaseUrl, extra: { max: 2 } });
const ready = db.initialize();
const worker = new Worker(
  QUEUES.sentiment,
  async (job) => {
    await ready;
    if (job.name === 'score') await scoreMessage(db, job.data.messageId);
  },
  {
    connection: { url: config.redisUrl, maxRetriesPerRequest: null },
    prefix: config.queuePrefix,
  },
);
worker.waitUntilReady().then(() => process.stdout.write('ready\n'));
const stop = () =>
  worker
    .close()
    .then(() => db.isInitialized && db.destroy())
    .finally(() => process.exit(0));
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
