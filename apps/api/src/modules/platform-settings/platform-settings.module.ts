import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { AgentEmoticonsController } from './agent-emoticons.controller';
import { configCryptoProvider } from './config-crypto.provider';
import { PlatformSettingsController } from './platform-settings.controller';
import { ChannelConfig, PlatformSettingsRow } from './platform-settings.entities';
import { PlatformSettingsService } from './platform-settings.service';

@Module({
  imports: [TypeOrmModule.forFeature([PlatformSettingsRow, ChannelConfig])],
  controllers: [PlatformSettingsController, AgentEmoticonsController],
  // Built once at start-up: a missing production key stops the API before it serves anything.
  providers: [configCryptoProvider, PlatformSettingsService],
  exports: [PlatformSettingsService],
})
export class PlatformSettingsModule {}
