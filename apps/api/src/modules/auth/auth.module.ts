import { Module } from '@nestjs/common';
import { APP_GUARD, DiscoveryModule } from '@nestjs/core';
import { JwtModule } from '@nestjs/jwt';
import { TypeOrmModule } from '@nestjs/typeorm';
import { APP_CONFIG, type AppConfig } from '../../config/app-config';
import { PlatformSettingsModule } from '../platform-settings/platform-settings.module';
import { User } from '../users/user.entity';
import { AccessRuleAudit } from './access-rule.audit';
import { AccessTokenService } from './access-token.service';
import { AuthController } from './auth.controller';
import { AuthGuard } from './auth.guard';
import { AuthService } from './auth.service';
import { PasswordResetToken } from './password-reset-token.entity';
import { PasswordResetService } from './password-reset.service';
import { PrincipalCacheService } from './principal-cache.service';
import { RefreshToken } from './refresh-token.entity';
import { RefreshTokenService } from './refresh-token.service';
import { RegistrationRequest } from './registration-request.entity';
import { RegistrationService } from './registration.service';
import { SessionController } from './session.controller';
import { SessionsService } from './sessions.service';

@Module({
  imports: [
    DiscoveryModule,
    PlatformSettingsModule,
    TypeOrmModule.forFeature([User, RefreshToken, PasswordResetToken, RegistrationRequest]),
    JwtModule.registerAsync({
      inject: [APP_CONFIG],
      useFactory: (appConfig: AppConfig) => ({
        secret: appConfig.jwt.secret,
        signOptions: { algorithm: 'HS256' as const },
        verifyOptions: { algorithms: ['HS256' as const] },
      }),
    }),
  ],
  controllers: [AuthController, SessionController],
  providers: [
    AccessTokenService,
    PrincipalCacheService,
    RefreshTokenService,
    SessionsService,
    AuthService,
    PasswordResetService,
    RegistrationService,
    AccessRuleAudit,
    AuthGuard,
    { provide: APP_GUARD, useExisting: AuthGuard },
  ],
  exports: [SessionsService, PrincipalCacheService, AuthGuard, AuthService],
})
export class AuthModule {}
