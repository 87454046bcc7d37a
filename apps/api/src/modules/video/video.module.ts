import { Global, Module } from '@nestjs/common';
import { ConversationsModule } from '../conversations/conversations.module';
import { FilesModule } from '../files/files.module';
import { MachineHostModule } from '../machine-host/machine-host.module';
import { RealtimeModule } from '../realtime/realtime.module';
import { VIDEO_CONFIG, loadVideoConfig } from './video-config';
import { VideoPublicController } from './video-public.controller';
import { VideoSignallingService } from './video-signalling.service';
import { VideoController } from './video.controller';
import { VideoService } from './video.service';

/**
 * Video calls with a TURN relay, and their recordings (issue 23 items 1 and 2). Global so the case
 * transcript can list a conversation's recordings without importing the desk.
 */
@Global()
@Module({
  imports: [ConversationsModule, FilesModule, MachineHostModule, RealtimeModule],
  controllers: [VideoController, VideoPublicController],
  providers: [{ provide: VIDEO_CONFIG, useFactory: () => loadVideoConfig(process.env) }, VideoService, VideoSignallingService],
  exports: [VideoService],
})
export class VideoModule {}
