import type { ChannelRegistry } from '@centralita/channels';
import { QUEUES, type QueueJobs } from '@centralita/contracts';
import { ConfigCrypto, createFileStore } from '@centralita/contracts/server';
import { Processor, WorkerHost } from '@nestjs/bullmq';
import { Inject, type OnModuleDestroy } from '@nestjs/common';
import { UnrecoverableError, type Job } from 'bullmq';
import type { DataSource } from 'typeorm';
import { WORKER_CONFIG, type WorkerConfig } from '../config/worker-config';
import { channelSendBackoff, sendChannelJob, type ChannelSendDeps } from './channel-send';

export const CHANNEL_SEND_DB = Symbol('CHANNEL_SEND_DB');
/** The adapters (libs/channels registry, provider URLs from the environment); a token so tests can put a test adapter in. */
export const WORKER_CHANNEL_REGISTRY = Symbol('WORKER_CHANNEL_REGISTRY');

type ChannelSendQueueJob = QueueJobs[typeof QUEUES.channelSend];

/**
 * Consumer of QUEUES.channelSend: one agent message per job (job id `channel-send.<messageId>`),
 * written to the outbox by the API in the transaction that stored the message. Provider calls wait
 * on the network, so several run at once.
 */
@Processor(QUEUES.channelSend, { concurrency: 8, settings: { backoffStrategy: channelSendBackoff } })
export class ChannelSendProcessor extends WorkerHost implements OnModuleDestroy {
  private ready: Promise<unknown> | null = null;
  private readonly deps: ChannelSendDeps;

  constructor(
    @Inject(CHANNEL_SEND_DB) private readonly db: DataSource,
    @Inject(WORKER_CHANNEL_REGISTRY) registry: ChannelRegistry,
    crypto: ConfigCrypto,
    @Inject(WORKER_CONFIG) config: WorkerConfig,
  ) {
    super();
    // Agents' attachments are read from the shared file store, built as the API builds it.
    this.deps = { db, registry, crypto, files: createFileStore(config.fileStore, (text, values) => db.query(text, values)) };
  }

  async process(job: Job<ChannelSendQueueJob['data'], unknown, string>, token?: string): Promise<unknown> {
    const { tenantId, messageId } = job.data ?? {};
    if (typeof tenantId !== 'string' || typeof messageId !== 'string') {
      throw new UnrecoverableError(`channel-send job ${job.id} has no tenantId or messageId`);
    }
    this.ready ??= this.db.initialize().catch((error: unknown) => {
      this.ready = null;
      throw error;
    });
    await this.ready;
    return sendChannelJob(this.deps, job, { tenantId, messageId }, token);
  }

  async onModuleDestroy(): Promise<void> {
    if (this.db.isInitialized) await this.db.destroy();
  }
}
