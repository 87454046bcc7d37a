import { OutgoingAddressPolicy } from '@centralita/contracts/server';
import { Global, Module, type DynamicModule } from '@nestjs/common';
import { APP_CONFIG, type AppConfig } from './app-config';

@Global()
@Module({})
export class ConfigModule {
  static forRoot(config: AppConfig): DynamicModule {
    // One outgoing-address policy for every module that saves or connects to a tenant-supplied host.
    const outgoing = { provide: OutgoingAddressPolicy, useValue: new OutgoingAddressPolicy({ allowedCidrs: config.outgoingAllowedCidrs }) };
    return {
      module: ConfigModule,
      providers: [{ provide: APP_CONFIG, useValue: config }, outgoing],
      exports: [APP_CONFIG, OutgoingAddressPolicy],
    };
  }
}
