import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { QnaEntry } from './qna-entry.entity';
import { QnaController } from './qna.controller';
import { QnaService } from './qna.service';

@Module({
  imports: [TypeOrmModule.forFeature([QnaEntry])],
  controllers: [QnaController],
  providers: [QnaService],
})
export class QnaModule {}
