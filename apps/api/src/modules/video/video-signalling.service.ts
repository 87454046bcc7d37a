import { VIDEO_LIMITS, videoRoom, type VideoSignal } from '@centralita/contracts';
import { Inject, Injectable, Logger, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { isUUID } from 'class-validator';
import type { Socket } from 'socket.io';
import { AppException } from '../../common/app.exception';
import type { Principal } from '../auth/principal';
import { emitEphemeral } from '../machine-host/ephemeral';
import { RealtimeService } from '../realtime/realtime.service';
import { SocketAccessService } from '../realtime/socket-access.service';
import { VIDEO_CONFIG, type VideoConfig } from './video-config';
import { VideoService, type VideoGuest } from './video.service';

const SIGNAL_KINDS = new Set<VideoSignal['kind']>(['offer', 'answer', 'candidate', 'media', 'recording', 'ready']);

/** A well-formed signal for `callId`, or null (dropped: signalling has no error channel worth a reply). */
export function validSignal(input: unknown): VideoSignal | null {
  const signal = input as Partial<VideoSignal> | null;
  if (!signal || typeof signal !== 'object') return null;
  if (typeof signal.callId !== 'string' || !isUUID(signal.callId)) return null;
  if (typeof signal.kind !== 'string' || !SIGNAL_KINDS.has(signal.kind)) return null;
  let size: number;
  try {
    size = JSON.stringify(signal.data ?? null).length;
  } catch {
    return null;
  }
  if (size > VIDEO_LIMITS.maxSignalChars) return null;
  return { callId: signal.callId, kind: signal.kind, data: signal.data ?? null };
}

/**
 * WebRTC signalling for video calls over the existing namespaces: the agent's staff socket joins
 * the call's room (`video.join`, checked: their call, in their tenant, not over), the customer's
 * socket connects to /visitor with the call's guest key (and is put in the call's room). A
 * `video.signal` goes only from one party's room to the other's, and only for the call the sender
 * is in. An agent whose every socket left a call's room for VIDEO_AGENT_GRACE_SECONDS (a closed
 * tab) ends it, so the customer is told and the recording is finalised with what was uploaded.
 */
@Injectable()
export class VideoSignallingService implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger(VideoSignallingService.name);
  private readonly graceTimers = new Map<string, NodeJS.Timeout>();

  constructor(
    private readonly realtime: RealtimeService,
    private readonly access: SocketAccessService,
    private readonly video: VideoService,
    @Inject(VIDEO_CONFIG) private readonly config: VideoConfig,
  ) {}

  onApplicationBootstrap(): void {
    const staff = this.realtime.staff;
    const visitor = this.realtime.visitor;
    if (!staff || !visitor) return;

    this.access.registerVisitorGuest(async (socket) => {
      const guest = await this.video.guest((socket.handshake.auth as { videoGuestKey?: unknown }).videoGuestKey);
      socket.data = { videoGuest: guest };
    });

    visitor.on('connection', (socket: Socket) => {
      const guest = (socket.data as { videoGuest?: VideoGuest }).videoGuest;
      if (!guest) return;
      void socket.join(videoRoom(guest.callId));
      this.video.push(guest.callId, guest.agentId, { callId: guest.callId, state: 'joined' });
      socket.on('video.signal', (input: unknown) => {
        const signal = validSignal(input);
        if (!signal || signal.callId !== guest.callId) return;
        emitEphemeral(this.realtime, { namespace: 'staff', rooms: [videoRoom(guest.callId)], event: 'video.signal', data: signal });
      });
      socket.on('disconnect', () => this.video.push(guest.callId, guest.agentId, { callId: guest.callId, state: 'left' }));
    });

    staff.on('connection', (socket) => {
      const principal = (socket.data as { principal: Principal }).principal;
      socket.on('video.join', (input, ack) => {
        const reply = (answer: { ok: boolean; errorCode?: string; errorMessage?: string }) => {
          if (typeof ack === 'function') ack(answer);
        };
        const callId = (input as { callId?: unknown } | null)?.callId;
        if (typeof callId !== 'string' || !isUUID(callId))
          return reply({ ok: false, errorCode: 'validation', errorMessage: 'callId must be a UUID' });
        this.video.mayJoin(principal, callId).then(
          async (may) => {
            if (!may) return reply({ ok: false, errorCode: 'not_found', errorMessage: `No video call ${callId} of yours` });
            await socket.join(videoRoom(callId));
            this.cancelGrace(callId);
            reply({ ok: true });
          },
          (error: unknown) => reply({ ok: false, errorCode: 'internal', errorMessage: (error as Error).message }),
        );
      });
      socket.on('video.signal', (input) => {
        const signal = validSignal(input);
        if (!signal || !socket.rooms.has(videoRoom(signal.callId))) return;
        emitEphemeral(this.realtime, { namespace: 'visitor', rooms: [videoRoom(signal.callId)], event: 'video.signal', data: signal });
      });
      socket.on('disconnecting', () => {
        for (const room of socket.rooms) if (room.startsWith('video:')) this.startGrace(room.slice('video:'.length));
      });
    });
  }

  onApplicationShutdown(): void {
    for (const timer of this.graceTimers.values()) clearTimeout(timer);
    this.graceTimers.clear();
  }

  private cancelGrace(callId: string): void {
    const timer = this.graceTimers.get(callId);
    if (timer) clearTimeout(timer);
    this.graceTimers.delete(callId);
  }

  private startGrace(callId: string): void {
    this.cancelGrace(callId);
    const timer = setTimeout(() => {
      this.graceTimers.delete(callId);
      void this.endIfAgentGone(callId);
    }, this.config.agentGraceSeconds * 1000);
    timer.unref();
    this.graceTimers.set(callId, timer);
  }

  /** Every API process is asked (through the adapter) whether an agent socket is still in the call. */
  private async endIfAgentGone(callId: string): Promise<void> {
    try {
      const staff = this.realtime.staff;
      if (!staff) return;
      const sockets = await staff.in(videoRoom(callId)).fetchSockets();
      if (sockets.length > 0) return;
      await this.video.finish(callId, 'agent_left');
    } catch (error) {
      if (error instanceof AppException && error.code === 'not_found') return;
      this.logger.warn(`video call ${callId}: agent-left check failed: ${(error as Error).message}`);
    }
  }
}
