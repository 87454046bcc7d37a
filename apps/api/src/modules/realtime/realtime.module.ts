import { Global, Module } from '@nestjs/common';
import { AuthModule } from '../auth/auth.module';
import { REALTIME_CONFIG, loadRealtimeConfig } from '../machine-host/realtime-config';
import { PresenceRegistryService } from './presence-registry.service';
import { RealtimeService } from './realtime.service';
import { SocketAccessService } from './socket-access.service';
import { VisitorTokenService } from './visitor-token.service';

/** Socket.IO on the API's HTTP server: /staff (access JWT) and /visitor (visitor token). */
@Global()
@Module({
  imports: [AuthModule],
  providers: [
    { provide: REALTIME_CONFIG, useFactory: () => loadRealtimeConfig(process.env) },
    RealtimeService,
    VisitorTokenService,
    SocketAccessService,
    PresenceRegistryService,
  ],
  exports: [REALTIME_CONFIG, RealtimeService, VisitorTokenService, SocketAccessService],
})
export class RealtimeModule {}
