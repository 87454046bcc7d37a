import { QUEUES, type PhoneListImportJob } from '@centralita/contracts';
import { OnWorkerEvent, Processor, WorkerHost } from '@nestjs/bullmq';
import { Inject, Logger, type OnModuleDestroy } from '@nestjs/common';
import { UnrecoverableError, type Job } from 'bullmq';
import type { DataSource } from 'typeorm';
import { failPhoneListImport, runPhoneListImport } from './phone-list-import';

export const IMPORT_DB = Symbol('IMPORT_DB');

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Consumer of QUEUES.phoneListImport; a crash mid-import is retried (the import is idempotent). */
@Processor(QUEUES.phoneListImport, { concurrency: 2 })
export class PhoneListImportProcessor extends WorkerHost implements OnModuleDestroy {
  private readonly logger = new Logger(PhoneListImportProcessor.name);
  private ready: Promise<unknown> | null = null;

  constructor(@Inject(IMPORT_DB) private readonly db: DataSource) {
    super();
  }

  async process(job: Job<PhoneListImportJob>): Promise<void> {
    const importId = job.data?.importId;
    if (typeof importId !== 'string' || !UUID.test(importId)) throw new UnrecoverableError(`phone-list job ${job.id} has no importId`);
    await this.connect();
    await runPhoneListImport(this.db, importId);
    this.logger.log(`phone-list import ${importId} finished`);
  }

  /** After the last attempt, the import is marked failed with a reason (never left "importing"). */
  @OnWorkerEvent('failed')
  async onFailed(job: Job<PhoneListImportJob> | undefined, error: Error): Promise<void> {
    const importId = job?.data?.importId;
    if (!job || typeof importId !== 'string' || !UUID.test(importId)) return;
    this.logger.error(`phone-list import ${importId} attempt ${job.attemptsMade} failed: ${error.message}`);
    const final = error instanceof UnrecoverableError || job.attemptsMade >= (job.opts.attempts ?? 1);
    if (!final) return;
    try {
      await this.connect();
      await failPhoneListImport(this.db, importId);
    } catch (markError) {
      this.logger.error(`phone-list import ${importId} could not be marked failed: ${(markError as Error).message}`);
    }
  }

  private async connect(): Promise<void> {
    this.ready ??= this.db.initialize().catch((error: unknown) => {
      this.ready = null;
      throw error;
    });
    await this.ready;
  }

  async onModuleDestroy(): Promise<void> {
    if (this.db.isInitialized) await this.db.destroy();
  }
}
