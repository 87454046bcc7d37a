import { SENTIMENT_QUEUE, type SentimentJob } from '@centralita/contracts';
import { InjectQueue, Processor, WorkerHost } from '@nestjs/bullmq';
import { Inject, Logger, type OnApplicationBootstrap, type OnModuleDestroy } from '@nestjs/common';
import { UnrecoverableError, type Job, type Queue } from 'bullmq';
import type { DataSource } from 'typeorm';
import { scoreMessage, unscoredMessages } from './sentiment-store';

export const SENTIMENT_DB = Symbol('SENTIMENT_DB');
const SWEEP_EVERY_MS = 60_000;

/**
 * Consumer of SENTIMENT_QUEUE: `score` jobs (one per stored customer message, asked by the API
 * after commit) and a repeating `sweep` that scores any customer message whose request was lost.
 * The lexicon analyser costs tens of milliseconds per message, so concurrency stays low.
 */
@Processor(SENTIMENT_QUEUE, { concurrency: 2 })
export class SentimentProcessor extends WorkerHost implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly logger = new Logger(SentimentProcessor.name);
  private ready: Promise<unknown> | null = null;

  constructor(
    @Inject(SENTIMENT_DB) private readonly db: DataSource,
    @InjectQueue(SENTIMENT_QUEUE) private readonly queue: Queue<SentimentJob | Record<string, never>>,
  ) {
    super();
  }

  async onApplicationBootstrap(): Promise<void> {
    await this.queue
      .upsertJobScheduler('sentiment-sweep', { every: SWEEP_EVERY_MS }, { name: 'sweep', data: {} })
      .catch((error: Error) => this.logger.warn(`sentiment sweep not scheduled: ${error.message}`));
  }

  async process(job: Job<SentimentJob | Record<string, never>>): Promise<void> {
    this.ready ??= this.db.initialize().catch((error: unknown) => {
      this.ready = null;
      throw error;
    });
    await this.ready;
    if (job.name === 'sweep') {
      for (const id of await unscoredMessages(this.db)) await scoreMessage(this.db, id);
      return;
    }
    const messageId = (job.data as SentimentJob).messageId;
    if (typeof messageId !== 'string') throw new UnrecoverableError(`sentiment job ${job.id} has no messageId`);
    await scoreMessage(this.db, messageId);
  }

  async onModuleDestroy(): Promise<void> {
    if (this.db.isInitialized) await this.db.destroy();
  }
}
