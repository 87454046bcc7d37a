import type { RealtimeService } from '../realtime/realtime.service';
import type { SocketEmit } from './outbox';

/**
 * The only pushes that do not leave through the outbox. Everything else a write changes is pushed
 * by outbox rows committed with it (at least once, versioned). These are not state: each is a
 * snapshot read after the fact, or a hint, that the next one (or a REST read) replaces, so a push
 * lost to a crash costs nothing an outbox row would save — and an outbox row each would cost a
 * write per routing round or keystroke. docs/architecture.md ("Ephemeral pushes") lists the same.
 *
 * - `typing` (staff and visitor): a keystroke hint, meaningless a few seconds later.
 * - `queue.updated` / `campaignQueue.updated` (staff): a line's or campaign's waiting list, read
 *   after each routing round and coalesced per line/campaign; the next round (or the routing
 *   sweep) pushes a fresh one, and the console reads it over REST when it (re)connects.
 * - `queue.position` (visitor): a waiting customer's position and estimate, derived the same way;
 *   one per waiting customer, so they go by emitEphemeralPerRoom: only to the processes' own sockets.
 * - `outbound.board` (staff): a dialer campaign's board, re-read and pushed after each change.
 * - `messageCampaign.board` (staff): a message campaign's board, the same way (the worker's own
 *   board pushes, after its sends, do go through the outbox: it has no relay).
 * - `video.signal` (staff and visitor): WebRTC offers, answers and candidates relayed between a
 *   call's two browsers, useless once the connection is made or the page reloaded (it renegotiates).
 * - `video.call` (staff and visitor): a hint that a call was joined, ended or its consent changed;
 *   the call itself is a row both sides read over HTTP.
 */
export const EPHEMERAL_EVENTS = [
  'typing',
  'queue.updated',
  'campaignQueue.updated',
  'queue.position',
  'outbound.board',
  'messageCampaign.board',
  'video.signal',
  'video.call',
] as const;
export type EphemeralEvent = (typeof EPHEMERAL_EVENTS)[number];
export type EphemeralEmit = Extract<SocketEmit, { event: EphemeralEvent }>;

/** Pushes one ephemeral event now, on every API process (see EPHEMERAL_EVENTS for what may go here). */
export function emitEphemeral(realtime: Pick<RealtimeService, 'emit'>, emit: EphemeralEmit): void {
  realtime.emit(emit.namespace, emit.rooms, emit.event, emit.data);
}

/** One ephemeral event to many rooms, each push with its own data (see emitEphemeralPerRoom). */
export type EphemeralPerRoomEmit = EphemeralEmit extends infer E
  ? E extends EphemeralEmit
    ? { namespace: E['namespace']; event: E['event']; pushes: { room: string; data: E['data'] }[] }
    : never
  : never;

/**
 * Pushes one ephemeral event to many rooms, each its own data, from any process to every process's
 * own sockets in those rooms (RealtimeService.emitPerRoom): for a push per waiting customer, most of
 * whom have no socket.
 */
export function emitEphemeralPerRoom(realtime: Pick<RealtimeService, 'emitPerRoom'>, emit: EphemeralPerRoomEmit): void {
  realtime.emitPerRoom(emit.namespace, emit.event, emit.pushes);
}
