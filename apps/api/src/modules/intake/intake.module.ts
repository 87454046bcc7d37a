import { Module } from '@nestjs/common';
import { MessagesService } from '../conversations/messages.service';
import { MachineHostModule } from '../machine-host/machine-host.module';
import { ConversationIntakeService } from './conversation-intake.service';

/**
 * The conversation intake every channel calls (web chat first), with the message store it appends
 * through: the desk's agent replies use the same store, so it is exported too.
 */
@Module({
  imports: [MachineHostModule],
  providers: [MessagesService, ConversationIntakeService],
  exports: [MessagesService, ConversationIntakeService],
})
export class IntakeModule {}
