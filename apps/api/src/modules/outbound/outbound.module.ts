import { Module, type OnModuleInit } from '@nestjs/common';
import { MachineHostModule } from '../machine-host/machine-host.module';
import { RealtimeModule } from '../realtime/realtime.module';
import { OutboundAgentService } from './outbound-agent.service';
import { OutboundBoardService } from './outbound-board.service';
import { OutboundHostService } from './outbound-host.service';
import { OutboundQueues } from './outbound-queues.service';
import { OutboundController } from './outbound.controller';
import { OutboundService } from './outbound.service';

/** Outbound dialing: campaigns, DNC, callbacks, the agent's calls, the live board, and the host of the outbound machines. */
@Module({
  imports: [MachineHostModule, RealtimeModule],
  controllers: [OutboundController],
  providers: [OutboundQueues, OutboundHostService, OutboundService, OutboundBoardService, OutboundAgentService],
  exports: [OutboundHostService],
})
export class OutboundModule implements OnModuleInit {
  constructor(
    private readonly queues: OutboundQueues,
    private readonly host: OutboundHostService,
  ) {}

  onModuleInit(): void {
    this.queues.handle((job, jobId) => this.host.apply(job, jobId));
  }
}
