import { io, type Socket } from 'socket.io-client';
import {
  SOCKET_NAMESPACES,
  STAFF_BATCH_AUTH,
  deliverStaffBatch,
  type JoinAck,
  type RoomRef,
  type StaffClientEvents,
  type StaffServerEvents,
  type VisitorClientEvents,
  type VisitorServerEvents,
} from '@centralita/contracts';
import { sessionRenewal, type SessionRenewal } from '../../auth/session-renewal';

export type StaffSocket = Socket<StaffServerEvents, StaffClientEvents>;
export type VisitorSocket = Socket<VisitorServerEvents, VisitorClientEvents>;

/**
 * Beyond this gap the server's connection-state recovery (two minutes) may have dropped events, and
 * a reconnect that was not recovered always lost them: either way the caller resyncs over REST.
 */
export const LONG_GAP_MS = 30_000;

export interface RealtimeHandlers {
  /** Called after every (re)connection that may have missed events; load the truth over REST. */
  onResync: () => void;
  onStatus?: (status: 'connecting' | 'online' | 'offline') => void;
}

export interface RealtimeConnection<S extends Socket> {
  socket: S;
  join(room: RoomRef): Promise<JoinAck>;
  close(): void;
}

/** The handshake refusals that mean "your access token no longer holds" (see socket-access.service authError). */
const SESSION_REFUSALS = new Set(['session_expired', 'unauthorized']);

export type RefusalDecision = 'wait' | 'renew' | 'stop';

/**
 * Pure decision, exported for tests: what to do on a connect_error. While the client still retries
 * by itself (`active`: a network failure) there is nothing to do. A handshake the server refused
 * for the session (an access token that expired while the tab's timers were throttled) is worth one
 * session renewal and one reconnect; refused again after that, or refused for anything else, the
 * socket stays down (a signed-out session is ended by the renewal itself).
 */
export function onConnectRefused(error: unknown, active: boolean, renewedSinceConnect: boolean): RefusalDecision {
  if (active) return 'wait';
  const code = (error as { data?: { errorCode?: unknown } } | null)?.data?.errorCode;
  if (typeof code !== 'string' || !SESSION_REFUSALS.has(code)) return 'stop';
  return renewedSinceConnect ? 'stop' : 'renew';
}

/** Pure decision, exported for tests: must a reconnect resync over REST? */
export function needsResync(firstConnect: boolean, recovered: boolean, gapMs: number): boolean {
  if (firstConnect) return true;
  return !recovered || gapMs > LONG_GAP_MS;
}

function connect<S extends Socket>(
  namespace: string,
  token: () => string | null,
  handlers: RealtimeHandlers,
  extraAuth: Record<string, unknown> = {},
  renewal: () => SessionRenewal | null = () => null,
): RealtimeConnection<S> {
  const socket = io(namespace, {
    path: '/socket.io',
    transports: ['websocket', 'polling'],
    reconnection: true,
    reconnectionDelay: 500,
    reconnectionDelayMax: 5_000,
    // The token is read at every attempt: a refreshed access token is used after a reconnect.
    auth: (cb) => cb({ ...extraAuth, token: token() ?? '' }),
  }) as unknown as S;
  const rooms = new Map<string, RoomRef>();
  let first = true;
  let lostAt: number | null = null;
  let renewed = false;
  let closed = false;
  handlers.onStatus?.('connecting');

  socket.on('connect', () => {
    const gap = lostAt === null ? 0 : Date.now() - lostAt;
    const resync = needsResync(first, socket.recovered, gap);
    first = false;
    lostAt = null;
    renewed = false;
    handlers.onStatus?.('online');
    // Rooms joined by hand are not restored by a plain (unrecovered) reconnect.
    if (!socket.recovered) for (const room of rooms.values()) socket.emit('join', room, () => undefined);
    if (resync) handlers.onResync();
  });
  socket.on('disconnect', () => {
    lostAt ??= Date.now();
    handlers.onStatus?.('offline');
  });
  socket.on('connect_error', (error) => {
    handlers.onStatus?.('offline');
    const renew = renewal();
    if (!renew || onConnectRefused(error, socket.active, renewed) !== 'renew') return;
    renewed = true;
    lostAt ??= Date.now();
    void renew().then(
      (ok) => {
        // The token getter reads the renewed access token at this attempt.
        if (ok && !closed) socket.connect();
      },
      () => undefined,
    );
  });

  return {
    socket,
    join(room) {
      rooms.set(`${room.kind}:${room.id}`, room);
      return new Promise((resolve) => {
        if (!socket.connected) {
          // Joined on connect (above).
          resolve({ ok: true, room: `${room.kind}:${room.id}` });
          return;
        }
        socket
          .timeout(5_000)
          .emit('join', room, (error: Error | null, answer: JoinAck) =>
            resolve(error ? { ok: false, errorCode: 'validation', errorMessage: error.message } : answer),
          );
      });
    },
    close() {
      closed = true;
      socket.removeAllListeners();
      socket.close();
    },
  };
}

/**
 * The console asks for the supervisor stream in batches (STAFF_BATCH_AUTH) and unpacks each one
 * into the same listeners, so screens only ever see single events.
 */
export function connectStaff(token: () => string | null, handlers: RealtimeHandlers): RealtimeConnection<StaffSocket> {
  const connection = connect<StaffSocket>(SOCKET_NAMESPACES.staff, token, handlers, { [STAFF_BATCH_AUTH]: true }, sessionRenewal);
  connection.socket.on('batch', (pushes) => deliverStaffBatch(connection.socket, pushes));
  return connection;
}

export const connectVisitor = (token: () => string | null, handlers: RealtimeHandlers) =>
  connect<VisitorSocket>(SOCKET_NAMESPACES.visitor, token, handlers);
