import { Module } from '@nestjs/common';
import { RealtimeModule } from '../realtime/realtime.module';
import { IdempotencyService } from './idempotency.service';

/** The Idempotency-Key store and its sweep; routes opt in with @Idempotent() (idempotency.interceptor.ts). */
@Module({
  imports: [RealtimeModule],
  providers: [IdempotencyService],
  exports: [IdempotencyService, RealtimeModule],
})
export class IdempotencyModule {}
