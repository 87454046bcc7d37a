import { PERMISSIONS, ROOM_KINDS, STAFF_BATCH_AUTH, batchedTenantRoom, roomName, type JoinAck, type RoomRef } from '@centralita/contracts';
import { Injectable, Logger, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { isUUID } from 'class-validator';
import type { Namespace, Socket } from 'socket.io';
import { DataSource } from 'typeorm';
import { AppException } from '../../common/app.exception';
import { AuthGuard, type SessionClaims } from '../auth/auth.guard';
import { PrincipalCacheService, type SessionChange } from '../auth/principal-cache.service';
import { emitEphemeral } from '../machine-host/ephemeral';
import type { Principal } from '../auth/principal';
import { PresenceRegistryService } from './presence-registry.service';
import { RealtimeService } from './realtime.service';
import { VisitorTokenService, type VisitorIdentity } from './visitor-token.service';

function refused(errorCode: 'forbidden' | 'not_found' | 'validation', errorMessage: string): JoinAck {
  return { ok: false, errorCode, errorMessage };
}

function validRoom(room: unknown): room is RoomRef {
  const candidate = room as RoomRef | null;
  return (
    typeof candidate === 'object' &&
    candidate !== null &&
    (ROOM_KINDS as readonly string[]).includes(candidate.kind) &&
    typeof candidate.id === 'string' &&
    isUUID(candidate.id)
  );
}

/** What a staff socket holds (and a recovered one brings back): its principal and the claims to re-check it by. */
interface StaffSocketData {
  principal: Principal;
  claims: SessionClaims;
}

interface VisitorSocketData {
  visitor: VisitorIdentity;
}

/** Everything a principal may do, whatever its session: two principals with the same rights reach the same rooms. */
function rightsOf(principal: Principal): string {
  const entries = Object.entries(principal)
    .filter(([key]) => key !== 'sessionId')
    .map(([key, value]) => [key, Array.isArray(value) ? [...(value as string[])].sort() : value] as const);
  return JSON.stringify(entries.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}

const sameRights = (a: Principal, b: Principal): boolean => rightsOf(a) === rightsOf(b);

const sessionEnded = (): JoinAck => refused('forbidden', 'Your session has ended');

function authError(error: unknown): Error {
  const failure = new Error(error instanceof AppException ? error.message : 'unauthorized') as Error & { data?: unknown };
  failure.data = { errorCode: error instanceof AppException ? error.code : 'unauthorized' };
  return failure;
}

/**
 * Who may connect and join what. Staff connect with their access JWT (`auth.token`), checked
 * exactly as HTTP checks it; visitors with their visitor token, while its conversation is open
 * (VisitorTokenService.assertOpen). Every join is authorised on its own, against the user's current
 * state: rooms of another tenant answer not_found, a visitor reaches only its own conversation.
 *
 * A session that ends, ends here too: every change to a user or a session (logout, password
 * change, deactivation, role or permission change, a revoked refresh family) reaches every API
 * process through the principal cache's invalidation channel, and each process re-checks its own
 * sockets of those users and sessions. An ended session is disconnected for good; a socket whose
 * rights changed has its connection closed, so the client reconnects and gets fresh rooms. A
 * recovered connection (connection-state recovery) is checked like a new one: its stored session
 * must still be valid with the same rights before it gets its rooms and missed events back, and
 * its handshake token is verified again by the middleware.
 */
@Injectable()
export class SocketAccessService implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger(SocketAccessService.name);
  private stopListening: (() => void) | null = null;
  /** A second credential of the visitor namespace: a video call's guest key (VideoSignallingService sets socket.data). */
  private visitorGuest: ((socket: Socket) => Promise<void>) | null = null;

  constructor(
    private readonly realtime: RealtimeService,
    private readonly auth: AuthGuard,
    private readonly principals: PrincipalCacheService,
    private readonly visitorTokens: VisitorTokenService,
    private readonly dataSource: DataSource,
    private readonly presence: PresenceRegistryService,
  ) {}

  onApplicationBootstrap(): void {
    const staff = this.realtime.staff;
    const visitor = this.realtime.visitor;
    if (!staff || !visitor) return;

    this.guardRecovery(staff, (data) => this.staffSessionHolds(data));
    this.guardRecovery(visitor, (data) => this.visitorSessionHolds(data));
    this.stopListening = this.principals.onChange((change) => void this.recheck(change));

    staff.use((socket, next) => {
      const token = (socket.handshake.auth as { token?: unknown } | undefined)?.token;
      if (typeof token !== 'string') return next(authError(new AppException('unauthorized')));
      // A recovered socket brings back its rooms: only the same user, with the same rights, takes them up.
      const previous = socket.recovered ? (socket.data as Partial<StaffSocketData>).principal : undefined;
      this.auth.authenticateSession(token).then(
        ({ principal, claims }) => {
          if (socket.recovered && !(previous && sameRights(previous, principal))) return next(authError(new AppException('unauthorized')));
          socket.data = { principal, claims } satisfies StaffSocketData;
          next();
        },
        (error: unknown) => next(authError(error)),
      );
    });
    staff.on('connection', (socket) => {
      const principal = (socket.data as StaffSocketData).principal;
      if (!socket.recovered) {
        void socket.join(roomName({ kind: 'agent', id: principal.userId }));
        if (principal.permissions.includes(PERMISSIONS.conversationsSupervise)) {
          // Either the plain tenant room or, when the client asked for batches, its batched twin (never both).
          const tenantRoom = roomName({ kind: 'tenant', id: principal.clientId });
          const batched = (socket.handshake.auth as Record<string, unknown> | undefined)?.[STAFF_BATCH_AUTH] === true;
          void socket.join(batched ? batchedTenantRoom(tenantRoom) : tenantRoom);
        }
      }
      // Only the agent's last socket on any process (a crashed one's included) starts the grace period.
      this.presence.connected(principal.userId, socket.id);
      socket.on('disconnect', () => this.presence.disconnected(principal.userId, socket.id));
      socket.on('join', (room, ack) => {
        void this.current(socket)
          .then(async (fresh) => {
            const answer = fresh ? await this.staffJoin(fresh, room) : sessionEnded();
            if (answer.ok) await socket.join(answer.room);
            if (typeof ack === 'function') ack(answer);
          })
          .catch((error: unknown) => this.logger.warn(`join failed: ${(error as Error).message}`));
      });
      socket.on('leave', (room, ack) => {
        if (validRoom(room)) void socket.leave(roomName(room));
        if (typeof ack === 'function')
          ack(validRoom(room) ? { ok: true, room: roomName(room) } : refused('validation', 'room must be {kind, id}'));
      });
      socket.on('typing', (input) => {
        if (!input || typeof input.conversationId !== 'string' || !isUUID(input.conversationId)) return;
        void this.current(socket).then(async (fresh) => {
          if (!fresh) return;
          const answer = await this.staffJoin(fresh, { kind: 'conversation', id: input.conversationId });
          if (!answer.ok) return;
          emitEphemeral(this.realtime, {
            namespace: 'visitor',
            rooms: [answer.room],
            event: 'typing',
            data: { conversationId: input.conversationId, senderKind: 'agent', typing: Boolean(input.typing) },
          });
        });
      });
    });

    visitor.use((socket, next) => {
      const guest = this.visitorGuest;
      if (guest && typeof (socket.handshake.auth as { videoGuestKey?: unknown } | undefined)?.videoGuestKey === 'string') {
        guest(socket).then(
          () => next(),
          (error: unknown) => next(authError(error)),
        );
        return;
      }
      const token = (socket.handshake.auth as { token?: unknown } | undefined)?.token;
      let identity: VisitorIdentity;
      try {
        identity = this.visitorTokens.verify(typeof token === 'string' ? token : null);
      } catch (error) {
        return next(authError(error));
      }
      const previous = socket.recovered ? (socket.data as Partial<VisitorSocketData>).visitor : undefined;
      this.assertVisitorOpen(identity).then(
        () => {
          if (socket.recovered && previous?.conversationId !== identity.conversationId)
            return next(authError(new AppException('unauthorized')));
          socket.data = { visitor: identity } satisfies VisitorSocketData;
          next();
        },
        (error: unknown) => next(authError(error)),
      );
    });
    visitor.on('connection', (socket: Socket) => {
      const identity = (socket.data as Partial<VisitorSocketData>).visitor;
      if (!identity) return; // a video call's guest: VideoSignallingService handles it
      const own = roomName({ kind: 'conversation', id: identity.conversationId });
      if (!socket.recovered) void socket.join(own);
      socket.on('join', (room: unknown, ack: unknown) => {
        const reply = (answer: JoinAck) => {
          if (typeof ack === 'function') (ack as (answer: JoinAck) => void)(answer);
        };
        if (!validRoom(room)) return reply(refused('validation', 'room must be {kind, id} with a UUID id'));
        if (room.kind !== 'conversation' || room.id !== identity.conversationId)
          return reply(refused('forbidden', 'A visitor may only join its own conversation'));
        this.assertVisitorOpen(identity).then(
          () => reply({ ok: true, room: own }),
          (error: unknown) => {
            reply(refused('forbidden', error instanceof AppException ? error.message : 'unauthorized'));
            if (error instanceof AppException) socket.disconnect(true);
          },
        );
      });
      socket.on('typing', (input: { typing?: unknown } | null) => {
        emitEphemeral(this.realtime, {
          namespace: 'staff',
          rooms: [own],
          event: 'typing',
          data: { conversationId: identity.conversationId, senderKind: 'customer', typing: Boolean(input?.typing) },
        });
      });
    });
  }

  /** The video module's guest keys, taken by the visitor namespace besides visitor tokens (handshake `auth.videoGuestKey`). */
  registerVisitorGuest(authenticate: (socket: Socket) => Promise<void>): void {
    this.visitorGuest = authenticate;
  }

  onApplicationShutdown(): void {
    this.stopListening?.();
    this.stopListening = null;
  }

  /**
   * The principal of an open staff socket, checked against the user's current state. An ended
   * session disconnects the socket for good (the client must sign in again); changed rights close
   * its connection, so the client reconnects and joins with what it may now reach. Either way the
   * answer is null. An outage of the state store (not an AppException) leaves the socket alone:
   * the principal cache re-checks every socket once its invalidation channel is back.
   */
  private async current(socket: Socket): Promise<Principal | null> {
    const { principal, claims } = socket.data as StaffSocketData;
    let fresh: Principal;
    try {
      fresh = await this.auth.checkSession(claims);
    } catch (error) {
      if (error instanceof AppException) socket.disconnect(true);
      return null;
    }
    if (sameRights(principal, fresh)) return fresh;
    // Not a DISCONNECT packet: the client sees a dropped transport and reconnects by itself.
    socket.conn.close();
    return null;
  }

  /** Re-checks this process's sockets of the users and sessions a change names (all of them after missed changes). */
  private async recheck(change: SessionChange): Promise<void> {
    const staff = this.realtime.staff;
    if (!staff) return;
    if (change.everything) {
      // One at a time: after an outage every socket is in doubt, and the state store has just come back.
      for (const socket of [...staff.sockets.values()]) await this.current(socket).catch(() => null);
      return;
    }
    const affected = new Set<Socket>();
    for (const userId of change.users) {
      for (const id of staff.adapter.rooms.get(roomName({ kind: 'agent', id: userId })) ?? []) {
        const socket = staff.sockets.get(id);
        if (socket) affected.add(socket);
      }
    }
    if (change.sessions.length) {
      const sessions = new Set(change.sessions);
      for (const socket of staff.sockets.values()) if (sessions.has((socket.data as StaffSocketData).claims?.sid)) affected.add(socket);
    }
    await Promise.all([...affected].map((socket) => this.current(socket).catch(() => null)));
  }

  /**
   * Connection-state recovery hands a socket its rooms and missed events before any middleware
   * runs: the stored session is checked here first, and a session that no longer holds is not
   * restored (the connection then goes through the middleware as a new one, and is refused there).
   */
  private guardRecovery(namespace: Namespace, holds: (data: unknown) => Promise<boolean>): void {
    const adapter = namespace.adapter;
    const restore = adapter.restoreSession.bind(adapter);
    adapter.restoreSession = async (pid, offset) => {
      const session = await restore(pid, offset);
      if (!session) return session;
      return (await holds(session.data).catch(() => false)) ? session : (null as unknown as typeof session);
    };
  }

  private async staffSessionHolds(data: unknown): Promise<boolean> {
    const { principal, claims } = (data ?? {}) as Partial<StaffSocketData>;
    if (!principal || !claims) return false;
    return sameRights(principal, await this.auth.checkSession(claims));
  }

  private async visitorSessionHolds(data: unknown): Promise<boolean> {
    const identity = ((data ?? {}) as Partial<VisitorSocketData>).visitor;
    if (!identity) return false;
    await this.assertVisitorOpen(identity);
    return true;
  }

  /** A visitor's conversation must exist in its tenant and still admit the visitor (VisitorTokenService.assertOpen). */
  private async assertVisitorOpen(identity: VisitorIdentity): Promise<void> {
    const [row] = (await this.dataSource.query(`SELECT status, updated_at FROM conversations WHERE id = $1 AND tenant_id = $2`, [
      identity.conversationId,
      identity.tenantId,
    ])) as { status: string; updated_at: Date }[];
    if (!row) throw new AppException('unauthorized', { message: 'The visitor token is invalid or has expired' });
    this.visitorTokens.assertOpen(row);
  }

  async staffJoin(principal: Principal, room: unknown): Promise<JoinAck> {
    if (!validRoom(room)) return refused('validation', 'room must be {kind, id} with a UUID id');
    const supervises = principal.permissions.includes(PERMISSIONS.conversationsSupervise);
    const name = roomName(room);
    const otherTenant = refused('not_found', `No ${room.kind} ${room.id} in your tenant`);
    switch (room.kind) {
      case 'tenant':
        if (room.id !== principal.clientId) return otherTenant;
        return supervises ? { ok: true, room: name } : refused('forbidden', 'Joining the tenant room needs conversations.supervise');
      case 'agent': {
        if (room.id === principal.userId) return { ok: true, room: name };
        const [agent] = await this.dataSource.query(`SELECT client_id FROM users WHERE id = $1`, [room.id]);
        if (!agent || agent.client_id !== principal.clientId) return otherTenant;
        return supervises ? { ok: true, room: name } : refused('forbidden', "Joining another agent's room needs conversations.supervise");
      }
      case 'line': {
        const [line] = await this.dataSource.query(
          `SELECT l.client_id, EXISTS (SELECT 1 FROM agent_attention_lines a WHERE a.attention_line_id = l.id AND a.user_id = $2) AS serves
           FROM attention_lines l WHERE l.id = $1`,
          [room.id, principal.userId],
        );
        if (!line || line.client_id !== principal.clientId) return otherTenant;
        return supervises || line.serves ? { ok: true, room: name } : refused('forbidden', 'You do not serve this attention line');
      }
      case 'conversation': {
        const [conversation] = await this.dataSource.query(`SELECT tenant_id, agent_id FROM conversations WHERE id = $1`, [room.id]);
        if (!conversation || conversation.tenant_id !== principal.clientId) return otherTenant;
        return supervises || conversation.agent_id === principal.userId
          ? { ok: true, room: name }
          : refused('forbidden', 'You are not handling this conversation');
      }
    }
  }
}
