import { QUEUES, type VideoRecordingJob } from '@centralita/contracts';
import { createFileStore, type FileStore } from '@centralita/contracts/server';
import { Processor, WorkerHost } from '@nestjs/bullmq';
import { Inject, Logger, type OnModuleDestroy } from '@nestjs/common';
import { UnrecoverableError, type Job } from 'bullmq';
import type { DataSource } from 'typeorm';
import { WORKER_CONFIG, type WorkerConfig } from '../config/worker-config';
import { finaliseRecording } from './finalise';

export const VIDEO_DB = Symbol('VIDEO_DB');

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Consumer of QUEUES.videoRecording: finalises one recording (finaliseRecording); a crash mid-way is retried. */
@Processor(QUEUES.videoRecording, { concurrency: 1 })
export class VideoRecordingProcessor extends WorkerHost implements OnModuleDestroy {
  private readonly logger = new Logger(VideoRecordingProcessor.name);
  private ready: Promise<unknown> | null = null;
  private readonly store: FileStore;

  constructor(
    @Inject(VIDEO_DB) private readonly db: DataSource,
    @Inject(WORKER_CONFIG) config: WorkerConfig,
  ) {
    super();
    this.store = createFileStore(config.fileStore, (text, values) => this.db.query(text, values));
  }

  async process(job: Job<VideoRecordingJob>): Promise<string> {
    const recordingId = job.data?.recordingId;
    if (typeof recordingId !== 'string' || !UUID.test(recordingId)) throw new UnrecoverableError(`video job ${job.id} has no recordingId`);
    this.ready ??= this.db.initialize().catch((error: unknown) => {
      this.ready = null;
      throw error;
    });
    await this.ready;
    const outcome = await finaliseRecording((text, values) => this.db.query(text, values), this.store, recordingId);
    this.logger.log(`video recording ${recordingId}: ${outcome}`);
    return outcome;
  }

  async onModuleDestroy(): Promise<void> {
    if (this.db.isInitialized) await this.db.destroy();
  }
}
