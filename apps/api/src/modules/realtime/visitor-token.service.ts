import type { VisitorTokenClaims } from '@centralita/contracts';
import { createSecretKey } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import { JwtService } from '@nestjs/jwt';
import { AppException } from '../../common/app.exception';
import { APP_CONFIG, type AppConfig } from '../../config/app-config';
import { VerifiedTokens } from '../auth/verified-tokens';
import { REALTIME_CONFIG, type RealtimeConfig } from '../machine-host/realtime-config';

export interface VisitorIdentity {
  conversationId: string;
  tenantId: string;
  visitorId: string;
}

/**
 * Signed visitor tokens (HS256, typ 'visitor'): a web-chat customer may reach one conversation
 * only, and only until shortly after it closed (assertOpen).
 */
@Injectable()
export class VisitorTokenService {
  private readonly jwt: JwtService;
  /** A visitor sends every message with the same token: verified once, then only its expiry is checked. */
  private readonly verified = new VerifiedTokens<VisitorTokenClaims>();

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @Inject(REALTIME_CONFIG) private readonly realtime: RealtimeConfig,
  ) {
    // A KeyObject, not the string: jsonwebtoken would otherwise try to parse the secret as a
    // public key on every sign and verify (see AccessTokenService).
    this.jwt = new JwtService({ secret: createSecretKey(Buffer.from(config.jwt.secret, 'utf8')) as unknown as Buffer });
  }

  sign(identity: VisitorIdentity): string {
    return this.jwt.sign({ typ: 'visitor', cid: identity.tenantId, vid: identity.visitorId } satisfies Omit<VisitorTokenClaims, 'sub'>, {
      subject: identity.conversationId,
      algorithm: 'HS256',
      issuer: this.config.jwt.issuer,
      audience: this.config.jwt.audience,
      expiresIn: this.realtime.visitorTokenTtlSeconds,
    });
  }

  verify(token: string | null | undefined): VisitorIdentity {
    if (!token) throw new AppException('unauthorized', { message: 'A visitor token is required' });
    const hit = this.verified.lookup(token);
    if (hit === 'expired') throw invalidVisitorToken();
    const claims = hit ?? this.verifyUncached(token);
    if (!hit) this.verified.remember(token, claims);
    return { conversationId: claims.sub, tenantId: claims.cid, visitorId: claims.vid };
  }

  /**
   * A visitor token works while its conversation does: refused once the conversation has been
   * Closed (survey over, or closed without one) for longer than VISITOR_CLOSED_GRACE_SECONDS.
   * Callers pass the row they read anyway, so the check costs no query.
   */
  assertOpen(row: { status: string; updated_at: Date | string }, now = Date.now()): void {
    // updated_at is the time of the last step, and Closed is final: it is when the conversation closed.
    if (row.status === 'Closed' && new Date(row.updated_at).getTime() + this.realtime.visitorClosedGraceSeconds * 1000 <= now) {
      throw invalidVisitorToken();
    }
  }

  private verifyUncached(token: string): VisitorTokenClaims {
    let claims: VisitorTokenClaims;
    try {
      claims = this.jwt.verify<VisitorTokenClaims>(token, {
        algorithms: ['HS256'],
        issuer: this.config.jwt.issuer,
        audience: this.config.jwt.audience,
      });
    } catch {
      throw invalidVisitorToken();
    }
    if (claims.typ !== 'visitor' || typeof claims.sub !== 'string' || typeof claims.cid !== 'string' || typeof claims.vid !== 'string') {
      throw invalidVisitorToken();
    }
    return claims;
  }
}

const invalidVisitorToken = () => new AppException('unauthorized', { message: 'The visitor token is invalid or has expired' });
