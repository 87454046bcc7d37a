import { IDEMPOTENCY_KEY_HEADER, IDEMPOTENCY_REPLAYED_HEADER } from '@centralita/contracts';
import {
  applyDecorators,
  Injectable,
  Logger,
  UseInterceptors,
  type CallHandler,
  type ExecutionContext,
  type NestInterceptor,
} from '@nestjs/common';
import { ApiHeader } from '@nestjs/swagger';
import type { Response } from 'express';
import { createHash } from 'node:crypto';
import { catchError, mergeMap, of, type Observable } from 'rxjs';
import { AppException } from '../../common/app.exception';
import { bearerToken } from '../auth/auth.guard';
import type { RequestWithPrincipal } from '../auth/principal';
import { VisitorTokenService } from '../realtime/visitor-token.service';
import { IdempotencyService, type IdempotencyCaller } from './idempotency.service';

/** 1–255 visible ASCII characters: a UUID, a ULID or any client-made id fits. */
const KEY_PATTERN = /^[\x21-\x7e]{1,255}$/;

/** JSON with object keys sorted, so the same request sent with its fields in another order is the same request. */
function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, item]) => item !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([name, item]) => `${JSON.stringify(name)}:${canonicalJson(item)}`).join(',')}}`;
  }
  return JSON.stringify(value ?? null);
}

/** What makes two calls "the same request": method, path with query, and body. */
export function requestFingerprint(method: string, url: string, body: unknown): string {
  return createHash('sha256')
    .update(`${method} ${url}\n${canonicalJson(body)}`)
    .digest('hex');
}

/**
 * The Idempotency-Key header (docs/api.md): on the routes marked @Idempotent(), a call with a key
 * claims it before the handler runs; a repeat by the same caller with the same key and the same
 * request gets the first call's answer without running the command again (header
 * Idempotency-Replayed: true), a different request with that key 422, and a repeat while the first
 * is still running 409 with Retry-After. Calls without the header run as always.
 *
 * An interceptor on the marked routes only, not a global one: a global interceptor puts every call
 * through Nest's rxjs pipeline (see EnvelopeExpressAdapter). The caller is the signed-in staff user
 * (the guard ran first) or the web-chat session the visitor token names.
 */
@Injectable()
export class IdempotencyInterceptor implements NestInterceptor {
  private readonly logger = new Logger(IdempotencyInterceptor.name);

  constructor(
    private readonly store: IdempotencyService,
    private readonly visitors: VisitorTokenService,
  ) {}

  async intercept(context: ExecutionContext, next: CallHandler): Promise<Observable<unknown>> {
    const http = context.switchToHttp();
    const request = http.getRequest<RequestWithPrincipal>();
    const key = request.get(IDEMPOTENCY_KEY_HEADER);
    if (key === undefined) return next.handle();
    if (!KEY_PATTERN.test(key)) {
      throw new AppException('validation', { message: `${IDEMPOTENCY_KEY_HEADER} must be 1 to 255 visible ASCII characters` });
    }
    const owner = this.ownerOf(request);
    const claim = await this.store.claim(owner, key, requestFingerprint(request.method, request.originalUrl, request.body));
    const response = http.getResponse<Response>();
    if (claim.kind === 'replay') {
      response.status(claim.statusCode);
      response.setHeader(IDEMPOTENCY_REPLAYED_HEADER, 'true');
      return of(claim.body);
    }
    return next.handle().pipe(
      mergeMap(async (body: unknown) => {
        // The command took effect: its answer is what repeats get. Failing to store it must not
        // turn a success into an error; the key then counts as abandoned after a minute.
        await this.store
          .complete(owner, key, response.statusCode, body)
          .catch((error: Error) => this.logger.warn(`storing the answer for an idempotency key: ${error.message}`));
        return body;
      }),
      catchError(async (error: unknown) => {
        await this.store
          .release(owner, key)
          .catch((failure: Error) => this.logger.warn(`releasing an idempotency key: ${failure.message}`));
        throw error;
      }),
    );
  }

  private ownerOf(request: RequestWithPrincipal): IdempotencyCaller {
    const principal = request.principal;
    if (principal) return { tenantId: principal.clientId, caller: `user:${principal.userId}` };
    // A public web-chat route: the visitor token names the session (refused as the handler would refuse it).
    const visitor = this.visitors.verify(bearerToken(request.get('authorization')));
    return { tenantId: visitor.tenantId, caller: `visitor:${visitor.conversationId}` };
  }
}

/**
 * Marks a state-changing route that honours the Idempotency-Key header. The module of its
 * controller imports IdempotencyModule (and RealtimeModule, for visitor tokens).
 */
export function Idempotent(): MethodDecorator & ClassDecorator {
  return applyDecorators(
    UseInterceptors(IdempotencyInterceptor),
    ApiHeader({
      name: IDEMPOTENCY_KEY_HEADER,
      required: false,
      description:
        'Optional, 1–255 visible ASCII characters. A repeat with the same key and request within 24 h answers the first call’s answer without acting again (Idempotency-Replayed: true); the same key with a different request 422; while the first call still runs 409 (Retry-After: 1)',
    }),
  );
}
