import { QUEUES } from '@centralita/contracts';
import { BullModule } from '@nestjs/bullmq';
import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { PhoneList, PhoneListEntryRow, PhoneListImport } from './phone-list.entities';
import { PhoneListsController } from './phone-lists.controller';
import { PhoneListsService } from './phone-lists.service';

@Module({
  imports: [
    TypeOrmModule.forFeature([PhoneList, PhoneListEntryRow, PhoneListImport]),
    BullModule.registerQueue({ name: QUEUES.phoneListImport }),
  ],
  controllers: [PhoneListsController],
  providers: [PhoneListsService],
})
export class PhoneListsModule {}
