import { QUEUES, type MailJob } from '@centralita/contracts';
import { InjectQueue } from '@nestjs/bullmq';
import { Injectable, Logger } from '@nestjs/common';
import type { Queue } from 'bullmq';

/** Producer side of the mail queue; the worker sends (or, in development, keeps) the mail. */
@Injectable()
export class MailQueueService {
  private readonly logger = new Logger(MailQueueService.name);
  private failing = false;

  constructor(@InjectQueue(QUEUES.mail) private readonly queue: Queue<MailJob>) {
    // Without a listener BullMQ prints every reconnection error; one line per outage is enough.
    this.queue.on('error', (error: Error) => {
      if (!this.failing) this.logger.warn(`mail queue connection failing: ${error.message}`);
      this.failing = true;
    });
  }

  /** `clientId`: the organisation the mail concerns, so the dev mailbox shows it to that organisation's administrators only. */
  async enqueue(job: MailJob, clientId?: string | null): Promise<void> {
    await this.queue.add('send', clientId === undefined ? job : { ...job, clientId }, {
      attempts: 5,
      backoff: { type: 'exponential', delay: 2000 },
      removeOnComplete: { age: 3600, count: 1000 },
      removeOnFail: { age: 7 * 24 * 3600 },
    });
    this.failing = false;
  }
}
