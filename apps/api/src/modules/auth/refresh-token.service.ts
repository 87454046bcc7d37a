import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, IsNull, type EntityManager } from 'typeorm';
import { APP_CONFIG, type AppConfig } from '../../config/app-config';
import { AppException } from '../../common/app.exception';
import { User } from '../users/user.entity';
import { PrincipalCacheService } from './principal-cache.service';
import { RefreshToken } from './refresh-token.entity';

export interface IssuedRefreshToken {
  token: string;
  familyId: string;
}

export interface ClientMeta {
  ip: string | null;
  userAgent: string | null;
}

export function sha256(value: string): string {
  return createHash('sha256').update(value).digest('hex');
}

/** 256 bits of randomness, URL-safe: refresh and reset tokens. */
export function randomToken(): string {
  return randomBytes(32).toString('base64url');
}

type RotateOutcome =
  | { kind: 'ok'; user: User; issued: IssuedRefreshToken }
  | { kind: 'refused'; code: 'refresh_token_invalid' | 'session_expired' | 'account_disabled'; revokedFamily?: string };

/**
 * Opaque refresh tokens, stored as SHA-256, one family per sign-in. Every use rotates the token;
 * presenting a rotated token again means it leaked (or a client raced itself): the whole family
 * is revoked, so the newest token of that family stops working too.
 */
@Injectable()
export class RefreshTokenService {
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly principals: PrincipalCacheService,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  async issue(user: User, meta: ClientMeta, manager: EntityManager = this.dataSource.manager): Promise<IssuedRefreshToken> {
    const familyId = randomUUID();
    const familyExpiresAt = new Date(Date.now() + this.config.session.maxFamilyAgeSeconds * 1000);
    const token = await this.insert(manager, user, familyId, familyExpiresAt, meta);
    return { token, familyId };
  }

  /** Spends `token` and returns its successor; the user is reloaded so a disabled account stops here. */
  async rotate(token: string, meta: ClientMeta, expectedUserId?: string): Promise<{ user: User; issued: IssuedRefreshToken }> {
    const outcome = await this.dataSource.transaction(async (manager): Promise<RotateOutcome> => {
      // FOR UPDATE: two concurrent uses of one token serialise here; the second sees it rotated.
      const current = await manager
        .getRepository(RefreshToken)
        .createQueryBuilder('t')
        .setLock('pessimistic_write')
        .where('t.tokenHash = :hash', { hash: sha256(token) })
        .getOne();
      if (!current) return { kind: 'refused', code: 'refresh_token_invalid' };
      if (expectedUserId && expectedUserId !== current.userId) return { kind: 'refused', code: 'refresh_token_invalid' };
      if (current.revokedAt) return { kind: 'refused', code: 'refresh_token_invalid' };
      if (current.rotatedAt) {
        await this.revokeFamilies(manager, { familyId: current.familyId });
        return { kind: 'refused', code: 'refresh_token_invalid', revokedFamily: current.familyId };
      }
      const now = Date.now();
      if (current.expiresAt.getTime() <= now || current.familyExpiresAt.getTime() <= now)
        return { kind: 'refused', code: 'session_expired' };
      const user = await manager.findOne(User, { where: { id: current.userId }, relations: { role: true, client: true } });
      if (!user || !user.active) {
        await this.revokeFamilies(manager, { familyId: current.familyId });
        return { kind: 'refused', code: 'account_disabled', revokedFamily: current.familyId };
      }
      await manager.update(RefreshToken, { id: current.id }, { rotatedAt: new Date(now) });
      const next = await this.insert(manager, user, current.familyId, current.familyExpiresAt, meta);
      return { kind: 'ok', user, issued: { token: next, familyId: current.familyId } };
    });
    if (outcome.kind === 'ok') return { user: outcome.user, issued: outcome.issued };
    // Committed above; access tokens of the revoked family are refused from now on as well.
    if (outcome.revokedFamily) await this.principals.markSessionsRevoked([outcome.revokedFamily]);
    throw new AppException(outcome.code);
  }

  async revokeFamily(familyId: string): Promise<void> {
    await this.revokeFamilies(this.dataSource.manager, { familyId });
    await this.principals.markSessionsRevoked([familyId]);
  }

  /** Revokes every live family of the user; returns their ids (to refuse their access tokens too). */
  async revokeAllForUser(userId: string, manager: EntityManager): Promise<string[]> {
    return this.revokeFamilies(manager, { userId });
  }

  private async revokeFamilies(manager: EntityManager, where: { familyId: string } | { userId: string }): Promise<string[]> {
    const rows: { family_id: string }[] = await manager
      .createQueryBuilder()
      .update(RefreshToken)
      .set({ revokedAt: () => 'now()' })
      .where({ ...where, revokedAt: IsNull() })
      .returning(['familyId'])
      .execute()
      .then((result) => (result.raw as { family_id: string }[]) ?? []);
    return [...new Set(rows.map((row) => row.family_id))];
  }

  private async insert(manager: EntityManager, user: User, familyId: string, familyExpiresAt: Date, meta: ClientMeta): Promise<string> {
    const token = randomToken();
    const idleExpiry = Date.now() + user.sessionTimeMinutes * 60 * 1000;
    await manager.insert(RefreshToken, {
      userId: user.id,
      clientId: user.clientId,
      familyId,
      tokenHash: sha256(token),
      expiresAt: new Date(Math.min(idleExpiry, familyExpiresAt.getTime())),
      familyExpiresAt,
      createdIp: meta.ip?.slice(0, 64) ?? null,
      userAgent: meta.userAgent?.slice(0, 400) ?? null,
    });
    return token;
  }
}
