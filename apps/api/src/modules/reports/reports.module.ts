import { REPORT_EXPORT_QUEUE } from '@centralita/contracts';
import { BullModule } from '@nestjs/bullmq';
import { Module } from '@nestjs/common';
import { ReportsController } from './reports.controller';
import { ReportsService } from './reports.service';

@Module({
  imports: [BullModule.registerQueue({ name: REPORT_EXPORT_QUEUE })],
  controllers: [ReportsController],
  providers: [ReportsService],
})
export class ReportsModule {}
