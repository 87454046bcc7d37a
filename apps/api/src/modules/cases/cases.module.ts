import { QUEUES } from '@centralita/contracts';
import { BullModule } from '@nestjs/bullmq';
import { Module } from '@nestjs/common';
import { CasesController } from './cases.controller';
import { CasesRepository } from './cases.repository';
import { CasesService } from './cases.service';

/** The CRM case registry (/crm/crmlist). The email close rule lives in email-close-rule.ts, run by the machine host. */
@Module({
  imports: [BullModule.registerQueue({ name: QUEUES.geoImport })],
  controllers: [CasesController],
  providers: [CasesRepository, CasesService],
})
export class CasesModule {}
