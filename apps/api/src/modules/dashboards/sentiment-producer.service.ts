import { SENTIMENT_QUEUE, type SentimentJob } from '@centralita/contracts';
import { InjectQueue } from '@nestjs/bullmq';
import { Injectable, Logger } from '@nestjs/common';
import type { Queue } from 'bullmq';

/**
 * Asks the worker to score a stored customer message. Called after the message's transaction
 * commits; the job id is the message id, so asking twice scores once. A job lost to a crash or a
 * Redis outage in between is picked up by the worker's sweep of unscored messages, so this never
 * blocks or fails a message. Requests of one event-loop turn go to Redis as one pipelined
 * `addBulk` (at hundreds of messages a second, one round trip each was a visible share of a message).
 */
@Injectable()
export class SentimentProducer {
  private readonly logger = new Logger(SentimentProducer.name);

  constructor(@InjectQueue(SENTIMENT_QUEUE) private readonly queue: Queue<SentimentJob>) {}

  private pending: SentimentJob[] = [];

  request(job: SentimentJob): void {
    this.pending.push(job);
    if (this.pending.length === 1) setImmediate(() => this.flush());
  }

  private flush(): void {
    const jobs = this.pending;
    this.pending = [];
    this.queue
      .addBulk(
        jobs.map((job) => ({
          name: 'score',
          data: job,
          opts: { jobId: `sentiment.${job.messageId}`, removeOnComplete: 1000, removeOnFail: 1000, attempts: 3 },
        })),
      )
      .catch((error: Error) => this.logger.warn(`sentiment of ${jobs.length} message(s) left to the sweep: ${error.message}`));
  }
}
