import { Global, Module } from '@nestjs/common';
import { ConversationsModule } from '../conversations/conversations.module';
import { FilesModule } from '../files/files.module';
import { VoiceRecordingsController } from './voice-recordings.controller';
import { VoiceRecordingsService } from './voice-recordings.service';

/**
 * Inbound call recordings, the API side (issue 22 item 3): played and downloaded from the conversation and its case.
 * Global (like the video module) so the case transcript can list them without importing the desk.
 */
@Global()
@Module({
  imports: [ConversationsModule, FilesModule],
  controllers: [VoiceRecordingsController],
  providers: [VoiceRecordingsService],
  exports: [VoiceRecordingsService],
})
export class VoiceRecordingsModule {}
