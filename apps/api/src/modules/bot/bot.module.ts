import { Module } from '@nestjs/common';
import { IntakeModule } from '../intake/intake.module';
import { MachineHostModule } from '../machine-host/machine-host.module';
import { RealtimeModule } from '../realtime/realtime.module';
import { BotAdminService } from './bot-admin.service';
import { BotController, BotVisitorController } from './bot.controller';
import { BotService } from './bot.service';

/**
 * The bot in front of a line's queue (issue 23 item 3). Web chat and the messaging channels call
 * BotService after the intake stored a customer's message; it answers while the conversation is
 * Transitory and hands off through the machine.
 */
@Module({
  imports: [MachineHostModule, IntakeModule, RealtimeModule],
  controllers: [BotController, BotVisitorController],
  providers: [BotService, BotAdminService],
  exports: [BotService],
})
export class BotModule {}
