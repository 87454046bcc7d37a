import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { Ivr } from './ivr.entity';
import { IvrsController } from './ivrs.controller';
import { IvrsService } from './ivrs.service';

/** IVRs and their trees (/api/ivrs): draft, apply (versioned publish) and copy. */
@Module({
  imports: [TypeOrmModule.forFeature([Ivr])],
  controllers: [IvrsController],
  providers: [IvrsService],
  exports: [IvrsService],
})
export class IvrsModule {}
