import type { Envelope } from '@centralita/contracts';
import { Injectable, StreamableFile, type CallHandler, type ExecutionContext, type NestInterceptor } from '@nestjs/common';
import type { Response } from 'express';
import { map, type Observable } from 'rxjs';

/** Wraps every successful HTTP answer in the envelope of spec §7; statusCode mirrors the HTTP status. */
@Injectable()
export class EnvelopeInterceptor implements NestInterceptor {
  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    if (context.getType() !== 'http') return next.handle();
    const response = context.switchToHttp().getResponse<Response>();
    return next.handle().pipe(
      map((data: unknown) => {
        if (data instanceof StreamableFile) return data;
        const envelope: Envelope<unknown> = { statusCode: response.statusCode, data: data ?? null, errorMessage: null };
        return envelope;
      }),
    );
  }
}
