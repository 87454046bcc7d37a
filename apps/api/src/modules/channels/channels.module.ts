import { BotModule } from '../bot/bot.module';
import { Module } from '@nestjs/common';
import { AttachmentStoreModule } from '../attachments/attachment-store.module';
import { AttachmentStoreService } from '../attachments/attachment-store.service';
import { IntakeModule } from '../intake/intake.module';
import { MachineHostModule } from '../machine-host/machine-host.module';
import { MailBlacklistModule } from '../mail-blacklist/mail-blacklist.module';
import { configCryptoProvider } from '../platform-settings/config-crypto.provider';
import { RateLimitModule } from '../rate-limit/rate-limit.module';
import { ChannelAccountsController } from './channel-accounts.controller';
import { ChannelAccountsService } from './channel-accounts.service';
import { ChannelAdaptersService, channelRegistryProvider } from './channel-adapters.service';
import { ChannelInboundProcessor, INBOUND_MEDIA_STORE } from './channel-inbound.processor';
import { ChannelWebhooksController } from './channel-webhooks.controller';
import { ChannelWebhooksService } from './channel-webhooks.service';
import { EmailInboundService } from './email-inbound.service';
import { FreshChannelEvents } from './fresh-channel-events';

/**
 * Messaging channels, the platform side (issue 19): connected accounts, the providers' webhooks
 * and the processing of what they deliver (QUEUES.channelInbound). Provider-agnostic: every
 * provider is an adapter of the libs/channels registry (CHANNEL_REGISTRY).
 */
@Module({
  imports: [MachineHostModule, IntakeModule, RateLimitModule, AttachmentStoreModule, BotModule, MailBlacklistModule],
  controllers: [ChannelAccountsController, ChannelWebhooksController],
  providers: [
    configCryptoProvider,
    channelRegistryProvider,
    ChannelAdaptersService,
    ChannelAccountsService,
    ChannelWebhooksService,
    FreshChannelEvents,
    ChannelInboundProcessor,
    EmailInboundService,
    // Customers' files are checked and stored as any upload (the attachments module's store).
    { provide: INBOUND_MEDIA_STORE, useExisting: AttachmentStoreService },
  ],
  exports: [ChannelAdaptersService, ChannelAccountsService],
})
export class ChannelsModule {}
