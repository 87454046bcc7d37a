import { SENTIMENT_QUEUE } from '@centralita/contracts';
import { BullModule } from '@nestjs/bullmq';
import { Global, Module } from '@nestjs/common';
import { DashboardsController } from './dashboards.controller';
import { DashboardsService } from './dashboards.service';
import { SentimentProducer } from './sentiment-producer.service';

/** Global so the message store can ask for sentiment scoring without importing this module. */
@Global()
@Module({
  imports: [BullModule.registerQueue({ name: SENTIMENT_QUEUE })],
  controllers: [DashboardsController],
  providers: [DashboardsService, SentimentProducer],
  exports: [SentimentProducer],
})
export class DashboardsModule {}
