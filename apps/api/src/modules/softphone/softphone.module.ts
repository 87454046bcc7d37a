import { Module } from '@nestjs/common';
import { MachineHostModule } from '../machine-host/machine-host.module';
import { configCryptoProvider } from '../platform-settings/config-crypto.provider';
import { SoftphoneController } from './softphone.controller';
import { SoftphoneService } from './softphone.service';

/** SIP settings for the console's softphone, screen pop, call dispositions and the presence link. */
@Module({
  imports: [MachineHostModule],
  controllers: [SoftphoneController],
  providers: [configCryptoProvider, SoftphoneService],
})
export class SoftphoneModule {}
