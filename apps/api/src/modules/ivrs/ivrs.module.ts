import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { FilesModule } from '../files/files.module';
import { Ivr } from './ivr.entity';
import { IvrPromptsService } from './ivr-prompts.service';
import { IvrsController } from './ivrs.controller';
import { IvrsService } from './ivrs.service';
import { VoiceSettingsController } from './voice-settings.controller';
import { VoiceSettingsService } from './voice-settings.service';

/**
 * IVRs and their trees (/api/ivrs): draft, apply (versioned publish with rendered prompts), copy and prompt uploads;
 * the tenant's voice settings (/api/voice-settings): hold music and queue position announcements.
 */
@Module({
  imports: [TypeOrmModule.forFeature([Ivr]), FilesModule],
  controllers: [IvrsController, VoiceSettingsController],
  providers: [IvrsService, IvrPromptsService, VoiceSettingsService],
  exports: [IvrsService],
})
export class IvrsModule {}
