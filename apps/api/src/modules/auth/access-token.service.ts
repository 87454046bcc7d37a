import type { AccessTokenClaims } from '@centralita/contracts';
import { createSecretKey, type KeyObject } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import { JwtService } from '@nestjs/jwt';
import { APP_CONFIG, type AppConfig } from '../../config/app-config';
import { AppException } from '../../common/app.exception';

export interface AccessTokenSubject {
  userId: string;
  clientId: string;
  sessionId: string;
  tokenVersion: number;
}

/**
 * Bound of the verified-token cache: about one entry per live access token (10 minutes each), so
 * this covers thousands of signed-in users; a few MB at most. Oldest entries go first.
 */
export const VERIFIED_TOKENS_MAX_ENTRIES = 10_000;

/** Short-lived HS256 access JWTs: algorithm, issuer, audience, expiry and token kind all checked. */
@Injectable()
export class AccessTokenService {
  /**
   * The secret as a KeyObject: given a string, jsonwebtoken first tries (and fails) to parse it
   * as a public key on every verify, which cost more than the rest of a request (P4).
   */
  private readonly key: KeyObject;
  /**
   * Claims of tokens that passed every check, keyed by the exact token string (signature
   * included), so a hit is a token whose bytes were already verified with our key. Verifying the
   * same token on every request was the largest share of a guarded request (P4). Only expiry can
   * change for such a token, and it is checked again on every hit; revocation, tokenVersion and
   * the active flag are checked per request by the guard, never cached here.
   */
  private readonly verified = new Map<string, Readonly<AccessTokenClaims>>();

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
    const hit = this.verified.get(token);
    if (hit) {
      if (!isExpired(hit)) return hit;
      this.verified.delete(token);
      throw new AppException('session_expired');
    }
    const claims = this.verifyUncached(token);
    this.remember(token, claims);
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

  private remember(token: string, claims: AccessTokenClaims): void {
    // Every token we sign has exp; one without it is verified each time rather than kept forever.
    if (typeof claims.exp !== 'number') return;
    // Map keeps insertion order: dropping the first key evicts the oldest (soonest to expire).
    if (this.verified.size >= VERIFIED_TOKENS_MAX_ENTRIES) this.verified.delete(this.verified.keys().next().value as string);
    this.verified.set(token, Object.freeze(claims));
  }
}

/** jsonwebtoken's own rule (no clock tolerance): expired from the second `exp` names. */
function isExpired(claims: Readonly<AccessTokenClaims>): boolean {
  return Math.floor(Date.now() / 1000) >= claims.exp;
}
