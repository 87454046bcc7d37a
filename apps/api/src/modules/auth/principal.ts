import type { OrganisationLevel } from '@centralita/contracts';
import { createParamDecorator, type ExecutionContext } from '@nestjs/common';
import type { Request } from 'express';
import { AppException } from '../../common/app.exception';

/** The authenticated caller, resolved by AuthGuard from the access token and fresh user state. */
export interface Principal {
  userId: string;
  /** Tenant of every query made on the caller's behalf; never taken from the request. */
  clientId: string;
  /**
   * Where the caller's organisation sits. A 'reseller' or 'platform' caller's clientId is their
   * staff organisation, which holds no customer data; clients/resellers queries scope by level.
   */
  level: OrganisationLevel;
  /** The reseller a tenant or reseller-staff caller belongs to; null for the platform operator. */
  resellerId: string | null;
  roleId: string;
  roleCode: string;
  /** The role's permissions narrowed to what the level allows (effectivePermissions). */
  permissions: string[];
  /** Refresh family (sign-in) this access token belongs to. */
  sessionId: string;
}

export type RequestWithPrincipal = Request & { principal?: Principal };

export const CurrentPrincipal = createParamDecorator((_data: unknown, context: ExecutionContext): Principal => {
  const principal = context.switchToHttp().getRequest<RequestWithPrincipal>().principal;
  if (!principal) throw new AppException('unauthorized');
  return principal;
});

/** The caller when a public route was called with a valid token, else undefined. */
export const OptionalPrincipal = createParamDecorator(
  (_data: unknown, context: ExecutionContext): Principal | undefined => context.switchToHttp().getRequest<RequestWithPrincipal>().principal,
);

export function clientIp(request: Request): string {
  // request.ip honours X-Forwarded-For only when TRUST_PROXY names the proxy (Express "trust proxy").
  return request.ip ?? request.socket.remoteAddress ?? 'unknown';
}

export function clientMeta(request: Request): { ip: string; userAgent: string | null } {
  return { ip: clientIp(request), userAgent: request.get('user-agent') ?? null };
}
