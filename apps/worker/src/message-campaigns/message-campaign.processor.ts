import type { ChannelRegistry } from '@centralita/channels';
import { QUEUES, type QueueJobs } from '@centralita/contracts';
import { ConfigCrypto, unsubscribeSigner } from '@centralita/contracts/server';
import { Processor, WorkerHost } from '@nestjs/bullmq';
import { Inject, type OnModuleDestroy } from '@nestjs/common';
import { UnrecoverableError, type Job } from 'bullmq';
import type { DataSource } from 'typeorm';
import { runMessageCampaign, type MessageCampaignDeps } from './message-campaign-run';
import { runEmailCampaign } from './email-campaign-run';

export const MESSAGE_CAMPAIGN_DB = Symbol('MESSAGE_CAMPAIGN_DB');
export const MESSAGE_CAMPAIGN_REGISTRY = Symbol('MESSAGE_CAMPAIGN_REGISTRY');

type MessageCampaignQueueJob = QueueJobs[typeof QUEUES.messageCampaigns];

const envMs = (name: string, fallback: number): number => {
  const value = Number(process.env[name]);
  return Number.isFinite(value) && value > 0 ? value : fallback;
};

/**
 * Consumer of QUEUES.messageCampaigns: one job per started (or resumed) campaign drives its sends
 * until it is finished, paused or stopped. A worker that dies leaves the job stalled: BullMQ hands
 * it to another worker after the lock expires (MESSAGE_CAMPAIGN_LOCK_MS, default 30 s), and the run
 * resumes from the recipients' states (runMessageCampaign). Stalls are expected, so many are allowed.
 */
@Processor(QUEUES.messageCampaigns, {
  concurrency: 4,
  lockDuration: envMs('MESSAGE_CAMPAIGN_LOCK_MS', 30_000),
  stalledInterval: envMs('MESSAGE_CAMPAIGN_STALLED_MS', 30_000),
  maxStalledCount: 1000,
})
export class MessageCampaignProcessor extends WorkerHost implements OnModuleDestroy {
  private ready: Promise<unknown> | null = null;
  private readonly deps: MessageCampaignDeps;

  constructor(
    @Inject(MESSAGE_CAMPAIGN_DB) private readonly db: DataSource,
    @Inject(MESSAGE_CAMPAIGN_REGISTRY) registry: ChannelRegistry,
    crypto: ConfigCrypto,
  ) {
    super();
    this.deps = { db, registry, crypto, reconcileAfterMs: envMs('MESSAGE_CAMPAIGN_RECONCILE_MS', 120_000) };
  }

  async process(job: Job<MessageCampaignQueueJob['data'], unknown, string>): Promise<unknown> {
    const { tenantId, campaignId } = job.data ?? {};
    if (typeof tenantId !== 'string' || typeof campaignId !== 'string') {
      throw new UnrecoverableError(`message-campaign job ${job.id} has no tenantId or campaignId`);
    }
    this.ready ??= this.db.initialize().catch((error: unknown) => {
      this.ready = null;
      throw error;
    });
    await this.ready;
    // Email campaigns (issue 21) send through the email channel's SMTP sender (email-campaign-run.ts).
    const [campaign] = (await this.db.query(`SELECT channel FROM message_campaigns WHERE id = $1`, [campaignId])) as { channel: string }[];
    if (campaign?.channel === 'email') {
      return runEmailCampaign(
        {
          db: this.db,
          crypto: this.deps.crypto,
          signer: unsubscribeSigner(),
          publicUrl: process.env.PUBLIC_URL?.trim() || `http://localhost:${process.env.PORT?.trim() || 3000}`,
          reconcileAfterMs: this.deps.reconcileAfterMs,
          retryAfterMs: envMs('EMAIL_CAMPAIGN_RETRY_MS', 30_000),
        },
        { tenantId, campaignId },
      );
    }
    return runMessageCampaign(this.deps, { tenantId, campaignId });
  }

  async onModuleDestroy(): Promise<void> {
    if (this.db.isInitialized) await this.db.destroy();
  }
}
