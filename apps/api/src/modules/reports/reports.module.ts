import { QUEUES } from '@centralita/contracts';
import { BullModule } from '@nestjs/bullmq';
import { Module } from '@nestjs/common';
import { FilesModule } from '../files/files.module';
import { ReportsController } from './reports.controller';
import { ReportsService } from './reports.service';

@Module({
  imports: [BullModule.registerQueue({ name: QUEUES.reportExport }), FilesModule],
  controllers: [ReportsController],
  providers: [ReportsService],
})
export class ReportsModule {}
