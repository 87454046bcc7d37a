import { Module } from '@nestjs/common';
import { MachineHostModule } from '../machine-host/machine-host.module';
import { RealtimeModule } from '../realtime/realtime.module';
import { QUEUE_PUBLISH_INTERVAL_MS, loadQueuePublishInterval } from './queue-publisher';
import { PgQueueViewRows, QueueViewRows } from './queue-view-rows';
import { QueueViews } from './queue-views';
import { PgRoutingRows, RoutingRows } from './routing-rows';
import { RoutingService } from './routing.service';

/** Assignment of waiting conversations (its rows behind RoutingRows), the sweeper, timer events, and the queue views (behind QueueViewRows). */
@Module({
  imports: [MachineHostModule, RealtimeModule],
  providers: [
    { provide: RoutingRows, useClass: PgRoutingRows },
    { provide: QueueViewRows, useClass: PgQueueViewRows },
    QueueViews,
    RoutingService,
    { provide: QUEUE_PUBLISH_INTERVAL_MS, useFactory: () => loadQueuePublishInterval(process.env) },
  ],
  exports: [RoutingService],
})
export class RoutingModule {}
