import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { FilesModule } from '../files/files.module';
import { Ivr } from './ivr.entity';
import { IvrPromptsService } from './ivr-prompts.service';
import { IvrsController } from './ivrs.controller';
import { IvrsService } from './ivrs.service';

/** IVRs and their trees (/api/ivrs): draft, apply (versioned publish with rendered prompts), copy and prompt uploads. */
@Module({
  imports: [TypeOrmModule.forFeature([Ivr]), FilesModule],
  controllers: [IvrsController],
  providers: [IvrsService, IvrPromptsService],
  exports: [IvrsService],
})
export class IvrsModule {}
