import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { AttentionLine } from './attention-line.entity';
import { AttentionLinesController } from './attention-lines.controller';
import { AttentionLinesService } from './attention-lines.service';

@Module({
  imports: [TypeOrmModule.forFeature([AttentionLine])],
  controllers: [AttentionLinesController],
  providers: [AttentionLinesService],
})
export class AttentionLinesModule {}
