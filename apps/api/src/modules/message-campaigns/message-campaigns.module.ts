import { Module } from '@nestjs/common';
import { ChannelsModule } from '../channels/channels.module';
import { MachineHostModule } from '../machine-host/machine-host.module';
import { MessageCampaignsController, MessageTemplatesController } from './message-campaigns.controller';
import { MessageCampaignsService } from './message-campaigns.service';

/** Issue 21: channel message templates (/api/message-templates) and message campaigns (/api/message-campaigns). */
@Module({
  imports: [ChannelsModule, MachineHostModule],
  controllers: [MessageTemplatesController, MessageCampaignsController],
  providers: [MessageCampaignsService],
})
export class MessageCampaignsModule {}
