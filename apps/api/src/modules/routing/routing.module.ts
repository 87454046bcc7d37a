import { Module } from '@nestjs/common';
import { MachineHostModule } from '../machine-host/machine-host.module';
import { RealtimeModule } from '../realtime/realtime.module';
import { RoutingService } from './routing.service';

/** Assignment of waiting conversations, the sweeper, timer events and queue positions. */
@Module({
  imports: [MachineHostModule, RealtimeModule],
  providers: [RoutingService],
  exports: [RoutingService],
})
export class RoutingModule {}
