import { DEV_MAILBOX, devMailboxKey, type DevMailboxEntry, type MailJob } from '@centralita/contracts';
import { Inject, Injectable, Logger, type OnApplicationShutdown } from '@nestjs/common';
import Redis from 'ioredis';
import nodemailer, { type Transporter } from 'nodemailer';
import { WORKER_CONFIG, type WorkerConfig } from '../config/worker-config';

/**
 * Delivers mail over SMTP_URL. Without it (local development) the mail is logged, links included,
 * and, only when DEV_MAILBOX=on, kept in the Redis list the API shows administrators at
 * GET /api/dev/mailbox (with the organisation it concerns, so each sees only their own).
 */
@Injectable()
export class MailTransportService implements OnApplicationShutdown {
  private readonly logger = new Logger(MailTransportService.name);
  private readonly transport: Transporter | null;
  private readonly redis: Redis | null;

  constructor(@Inject(WORKER_CONFIG) private readonly config: WorkerConfig) {
    this.transport = config.smtpUrl ? nodemailer.createTransport(config.smtpUrl) : null;
    this.redis =
      config.smtpUrl || config.nodeEnv === 'production' || !config.devMailbox
        ? null
        : new Redis(config.redisUrl, { maxRetriesPerRequest: 3, disconnectTimeout: 500 });
    if (!config.smtpUrl) {
      if (config.nodeEnv === 'production') this.logger.error('SMTP_URL is not set: mail jobs will fail until it is configured');
      else if (this.redis)
        this.logger.warn(`SMTP_URL is not set: mail is logged and kept in ${devMailboxKey(config.queuePrefix)} (GET /api/dev/mailbox)`);
      else this.logger.warn('SMTP_URL is not set: mail is only written to this log (DEV_MAILBOX=on keeps it for GET /api/dev/mailbox)');
    }
  }

  /** `messageId`: the job's own (MailProcessor), the same on every attempt. */
  async send(job: MailJob, options: { messageId?: string } = {}): Promise<void> {
    if (this.transport) {
      await this.transport.sendMail({
        from: this.config.mailFrom,
        to: job.to,
        subject: job.subject,
        text: job.text,
        html: job.html,
        ...(options.messageId ? { messageId: options.messageId } : {}),
      });
      return;
    }
    if (this.config.nodeEnv === 'production') throw new Error('SMTP_URL is not configured: cannot deliver mail in production');
    if (this.redis) {
      const entry: DevMailboxEntry = { ...job, clientId: job.clientId ?? null, from: this.config.mailFrom, at: new Date().toISOString() };
      const key = devMailboxKey(this.config.queuePrefix);
      await this.redis
        .multi()
        .lpush(key, JSON.stringify(entry))
        .ltrim(key, 0, DEV_MAILBOX.limit - 1)
        .exec();
    }
    this.logger.log(
      `\n──── mail (not sent: no SMTP_URL) ────\nTo: ${job.to}\nSubject: ${job.subject}\n\n${job.text}\n──────────────────────────────────────`,
    );
  }

  async onApplicationShutdown(): Promise<void> {
    this.transport?.close();
    if (this.redis?.status === 'ready') await this.redis.quit().catch(() => this.redis?.disconnect());
    else this.redis?.disconnect();
  }
}
