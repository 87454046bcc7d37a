import { QUEUES, type VoiceCallEvent } from '@centralita/contracts';
import { Inject, Injectable, Logger, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { Worker, type Job } from 'bullmq';
import Redis from 'ioredis';
import { APP_CONFIG, type AppConfig } from '../../config/app-config';
import { within } from '../machine-host/queue-registry.service';

/** Voice events applied at once per API process: each call's own events keep their order by their seq (VoiceEventsService). */
const VOICE_EVENTS_CONCURRENCY = 4;

/**
 * `voice-call-events`: the worker's voice server reports each inbound call here (libs/contracts
 * voice.ts, job id `voice.<callId>.<seq>`). Every API process consumes it, a few jobs at once: the
 * order of a call's events is kept by the call row's lock and its sequence number, not by the queue.
 * Commands back to the worker (`voice-commands`) leave through the outbox like every other job.
 */
@Injectable()
export class VoiceQueues implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger(VoiceQueues.name);
  private worker: Worker | null = null;
  private connection: Redis | null = null;
  private handler: ((event: VoiceCallEvent) => Promise<unknown>) | null = null;

  constructor(@Inject(APP_CONFIG) private readonly config: AppConfig) {}

  handle(handler: (event: VoiceCallEvent) => Promise<unknown>): void {
    if (this.handler) throw new Error(`queue ${QUEUES.voiceCallEvents} has two handlers`);
    this.handler = handler;
  }

  onApplicationBootstrap(): void {
    const handler = this.handler;
    if (!handler) throw new Error(`queue ${QUEUES.voiceCallEvents} has no handler`);
    // Workers block on Redis: no retry limit, so they wait out an outage and resume by themselves.
    this.connection = new Redis(this.config.redisUrl, { maxRetriesPerRequest: null, disconnectTimeout: 500 });
    this.connection.on('error', () => undefined);
    this.worker = new Worker(QUEUES.voiceCallEvents, (job: Job<VoiceCallEvent>) => handler(job.data).then(() => undefined), {
      connection: this.connection,
      prefix: this.config.queuePrefix,
      concurrency: VOICE_EVENTS_CONCURRENCY,
    });
    this.worker.on('error', (error) => this.logger.warn(`voice events worker: ${error.message}`));
    this.worker.on('failed', (job, error) => this.logger.warn(`voice event ${job?.id} failed: ${error.message}`));
  }

  async onApplicationShutdown(): Promise<void> {
    const connected = this.connection?.status === 'ready';
    if (this.worker)
      await within(
        this.worker.close(!connected).catch(() => undefined),
        connected ? 5000 : 200,
      );
    this.connection?.disconnect();
  }
}
