import { Module } from '@nestjs/common';
import { ChannelsModule } from '../channels/channels.module';
import { ConversationsModule } from '../conversations/conversations.module';
import { IntakeModule } from '../intake/intake.module';
import { RateLimitModule } from '../rate-limit/rate-limit.module';
import { RealtimeModule } from '../realtime/realtime.module';
import { AttachmentStoreModule } from './attachment-store.module';
import { AttachmentsController, WebchatAttachmentsController } from './attachments.controller';
import { AttachmentsService } from './attachments.service';

/** Files in conversations (issue 19): agents' and visitors' uploads, downloads for staff and for the visitor. */
@Module({
  imports: [AttachmentStoreModule, ConversationsModule, IntakeModule, ChannelsModule, RealtimeModule, RateLimitModule],
  controllers: [AttachmentsController, WebchatAttachmentsController],
  providers: [AttachmentsService],
})
export class AttachmentsModule {}
