import { PERMISSIONS, ROOM_KINDS, STAFF_BATCH_AUTH, batchedTenantRoom, roomName, type JoinAck, type RoomRef } from '@centralita/contracts';
import { Injectable, type OnApplicationBootstrap } from '@nestjs/common';
import { ModuleRef } from '@nestjs/core';
import { isUUID } from 'class-validator';
import type { Socket } from 'socket.io';
import { DataSource } from 'typeorm';
import { AppException } from '../../common/app.exception';
import { AuthGuard } from '../auth/auth.guard';
import { MachineHostService } from '../machine-host/machine-host.service';
import type { Principal } from '../auth/principal';
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

function authError(error: unknown): Error {
  const failure = new Error(error instanceof AppException ? error.message : 'unauthorized') as Error & { data?: unknown };
  failure.data = { errorCode: error instanceof AppException ? error.code : 'unauthorized' };
  return failure;
}

/**
 * Who may connect and join what. Staff connect with their access JWT (`auth.token`), checked
 * exactly as HTTP checks it; visitors with their visitor token. Every join is authorised on its
 * own: rooms of another tenant answer not_found, a visitor reaches only its own conversation.
 */
@Injectable()
export class SocketAccessService implements OnApplicationBootstrap {
  constructor(
    private readonly realtime: RealtimeService,
    private readonly auth: AuthGuard,
    private readonly visitorTokens: VisitorTokenService,
    private readonly dataSource: DataSource,
    private readonly moduleRef: ModuleRef,
  ) {}

  /** Resolved lazily: the host depends on this module's RealtimeService. */
  private get host(): MachineHostService {
    return this.moduleRef.get(MachineHostService, { strict: false });
  }

  onApplicationBootstrap(): void {
    const staff = this.realtime.staff;
    const visitor = this.realtime.visitor;
    if (!staff || !visitor) return;

    staff.use((socket, next) => {
      const token = (socket.handshake.auth as { token?: unknown } | undefined)?.token;
      if (typeof token !== 'string') return next(authError(new AppException('unauthorized')));
      this.auth.authenticate(token).then(
        (principal) => {
          socket.data.principal = principal;
          next();
        },
        (error: unknown) => next(authError(error)),
      );
    });
    staff.on('connection', (socket) => {
      const principal = socket.data.principal as Principal;
      if (!socket.recovered) {
        void socket.join(roomName({ kind: 'agent', id: principal.userId }));
        if (principal.permissions.includes(PERMISSIONS.conversationsSupervise)) {
          // Either the plain tenant room or, when the client asked for batches, its batched twin (never both).
          const tenantRoom = roomName({ kind: 'tenant', id: principal.clientId });
          const batched = (socket.handshake.auth as Record<string, unknown> | undefined)?.[STAFF_BATCH_AUTH] === true;
          void socket.join(batched ? batchedTenantRoom(tenantRoom) : tenantRoom);
        }
      }
      void this.presenceSignal(principal.userId, 'agent.reconnected');
      socket.on('disconnect', () => {
        // Only the agent's last socket on any process starts the grace period.
        const room = roomName({ kind: 'agent', id: principal.userId });
        void staff
          .in(room)
          .fetchSockets()
          .then((remaining) => (remaining.length === 0 ? this.presenceSignal(principal.userId, 'agent.disconnected') : undefined))
          .catch(() => undefined);
      });
      socket.on('join', (room, ack) => {
        void this.staffJoin(principal, room).then(async (answer) => {
          if (answer.ok) await socket.join(answer.room);
          if (typeof ack === 'function') ack(answer);
        });
      });
      socket.on('leave', (room, ack) => {
        if (validRoom(room)) void socket.leave(roomName(room));
        if (typeof ack === 'function')
          ack(validRoom(room) ? { ok: true, room: roomName(room) } : refused('validation', 'room must be {kind, id}'));
      });
      socket.on('typing', (input) => {
        if (!input || typeof input.conversationId !== 'string' || !isUUID(input.conversationId)) return;
        void this.staffJoin(principal, { kind: 'conversation', id: input.conversationId }).then((answer) => {
          if (!answer.ok) return;
          this.realtime.emit('visitor', [answer.room], 'typing', {
            conversationId: input.conversationId,
            senderKind: 'agent',
            typing: Boolean(input.typing),
          });
        });
      });
    });

    visitor.use((socket, next) => {
      const token = (socket.handshake.auth as { token?: unknown } | undefined)?.token;
      try {
        socket.data.visitor = this.visitorTokens.verify(typeof token === 'string' ? token : null);
        next();
      } catch (error) {
        next(authError(error));
      }
    });
    visitor.on('connection', (socket: Socket) => {
      const identity = socket.data.visitor as VisitorIdentity;
      const own = roomName({ kind: 'conversation', id: identity.conversationId });
      if (!socket.recovered) void socket.join(own);
      socket.on('join', (room: unknown, ack: unknown) => {
        const answer: JoinAck = !validRoom(room)
          ? refused('validation', 'room must be {kind, id} with a UUID id')
          : room.kind === 'conversation' && room.id === identity.conversationId
            ? { ok: true, room: own }
            : refused('forbidden', 'A visitor may only join its own conversation');
        if (typeof ack === 'function') (ack as (answer: JoinAck) => void)(answer);
      });
      socket.on('typing', (input: { typing?: unknown } | null) => {
        this.realtime.emit('staff', [own], 'typing', {
          conversationId: identity.conversationId,
          senderKind: 'customer',
          typing: Boolean(input?.typing),
        });
      });
    });
  }

  /** Connection changes of a logged-in agent; refused (not logged in, already so) is the normal case. */
  private async presenceSignal(userId: string, type: 'agent.disconnected' | 'agent.reconnected'): Promise<void> {
    try {
      await this.host.dispatch('agent', userId, { type }, { kind: 'system' });
    } catch {
      // Not an agent with presence, or nothing to change: ignored by design.
    }
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
