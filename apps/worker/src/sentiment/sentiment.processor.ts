import { QUEUES, type QueueJobs } from '@centralita/contracts';
import { InjectQueue, Processor, WorkerHost } from '@nestjs/bullmq';
import { Inject, Logger, type OnApplicationBootstrap, type OnModuleDestroy } from '@nestjs/common';
import { UnrecoverableError, type Job, type Queue } from 'bullmq';
import type { DataSource } from 'typeorm';
import { SentimentBatcher } from './sentiment-batcher';
import { scoreMessages } from './sentiment-store';

export const SENTIMENT_DB = Symbol('SENTIMENT_DB');
/** The repeating sweep of unscored messages that releases before the outbox carried requests scheduled; removed at start. */
const LEGACY_SWEEP_SCHEDULER = 'sentiment-sweep';

type SentimentQueueJob = QueueJobs[typeof QUEUES.sentiment];

/**
 * Jobs this worker holds at once: each only waits for its batch, so many can, and those that
 * arrive while a batch is scored go together in the next (SentimentBatcher).
 */
const SENTIMENT_JOBS_HELD = 32;
/** Most messages in one scoring transaction (the lexicon analyser runs on this process's thread meanwhile). */
const SENTIMENT_BATCH = 32;

/**
 * Consumer of QUEUES.sentiment: one `score` job per stored customer message. The API writes the
 * request to the outbox in the statement that stores the message, so it reaches this queue once the
 * message is committed, even if the API process dies right after (job id `sentiment.<messageId>`:
 * delivered twice, enqueued once). The jobs held at once are scored together, in one transaction
 * of a few statements per batch (SentimentBatcher, scoreMessages).
 */
@Processor(QUEUES.sentiment, { concurrency: SENTIMENT_JOBS_HELD })
export class SentimentProcessor extends WorkerHost implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly logger = new Logger(SentimentProcessor.name);
  private ready: Promise<unknown> | null = null;
  private readonly batcher = new SentimentBatcher((messageIds) => scoreMessages(this.db, messageIds), SENTIMENT_BATCH);

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
    await this.batcher.submit(messageId);
  }

  async onModuleDestroy(): Promise<void> {
    if (this.db.isInitialized) await this.db.destroy();
  }
}
