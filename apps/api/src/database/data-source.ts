import { DataSource, type DataSourceOptions } from 'typeorm';
import { AttentionLine } from '../modules/attention-lines/attention-line.entity';
import { PasswordResetToken } from '../modules/auth/password-reset-token.entity';
import { RefreshToken } from '../modules/auth/refresh-token.entity';
import { Campaign } from '../modules/campaigns/campaign.entity';
import { RoleMenu } from '../modules/roles/role-menu.entity';
import { Role } from '../modules/roles/role.entity';
import { Client } from '../modules/tenancy/client.entity';
import { Reseller } from '../modules/tenancy/reseller.entity';
import { User } from '../modules/users/user.entity';
import { UserInvitation } from '../modules/invitations/user-invitation.entity';
import { AuditLog } from '../modules/admin/audit-log.entity';
import { PredefinedMessage } from '../modules/predefined-messages/predefined-message.entity';
import { TenancyAndAuth1763700000000 } from './migrations/1763700000000-tenancy-and-auth';
import { AttentionLinesAndCampaigns1763700000001 } from './migrations/1763700000001-attention-lines-and-campaigns';
import { RealtimeCore1763700000100 } from './migrations/1763700000100-realtime-core';
import { AdminFramework1763700100000 } from './migrations/1763700100000-admin-framework';
import { AttentionLinesAdmin1763700100001 } from './migrations/1763700100001-attention-lines-admin';
import { Qna1763700100002 } from './migrations/1763700100002-qna';
import { Polls1763700100003 } from './migrations/1763700100003-polls';
import { PhoneLists1763700100004 } from './migrations/1763700100004-phone-lists';
import { PlatformSettings1763700100005 } from './migrations/1763700100005-platform-settings';
import { CampaignQueuesAndLinePolls1763700150000 } from './migrations/1763700150000-campaign-queues-and-line-polls';
import { SoftDeleteUniqueNames1763700160000 } from './migrations/1763700160000-soft-delete-unique-names';
import { PhoneListImportFailureCode1763700160001 } from './migrations/1763700160001-phone-list-import-failure-code';
import { Softphone1763700600000 } from './migrations/1763700600000-softphone';
import { Dashboards1763700400000 } from './migrations/1763700400000-dashboards';
import { OutboundDialer1763700500001 } from './migrations/1763700500001-outbound-dialer';
import { OutboundPreview1763700500002 } from './migrations/1763700500002-outbound-preview';
import { ReportExports1763700800000 } from './migrations/1763700800000-report-exports';
import { OutboundTemplates1763700900000 } from './migrations/1763700900000-outbound-templates';
import { OutboundCarrierSequence1763700950000 } from './migrations/1763700950000-outbound-carrier-sequence';
import { LineArrivalsIndex1763700960000 } from './migrations/1763700960000-line-arrivals-index';
import { MachineRowsFillfactor1763700970000 } from './migrations/1763700970000-machine-rows-fillfactor';
import { ReportExportLanguage1763700980000 } from './migrations/1763700980000-report-export-language';
import { LineRoutingSettings1763700990000 } from './migrations/1763700990000-line-routing-settings';
import { PreviewLineWait1763701000000 } from './migrations/1763701000000-preview-line-wait';
import { TenancyLevelsAndInvitations1763702000000 } from './migrations/1763702000000-tenancy-levels-and-invitations';
import { SelfRegistration1763702400000 } from './migrations/1763702400000-self-registration';
import { ConversationIntake1763703300000 } from './migrations/1763703300000-conversation-intake';
import { FileStore1763703400000 } from './migrations/1763703400000-file-store';
import { RealtimeViewVersions1763703500000 } from './migrations/1763703500000-realtime-view-versions';
import { CampaignTimerDeadlines1763703600000 } from './migrations/1763703600000-campaign-timer-deadlines';
import { CampaignIdleReason1763704100000 } from './migrations/1763704100000-campaign-idle-reason';
import { ChannelAccounts1763704200000 } from './migrations/1763704200000-channel-accounts';
import { MessageDeliveryAndAttachments1763704300000 } from './migrations/1763704300000-message-delivery-and-attachments';
import { TenantLanguage1763704500000 } from './migrations/1763704500000-tenant-language';
import { Cases1763704600000 } from './migrations/1763704600000-cases';
import { EmailChannel1763704700000 } from './migrations/1763704700000-email-channel';
import { MailBlacklistAndPersons1763704800000 } from './migrations/1763704800000-mail-blacklist-and-persons';
import { S3FileStore1763704900000 } from './migrations/1763704900000-s3-file-store';
import { LineBot1763705000000 } from './migrations/1763705000000-line-bot';
import { VideoCalls1763705100000 } from './migrations/1763705100000-video-calls';
import { MessageCampaigns1763705200000 } from './migrations/1763705200000-message-campaigns';
import { IntegrationKeys1763705300000 } from './migrations/1763705300000-integration-keys';
import { MessageButtons1763705400000 } from './migrations/1763705400000-message-buttons';
import { MessageCampaignSchedules1763705700000 } from './migrations/1763705700000-message-campaign-schedules';
import { EmailCampaigns1763705600000 } from './migrations/1763705600000-email-campaigns';
import { InboundNumbersAndIvrPrompts1763705900000 } from './migrations/1763705900000-inbound-numbers-and-ivr-prompts';
import { VoiceCalls1763706000000 } from './migrations/1763706000000-voice-calls';
import { VoiceMonitoring1763706600000 } from './migrations/1763706600000-voice-monitoring';
import { Voicemail1763706700000 } from './migrations/1763706700000-voicemail';
import { VoiceConsult1763706800000 } from './migrations/1763706800000-voice-consult';
import { TrunkAllowedSources1763706900000 } from './migrations/1763706900000-trunk-allowed-sources';
import { VoiceRecordings1763706100000 } from './migrations/1763706100000-voice-recordings';
import { BlendedAgents1763706200000 } from './migrations/1763706200000-blended-agents';
import { VoiceIvrSettings1763706300000 } from './migrations/1763706300000-voice-ivr-settings';
import { IdempotencyKeys1763706400000 } from './migrations/1763706400000-idempotency-keys';
import { ChannelPendingReceipts1763706500000 } from './migrations/1763706500000-channel-pending-receipts';
import { RegistrationRequest } from '../modules/auth/registration-request.entity';
import { ChannelConfig, PlatformSettingsRow } from '../modules/platform-settings/platform-settings.entities';
import { PhoneList, PhoneListEntryRow, PhoneListImport } from '../modules/phone-lists/phone-list.entities';
import { Poll, PollAnswerGroup, PollQuestion, PollResponse } from '../modules/polls/poll.entities';
import { QnaEntry } from '../modules/qna/qna-entry.entity';
import { IvrsAndTrunks1763700200000 } from './migrations/1763700200000-ivrs-and-trunks';
import { Ivr } from '../modules/ivrs/ivr.entity';
import { Trunk } from '../modules/trunks/trunk.entity';
import { TrunkInboundNumber } from '../modules/trunks/trunk-inbound-number.entity';

export const ENTITIES = [
  Ivr,
  Trunk,
  TrunkInboundNumber,
  PlatformSettingsRow,
  ChannelConfig,
  PhoneList,
  PhoneListEntryRow,
  PhoneListImport,
  AuditLog,
  PredefinedMessage,
  QnaEntry,
  Poll,
  PollAnswerGroup,
  PollQuestion,
  PollResponse,
  Reseller,
  Client,
  Role,
  RoleMenu,
  User,
  UserInvitation,
  RefreshToken,
  PasswordResetToken,
  RegistrationRequest,
  AttentionLine,
  Campaign,
];
/** In order. Never edit a migration that has shipped: add a new one. */
export const MIGRATIONS = [
  TenancyAndAuth1763700000000,
  AttentionLinesAndCampaigns1763700000001,
  RealtimeCore1763700000100,
  AdminFramework1763700100000,
  AttentionLinesAdmin1763700100001,
  Qna1763700100002,
  Polls1763700100003,
  PhoneLists1763700100004,
  PlatformSettings1763700100005,
  CampaignQueuesAndLinePolls1763700150000,
  SoftDeleteUniqueNames1763700160000,
  PhoneListImportFailureCode1763700160001,
  IvrsAndTrunks1763700200000,
  Dashboards1763700400000,
  OutboundDialer1763700500001,
  OutboundPreview1763700500002,
  Softphone1763700600000,
  ReportExports1763700800000,
  OutboundTemplates1763700900000,
  OutboundCarrierSequence1763700950000,
  LineArrivalsIndex1763700960000,
  MachineRowsFillfactor1763700970000,
  ReportExportLanguage1763700980000,
  LineRoutingSettings1763700990000,
  PreviewLineWait1763701000000,
  TenancyLevelsAndInvitations1763702000000,
  SelfRegistration1763702400000,
  ConversationIntake1763703300000,
  FileStore1763703400000,
  RealtimeViewVersions1763703500000,
  CampaignTimerDeadlines1763703600000,
  CampaignIdleReason1763704100000,
  ChannelAccounts1763704200000,
  MessageDeliveryAndAttachments1763704300000,
  TenantLanguage1763704500000,
  Cases1763704600000,
  EmailChannel1763704700000,
  MailBlacklistAndPersons1763704800000,
  S3FileStore1763704900000,
  LineBot1763705000000,
  VideoCalls1763705100000,
  MessageCampaigns1763705200000,
  IntegrationKeys1763705300000,
  MessageButtons1763705400000,
  EmailCampaigns1763705600000,
  MessageCampaignSchedules1763705700000,
  InboundNumbersAndIvrPrompts1763705900000,
  VoiceCalls1763706000000,
  VoiceRecordings1763706100000,
  BlendedAgents1763706200000,
  VoiceIvrSettings1763706300000,
  IdempotencyKeys1763706400000,
  ChannelPendingReceipts1763706500000,
  VoiceMonitoring1763706600000,
  Voicemail1763706700000,
  VoiceConsult1763706800000,
  TrunkAllowedSources1763706900000,
];

export function dataSourceOptions(url: string): DataSourceOptions {
  return {
    type: 'postgres',
    url,
    entities: ENTITIES,
    migrations: MIGRATIONS,
    migrationsTableName: 'typeorm_migrations',
    migrationsTransactionMode: 'all',
    // Schema changes only ever come from migrations.
    synchronize: false,
    migrationsRun: false,
    // gen_random_uuid() is built into PostgreSQL 13+: no extension to install (and no superuser).
    uuidExtension: 'pgcrypto',
    installExtensions: false,
    applicationName: 'centralita',
    // Fail fast (the API answers 503) instead of hanging while PostgreSQL is away.
    extra: { max: 10, connectionTimeoutMillis: 5000, statement_timeout: 15000, idle_in_transaction_session_timeout: 30000 },
  };
}

export function createDataSource(url: string): DataSource {
  return new DataSource(dataSourceOptions(url));
}
