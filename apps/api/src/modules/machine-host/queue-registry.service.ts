import { QUEUES, type QueueJobs, type QueueName } from '@centralita/contracts';
import { Inject, Injectable, Logger, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { Queue, Worker, type Job } from 'bullmq';
import Redis from 'ioredis';
import { APP_CONFIG, type AppConfig } from '../../config/app-config';

/**
 * The queues of the registry (QUEUES) the API's machine host consumes: machines only run in the API.
 * channel-inbound too: a provider's event becomes conversations and messages through the machines.
 */
export const MACHINE_QUEUES = [QUEUES.machineTimers, QUEUES.routing, QUEUES.channelInbound] as const;
export type MachineQueueName = (typeof MACHINE_QUEUES)[number];
/** A consumer of queue Q: it reads the job's name and data as the registry types them. */
export type JobHandler<Q extends QueueName = MachineQueueName> = (
  job: Job<QueueJobs[Q]['data'], void, QueueJobs[Q]['name']>,
) => Promise<void>;

/**
 * Queues whose immediate jobs the relay may run in this process (see runLocally). A webhook's
 * event is processed by the process that stored it: the trip through Redis (add, a worker's
 * fetch, completion: three scripts) cost C1 a third of its time from stored to processed. A run
 * that fails goes to the queue, whose attempts and backoff take over (a receipt that came before
 * its message, a provider's media server away).
 */
const LOCAL_QUEUES: ReadonlySet<QueueName> = new Set([QUEUES.routing, QUEUES.channelInbound]);
/**
 * Local runs at once; beyond it jobs go through Redis. Twice the queue worker's concurrency: most
 * routing runs of a burst of presence changes wait on shared work (one lines lookup for many
 * agents, one run per line). Measured with `npm run bench -- --only P1,P6`: at 16 P6 did ~1,600
 * events/s against ~2,100 at 32 or 64; at 64 P1 (many menu calls on one line) lost ~15 %.
 */
const LOCAL_RUNS_MAX = 32;

/**
 * Producers for every queue of the registry (QUEUES), so an outbox row can target any of them, the
 * worker's included; and the consumers of the machine host's own queues (MACHINE_QUEUES), started
 * at bootstrap. Handlers register by queue; a machine queue with no handler or two refuses to start.
 */
@Injectable()
export class QueueRegistry implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger(QueueRegistry.name);
  private readonly producer: Redis;
  private readonly queues = new Map<QueueName, Queue>();
  private readonly handlers = new Map<MachineQueueName, JobHandler<MachineQueueName>>();
  private readonly workers: Worker[] = [];
  private readonly workerConnections: Redis[] = [];
  private localRuns = 0;
  private closing = false;

  constructor(@Inject(APP_CONFIG) private readonly config: AppConfig) {
    // Producers fail fast while Redis is away; the outbox keeps the effect until it is back.
    this.producer = new Redis(config.redisUrl, {
      maxRetriesPerRequest: 1,
      commandTimeout: 3000,
      connectTimeout: 3000,
      disconnectTimeout: 500,
    });
    this.producer.on('error', () => undefined);
  }

  /** The producer of a queue of the registry (made on first use, all on one connection). */
  queue(name: QueueName): Queue {
    let queue = this.queues.get(name);
    if (!queue) {
      if (!(Object.values(QUEUES) as string[]).includes(name)) throw new Error(`unknown queue ${name}`);
      queue = new Queue(name, { connection: this.producer, prefix: this.config.queuePrefix });
      queue.on('error', () => undefined);
      this.queues.set(name, queue);
    }
    return queue;
  }

  handle<Q extends MachineQueueName>(name: Q, handler: JobHandler<Q>): void {
    if (this.handlers.has(name)) throw new Error(`queue ${name} has two handlers`);
    this.handlers.set(name, handler as unknown as JobHandler<MachineQueueName>);
  }

  /**
   * Runs an immediate job of one of the API's own queues here and now, with the queue's handler,
   * instead of a round trip through Redis to a worker that is this same process (a routing request
   * follows every presence change and every queued customer). Answers null when it does not: a
   * queue that takes no local runs, too many in flight, or shutting down — the caller enqueues it.
   * The caller keeps the job's outbox row undelivered until the run settles, so a crash in between
   * still leaves it to the poller.
   */
  runLocally(name: QueueName, job: { id: string; name: string; data: unknown }): Promise<void> | null {
    const handler = this.handlers.get(name as MachineQueueName);
    if (!LOCAL_QUEUES.has(name) || !handler || this.closing || this.localRuns >= LOCAL_RUNS_MAX) return null;
    this.localRuns++;
    // Handlers read the job's name and data only.
    return Promise.resolve()
      .then(() => handler({ id: job.id, name: job.name, data: job.data } as Job))
      .finally(() => this.localRuns--);
  }

  onApplicationBootstrap(): void {
    for (const name of MACHINE_QUEUES) {
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
    this.closing = true;
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
