import { OUTBOUND_QUEUES, type OutboundCallEventJob } from '@centralita/contracts';
import { Inject, Injectable, Logger, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { Queue, Worker, type Job } from 'bullmq';
import Redis from 'ioredis';
import { APP_CONFIG, type AppConfig } from '../../config/app-config';
import { within } from '../machine-host/queue-registry.service';

/**
 * `outbound-call-events`: the dialer worker reports carrier events here and the outbound host's own
 * timers (abandon, wrap-up, schedule) come back here. Every API process consumes it, several jobs at
 * once (OUTBOUND_EVENTS_CONCURRENCY): the host applies a call's carrier events in the dialer's order
 * by their sequence number (the job id is `<callId>.<seq>`), whoever picks them up.
 */
@Injectable()
export class OutboundQueues implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger(OutboundQueues.name);
  private readonly producer: Redis;
  readonly events: Queue<OutboundCallEventJob>;
  private worker: Worker | null = null;
  private workerConnection: Redis | null = null;
  private handler: ((job: OutboundCallEventJob, jobId: string | undefined) => Promise<void>) | null = null;

  constructor(@Inject(APP_CONFIG) private readonly config: AppConfig) {
    this.producer = new Redis(config.redisUrl, {
      maxRetriesPerRequest: 1,
      commandTimeout: 3000,
      connectTimeout: 3000,
      disconnectTimeout: 500,
    });
    this.producer.on('error', () => undefined);
    this.events = new Queue<OutboundCallEventJob>(OUTBOUND_QUEUES.callEvents, { connection: this.producer, prefix: config.queuePrefix });
    this.events.on('error', () => undefined);
  }

  handle(handler: (job: OutboundCallEventJob, jobId: string | undefined) => Promise<void>): void {
    this.handler = handler;
  }

  onApplicationBootstrap(): void {
    const handler = this.handler;
    if (!handler) throw new Error(`queue ${OUTBOUND_QUEUES.callEvents} has no handler`);
    this.workerConnection = new Redis(this.config.redisUrl, { maxRetriesPerRequest: null, disconnectTimeout: 500 });
    this.workerConnection.on('error', () => undefined);
    this.worker = new Worker(OUTBOUND_QUEUES.callEvents, (job: Job<OutboundCallEventJob>) => handler(job.data, job.id), {
      connection: this.workerConnection,
      prefix: this.config.queuePrefix,
      concurrency: this.config.outboundEventsConcurrency,
    });
    this.worker.on('error', (error) => this.logger.warn(`outbound events worker: ${error.message}`));
    this.worker.on('failed', (job, error) => this.logger.warn(`outbound event ${job?.id} failed: ${error.message}`));
  }

  async onApplicationShutdown(): Promise<void> {
    const connected = this.workerConnection?.status === 'ready';
    if (this.worker)
      await within(
        this.worker.close(!connected).catch(() => undefined),
        connected ? 5000 : 200,
      );
    await within(
      this.events.close().catch(() => undefined),
      1000,
    );
    this.workerConnection?.disconnect();
    this.producer.disconnect();
  }
}
