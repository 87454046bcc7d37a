import { effectivePermissions, isOrganisationLevel, type OrganisationLevel } from '@centralita/contracts';
import { Inject, Injectable, Logger, type OnApplicationShutdown, type OnModuleInit } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import type Redis from 'ioredis';
import type { Repository } from 'typeorm';
import { APP_CONFIG, type AppConfig } from '../../config/app-config';
import { REDIS, RedisKeys } from '../redis/redis.module';
import { User } from '../users/user.entity';

/** What each request needs to know about its user, fresher than the token. */
export interface PrincipalState {
  clientId: string;
  level: OrganisationLevel;
  resellerId: string | null;
  roleId: string;
  roleCode: string;
  permissions: string[];
  tokenVersion: number;
  active: boolean;
}

const STATE_TTL_SECONDS = 300;
/** Safety net only: entries are normally dropped by invalidation messages long before this. */
const LOCAL_TTL_MS = 30_000;
const LOCAL_MAX_ENTRIES = 50_000;

export interface ResolvedPrincipal {
  state: PrincipalState | null;
  sessionRevoked: boolean;
}

interface LocalEntry extends ResolvedPrincipal {
  userId: string;
  expiresAt: number;
}

interface Invalidation {
  users?: string[];
  sessions?: string[];
}

/**
 * A change to users' state or sessions, as every process hears it (open sockets re-check their
 * session on it). `everything`: invalidations may have been missed, so every session is in doubt.
 */
export interface SessionChange {
  users: readonly string[];
  sessions: readonly string[];
  everything: boolean;
}

/**
 * Per-user state (active flag, tokenVersion, role permissions) for the guard, in two tiers:
 *
 * - Redis, shared by every process: writers that change a user call refresh() after committing,
 *   which overwrites the entry; readers only fill an empty one (SET NX), so a slow reader can
 *   never put back state older than a refresh.
 * - A per-process map keyed by session, so a request costs no round trip at all (QUALITY.md P4).
 *   Every refresh() and markSessionsRevoked() publishes an invalidation that all processes apply
 *   before their next lookup; while the subscription is down the local tier is bypassed and
 *   emptied, because messages may have been missed. A fill that started before an invalidation
 *   is not kept (generation check), so the local tier cannot resurrect stale state either.
 */
@Injectable()
export class PrincipalCacheService implements OnModuleInit, OnApplicationShutdown {
  private readonly logger = new Logger(PrincipalCacheService.name);
  private readonly local = new Map<string, LocalEntry>();
  private generation = 0;
  private subscriber: Redis | null = null;
  private subscribed = false;
  private readonly listeners = new Set<(change: SessionChange) => void>();

  constructor(
    @InjectRepository(User) private readonly users: Repository<User>,
    @Inject(REDIS) private readonly redis: Redis,
    private readonly keys: RedisKeys,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  onModuleInit(): void {
    const subscriber = this.redis.duplicate({ maxRetriesPerRequest: null, commandTimeout: undefined });
    this.subscriber = subscriber;
    subscriber.on('error', () => this.dropLocalTier()); // the shared client already logs outages
    subscriber.on('close', () => this.dropLocalTier());
    subscriber.on('ready', () => {
      subscriber.subscribe(this.channel()).then(
        () => {
          this.dropLocalTier(); // whatever was sent while we were away is lost: start empty
          this.subscribed = true;
          this.notify({ users: [], sessions: [], everything: true });
        },
        (error: Error) => this.logger.warn(`principal invalidation subscription failed: ${error.message}`),
      );
    });
    subscriber.on('message', (_channel: string, message: string) => this.apply(JSON.parse(message) as Invalidation));
  }

  async onApplicationShutdown(): Promise<void> {
    const subscriber = this.subscriber;
    this.subscriber = null;
    this.dropLocalTier();
    if (subscriber?.status === 'ready') await subscriber.quit().catch(() => subscriber.disconnect());
    else subscriber?.disconnect();
  }

  /** State of the user and whether the token's session (refresh family) was revoked. */
  async resolve(userId: string, sessionId: string): Promise<ResolvedPrincipal> {
    const hit = this.local.get(sessionId);
    if (hit && hit.userId === userId && hit.expiresAt > Date.now()) return hit;
    const generation = this.generation;
    const resolved = await this.resolveShared(userId, sessionId);
    if (this.subscribed && generation === this.generation) this.remember(userId, sessionId, resolved);
    return resolved;
  }

  async refresh(userId: string): Promise<void> {
    const state = await this.load(userId);
    if (state) await this.redis.set(this.stateKey(userId), JSON.stringify(state), 'EX', STATE_TTL_SECONDS);
    else await this.redis.del(this.stateKey(userId));
    await this.invalidate({ users: [userId] });
  }

  /** Access tokens of these sessions stop working at once (until they would have expired anyway). */
  async markSessionsRevoked(sessionIds: string[]): Promise<void> {
    if (!sessionIds.length) return;
    const ttl = this.config.jwt.accessTtlSeconds + 60;
    const pipeline = this.redis.pipeline();
    for (const id of sessionIds) pipeline.set(this.revokedKey(id), '1', 'EX', ttl);
    await pipeline.exec();
    await this.invalidate({ sessions: sessionIds });
  }

  private async resolveShared(userId: string, sessionId: string): Promise<ResolvedPrincipal> {
    const [cached, revoked] = await this.redis.mget(this.stateKey(userId), this.revokedKey(sessionId));
    const sessionRevoked = revoked !== null;
    const parsed = cached ? (JSON.parse(cached) as PrincipalState) : null;
    // An entry written before organisation levels existed is not trusted: it is loaded again.
    if (parsed && isOrganisationLevel(parsed.level)) return { state: parsed, sessionRevoked };
    const state = await this.load(userId);
    if (state && parsed) await this.redis.set(this.stateKey(userId), JSON.stringify(state), 'EX', STATE_TTL_SECONDS, 'XX');
    else if (state) await this.redis.set(this.stateKey(userId), JSON.stringify(state), 'EX', STATE_TTL_SECONDS, 'NX');
    return { state, sessionRevoked };
  }

  private remember(userId: string, sessionId: string, resolved: ResolvedPrincipal): void {
    // Map keeps insertion order: dropping the first key evicts the oldest entry.
    if (this.local.size >= LOCAL_MAX_ENTRIES) this.local.delete(this.local.keys().next().value as string);
    this.local.set(sessionId, { ...resolved, userId, expiresAt: Date.now() + LOCAL_TTL_MS });
  }

  /** Applies locally at once (this process answers next), then tells the other processes. */
  private async invalidate(invalidation: Invalidation): Promise<void> {
    this.apply(invalidation);
    await this.redis.publish(this.channel(), JSON.stringify(invalidation));
  }

  private apply({ users = [], sessions = [] }: Invalidation): void {
    this.generation++;
    for (const sessionId of sessions) this.local.delete(sessionId);
    if (users.length) {
      const affected = new Set(users);
      for (const [sessionId, entry] of this.local) if (affected.has(entry.userId)) this.local.delete(sessionId);
    }
    this.notify({ users, sessions, everything: false });
  }

  /**
   * Listens to every change applied in this process: its own (at once) and every other process's
   * (by the invalidation channel), so each process can end what it holds for those sessions.
   */
  onChange(listener: (change: SessionChange) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  private notify(change: SessionChange): void {
    for (const listener of this.listeners) {
      try {
        listener(change);
      } catch (error) {
        this.logger.warn(`session change listener failed: ${(error as Error).message}`);
      }
    }
  }

  private dropLocalTier(): void {
    this.subscribed = false;
    this.generation++;
    this.local.clear();
  }

  private channel(): string {
    return this.keys.key('principal-invalidations');
  }

  private async load(userId: string): Promise<PrincipalState | null> {
    const user = await this.users.findOne({ where: { id: userId }, relations: { role: true, client: true } });
    if (!user?.role || !user.client) return null;
    const level = user.client.kind;
    return {
      clientId: user.clientId,
      level,
      resellerId: user.client.resellerId,
      roleId: user.roleId,
      roleCode: user.role.code,
      permissions: effectivePermissions(level, user.role.permissions),
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
