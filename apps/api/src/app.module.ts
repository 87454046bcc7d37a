import { BullModule } from '@nestjs/bullmq';
import { Module, type DynamicModule } from '@nestjs/common';
import { APP_FILTER, APP_PIPE } from '@nestjs/core';
import { TypeOrmModule } from '@nestjs/typeorm';
import { EnvelopeExceptionFilter } from './common/envelope-exception.filter';
import { createValidationPipe } from './common/validation';
import type { AppConfig } from './config/app-config';
import { ConfigModule } from './config/config.module';
import { dataSourceOptions } from './database/data-source';
import { AuthModule } from './modules/auth/auth.module';
import { ConversationsModule } from './modules/conversations/conversations.module';
import { SoftphoneModule } from './modules/softphone/softphone.module';
import { ClockModule } from './modules/clock/clock.module';
import { HealthModule } from './modules/health/health.module';
import { MachineHostModule } from './modules/machine-host/machine-host.module';
import { MailModule } from './modules/mail/mail.module';
import { RateLimitModule } from './modules/rate-limit/rate-limit.module';
import { RedisModule } from './modules/redis/redis.module';
import { RealtimeModule } from './modules/realtime/realtime.module';
import { RolesModule } from './modules/roles/roles.module';
import { RoutingModule } from './modules/routing/routing.module';
import { TenancyModule } from './modules/tenancy/tenancy.module';
import { UsersModule } from './modules/users/users.module';
import { AdminModule } from './modules/admin/admin.module';
import { AttentionLinesModule } from './modules/attention-lines/attention-lines.module';
import { CampaignsModule } from './modules/campaigns/campaigns.module';
import { PredefinedMessagesModule } from './modules/predefined-messages/predefined-messages.module';
import { QnaModule } from './modules/qna/qna.module';
import { PollsModule } from './modules/polls/polls.module';
import { PhoneListsModule } from './modules/phone-lists/phone-lists.module';
import { PlatformSettingsModule } from './modules/platform-settings/platform-settings.module';
import { ClientsModule } from './modules/clients/clients.module';
import { InvitationsModule } from './modules/invitations/invitations.module';
import { OutboundModule } from './modules/outbound/outbound.module';
import { OutboundTemplatesModule } from './modules/outbound-templates/outbound-templates.module';
import { IvrsModule } from './modules/ivrs/ivrs.module';
import { TrunksModule } from './modules/trunks/trunks.module';
import { DashboardsModule } from './modules/dashboards/dashboards.module';
import { ReportsModule } from './modules/reports/reports.module';
import { ChannelsModule } from './modules/channels/channels.module';
import { MessageCampaignsModule } from './modules/message-campaigns/message-campaigns.module';
import { AttachmentsModule } from './modules/attachments/attachments.module';
import { EmailDeskModule } from './modules/channels/email/email-desk.module';
import { MailBlacklistModule } from './modules/mail-blacklist/mail-blacklist.module';
import { ContactsModule } from './modules/contacts/contacts.module';
import { CasesModule } from './modules/cases/cases.module';
import { BotModule } from './modules/bot/bot.module';
import { VideoModule } from './modules/video/video.module';
import { VicidialModule } from './modules/vicidial/vicidial.module';
import { VoiceModule } from './modules/voice/voice.module';
import { VoiceRecordingsModule } from './modules/voice/voice-recordings.module';

@Module({})
export class AppModule {
  static forRoot(config: AppConfig): DynamicModule {
    return {
      module: AppModule,
      imports: [
        ConfigModule.forRoot(config),
        TypeOrmModule.forRoot({ ...dataSourceOptions(config.databaseUrl), retryAttempts: 10, retryDelay: 3000 }),
        BullModule.forRoot({
          prefix: config.queuePrefix,
          // The API only produces jobs: fail fast while Redis is away instead of queueing forever.
          connection: { url: config.redisUrl, maxRetriesPerRequest: 1, disconnectTimeout: 500 },
        }),
        RedisModule,
        RateLimitModule,
        MailModule.register(config),
        AuthModule,
        TenancyModule,
        RolesModule,
        UsersModule,
        AdminModule,
        AttentionLinesModule,
        CampaignsModule,
        PredefinedMessagesModule,
        QnaModule,
        BotModule,
        PollsModule,
        IvrsModule,
        TrunksModule,
        PhoneListsModule,
        PlatformSettingsModule,
        InvitationsModule,
        ClientsModule,
        HealthModule,
        ClockModule,
        RealtimeModule,
        MachineHostModule,
        RoutingModule,
        ConversationsModule,
        DashboardsModule,
        ReportsModule,
        SoftphoneModule,
        OutboundModule,
        OutboundTemplatesModule,
        ChannelsModule,
        MessageCampaignsModule,
        AttachmentsModule,
        EmailDeskModule,
        MailBlacklistModule,
        ContactsModule,
        CasesModule,
        VideoModule,
        VicidialModule,
        VoiceModule,
        VoiceRecordingsModule,
      ],
      providers: [
        { provide: APP_PIPE, useFactory: createValidationPipe },
        { provide: APP_FILTER, useClass: EnvelopeExceptionFilter },
      ],
    };
  }
}
