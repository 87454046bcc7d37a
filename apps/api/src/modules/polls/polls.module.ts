import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { Poll, PollAnswerGroup, PollQuestion, PollResponse } from './poll.entities';
import { PollAnswerGroupsController, PollsController } from './polls.controller';
import { PollsService } from './polls.service';

@Module({
  imports: [TypeOrmModule.forFeature([Poll, PollAnswerGroup, PollQuestion, PollResponse])],
  controllers: [PollsController, PollAnswerGroupsController],
  providers: [PollsService],
})
export class PollsModule {}
