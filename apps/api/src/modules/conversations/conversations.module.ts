import { Module } from '@nestjs/common';
import { BotModule } from '../bot/bot.module';
import { ChannelsModule } from '../channels/channels.module';
import { IdempotencyModule } from '../idempotency/idempotency.module';
import { IntakeModule } from '../intake/intake.module';
import { MachineHostModule } from '../machine-host/machine-host.module';
import { RateLimitModule } from '../rate-limit/rate-limit.module';
import { RealtimeModule } from '../realtime/realtime.module';
import { RoutingModule } from '../routing/routing.module';
import { AgentController } from './agent.controller';
import { ChannelMessagesController } from './channel-messages.controller';
import { DeskService } from './desk.service';
import { OutboundRulesService } from './outbound-rules.service';
import { RequeueNoticeService } from './requeue-notice.service';
import { NotesController, SupervisorController } from './supervisor.controller';
import { SupervisorService } from './supervisor.service';
import { TemplateSendService } from './template-send.service';
import { WebchatController } from './webchat.controller';
import { WebchatService } from './webchat.service';

/** Web chat (visitors), the agent desk and the supervisor's view: the HTTP side of the real-time core. */
@Module({
  imports: [MachineHostModule, IntakeModule, IdempotencyModule, RealtimeModule, RoutingModule, RateLimitModule, ChannelsModule, BotModule],
  controllers: [WebchatController, AgentController, SupervisorController, NotesController, ChannelMessagesController],
  providers: [WebchatService, DeskService, SupervisorService, OutboundRulesService, RequeueNoticeService, TemplateSendService],
  exports: [DeskService, OutboundRulesService, WebchatService, TemplateSendService],
})
export class ConversationsModule {}
