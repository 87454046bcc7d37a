import { Module } from '@nestjs/common';
import { RealtimeModule } from '../realtime/realtime.module';
import { MachineHostService } from './machine-host.service';
import { MachineRows, PgMachineRows } from './machine-rows';
import { OutboxRelay } from './outbox-relay.service';
import { OutboxRetention } from './outbox-retention.service';
import { OutboxWakeListener } from './outbox-wake.listener';
import { QueueRegistry } from './queue-registry.service';

/** The machine host (its rows behind MachineRows), its outbox relay (woken by the worker's commits) and retention sweep, and the API's own queues (timers, routing requests). */
@Module({
  imports: [RealtimeModule],
  providers: [
    QueueRegistry,
    OutboxRelay,
    OutboxWakeListener,
    OutboxRetention,
    { provide: MachineRows, useClass: PgMachineRows },
    MachineHostService,
  ],
  exports: [QueueRegistry, OutboxRelay, OutboxRetention, MachineHostService],
})
export class MachineHostModule {}
