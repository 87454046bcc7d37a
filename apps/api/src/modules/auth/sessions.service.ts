import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, type EntityManager } from 'typeorm';
import { User } from '../users/user.entity';
import { PrincipalCacheService } from './principal-cache.service';
import { RefreshTokenService } from './refresh-token.service';

/**
 * Ends every session of a user: bumps tokenVersion (every access token issued before fails its
 * next request) and revokes all refresh families, in the same transaction as the change that
 * requires it (deactivation, password reset), then refreshes the guard's cache after commit.
 */
@Injectable()
export class SessionsService {
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly refreshTokens: RefreshTokenService,
    private readonly principals: PrincipalCacheService,
  ) {}

  async endAllSessions<T>(userId: string, change?: (manager: EntityManager) => Promise<T>): Promise<T | undefined> {
    const { result, families } = await this.dataSource.transaction(async (manager) => {
      const result = change ? await change(manager) : undefined;
      return { result, families: await this.endAllSessionsIn(manager, userId) };
    });
    await this.afterChange(userId, families);
    return result;
  }

  /** The in-transaction half; callers must call afterChange(userId, families) once committed. */
  async endAllSessionsIn(manager: EntityManager, userId: string): Promise<string[]> {
    await manager.increment(User, { id: userId }, 'tokenVersion', 1);
    return this.refreshTokens.revokeAllForUser(userId, manager);
  }

  /**
   * After a committed change to a user (role, active flag): the next request sees it, and every API
   * process re-checks the user's open sockets (SocketAccessService listens to the principal cache's
   * invalidations), so an ended session is disconnected there too.
   */
  async afterChange(userId: string, revokedFamilies: string[] = []): Promise<void> {
    await this.principals.refresh(userId);
    await this.principals.markSessionsRevoked(revokedFamilies);
  }
}
