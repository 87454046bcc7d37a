import { QUEUES } from '@centralita/contracts';
import { BullModule } from '@nestjs/bullmq';
import { Module, type DynamicModule } from '@nestjs/common';
import type { AppConfig } from '../../config/app-config';
import { DevMailboxController } from './dev-mailbox.controller';
import { MailQueueService } from './mail-queue.service';

@Module({})
export class MailModule {
  static register(config: AppConfig): DynamicModule {
    return {
      module: MailModule,
      global: true,
      imports: [BullModule.registerQueue({ name: QUEUES.mail })],
      // Off unless DEV_MAILBOX=on (which loadConfig refuses in production): the route does not exist.
      controllers: config.devMailbox && config.nodeEnv !== 'production' ? [DevMailboxController] : [],
      providers: [MailQueueService],
      exports: [MailQueueService],
    };
  }
}
