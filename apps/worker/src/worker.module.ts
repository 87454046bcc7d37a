import { QUEUES } from '@centralita/contracts';
import { BullModule } from '@nestjs/bullmq';
import { Logger, Module, type DynamicModule } from '@nestjs/common';
import { WORKER_CONFIG, type WorkerConfig } from './config/worker-config';
import { MailProcessor } from './mail/mail.processor';
import { MailTransportService } from './mail/mail-transport.service';
import { DataSource } from 'typeorm';
import { IMPORT_DB, PhoneListImportProcessor } from './phone-lists/phone-list-import.processor';
import { GEO_IMPORT_DB, GeoImportProcessor } from './cases/geo-import.processor';
import { REPORT_DB, ReportExportProcessor } from './reports/report-export.processor';
import { DialerService } from './dialer/dialer.service';
import { SENTIMENT_DB, SentimentProcessor } from './sentiment/sentiment.processor';
import { channelEndpointsFromEnv, createChannelRegistry } from '@centralita/channels';
import { checkFileStoreAtStartup, ConfigCrypto } from '@centralita/contracts/server';
import { CHANNEL_SEND_DB, ChannelSendProcessor, WORKER_CHANNEL_REGISTRY } from './channels/channel-send.processor';
import { EMAIL_DB, EmailReaderService } from './email/email-reader.service';
import { VideoWorkerModule } from './video/video-worker.module';
import { VoiceWorkerModule } from './voice/voice-worker.module';
import { MESSAGE_CAMPAIGN_DB, MESSAGE_CAMPAIGN_REGISTRY, MessageCampaignProcessor } from './message-campaigns/message-campaign.processor';

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
        BullModule.registerQueue({ name: QUEUES.phoneListImport }),
        BullModule.registerQueue({ name: QUEUES.geoImport }),
        BullModule.registerQueue({ name: QUEUES.reportExport }),
        BullModule.registerQueue({ name: QUEUES.sentiment }),
        BullModule.registerQueue({ name: QUEUES.channelSend }),
        VideoWorkerModule.forRoot(config),
        // Inbound voice (issue #22) only when VOICE_SIP_PORT is set.
        ...(config.voice ? [VoiceWorkerModule.forRoot(config, config.voice)] : []),
      ],
      providers: [
        { provide: WORKER_CONFIG, useValue: config },
        {
          // FILE_STORE=s3: wrong credentials, bucket or region stop the worker at start, naming the setting.
          provide: 'FILE_STORE_CHECK',
          useFactory: () => checkFileStoreAtStartup(config.fileStore, (message) => new Logger('FileStore').warn(message)),
        },
        MailTransportService,
        MailProcessor,
        {
          provide: IMPORT_DB,
          // Raw SQL only (no entities); connected on the first import, so the mail worker starts without PostgreSQL.
          useFactory: () =>
            new DataSource({
              type: 'postgres',
              url: config.databaseUrl,
              synchronize: false,
              extra: { max: 4, application_name: 'centralita-worker' },
            }),
        },
        PhoneListImportProcessor,
        {
          provide: GEO_IMPORT_DB,
          // Cases' geographic imports: rare and small, one connection, opened on the first import.
          useFactory: () =>
            new DataSource({
              type: 'postgres',
              url: config.databaseUrl,
              synchronize: false,
              extra: { max: 1, application_name: 'centralita-geo-import' },
            }),
        },
        GeoImportProcessor,
        {
          provide: REPORT_DB,
          // Its own small pool: a long export never starves the imports; connected on the first export.
          useFactory: () =>
            new DataSource({
              type: 'postgres',
              url: config.databaseUrl,
              synchronize: false,
              extra: { max: 2, application_name: 'centralita-reports' },
            }),
        },
        ReportExportProcessor,
        DialerService,
        {
          provide: SENTIMENT_DB,
          // Its own small pool, connected on the first message: scoring never waits behind an import or an export.
          useFactory: () =>
            new DataSource({
              type: 'postgres',
              url: config.databaseUrl,
              synchronize: false,
              extra: { max: 2, application_name: 'centralita-sentiment' },
            }),
        },
        SentimentProcessor,
        // The API's key (CONFIG_ENCRYPTION_KEY): channel secrets are decrypted in memory for each send.
        { provide: ConfigCrypto, useFactory: () => new ConfigCrypto(process.env) },
        {
          provide: EMAIL_DB,
          // The mailbox readers' own pool: a slow export never delays a customer's mail (issue 20).
          useFactory: () =>
            new DataSource({
              type: 'postgres',
              url: config.databaseUrl,
              synchronize: false,
              extra: { max: 2, application_name: 'centralita-email' },
            }),
        },
        EmailReaderService,
        // CHANNEL_SEND_ENABLED=off: this process leaves provider sends to other workers.
        ...(config.channelSendEnabled
          ? [
              {
                provide: CHANNEL_SEND_DB,
                // Its own pool, connected on the first send: provider calls never wait behind an export.
                useFactory: () =>
                  new DataSource({
                    type: 'postgres',
                    url: config.databaseUrl,
                    synchronize: false,
                    extra: { max: 4, application_name: 'centralita-channel-send' },
                  }),
              },
              { provide: WORKER_CHANNEL_REGISTRY, useFactory: () => createChannelRegistry(channelEndpointsFromEnv()) },
              ChannelSendProcessor,
              {
                provide: MESSAGE_CAMPAIGN_DB,
                // Message campaigns (issue 21): their own pool, so a long campaign never delays an agent's reply.
                useFactory: () =>
                  new DataSource({
                    type: 'postgres',
                    url: config.databaseUrl,
                    synchronize: false,
                    extra: { max: 3, application_name: 'centralita-message-campaigns' },
                  }),
              },
              { provide: MESSAGE_CAMPAIGN_REGISTRY, useFactory: () => createChannelRegistry(channelEndpointsFromEnv()) },
              MessageCampaignProcessor,
            ]
          : []),
      ],
    };
  }
}
