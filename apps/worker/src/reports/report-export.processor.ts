import { REPORT_EXPORT_QUEUE, type ReportExportJob } from '@centralita/contracts';
import type { SqlRunner } from '@centralita/domain';
import { Processor, WorkerHost } from '@nestjs/bullmq';
import { Inject, Logger, type OnModuleDestroy } from '@nestjs/common';
import { UnrecoverableError, type Job } from 'bullmq';
import type { DataSource } from 'typeorm';
import { WORKER_CONFIG, type WorkerConfig } from '../config/worker-config';
import { expireReportExports, failReportExport, runReportExport } from './report-export';

export const REPORT_DB = Symbol('REPORT_DB');

/** Consumer of REPORT_EXPORT_QUEUE: streams a report into a CSV/XLSX file under REPORT_EXPORT_DIR. */
@Processor(REPORT_EXPORT_QUEUE, { concurrency: 1 })
export class ReportExportProcessor extends WorkerHost implements OnModuleDestroy {
  private readonly logger = new Logger(ReportExportProcessor.name);
  private ready: Promise<unknown> | null = null;
  private readonly run: SqlRunner = (text, values) => this.db.query(text, values);

  constructor(
    @Inject(REPORT_DB) private readonly db: DataSource,
    @Inject(WORKER_CONFIG) private readonly config: WorkerConfig,
  ) {
    super();
  }

  async process(job: Job<ReportExportJob>): Promise<void> {
    const exportId = job.data?.exportId;
    if (typeof exportId !== 'string') throw new UnrecoverableError(`report export job ${job.id} has no exportId`);
    this.ready ??= this.db.isInitialized
      ? Promise.resolve()
      : this.db.initialize().catch((error: unknown) => {
          this.ready = null;
          throw error;
        });
    await this.ready;
    const dir = this.config.reportExportDir;
    await expireReportExports(this.run, dir, this.config.reportRetentionHours * 3600 * 1000);
    try {
      await runReportExport(this.run, exportId, { dir, onProgress: (progress) => job.updateProgress(progress) });
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
