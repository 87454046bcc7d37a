import { Module } from '@nestjs/common';
import { OutboundTemplatesController } from './outbound-templates.controller';
import { OutboundTemplatesService } from './outbound-templates.service';

/** Outbound campaign templates (/api/outbound/templates): scripts with parameters and their test send. */
@Module({
  controllers: [OutboundTemplatesController],
  providers: [OutboundTemplatesService],
})
export class OutboundTemplatesModule {}
