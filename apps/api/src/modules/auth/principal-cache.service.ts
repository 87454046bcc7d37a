import { Inject, Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import type Redis from 'ioredis';
import type { Repository } from 'typeorm';
import { APP_CONFIG, type AppConfig } from '../../config/app-config';
import { REDIS, RedisKeys } from '../redis/redis.module';
import { User } from '../users/user.entity';

/** What each request needs to know about its user, fresher than the token. */
export interface PrincipalState {
  clientId: string;
  roleId: string;
  roleCode: string;
  permissions: string[];
  tokenVersion: number;
  active: boolean;
}

const STATE_TTL_SECONDS = 300;

/**
 * Per-user state (active flag, tokenVersion, role permissions) cached in Redis so the guard makes
 * one Redis round trip per request instead of a database query. Writers that change a user
 * call refresh() after committing, which overwrites the cache; readers only fill an empty entry
 * (SET NX), so a slow reader can never put back state older than a refresh.
 */
@Injectable()
export class PrincipalCacheService {
  constructor(
    @InjectRepository(User) private readonly users: Repository<User>,
    @Inject(REDIS) private readonly redis: Redis,
    private readonly keys: RedisKeys,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  /** State of the user and whether the token's session (refresh family) was revoked. */
  async resolve(userId: string, sessionId: string): Promise<{ state: PrincipalState | null; sessionRevoked: boolean }> {
    const [cached, revoked] = await this.redis.mget(this.stateKey(userId), this.revokedKey(sessionId));
    const sessionRevoked = revoked !== null;
    if (cached) return { state: JSON.parse(cached) as PrincipalState, sessionRevoked };
    const state = await this.load(userId);
    if (state) await this.redis.set(this.stateKey(userId), JSON.stringify(state), 'EX', STATE_TTL_SECONDS, 'NX');
    return { state, sessionRevoked };
  }

  async refresh(userId: string): Promise<void> {
    const state = await this.load(userId);
    if (state) await this.redis.set(this.stateKey(userId), JSON.stringify(state), 'EX', STATE_TTL_SECONDS);
    else await this.redis.del(this.stateKey(userId));
  }

  /** Access tokens of these sessions stop working at once (until they would have expired anyway). */
  async markSessionsRevoked(sessionIds: string[]): Promise<void> {
    if (!sessionIds.length) return;
    const ttl = this.config.jwt.accessTtlSeconds + 60;
    const pipeline = this.redis.pipeline();
    for (const id of sessionIds) pipeline.set(this.revokedKey(id), '1', 'EX', ttl);
    await pipeline.exec();
  }

  private async load(userId: string): Promise<PrincipalState | null> {
    const user = await this.users.findOne({ where: { id: userId }, relations: { role: true } });
    if (!user?.role) return null;
    return {
      clientId: user.clientId,
      roleId: user.roleId,
      roleCode: user.role.code,
      permissions: user.role.permissions,
      tokenVersion: user.tokenVersion,
      active: user.active,
    };
  }

  private stateKey(userId: string): string {
    return this.keys.key('principal', userId);
  }

  private revokedKey(sessionId: string): string {
    return this.keys.key('revoked-session', sessionId);
  }
}
