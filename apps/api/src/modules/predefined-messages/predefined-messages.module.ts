import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { AttentionLine } from '../attention-lines/attention-line.entity';
import { PredefinedMessage } from './predefined-message.entity';
import { PredefinedMessagesController } from './predefined-messages.controller';
import { PredefinedMessagesService } from './predefined-messages.service';

@Module({
  imports: [TypeOrmModule.forFeature([PredefinedMessage, AttentionLine])],
  controllers: [PredefinedMessagesController],
  providers: [PredefinedMessagesService],
})
export class PredefinedMessagesModule {}
