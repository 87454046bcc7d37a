import { QUEUES, outboxJob, type SentimentJob } from '@centralita/contracts';
import { jobEffect, type OutboxEffect } from '../machine-host/outbox';

/**
 * The worker's request to score a stored customer message, as an outbox effect written with the
 * message: it reaches the sentiment queue once the message is committed, even if this process dies
 * right after (the relay's poller delivers what the fast path did not). The job id is the message's,
 * so a second delivery scores once. Requests of one relay delivery go to Redis in one `addBulk`.
 */
export function sentimentRequest(job: SentimentJob): OutboxEffect {
  return jobEffect(outboxJob(QUEUES.sentiment, { name: 'score', data: job }, { jobId: `sentiment.${job.messageId}` }));
}
