import { Module } from '@nestjs/common';
import { MachineHostModule } from '../machine-host/machine-host.module';
import { RealtimeModule } from '../realtime/realtime.module';
import { QUEUE_PUBLISH_INTERVAL_MS, loadQueuePublishInterval } from './queue-publisher';
import { RoutingService } from './routing.service';

/** Assignment of waiting conversations, the sweeper, timer events and queue positions. */
@Module({
  imports: [MachineHostModule, RealtimeModule],
  providers: [RoutingService, { provide: QUEUE_PUBLISH_INTERVAL_MS, useFactory: () => loadQueuePublishInterval(process.env) }],
  exports: [RoutingService],
})
export class RoutingModule {}
