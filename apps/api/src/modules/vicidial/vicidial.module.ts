import { Module } from '@nestjs/common';
import { AuthModule } from '../auth/auth.module';
import { IntegrationKeysService } from './integration-keys.service';
import { VICIDIAL_CONFIG, loadVicidialConfig } from './vicidial-config';
import { ExternLoginController, IntegrationKeysController } from './vicidial.controller';
import { VicidialLoginService } from './vicidial-login.service';

/**
 * Issue 22 item 5: integration keys and the external dialer sign-in (ExternLoginVicidial and the
 * console's /session/vicidial/{id}[/{callback}] page).
 */
@Module({
  imports: [AuthModule],
  controllers: [ExternLoginController, IntegrationKeysController],
  providers: [
    { provide: VICIDIAL_CONFIG, useFactory: () => loadVicidialConfig(process.env) },
    IntegrationKeysService,
    VicidialLoginService,
  ],
})
export class VicidialModule {}
