import { Module } from '@nestjs/common';
import { AttachmentStoreModule } from '../../attachments/attachment-store.module';
import { ConversationsModule } from '../../conversations/conversations.module';
import { IntakeModule } from '../../intake/intake.module';
import { MachineHostModule } from '../../machine-host/machine-host.module';
import { EmailDeskController } from './email-desk.controller';
import { EmailDeskService } from './email-desk.service';
import { OutboundEmailController } from './outbound-email.controller';
import { OutboundEmailService } from './outbound-email.service';

/** The desk's email view and replies (issue 20); the mailbox side is the worker's, the intake side ChannelsModule's. */
@Module({
  imports: [ConversationsModule, IntakeModule, AttachmentStoreModule, MachineHostModule],
  controllers: [EmailDeskController, OutboundEmailController],
  providers: [EmailDeskService, OutboundEmailService],
})
export class EmailDeskModule {}
