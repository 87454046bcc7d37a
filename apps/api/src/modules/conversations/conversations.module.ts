import { Module } from '@nestjs/common';
import { IntakeModule } from '../intake/intake.module';
import { MachineHostModule } from '../machine-host/machine-host.module';
import { RateLimitModule } from '../rate-limit/rate-limit.module';
import { RealtimeModule } from '../realtime/realtime.module';
import { RoutingModule } from '../routing/routing.module';
import { AgentController } from './agent.controller';
import { DeskService } from './desk.service';
import { NotesController, SupervisorController } from './supervisor.controller';
import { SupervisorService } from './supervisor.service';
import { WebchatController } from './webchat.controller';
import { WebchatService } from './webchat.service';

/** Web chat (visitors), the agent desk and the supervisor's view: the HTTP side of the real-time core. */
@Module({
  imports: [MachineHostModule, IntakeModule, RealtimeModule, RoutingModule, RateLimitModule],
  controllers: [WebchatController, AgentController, SupervisorController, NotesController],
  providers: [WebchatService, DeskService, SupervisorService],
})
export class ConversationsModule {}
