import { Module, type OnModuleInit } from '@nestjs/common';
import { MachineHostModule } from '../machine-host/machine-host.module';
import { RealtimeModule } from '../realtime/realtime.module';
import { OutboundAgentService } from './outbound-agent.service';
import { OutboundBoardService } from './outbound-board.service';
import { CallHostService } from './call-host.service';
import { CampaignAdminService } from './campaign-admin.service';
import { CampaignHostService } from './campaign-host.service';
import { CampaignTimerSweeper } from './campaign-timer-sweeper.service';
import { DoNotCallService } from './do-not-call.service';
import { OutboundMachineRows, PgOutboundMachineRows } from './outbound-machine-rows';
import { OutboundCallActionsService } from './outbound-call-actions.service';
import { OutboundEventsService } from './outbound-events.service';
import { OutboundQueues } from './outbound-queues.service';
import { OutboundResultsService } from './outbound-results.service';
import { OutboundTransactions } from './outbound-transaction.service';
import { OutboundController } from './outbound.controller';

/** Outbound dialing: campaigns, DNC, callbacks, the agent's calls, the live board, and the host of the outbound machines (their rows behind OutboundMachineRows). */
@Module({
  imports: [MachineHostModule, RealtimeModule],
  controllers: [OutboundController],
  providers: [
    OutboundQueues,
    OutboundTransactions,
    { provide: OutboundMachineRows, useClass: PgOutboundMachineRows },
    CampaignHostService,
    CallHostService,
    OutboundEventsService,
    CampaignTimerSweeper,
    CampaignAdminService,
    DoNotCallService,
    OutboundCallActionsService,
    OutboundResultsService,
    OutboundBoardService,
    OutboundAgentService,
  ],
  exports: [OutboundEventsService],
})
export class OutboundModule implements OnModuleInit {
  constructor(
    private readonly queues: OutboundQueues,
    private readonly events: OutboundEventsService,
  ) {}

  onModuleInit(): void {
    this.queues.handle((job, jobId) => this.events.apply(job, jobId));
  }
}
