import { BullModule } from '@nestjs/bullmq';
import { Module, type DynamicModule } from '@nestjs/common';
import { APP_FILTER, APP_INTERCEPTOR, APP_PIPE } from '@nestjs/core';
import { TypeOrmModule } from '@nestjs/typeorm';
import { EnvelopeExceptionFilter } from './common/envelope-exception.filter';
import { EnvelopeInterceptor } from './common/envelope.interceptor';
import { createValidationPipe } from './common/validation';
import type { AppConfig } from './config/app-config';
import { ConfigModule } from './config/config.module';
import { dataSourceOptions } from './database/data-source';
import { AuthModule } from './modules/auth/auth.module';
import { ClockModule } from './modules/clock/clock.module';
import { HealthModule } from './modules/health/health.module';
import { MailModule } from './modules/mail/mail.module';
import { RateLimitModule } from './modules/rate-limit/rate-limit.module';
import { RedisModule } from './modules/redis/redis.module';
import { RolesModule } from './modules/roles/roles.module';
import { TenancyModule } from './modules/tenancy/tenancy.module';
import { UsersModule } from './modules/users/users.module';

@Module({})
export class AppModule {
  static forRoot(config: AppConfig): DynamicModule {
    return {
      module: AppModule,
      imports: [
        ConfigModule.forRoot(config),
        TypeOrmModule.forRoot({ ...dataSourceOptions(config.databaseUrl), retryAttempts: 10, retryDelay: 3000 }),
        BullModule.forRoot({
          prefix: config.queuePrefix,
          // The API only produces jobs: fail fast while Redis is away instead of queueing forever.
          connection: { url: config.redisUrl, maxRetriesPerRequest: 1, disconnectTimeout: 500 },
        }),
        RedisModule,
        RateLimitModule,
        MailModule.register(config),
        AuthModule,
        TenancyModule,
        RolesModule,
        UsersModule,
        HealthModule,
        ClockModule,
      ],
      providers: [
        { provide: APP_PIPE, useFactory: createValidationPipe },
        { provide: APP_INTERCEPTOR, useClass: EnvelopeInterceptor },
        { provide: APP_FILTER, useClass: EnvelopeExceptionFilter },
      ],
    };
  }
}
