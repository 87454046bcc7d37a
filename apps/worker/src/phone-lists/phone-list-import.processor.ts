import { PHONE_LIST_IMPORT_QUEUE, type PhoneListImportJob } from '@centralita/contracts';
import { Processor, WorkerHost } from '@nestjs/bullmq';
import { Inject, Logger, type OnModuleDestroy } from '@nestjs/common';
import { UnrecoverableError, type Job } from 'bullmq';
import type { DataSource } from 'typeorm';
import { runPhoneListImport } from './phone-list-import';

export const IMPORT_DB = Symbol('IMPORT_DB');

/** Consumer of PHONE_LIST_IMPORT_QUEUE; a crash mid-import is retried (the import is idempotent). */
@Processor(PHONE_LIST_IMPORT_QUEUE, { concurrency: 2 })
export class PhoneListImportProcessor extends WorkerHost implements OnModuleDestroy {
  private readonly logger = new Logger(PhoneListImportProcessor.name);
  private ready: Promise<unknown> | null = null;

  constructor(@Inject(IMPORT_DB) private readonly db: DataSource) {
    super();
  }

  async process(job: Job<PhoneListImportJob>): Promise<void> {
    const importId = job.data?.importId;
    if (typeof importId !== 'string') throw new UnrecoverableError(`phone-list job ${job.id} has no importId`);
    this.ready ??= this.db.initialize().catch((error: unknown) => {
      this.ready = null;
      throw error;
    });
    await this.ready;
    await runPhoneListImport(this.db, importId);
    this.logger.log(`phone-list import ${importId} finished`);
  }

  async onModuleDestroy(): Promise<void> {
    if (this.db.isInitialized) await this.db.destroy();
  }
}
