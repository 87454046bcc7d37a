import { QUEUES, type MailJob } from '@centralita/contracts';
import { Processor, WorkerHost } from '@nestjs/bullmq';
import { Logger } from '@nestjs/common';
import { UnrecoverableError, type Job } from 'bullmq';
import { MailTransportService } from './mail-transport.service';

/** Consumer of QUEUES.mail. A failure throws so BullMQ retries with the producer's backoff. */
@Processor(QUEUES.mail, { concurrency: 5 })
export class MailProcessor extends WorkerHost {
  private readonly logger = new Logger(MailProcessor.name);

  constructor(private readonly transport: MailTransportService) {
    super();
  }

  async process(job: Job<MailJob>): Promise<void> {
    const { to, subject, text } = job.data ?? ({} as Partial<MailJob>);
    if (typeof to !== 'string' || typeof subject !== 'string' || typeof text !== 'string') {
      // A malformed payload never becomes valid: fail without burning retries on it.
      throw new UnrecoverableError(`mail job ${job.id} has no to/subject/text`);
    }
    await this.transport.send(job.data);
    this.logger.log(`mail job ${job.id} done (to ${to})`);
  }
}
