import type { AccessTokenClaims } from '@centralita/contracts';
import { Injectable, Logger, type CanActivate, type ExecutionContext } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { AppException } from '../../common/app.exception';
import { ACCESS_RULE, type AccessRule } from './access.decorator';
import { AccessTokenService } from './access-token.service';
import { PrincipalCacheService } from './principal-cache.service';
import type { Principal, RequestWithPrincipal } from './principal';

/** The claims of a verified access token that name its session. */
export type SessionClaims = Pick<AccessTokenClaims, 'sub' | 'cid' | 'sid' | 'tv'>;

/** A controller class or handler function, as the reflector takes them. */
type MetadataTarget = Parameters<Reflector['getAllAndOverride']>[1][number];

/**
 * Global guard: authenticates the bearer token, checks it against the user's current state
 * (active, tokenVersion, revoked session) and enforces the route's declared access rule.
 */
@Injectable()
export class AuthGuard implements CanActivate {
  private readonly logger = new Logger(AuthGuard.name);
  /**
   * Access rules by handler and controller: decorator metadata never changes after start-up, and
   * the reflector lookup ran on every request (P4). Keyed by both because a subclass controller
   * shares its parent's handler functions but may declare its own rule.
   */
  private readonly rules = new WeakMap<MetadataTarget, WeakMap<MetadataTarget, AccessRule | undefined>>();

  constructor(
    private readonly reflector: Reflector,
    private readonly tokens: AccessTokenService,
    private readonly principals: PrincipalCacheService,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    if (context.getType() !== 'http') return true;
    const rule = this.ruleOf(context.getHandler(), context.getClass());
    const request = context.switchToHttp().getRequest<RequestWithPrincipal>();
    if (!rule) {
      this.logger.error(`${request.method} ${request.path} declares no access rule: refused`);
      throw AppException.forbidden();
    }
    const token = bearerToken(request.headers.authorization);

    if (rule.kind === 'public') {
      // Web-chat calls carry the visitor's token, never a staff one: skip a verification bound to fail.
      if (token && claimsAccessType(token)) request.principal = await this.authenticate(token).catch(() => undefined);
      return true;
    }
    if (!token) throw new AppException('unauthorized');
    const principal = await this.authenticate(token);
    request.principal = principal;
    if (rule.kind === 'permission' && !rule.anyOf.some((permission) => principal.permissions.includes(permission))) {
      throw AppException.forbidden();
    }
    return true;
  }

  private ruleOf(handler: MetadataTarget, controller: MetadataTarget): AccessRule | undefined {
    let byController = this.rules.get(handler);
    if (!byController) this.rules.set(handler, (byController = new WeakMap()));
    if (byController.has(controller)) return byController.get(controller);
    const rule = this.reflector.getAllAndOverride<AccessRule | undefined>(ACCESS_RULE, [handler, controller]);
    byController.set(controller, rule);
    return rule;
  }

  async authenticate(token: string): Promise<Principal> {
    return this.checkSession(this.tokens.verify(token));
  }

  /** Verifies an access token and answers its session's claims too (an open socket re-checks them later). */
  async authenticateSession(token: string): Promise<{ principal: Principal; claims: SessionClaims }> {
    const { sub, cid, sid, tv } = this.tokens.verify(token);
    return { principal: await this.checkSession({ sub, cid, sid, tv }), claims: { sub, cid, sid, tv } };
  }

  /**
   * The checks that follow the user's current state (tenant, active flag, tokenVersion, revoked
   * session), for claims verified earlier: an open socket re-runs them whenever that state changes.
   */
  async checkSession(claims: SessionClaims): Promise<Principal> {
    const { state, sessionRevoked } = await this.principals.resolve(claims.sub, claims.sid);
    if (!state || state.clientId !== claims.cid) throw new AppException('unauthorized');
    if (!state.active) throw new AppException('account_disabled');
    if (sessionRevoked || state.tokenVersion !== claims.tv) throw new AppException('session_expired');
    return {
      userId: claims.sub,
      clientId: state.clientId,
      level: state.level,
      resellerId: state.resellerId,
      roleId: state.roleId,
      roleCode: state.roleCode,
      permissions: state.permissions,
      sessionId: claims.sid,
    };
  }
}

/**
 * Whether a JWT's payload says it is an access token — read without verifying, so it only ever
 * decides to skip work: a token that claims to be one is still fully verified.
 */
export function claimsAccessType(token: string): boolean {
  const payload = token.split('.')[1];
  if (!payload) return false;
  try {
    return (JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as { typ?: unknown }).typ === 'access';
  } catch {
    return false;
  }
}

export function bearerToken(header: string | undefined): string | null {
  if (!header) return null;
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
  return match ? match[1] : null;
}
