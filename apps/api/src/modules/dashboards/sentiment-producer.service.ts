import { SENTIMENT_QUEUE, type SentimentJob } from '@centralita/contracts';
import { InjectQueue } from '@nestjs/bullmq';
import { Injectable, Logger } from '@nestjs/common';
import type { Queue } from 'bullmq';

/**
 * Asks the worker to score a stored customer message. Called after the message's transaction
 * commits; the job id is the message id, so asking twice scores once. A job lost to a crash or a
 * Redis outage in between is picked up by the worker's sweep of unscored messages, so this never
 * blocks or fails a message.
 */
@Injectable()
export class SentimentProducer {
  private readonly logger = new Logger(SentimentProducer.name);

  constructor(@InjectQueue(SENTIMENT_QUEUE) private readonly queue: Queue<SentimentJob>) {}

  request(job: SentimentJob): void {
    this.queue
      .add('score', job, { jobId: `sentiment.${job.messageId}`, removeOnComplete: 1000, removeOnFail: 1000, attempts: 3 })
      .catch((error: Error) => this.logger.warn(`sentiment of ${job.messageId} left to the sweep: ${error.message}`));
  }
}
