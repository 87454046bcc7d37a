import {
  SOCKET_NAMESPACES,
  batchedTenantRoom,
  type StaffPush,
  type StaffClientEvents,
  type StaffServerEvents,
  type VisitorClientEvents,
  type VisitorServerEvents,
} from '@centralita/contracts';
import { Inject, Injectable, Logger, type OnApplicationShutdown, type OnModuleInit } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import { createAdapter } from '@socket.io/redis-streams-adapter';
import Redis from 'ioredis';
import { Server, type Namespace } from 'socket.io';
import { APP_CONFIG, type AppConfig } from '../../config/app-config';
import type { SocketNamespace } from '../machine-host/outbox';
import { REALTIME_CONFIG, type RealtimeConfig } from '../machine-host/realtime-config';

/**
 * The adapter fires SUBSCRIBE and PUBLISH without handling their promises; a shutdown (or a Redis
 * outage) while one is pending would surface as an unhandled rejection. Those commands are
 * best-effort by nature (pub/sub), so their failures are swallowed here, on the client and on
 * every duplicate the adapter makes.
 */
function quiet(client: Redis, made: Set<Redis>): Redis {
  made.add(client);
  for (const command of ['subscribe', 'publish'] as const) {
    const original = client[command].bind(client) as (...args: unknown[]) => Promise<unknown>;
    (client as unknown as Record<string, unknown>)[command] = (...args: unknown[]) => {
      const result = original(...args);
      result.catch(() => undefined);
      return result;
    };
  }
  const duplicate = client.duplicate.bind(client);
  client.duplicate = (...args: Parameters<Redis['duplicate']>) => quiet(duplicate(...args), made);
  return client;
}

/**
 * The server-side event by which one API process hands the others pushes meant for whichever of
 * their own sockets are in the rooms (see emitPerRoom).
 */
const PER_ROOM_PUSHES = 'centralita:per-room-pushes';

interface PerRoomPushes {
  event: string;
  pushes: { room: string; data: unknown }[];
}

export type StaffNamespace = Namespace<StaffClientEvents, StaffServerEvents>;
export type VisitorNamespace = Namespace<VisitorClientEvents, VisitorServerEvents>;

/**
 * The Socket.IO server, attached to the API's own HTTP server (same port, path /socket.io). The
 * Redis Streams adapter fans events out across API processes and stores sessions for connection
 * state recovery, so a socket back within two minutes receives what it missed, in order.
 */
@Injectable()
export class RealtimeService implements OnModuleInit, OnApplicationShutdown {
  private readonly logger = new Logger(RealtimeService.name);
  private io: Server | null = null;
  private redis: Redis | null = null;
  /** The adapter's client and its duplicates (stream readers, subscriber), all closed on shutdown. */
  private readonly clients = new Set<Redis>();
  /** Tenant-wide pushes for batched supervisors, per batched room in push order, waiting for the next frame. */
  private readonly batches = new Map<string, StaffPush[]>();
  /** Cancels the next frame of the batched stream, while one is scheduled (see scheduleBatchFlush). */
  private cancelBatchFlush: (() => void) | null = null;
  private lastBatchFlushAt = Number.NEGATIVE_INFINITY;
  /** This process's sockets are closed (shutting down); the adapter may still broadcast. */
  private socketsClosed = false;

  constructor(
    private readonly adapterHost: HttpAdapterHost,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @Inject(REALTIME_CONFIG) private readonly realtime: RealtimeConfig,
  ) {}

  onModuleInit(): void {
    const httpServer = this.adapterHost.httpAdapter?.getHttpServer();
    if (!httpServer) return; // an application context without HTTP (scripts): pushes are skipped.
    // No ready check: the adapter subscribes on a duplicate of this client before it is ready, and
    // ioredis' INFO ready check is refused on a subscriber connection.
    this.redis = new Redis(this.config.redisUrl, { maxRetriesPerRequest: null, disconnectTimeout: 500, enableReadyCheck: false });
    this.redis.on('error', (error: Error) => this.logger.warn(`socket adapter Redis: ${error.message}`));
    const prefix = this.config.queuePrefix;
    this.io = new Server(httpServer, {
      path: '/socket.io',
      serveClient: false,
      adapter: createAdapter(quiet(this.redis, this.clients), {
        streamName: `${prefix}:socket.io`,
        channelPrefix: `${prefix}:socket.io`,
        sessionKeyPrefix: `${prefix}:sio:session:`,
        blockTimeInMs: 1000,
        onlyPlaintext: true,
        maxLen: this.realtime.socketStreamMaxLen,
      }),
      // Middlewares run on recovery too: a recovered socket is authenticated again (SocketAccessService).
      connectionStateRecovery: { maxDisconnectionDuration: this.realtime.socketRecoveryWindowMs, skipMiddlewares: false },
    });
    for (const namespace of Object.keys(SOCKET_NAMESPACES) as SocketNamespace[]) {
      const nsp = this.io.of(SOCKET_NAMESPACES[namespace]);
      nsp.on(PER_ROOM_PUSHES, (message: PerRoomPushes) => deliverLocally(nsp, message));
    }
    // Nest closes the HTTP server between the beforeApplicationShutdown and onApplicationShutdown
    // hooks, and server.close() waits for every open connection, the sockets' included: closed only
    // in onApplicationShutdown, they kept a process told to stop (SIGTERM) running until its
    // clients left on their own — in practice until it was killed. So this process's sockets close
    // just before the server does, after every beforeApplicationShutdown (the last queue pushes)
    // has run; their clients reconnect to another process. The adapter stays open until
    // onApplicationShutdown, so pushes meanwhile still reach the other processes' sockets.
    const http = this.adapterHost.httpAdapter;
    const closeServer = http.close.bind(http) as () => Promise<unknown>;
    http.close = () => {
      this.closeLocalSockets();
      return closeServer();
    };
  }

  /** Sends the frame held for batched supervisors, then closes this process's sockets and stops taking new ones. */
  private closeLocalSockets(): void {
    this.cancelBatchFlush?.();
    this.cancelBatchFlush = null;
    if (this.batches.size > 0) this.flushBatches();
    if (!this.io || this.socketsClosed) return;
    this.socketsClosed = true;
    this.io.disconnectSockets(true);
    this.io.engine.close();
  }

  get staff(): StaffNamespace | null {
    return this.io ? (this.io.of(SOCKET_NAMESPACES.staff) as StaffNamespace) : null;
  }

  get visitor(): VisitorNamespace | null {
    return this.io ? (this.io.of(SOCKET_NAMESPACES.visitor) as VisitorNamespace) : null;
  }

  /**
   * Broadcasts to rooms on every API process (through the adapter). A push for a tenant room also
   * goes to the supervisors who asked for batches (STAFF_BATCH_AUTH), but coalesced: everything
   * pushed to their room until the next frame leaves as one `batch` frame (scheduleBatchFlush says
   * when). They are left out of the immediate broadcast, even when they are also in one of its
   * other rooms, so each push reaches them once and tenant-wide pushes keep their order.
   */
  emit(namespace: SocketNamespace, rooms: string[], event: string, data: unknown): void {
    if (!this.io || rooms.length === 0) return;
    const nsp = this.io.of(SOCKET_NAMESPACES[namespace]);
    const batched = namespace === 'staff' ? rooms.filter((room) => room.startsWith('tenant:')).map(batchedTenantRoom) : [];
    const target = (batched.length > 0 ? nsp.to(rooms).except(batched) : nsp.to(rooms)) as unknown as {
      emit: (event: string, data: unknown) => void;
    };
    target.emit(event, data);
    if (batched.length === 0) return;
    for (const room of batched) {
      const pushes = this.batches.get(room);
      if (pushes) pushes.push([event, data] as StaffPush);
      else this.batches.set(room, [[event, data] as StaffPush]);
    }
    if (!this.cancelBatchFlush) this.scheduleBatchFlush();
  }

  /**
   * Pushes `event` to many rooms, each with its own data, when few of those rooms have a socket at
   * all (a line's waiting customers: hundreds, a few with the widget open). A broadcast per room
   * would cost a stream entry each, written once and read by every process (at S1 a line's
   * positions were 500 entries a push, ~10,000 a second, more Redis and API CPU than the churn that
   * moved them); this writes one server-side message to the other processes and each process emits
   * only to rooms one of its own sockets is in. Nothing of it is kept for connection-state
   * recovery: for ephemeral pushes only (ephemeral.ts), which a reconnecting client reads again.
   */
  emitPerRoom(namespace: SocketNamespace, event: string, pushes: { room: string; data: unknown }[]): void {
    if (!this.io || pushes.length === 0) return;
    const nsp = this.io.of(SOCKET_NAMESPACES[namespace]);
    const message: PerRoomPushes = { event, pushes };
    deliverLocally(nsp, message);
    nsp.serverSideEmit(PER_ROOM_PUSHES, message);
  }

  /**
   * A push after a quiet spell leaves at the end of this event-loop turn (no added wait on an idle
   * server). With `supervisorBatchIntervalMs` set, frames are paced that far apart while pushes keep
   * coming: each frame is one write per batched supervisor socket, one per turn that pushed unless
   * paced (at S1: 200 supervisors, ~70 such turns a second, nine in ten of the process's socket
   * writes). Every push still arrives, once and in order, just grouped; a board gains at most the
   * interval in latency, which is why it is 0 unless an operator chooses otherwise.
   */
  private scheduleBatchFlush(): void {
    const flush = () => this.flushBatches();
    const wait = this.lastBatchFlushAt + this.realtime.supervisorBatchIntervalMs - performance.now();
    if (wait > 0) {
      const timer = setTimeout(flush, wait);
      this.cancelBatchFlush = () => clearTimeout(timer);
    } else {
      const immediate = setImmediate(flush);
      this.cancelBatchFlush = () => clearImmediate(immediate);
    }
  }

  private flushBatches(): void {
    this.cancelBatchFlush = null;
    this.lastBatchFlushAt = performance.now();
    const staff = this.staff;
    if (staff)
      for (const [room, pushes] of this.batches) {
        // One push goes out as itself: the client handles both forms alike.
        const target = staff.to(room) as unknown as { emit: (event: string, data: unknown) => void };
        if (pushes.length === 1) target.emit(pushes[0][0], pushes[0][1]);
        else target.emit('batch', pushes);
      }
    this.batches.clear();
  }

  async onApplicationShutdown(): Promise<void> {
    // Pushes held for the next frame go out now: the relay has marked them delivered, so nothing
    // would send them again, and the supervisors on the other processes still need them.
    this.closeLocalSockets();
    const io = this.io;
    this.io = null;
    // close() would also close the HTTP server, which Nest closes itself.
    if (io) for (const nsp of io._nsps.values()) nsp.adapter.close();
    // A stream reader blocked on a Redis that is away would otherwise retry for ever.
    for (const client of this.clients) client.disconnect();
  }
}

/** The pushes of `message` whose room one of this process's sockets is in, emitted to those sockets only. */
function deliverLocally(nsp: Namespace, { event, pushes }: PerRoomPushes): void {
  const rooms = nsp.adapter.rooms;
  for (const { room, data } of pushes) {
    if (!rooms.has(room)) continue;
    (nsp.local.to(room) as unknown as { emit: (event: string, data: unknown) => void }).emit(event, data);
  }
}
