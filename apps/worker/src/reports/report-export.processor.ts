import { QUEUES, type ReportExportJob } from '@centralita/contracts';
import { createFileStore, type FileStore } from '@centralita/contracts/server';
import type { SqlRunner } from '@centralita/domain';
import { InjectQueue, Processor, WorkerHost } from '@nestjs/bullmq';
import { Inject, Logger, Optional, type OnApplicationBootstrap, type OnModuleDestroy } from '@nestjs/common';
import { UnrecoverableError, type Job, type Queue } from 'bullmq';
import type { DataSource } from 'typeorm';
import { WORKER_CONFIG, type WorkerConfig } from '../config/worker-config';
import { expireReportExports, failReportExport, runReportExport } from './report-export';

export const REPORT_DB = Symbol('REPORT_DB');
const EXPIRE_EVERY_MS = 15 * 60_000;

/**
 * Consumer of QUEUES.reportExport: `export` jobs stream a report into a CSV/XLSX file in the shared
 * file store (PostgreSQL large objects or the S3 bucket), which every API process downloads from; a repeating
 * `expire` job (one BullMQ scheduler, whichever worker takes it) deletes files past the retention.
 */
@Processor(QUEUES.reportExport, { concurrency: 1 })
export class ReportExportProcessor extends WorkerHost implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly logger = new Logger(ReportExportProcessor.name);
  private ready: Promise<unknown> | null = null;
  private readonly run: SqlRunner = (text, values) => this.db.query(text, values);
  /** The shared file store, built as the API builds it (FILE_STORE: large objects or the S3 bucket). */
  readonly store: FileStore;

  constructor(
    @Inject(REPORT_DB) private readonly db: DataSource,
    @Inject(WORKER_CONFIG) private readonly config: WorkerConfig,
    @Optional() @InjectQueue(QUEUES.reportExport) private readonly queue?: Queue,
  ) {
    super();
    this.store = createFileStore(config.fileStore, (text, values) => this.db.query(text, values));
  }

  async onApplicationBootstrap(): Promise<void> {
    await this.queue
      ?.upsertJobScheduler('report-export-expiry', { every: EXPIRE_EVERY_MS }, { name: 'expire', data: {} })
      .catch((error: Error) => this.logger.warn(`report export expiry not scheduled: ${error.message}`));
  }

  async process(job: Job<ReportExportJob | Record<string, never>>): Promise<void> {
    this.ready ??= this.db.isInitialized
      ? Promise.resolve()
      : this.db.initialize().catch((error: unknown) => {
          this.ready = null;
          throw error;
        });
    await this.ready;
    const retentionMs = this.config.reportRetentionHours * 3600 * 1000;
    if (job.name === 'expire') {
      const expired = await expireReportExports(this.run, this.store, retentionMs);
      if (expired) this.logger.log(`${expired} report export(s) expired`);
      return;
    }
    const exportId = (job.data as ReportExportJob | undefined)?.exportId;
    if (typeof exportId !== 'string') throw new UnrecoverableError(`report export job ${job.id} has no exportId`);
    try {
      await runReportExport(this.run, exportId, { store: this.store, onProgress: (progress) => job.updateProgress(progress) });
    } catch (error) {
      if (job.attemptsMade + 1 >= (job.opts.attempts ?? 1))
        await failReportExport(this.run, exportId, error instanceof Error ? error.message : String(error));
      throw error;
    }
    this.logger.log(`report export ${exportId} finished`);
  }

  async onModuleDestroy(): Promise<void> {
    if (this.db.isInitialized) await this.db.destroy().catch(() => undefined);
  }
}
