import { Module } from '@nestjs/common';
import { RealtimeModule } from '../realtime/realtime.module';
import { MachineHostService } from './machine-host.service';
import { OutboxRelay } from './outbox-relay.service';
import { OutboxRetention } from './outbox-retention.service';
import { QueueRegistry } from './queue-registry.service';

/** The machine host, its outbox relay and retention sweep, and the API's own queues (timers, routing requests). */
@Module({
  imports: [RealtimeModule],
  providers: [QueueRegistry, OutboxRelay, OutboxRetention, MachineHostService],
  exports: [QueueRegistry, OutboxRelay, OutboxRetention, MachineHostService],
})
export class MachineHostModule {}
