import { QUEUES, type MailJob } from '@centralita/contracts';
import { Processor, WorkerHost } from '@nestjs/bullmq';
import { Logger } from '@nestjs/common';
import { UnrecoverableError, type Job } from 'bullmq';
import { MailTransportService } from './mail-transport.service';

/**
 * Consumer of QUEUES.mail. A failure throws so BullMQ retries with the producer's backoff.
 *
 * Every attempt of a job carries the same Message-ID (mailMessageId): a job re-run after its worker
 * died between the server's 250 and BullMQ's completion sends a copy that mail providers recognise
 * as the same message (Gmail and Microsoft 365 drop a second delivery of a Message-ID) instead of a
 * new mail. The job stays at least once, on purpose: a kill after DATA but before the server's
 * reply looks the same to the worker as a kill after the 250, and worker-crash.e2e-spec.ts requires
 * that such a mail (a password reset, an invitation) is still delivered. Conversation replies, which
 * must never reach a customer twice, are at most once instead (apps/worker/src/email/email-send.ts).
 */
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
    await this.transport.send(job.data, { messageId: mailMessageId(job) });
    this.logger.log(`mail job ${job.id} done (to ${to})`);
  }
}

/** One Message-ID per job (its queue and id), the same on every attempt. */
export function mailMessageId(job: Pick<Job, 'id' | 'queueQualifiedName'>): string {
  const id = String(job.id ?? 'unknown').replace(/[^A-Za-z0-9._-]/g, '-');
  const queue = String(job.queueQualifiedName ?? 'mail').replace(/[^A-Za-z0-9._-]/g, '-');
  return `<mail.${id}.${queue}@centralita.invalid>`;
}
