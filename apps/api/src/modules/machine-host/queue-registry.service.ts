import { REALTIME_QUEUES } from '@centralita/contracts';
import { Inject, Injectable, Logger, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { Queue, Worker, type Job } from 'bullmq';
import Redis from 'ioredis';
import { APP_CONFIG, type AppConfig } from '../../config/app-config';

export type RealtimeQueueName = (typeof REALTIME_QUEUES)[keyof typeof REALTIME_QUEUES];
export type JobHandler = (job: Job) => Promise<void>;

/**
 * The API's own queues: producers for the relay, and consumers started at bootstrap (timers and
 * routing run machines, and machines only run in the API). Handlers register by queue; a queue
 * with no handler or two refuses to start.
 */
@Injectable()
export class QueueRegistry implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger(QueueRegistry.name);
  private readonly producer: Redis;
  private readonly queues = new Map<RealtimeQueueName, Queue>();
  private readonly handlers = new Map<RealtimeQueueName, JobHandler>();
  private readonly workers: Worker[] = [];
  private readonly workerConnections: Redis[] = [];

  constructor(@Inject(APP_CONFIG) private readonly config: AppConfig) {
    // Producers fail fast while Redis is away; the outbox keeps the effect until it is back.
    this.producer = new Redis(config.redisUrl, {
      maxRetriesPerRequest: 1,
      commandTimeout: 3000,
      connectTimeout: 3000,
      disconnectTimeout: 500,
    });
    this.producer.on('error', () => undefined);
    for (const name of Object.values(REALTIME_QUEUES)) {
      const queue = new Queue(name, { connection: this.producer, prefix: config.queuePrefix });
      queue.on('error', () => undefined);
      this.queues.set(name, queue);
    }
  }

  queue(name: RealtimeQueueName): Queue {
    const queue = this.queues.get(name);
    if (!queue) throw new Error(`unknown queue ${name}`);
    return queue;
  }

  handle(name: RealtimeQueueName, handler: JobHandler): void {
    if (this.handlers.has(name)) throw new Error(`queue ${name} has two handlers`);
    this.handlers.set(name, handler);
  }

  onApplicationBootstrap(): void {
    for (const name of Object.values(REALTIME_QUEUES)) {
      const handler = this.handlers.get(name);
      if (!handler) throw new Error(`queue ${name} has no handler`);
      // Workers block on Redis: no retry limit, so they wait out an outage and resume by themselves.
      const connection = new Redis(this.config.redisUrl, { maxRetriesPerRequest: null, disconnectTimeout: 500 });
      connection.on('error', () => undefined);
      this.workerConnections.push(connection);
      const worker = new Worker(name, handler, { connection, prefix: this.config.queuePrefix, concurrency: 16 });
      worker.on('error', (error) => this.logger.warn(`${name} worker: ${error.message}`));
      worker.on('failed', (job, error) => this.logger.warn(`${name} job ${job?.id} failed: ${error.message}`));
      this.workers.push(worker);
    }
  }

  async onApplicationShutdown(): Promise<void> {
    // BullMQ's close() waits for a connection that may never come while Redis is away: bounded.
    // Without Redis there is nothing to finish: force-close and do not wait.
    const connected = this.workerConnections.every((connection) => connection.status === 'ready');
    await within(Promise.all(this.workers.map((worker) => worker.close(!connected).catch(() => undefined))), connected ? 5000 : 200);
    await within(Promise.all([...this.queues.values()].map((queue) => queue.close().catch(() => undefined))), connected ? 1000 : 200);
    for (const connection of [...this.workerConnections, this.producer]) connection.disconnect();
  }
}

/** Resolves when `work` settles or after `ms`, whichever comes first. */
export function within(work: Promise<unknown>, ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  return Promise.race([
    work.then(() => undefined),
    new Promise<void>((resolve) => {
      timer = setTimeout(resolve, ms);
    }),
  ]).finally(() => clearTimeout(timer));
}
