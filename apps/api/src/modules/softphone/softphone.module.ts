import { Module } from '@nestjs/common';
import { MachineHostModule } from '../machine-host/machine-host.module';
import { ConfigCrypto } from '../platform-settings/config-crypto';
import { SoftphoneController } from './softphone.controller';
import { SoftphoneService } from './softphone.service';

/** SIP settings for the console's softphone, screen pop, call dispositions and the presence link. */
@Module({
  imports: [MachineHostModule],
  controllers: [SoftphoneController],
  providers: [{ provide: ConfigCrypto, useFactory: () => new ConfigCrypto() }, SoftphoneService],
})
export class SoftphoneModule {}
