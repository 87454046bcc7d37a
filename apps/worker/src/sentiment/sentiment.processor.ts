import { QUEUES, type QueueJobs } from '@centralita/contracts';
import { InjectQueue, Processor, WorkerHost } from '@nestjs/bullmq';
import { Inject, Logger, type OnApplicationBootstrap, type OnModuleDestroy } from '@nestjs/common';
import { UnrecoverableError, type Job, type Queue } from 'bullmq';
import type { DataSource } from 'typeorm';
import { scoreMessage } from './sentiment-store';

export const SENTIMENT_DB = Symbol('SENTIMENT_DB');
/** The repeating sweep of unscored messages that releases before the outbox carried requests scheduled; removed at start. */
const LEGACY_SWEEP_SCHEDULER = 'sentiment-sweep';

type SentimentQueueJob = QueueJobs[typeof QUEUES.sentiment];

/**
 * Consumer of QUEUES.sentiment: one `score` job per stored customer message. The API writes the
 * request to the outbox in the statement that stores the message, so it reaches this queue once the
 * message is committed, even if the API process dies right after (job id `sentiment.<messageId>`:
 * delivered twice, enqueued once). The lexicon analyser costs tens of milliseconds per message, so
 * concurrency stays low.
 */
@Processor(QUEUES.sentiment, { concurrency: 2 })
export class SentimentProcessor extends WorkerHost implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly logger = new Logger(SentimentProcessor.name);
  private ready: Promise<unknown> | null = null;

  constructor(
    @Inject(SENTIMENT_DB) private readonly db: DataSource,
    @InjectQueue(QUEUES.sentiment) private readonly queue: Queue<SentimentQueueJob['data'], void, SentimentQueueJob['name']>,
  ) {
    super();
  }

  async onApplicationBootstrap(): Promise<void> {
    await this.queue
      .removeJobScheduler(LEGACY_SWEEP_SCHEDULER)
      .catch((error: Error) => this.logger.warn(`old sentiment sweep not removed: ${error.message}`));
  }

  async process(job: Job<SentimentQueueJob['data'], void, string>): Promise<void> {
    // A `sweep` left in Redis by an older release: nothing to do, requests no longer get lost.
    if (job.name !== 'score') return;
    this.ready ??= this.db.initialize().catch((error: unknown) => {
      this.ready = null;
      throw error;
    });
    await this.ready;
    const messageId = job.data?.messageId;
    if (typeof messageId !== 'string') throw new UnrecoverableError(`sentiment job ${job.id} has no messageId`);
    await scoreMessage(this.db, messageId);
  }

  async onModuleDestroy(): Promise<void> {
    if (this.db.isInitialized) await this.db.destroy();
  }
}
