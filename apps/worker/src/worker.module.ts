import { QUEUES } from '@centralita/contracts';
import { BullModule } from '@nestjs/bullmq';
import { Module, type DynamicModule } from '@nestjs/common';
import { WORKER_CONFIG, type WorkerConfig } from './config/worker-config';
import { MailProcessor } from './mail/mail.processor';
import { MailTransportService } from './mail/mail-transport.service';

@Module({})
export class WorkerModule {
  static forRoot(config: WorkerConfig): DynamicModule {
    return {
      module: WorkerModule,
      imports: [
        // Workers block on Redis: maxRetriesPerRequest must be null so they wait out an outage and resume.
        BullModule.forRoot({
          prefix: config.queuePrefix,
          connection: { url: config.redisUrl, maxRetriesPerRequest: null, disconnectTimeout: 500 },
        }),
        BullModule.registerQueue({ name: QUEUES.mail }),
      ],
      providers: [{ provide: WORKER_CONFIG, useValue: config }, MailTransportService, MailProcessor],
    };
  }
}
