/**
 * Realtime contract: socket namespaces, rooms, the typed event maps both ends use, and the views
 * pushed over them. Every pushed entity carries its `version`: a client keeps the highest it has
 * seen, drops anything older, and resyncs over REST after a long outage.
 */
import type { SentimentAlertView } from './dashboards';

export const SOCKET_NAMESPACES = { staff: '/staff', visitor: '/visitor' } as const;

/** BullMQ queues the API itself consumes (machines only run in the API's machine host). */
export const REALTIME_QUEUES = {
  /** Delayed timer events (queue timeout, inactivity, survey expiry, after-call work, disconnect grace). */
  timers: 'machine-timers',
  /** Routing requests written as outbox effects; job id = outbox id. */
  routing: 'routing-requests',
} as const;

export const ROOM_KINDS = ['tenant', 'line', 'agent', 'conversation'] as const;
export type RoomKind = (typeof ROOM_KINDS)[number];
export interface RoomRef {
  kind: RoomKind;
  id: string;
}
export function roomName(room: RoomRef): string {
  return `${room.kind}:${room.id}`;
}

export interface ConversationView {
  id: string;
  version: number;
  tenantId: string;
  channel: string;
  status: string;
  attentionLineId: string | null;
  agentId: string | null;
  priority: number;
  customerName: string;
  customerEmail: string | null;
  closeReason: string | null;
  disposition: string | null;
  /** The event that produced this version (`xstate.init` for the first). */
  lastEvent: string;
  createdAt: string;
  updatedAt: string;
}

export interface AgentView {
  agentId: string;
  version: number;
  tenantId: string;
  name: string;
  status: string;
  pauseReasonId: string | null;
  capacity: number;
  activeCount: number;
  stateSince: string;
  lastEvent: string;
}

export interface MessageView {
  id: string;
  conversationId: string;
  sequence: number;
  senderKind: 'customer' | 'agent' | 'supervisor' | 'system';
  senderId: string | null;
  text: string;
  clientMessageId: string | null;
  createdAt: string;
  deliveredAt: string | null;
  readAt: string | null;
}

export interface NoteView {
  id: string;
  conversationId: string;
  authorId: string;
  text: string;
  createdAt: string;
}

export interface QueuePositionView {
  conversationId: string;
  attentionLineId: string;
  position: number;
  /** Seconds, or null when there is nothing to base an estimate on. */
  estimatedWaitSeconds: number | null;
}

export interface LineQueueView {
  attentionLineId: string;
  name: string;
  waiting: number;
  /** Milliseconds the oldest waiting conversation has waited; 0 when none. */
  longestWaitMs: number;
  agentsAvailable: number;
}

/**
 * The live queue of a campaign: the waiting customers of every attention line that belongs to it,
 * and the agents logged into the campaign with room for one more conversation.
 */
export interface CampaignQueueView {
  campaignId: string;
  name: string;
  /** Attention lines that belong to the campaign. */
  lines: number;
  waiting: number;
  /** Milliseconds the oldest waiting conversation of its lines has waited; 0 when none. */
  longestWaitMs: number;
  agentsAvailable: number;
}

export interface TypingView {
  conversationId: string;
  senderKind: 'customer' | 'agent';
  typing: boolean;
}

export interface ReadView {
  conversationId: string;
  readerKind: 'customer' | 'agent';
  upToSequence: number;
}

/** Server → client events on `/staff`. */
export interface StaffServerEvents {
  'conversation.updated': (view: ConversationView) => void;
  'agent.updated': (view: AgentView) => void;
  'message.created': (view: MessageView) => void;
  'note.created': (view: NoteView) => void;
  'queue.updated': (view: LineQueueView) => void;
  'campaignQueue.updated': (view: CampaignQueueView) => void;
  typing: (view: TypingView) => void;
  'message.read': (view: ReadView) => void;
  /** A conversation's rolling customer sentiment turned negative (tenant room; dashboards). */
  'sentiment.alert': (view: SentimentAlertView) => void;
  /**
   * Several tenant-wide pushes at once, in the order they were made — only to sockets that asked
   * for it (handshake `auth.batch: true`, see STAFF_BATCH_AUTH). Unpack with `deliverStaffBatch`.
   */
  batch: (pushes: StaffPush[]) => void;
}

/** One push inside a `batch`: the event's name and its payload, as it would have arrived alone. */
export type StaffPush = {
  [K in Exclude<keyof StaffServerEvents, 'batch'>]: [event: K, data: Parameters<StaffServerEvents[K]>[0]];
}[Exclude<keyof StaffServerEvents, 'batch'>];

/**
 * Handshake flag on `/staff` (`auth: { token, batch: true }`): the supervisor's tenant-wide stream
 * (every conversation and agent of the tenant) arrives coalesced, one `batch` frame for what the
 * server pushed in the same turn of its event loop, instead of one frame per push. With hundreds of
 * supervisors and hundreds of messages a second, frames per socket, not bytes, are what cost
 * (QUALITY.md S1). Each push still arrives once, in order, with its version.
 */
export const STAFF_BATCH_AUTH = 'batch';

/** The room of a tenant's supervisors who asked for batches (beside the plain `tenant:<id>`). */
export function batchedTenantRoom(tenantRoom: string): string {
  return `${tenantRoom}#batched`;
}

interface PushListeners {
  listeners(event: string): ((...args: never[]) => unknown)[];
  listenersAny(): ((...args: never[]) => unknown)[];
}

/**
 * Hands every push of a `batch` to the socket's own listeners (`on(event)` and `onAny`), as if
 * each had arrived alone. socket.io-client's `emit` sends to the server, so listeners are called directly.
 */
export function deliverStaffBatch(socket: PushListeners, pushes: StaffPush[]): void {
  for (const [event, data] of pushes) {
    for (const listener of socket.listenersAny()) (listener as (event: string, data: unknown) => void)(event, data);
    for (const listener of socket.listeners(event)) (listener as (data: unknown) => void)(data);
  }
}

/** Server → client events on `/visitor`. Visitors never see notes, agents' boards or other queues. */
export interface VisitorServerEvents {
  'conversation.updated': (view: ConversationView) => void;
  'message.created': (view: MessageView) => void;
  'queue.position': (view: QueuePositionView) => void;
  typing: (view: TypingView) => void;
  'message.read': (view: ReadView) => void;
}

export type JoinAck = { ok: true; room: string } | { ok: false; errorCode: 'forbidden' | 'not_found' | 'validation'; errorMessage: string };

/** Client → server events; every join is authorised on its own, not only at connect. */
export interface StaffClientEvents {
  join: (room: RoomRef, ack: (answer: JoinAck) => void) => void;
  leave: (room: RoomRef, ack: (answer: JoinAck) => void) => void;
  typing: (input: { conversationId: string; typing: boolean }) => void;
}
export interface VisitorClientEvents {
  join: (room: RoomRef, ack: (answer: JoinAck) => void) => void;
  typing: (input: { typing: boolean }) => void;
}

/** Claims of the visitor token issued when a web-chat conversation starts. */
export interface VisitorTokenClaims {
  typ: 'visitor';
  /** Conversation id. */
  sub: string;
  cid: string;
  vid: string;
}

export interface StartChatResult {
  conversation: ConversationView;
  visitorToken: string;
  visitorId: string;
}

/** What an agent may transfer a conversation to: the tenant's lines and the colleagues logged in. */
export interface TransferTargets {
  lines: { id: string; name: string }[];
  agents: { id: string; name: string; status: string; activeCount: number; capacity: number }[];
}
