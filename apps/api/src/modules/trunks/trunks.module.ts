import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { configCryptoProvider } from '../platform-settings/config-crypto.provider';
import { InboundNumbersService } from './inbound-numbers.service';
import { TrunkInboundNumber } from './trunk-inbound-number.entity';
import { Trunk } from './trunk.entity';
import { TrunksController } from './trunks.controller';
import { TrunksService } from './trunks.service';

/** SIP trunks (/api/trunks) and their inbound numbers (/api/trunks/:id/numbers); secrets encrypted with the channel-secret helper (CONFIG_ENCRYPTION_KEY). */
@Module({
  imports: [TypeOrmModule.forFeature([Trunk, TrunkInboundNumber])],
  controllers: [TrunksController],
  // Same helper and key as the channel secrets; built at start-up so a missing production key stops the API.
  providers: [configCryptoProvider, TrunksService, InboundNumbersService],
  exports: [TrunksService],
})
export class TrunksModule {}
