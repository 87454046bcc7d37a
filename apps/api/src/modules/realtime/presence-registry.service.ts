import { randomUUID } from 'node:crypto';
import { Inject, Injectable, Logger, type BeforeApplicationShutdown, type OnApplicationBootstrap } from '@nestjs/common';
import { ModuleRef } from '@nestjs/core';
import type Redis from 'ioredis';
import { AppException } from '../../common/app.exception';
import { MachineHostService } from '../machine-host/machine-host.service';
import { REALTIME_CONFIG, type RealtimeConfig } from '../machine-host/realtime-config';
import { REDIS, RedisKeys } from '../redis/redis.module';
import { RealtimeService } from './realtime.service';

/** Rounds of one agent's sync before it gives up (each round: read the socket count, signal, read again). */
const SYNC_ROUNDS = 5;
/** Agents a sweep re-checks at once from the pending set. */
const PENDING_BATCH = 200;

/*
 * Every key lives under one hash tag, so the scripts touch one slot (Redis Cluster included).
 * KEYS[1] processes (set of process ids), KEYS[2] pending (agents to re-check); ARGV[1] is the key
 * prefix of the per-process and per-agent keys.
 */
const CONNECT = `
redis.call('SADD', KEYS[1], ARGV[2])
redis.call('SADD', ARGV[1] .. 'proc:' .. ARGV[2], ARGV[3] .. '|' .. ARGV[4])
redis.call('SADD', ARGV[1] .. 'user:' .. ARGV[3], ARGV[2] .. '|' .. ARGV[4])
return redis.call('SCARD', ARGV[1] .. 'user:' .. ARGV[3])`;

const DISCONNECT = `
redis.call('SREM', ARGV[1] .. 'proc:' .. ARGV[2], ARGV[3] .. '|' .. ARGV[4])
redis.call('SREM', ARGV[1] .. 'user:' .. ARGV[3], ARGV[2] .. '|' .. ARGV[4])
return redis.call('SCARD', ARGV[1] .. 'user:' .. ARGV[3])`;

/** Refreshes the process's liveness key; answers 0 when a sweep had declared the process gone (its sockets must be registered again). */
const HEARTBEAT = `
local known = redis.call('SISMEMBER', KEYS[1], ARGV[2])
redis.call('SET', ARGV[1] .. 'alive:' .. ARGV[2], '1', 'PX', ARGV[3])
redis.call('SADD', KEYS[1], ARGV[2])
return known`;

/**
 * Declares gone every process whose liveness key expired (or the one named in ARGV[2], a process
 * shutting down): its sockets leave their agents' sets and those agents go to the pending set.
 * Atomic, so any number of processes may sweep at once; each dead process is handled once.
 */
const SWEEP = `
local gone = 0
for _, proc in ipairs(redis.call('SMEMBERS', KEYS[1])) do
  if proc == ARGV[2] or redis.call('EXISTS', ARGV[1] .. 'alive:' .. proc) == 0 then
    for _, member in ipairs(redis.call('SMEMBERS', ARGV[1] .. 'proc:' .. proc)) do
      local bar = string.find(member, '|', 1, true)
      local user = string.sub(member, 1, bar - 1)
      local sid = string.sub(member, bar + 1)
      redis.call('SREM', ARGV[1] .. 'user:' .. user, proc .. '|' .. sid)
      redis.call('SADD', KEYS[2], user)
    end
    redis.call('DEL', ARGV[1] .. 'proc:' .. proc, ARGV[1] .. 'alive:' .. proc)
    redis.call('SREM', KEYS[1], proc)
    gone = gone + 1
  end
end
return gone`;

type PresenceRedis = Redis & {
  presenceConnect(processes: string, pending: string, prefix: string, proc: string, user: string, sid: string): Promise<number>;
  presenceDisconnect(processes: string, pending: string, prefix: string, proc: string, user: string, sid: string): Promise<number>;
  presenceHeartbeat(processes: string, pending: string, prefix: string, proc: string, ttlMs: number): Promise<number>;
  presenceSweep(processes: string, pending: string, prefix: string, leaving: string): Promise<number>;
};

/**
 * Which agents have a staff socket open, on any API process. An agent's presence is connected
 * while any of their sockets on any process is; the last one closing starts the disconnect grace
 * (`agent.disconnected`, paused `auto_away` when it runs out), a socket opening ends it.
 *
 * Each process registers its sockets in Redis (per agent: `process|socket`; per process: the
 * reverse) and refreshes a liveness key every PRESENCE_HEARTBEAT_MS (expiring after three
 * periods). Every process sweeps: a process whose key expired (SIGKILLed, frozen, cut off) is
 * declared gone in one atomic script, its sockets leave their agents' sets and those agents are
 * re-checked, so a crashed process's agents go through the grace like any other disconnect.
 *
 * The machine is told by `sync`, which reads the agent's socket count, signals what it says
 * (connected → `agent.reconnected`, none → `agent.disconnected`; a refusal means the presence
 * already says so, or the user has no presence) and reads the count again, going round while it
 * moved. Every change of the count is followed by a sync, and a sync ends only when the count it
 * acted on still holds after its step, so the last step always matches the last count, whatever
 * order the processes' steps reach the database in (a desk closing on one process and reopening
 * on another within the grace ends connected, with the reconnect logged).
 */
@Injectable()
export class PresenceRegistryService implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger(PresenceRegistryService.name);
  /** This process, as the registry knows it. */
  readonly processId = randomUUID();
  /** This process's open staff sockets (socket id → user id), re-registered after a sweep wrongly declared the process gone. */
  private readonly sockets = new Map<string, string>();
  private timer: NodeJS.Timeout | null = null;
  private stopping = false;
  /** Syncs under way in this process, by agent: a request meanwhile makes the running one go round again. */
  private readonly syncing = new Map<string, { again: boolean; done: Promise<void> }>();
  private readonly redis: PresenceRedis;
  private readonly prefix: string;
  private readonly processesKey: string;
  private readonly pendingKey: string;

  constructor(
    @Inject(REDIS) redis: Redis,
    keys: RedisKeys,
    @Inject(REALTIME_CONFIG) private readonly config: RealtimeConfig,
    private readonly moduleRef: ModuleRef,
    private readonly realtime: RealtimeService,
  ) {
    this.redis = redis as PresenceRedis;
    this.prefix = keys.key('{presence}', '');
    this.processesKey = `${this.prefix}processes`;
    this.pendingKey = `${this.prefix}pending`;
    const define = (name: string, lua: string) => {
      if (!(name in this.redis)) this.redis.defineCommand(name, { numberOfKeys: 2, lua });
    };
    define('presenceConnect', CONNECT);
    define('presenceDisconnect', DISCONNECT);
    define('presenceHeartbeat', HEARTBEAT);
    define('presenceSweep', SWEEP);
  }

  /** Resolved lazily: the host depends on the realtime module. */
  private get host(): MachineHostService {
    return this.moduleRef.get(MachineHostService, { strict: false });
  }

  onApplicationBootstrap(): void {
    if (!this.realtime.staff) return; // an application context without sockets (scripts)
    void this.beat();
    this.timer = setInterval(() => void this.beat(), this.config.presenceHeartbeatMs);
    this.timer.unref();
  }

  /**
   * Before the database and Redis close: this process's sockets leave the registry at once (their
   * clients reconnect elsewhere, which ends the grace again) and their agents are re-checked here;
   * whatever is left pending, another process's sweep finishes.
   */
  async beforeApplicationShutdown(): Promise<void> {
    this.stopping = true;
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    try {
      await this.redis.presenceSweep(this.processesKey, this.pendingKey, this.prefix, this.processId);
      await this.drainPending();
      await Promise.all([...this.syncing.values()].map((run) => run.done));
    } catch (error) {
      this.logger.warn(`presence on shutdown: ${(error as Error).message}`);
    }
  }

  /** A staff socket of this process opened (new or recovered). */
  connected(userId: string, socketId: string): void {
    if (this.stopping) return;
    this.sockets.set(socketId, userId);
    void this.redis
      .presenceConnect(this.processesKey, this.pendingKey, this.prefix, this.processId, userId, socketId)
      .then(() => this.sync(userId))
      .catch((error: Error) => this.logger.warn(`presence connect: ${error.message}`));
  }

  /** A staff socket of this process closed. */
  disconnected(userId: string, socketId: string): void {
    if (this.stopping) return;
    this.sockets.delete(socketId);
    void this.redis
      .presenceDisconnect(this.processesKey, this.pendingKey, this.prefix, this.processId, userId, socketId)
      .then(() => this.sync(userId))
      .catch((error: Error) => this.logger.warn(`presence disconnect: ${error.message}`));
  }

  /** Open staff sockets of the agent on every live process. */
  async socketCount(userId: string): Promise<number> {
    return this.redis.scard(`${this.prefix}user:${userId}`);
  }

  /** Heartbeat, then sweep: every process does both, the scripts make that safe. */
  private async beat(): Promise<void> {
    if (this.stopping) return;
    try {
      const known = await this.redis.presenceHeartbeat(
        this.processesKey,
        this.pendingKey,
        this.prefix,
        this.processId,
        this.config.presenceHeartbeatMs * 3,
      );
      if (!known && this.sockets.size > 0) await this.registerAgain();
      await this.redis.presenceSweep(this.processesKey, this.pendingKey, this.prefix, '');
      await this.drainPending();
    } catch (error) {
      this.logger.warn(`presence heartbeat: ${(error as Error).message}`);
    }
  }

  /** A sweep took this process for dead (Redis was out of reach longer than the TTL): its sockets are registered again. */
  private async registerAgain(): Promise<void> {
    const users = new Set<string>();
    for (const [socketId, userId] of this.sockets) {
      await this.redis.presenceConnect(this.processesKey, this.pendingKey, this.prefix, this.processId, userId, socketId);
      users.add(userId);
    }
    await Promise.all([...users].map((userId) => this.sync(userId)));
  }

  /** Re-checks the agents a sweep left pending; each leaves the set once checked (any process may do it, twice is harmless). */
  private async drainPending(): Promise<void> {
    const users = await this.redis.srandmember(this.pendingKey, PENDING_BATCH);
    await Promise.all(
      users.map(async (userId) => {
        await this.sync(userId);
        await this.redis.srem(this.pendingKey, userId);
      }),
    );
  }

  /** Brings the agent's presence in line with their socket count (see the class comment); one run per agent per process at a time. */
  sync(userId: string): Promise<void> {
    const running = this.syncing.get(userId);
    if (running) {
      running.again = true;
      return running.done;
    }
    const run = { again: false, done: Promise.resolve() };
    run.done = (async () => {
      try {
        do {
          run.again = false;
          await this.syncOnce(userId);
        } while (run.again);
      } finally {
        this.syncing.delete(userId);
      }
    })();
    this.syncing.set(userId, run);
    return run.done;
  }

  private async syncOnce(userId: string): Promise<void> {
    let connected = (await this.socketCount(userId)) > 0;
    for (let round = 0; round < SYNC_ROUNDS; round++) {
      try {
        await this.host.dispatch('agent', userId, { type: connected ? 'agent.reconnected' : 'agent.disconnected' }, { kind: 'system' });
      } catch (error) {
        // Refused: the presence already says so, or the user is not a logged-in agent. Anything
        // else (the database away) fails the sync, and a pending agent stays pending.
        if (!(error instanceof AppException)) throw error;
      }
      const now = (await this.socketCount(userId)) > 0;
      if (now === connected) return;
      connected = now;
    }
    this.logger.warn(`presence of ${userId} kept changing; left to the next change or sweep`);
  }
}
