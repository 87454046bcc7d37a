import { Module } from '@nestjs/common';
import { RealtimeModule } from '../realtime/realtime.module';
import { MachineHostService } from './machine-host.service';
import { OutboxRelay } from './outbox-relay.service';
import { QueueRegistry } from './queue-registry.service';

/** The machine host, its outbox relay and the API's own queues (timers, routing requests). */
@Module({
  imports: [RealtimeModule],
  providers: [QueueRegistry, OutboxRelay, MachineHostService],
  exports: [QueueRegistry, OutboxRelay, MachineHostService],
})
export class MachineHostModule {}
