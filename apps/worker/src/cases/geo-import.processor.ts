import { QUEUES, type GeoImportJob } from '@centralita/contracts';
import { OnWorkerEvent, Processor, WorkerHost } from '@nestjs/bullmq';
import { Inject, Logger, type OnModuleDestroy } from '@nestjs/common';
import { UnrecoverableError, type Job } from 'bullmq';
import type { DataSource } from 'typeorm';
import { failGeoImport, runGeoImport } from './geo-import';

export const GEO_IMPORT_DB = Symbol('GEO_IMPORT_DB');

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Consumer of QUEUES.geoImport (cases' geographic catalogue); a crash mid-import is retried (idempotent). */
@Processor(QUEUES.geoImport, { concurrency: 1 })
export class GeoImportProcessor extends WorkerHost implements OnModuleDestroy {
  private readonly logger = new Logger(GeoImportProcessor.name);
  private ready: Promise<unknown> | null = null;

  constructor(@Inject(GEO_IMPORT_DB) private readonly db: DataSource) {
    super();
  }

  async process(job: Job<GeoImportJob>): Promise<void> {
    const importId = job.data?.importId;
    if (typeof importId !== 'string' || !UUID.test(importId)) throw new UnrecoverableError(`geo-import job ${job.id} has no importId`);
    await this.connect();
    await runGeoImport(this.db, importId);
  }

  @OnWorkerEvent('failed')
  async onFailed(job: Job<GeoImportJob> | undefined, error: Error): Promise<void> {
    const importId = job?.data?.importId;
    if (!job || typeof importId !== 'string' || !UUID.test(importId)) return;
    this.logger.error(`geo import ${importId} attempt ${job.attemptsMade} failed: ${error.message}`);
    if (!(error instanceof UnrecoverableError) && job.attemptsMade < (job.opts.attempts ?? 1)) return;
    try {
      await this.connect();
      await failGeoImport(this.db, importId);
    } catch (markError) {
      this.logger.error(`geo import ${importId} could not be marked failed: ${(markError as Error).message}`);
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
