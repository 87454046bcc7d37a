import { Module, type OnModuleInit } from '@nestjs/common';
import { IntakeModule } from '../intake/intake.module';
import { MachineHostModule } from '../machine-host/machine-host.module';
import { RoutingModule } from '../routing/routing.module';
import { VoiceCallsService } from './voice-calls.service';
import { VoiceConsultController } from './voice-consult.controller';
import { VoiceConsultService } from './voice-consult.service';
import { VoiceEventsService } from './voice-events.service';
import { VoiceMonitoringService } from './voice-monitoring.service';
import { VoiceQueues } from './voice-queues.service';
import { VoiceScreenPopService } from './voice-screen-pop.service';
import { VoiceController } from './voice.controller';

/**
 * Inbound voice, the API side (issue 22): the worker's call events become the caller's conversation
 * on the phone channel; routing offers it only when it can be connected; closing it hangs up.
 */
@Module({
  imports: [MachineHostModule, IntakeModule, RoutingModule],
  controllers: [VoiceController, VoiceConsultController],
  providers: [VoiceQueues, VoiceEventsService, VoiceCallsService, VoiceMonitoringService, VoiceScreenPopService, VoiceConsultService],
  exports: [VoiceEventsService, VoiceCallsService],
})
export class VoiceModule implements OnModuleInit {
  constructor(
    private readonly queues: VoiceQueues,
    private readonly events: VoiceEventsService,
  ) {}

  onModuleInit(): void {
    this.queues.handle((event) => this.events.apply(event));
  }
}
