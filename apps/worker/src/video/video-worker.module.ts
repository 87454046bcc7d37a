import { QUEUES } from '@centralita/contracts';
import { BullModule } from '@nestjs/bullmq';
import { Module, type DynamicModule } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { WORKER_CONFIG, type WorkerConfig } from '../config/worker-config';
import { VIDEO_DB, VideoRecordingProcessor } from './video-recording.processor';

/** The video recordings' finaliser (issue 23 item 2), registered in WorkerModule with one line. */
@Module({})
export class VideoWorkerModule {
  static forRoot(config: WorkerConfig): DynamicModule {
    return {
      module: VideoWorkerModule,
      imports: [BullModule.registerQueue({ name: QUEUES.videoRecording })],
      providers: [
        { provide: WORKER_CONFIG, useValue: config },
        {
          provide: VIDEO_DB,
          // Its own single connection, opened on the first recording: finalising never waits behind an export.
          useFactory: () =>
            new DataSource({
              type: 'postgres',
              url: config.databaseUrl,
              synchronize: false,
              extra: { max: 1, application_name: 'centralita-video' },
            }),
        },
        VideoRecordingProcessor,
      ],
    };
  }
}
