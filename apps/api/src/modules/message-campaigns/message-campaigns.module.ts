import { Module } from '@nestjs/common';
import { ChannelsModule } from '../channels/channels.module';
import { MachineHostModule } from '../machine-host/machine-host.module';
import { RealtimeModule } from '../realtime/realtime.module';
import { MessageCampaignBoardService } from './message-campaign-board.service';
import { MessageCampaignTimerSweeper } from './message-campaign-timer-sweeper.service';
import { MessageCampaignsController, MessageTemplatesController } from './message-campaigns.controller';
import { MessageCampaignsService } from './message-campaigns.service';
import { EmailCampaignListsController } from './email-campaigns.controller';

/** Issue 21: channel message templates (/api/message-templates) and message campaigns (/api/message-campaigns). */
@Module({
  imports: [ChannelsModule, MachineHostModule, RealtimeModule],
  controllers: [MessageTemplatesController, MessageCampaignsController, EmailCampaignListsController],
  providers: [MessageCampaignsService, MessageCampaignBoardService, MessageCampaignTimerSweeper],
})
export class MessageCampaignsModule {}
