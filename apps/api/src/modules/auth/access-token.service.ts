import type { AccessTokenClaims } from '@centralita/contracts';
import { createSecretKey, type KeyObject } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import { JwtService } from '@nestjs/jwt';
import { APP_CONFIG, type AppConfig } from '../../config/app-config';
import { AppException } from '../../common/app.exception';
import { VerifiedTokens } from './verified-tokens';

export interface AccessTokenSubject {
  userId: string;
  clientId: string;
  sessionId: string;
  tokenVersion: number;
}

export { VERIFIED_TOKENS_MAX_ENTRIES } from './verified-tokens';

/** Short-lived HS256 access JWTs: algorithm, issuer, audience, expiry and token kind all checked. */
@Injectable()
export class AccessTokenService {
  /**
   * The secret as a KeyObject: given a string, jsonwebtoken first tries (and fails) to parse it
   * as a public key on every verify, which cost more than the rest of a request (P4).
   */
  private readonly key: KeyObject;
  /** Tokens already verified (revocation, tokenVersion and the active flag stay the guard's, per request). */
  private readonly verified = new VerifiedTokens<AccessTokenClaims>();

  constructor(
    private readonly jwt: JwtService,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {
    this.key = createSecretKey(Buffer.from(config.jwt.secret, 'utf8'));
  }

  sign(subject: AccessTokenSubject): string {
    const claims = { cid: subject.clientId, sid: subject.sessionId, tv: subject.tokenVersion, typ: 'access' as const };
    return this.jwt.sign(claims, {
      subject: subject.userId,
      // @nestjs/jwt types the secret as string | Buffer; jsonwebtoken itself takes a KeyObject.
      secret: this.key as unknown as Buffer,
      algorithm: 'HS256',
      issuer: this.config.jwt.issuer,
      audience: this.config.jwt.audience,
      expiresIn: this.config.jwt.accessTtlSeconds,
    });
  }

  verify(token: string): AccessTokenClaims {
    const hit = this.verified.lookup(token);
    if (hit === 'expired') throw new AppException('session_expired');
    if (hit) return hit;
    const claims = this.verifyUncached(token);
    this.verified.remember(token, claims);
    return claims;
  }

  private verifyUncached(token: string): AccessTokenClaims {
    let claims: AccessTokenClaims;
    try {
      claims = this.jwt.verify<AccessTokenClaims>(token, {
        secret: this.key as unknown as Buffer,
        algorithms: ['HS256'],
        issuer: this.config.jwt.issuer,
        audience: this.config.jwt.audience,
      });
    } catch (error) {
      throw new AppException((error as Error).name === 'TokenExpiredError' ? 'session_expired' : 'unauthorized');
    }
    if (
      claims.typ !== 'access' ||
      typeof claims.sub !== 'string' ||
      typeof claims.cid !== 'string' ||
      typeof claims.sid !== 'string' ||
      typeof claims.tv !== 'number'
    ) {
      throw new AppException('unauthorized');
    }
    return claims;
  }
}
