import { Module } from '@nestjs/common';
import { FilesModule } from '../files/files.module';
import { AttachmentStoreService } from './attachment-store.service';

/**
 * Checked storage of message files, with no dependency on conversations or channels, so the
 * channels module (customers' media) and the attachments module (uploads, downloads) both use it.
 */
@Module({
  imports: [FilesModule],
  providers: [AttachmentStoreService],
  exports: [AttachmentStoreService],
})
export class AttachmentStoreModule {}
