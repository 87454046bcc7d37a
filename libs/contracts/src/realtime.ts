/**
 * Realtime contract: socket namespaces, rooms, the typed event maps both ends use, and the views
 * pushed over them. Every pushed entity carries its `version`: a client keeps the highest it has
 * seen, drops anything older, and resyncs over REST after a long outage.
 */
import type { AttachmentView, MessageDeliveryStatus } from './channels';
import type { SentimentAlertView } from './dashboards';
import type { MessageCampaignBoardPush } from './message-campaign-schedule';
import type { OutboundBoardView, OutboundCallView, OutboundPreviewLineView } from './outbound';
import type { VideoClientEvents, VideoServerEvents } from './video';

export const SOCKET_NAMESPACES = { staff: '/staff', visitor: '/visitor' } as const;

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
  /** 'bot': the line's bot answering while the conversation is Transitory (issue 23). */
  senderKind: 'customer' | 'agent' | 'supervisor' | 'system' | 'bot';
  senderId: string | null;
  text: string;
  clientMessageId: string | null;
  createdAt: string;
  deliveredAt: string | null;
  readAt: string | null;
  /**
   * An agent's message on a messaging channel: its way to the customer (only forward, see
   * DELIVERY_STATUS_RANK); null for web chat and for customers' messages.
   */
  deliveryStatus: MessageDeliveryStatus | null;
  /** With `failed`: the provider's reason, shown to the agent. */
  deliveryError: string | null;
  /** Files the message carries (a message may have text, attachments or both). */
  attachments: AttachmentView[];
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
  /** True while no agent of the line is available or busy (all paused, away or signed out). */
  nobodyServing: boolean;
  /** See VIEW_VERSIONS: keep the highest; a push whose version is not higher than the held one is dropped. */
  version: number;
}

/**
 * Views computed from many rows (`LineQueueView`, `CampaignQueueView`, `QueuePositionView`) carry a
 * `version` from one database sequence, taken under the view's row lock before the view is read:
 * a higher version was read later. API processes push independently, so their pushes can arrive
 * in any order; a client keeps a view only when its version is higher than the one it holds (a
 * REST answer carries the version of the last push it is at least as new as, so it wins a tie).
 * Entity views (`ConversationView`, `AgentView`) carry the entity's own version, by the same rule.
 * This holds for every push, batched (`batch`) or not, from whichever process.
 */
export const VIEW_VERSIONS = 'keep-highest' as const;

/** True when `incoming` should replace `held` (see VIEW_VERSIONS). */
export function newerView(held: { version: number } | null | undefined, incoming: { version: number }): boolean {
  return !held || incoming.version > held.version;
}

export interface LineQueueView {
  attentionLineId: string;
  /** See VIEW_VERSIONS. */
  version: number;
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
  /** See VIEW_VERSIONS. */
  version: number;
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

/** A phone conversation's call moved (connected, released, ended, monitoring): the monitoring bar re-reads it. */
export interface VoiceCallUpdatedView {
  conversationId: string;
  callId: string;
}

export interface ReadView {
  conversationId: string;
  readerKind: 'customer' | 'agent';
  upToSequence: number;
}

/** Server → client events on `/staff`. */
/** Video calls' signalling and call events ride the same namespaces (video.ts). */
export interface StaffServerEvents extends VideoServerEvents {
  'conversation.updated': (view: ConversationView) => void;
  'agent.updated': (view: AgentView) => void;
  'message.created': (view: MessageView) => void;
  /** A stored message changed: its delivery status moved (sent, delivered, read, failed). */
  'message.updated': (view: MessageView) => void;
  'note.created': (view: NoteView) => void;
  'queue.updated': (view: LineQueueView) => void;
  'campaignQueue.updated': (view: CampaignQueueView) => void;
  typing: (view: TypingView) => void;
  'message.read': (view: ReadView) => void;
  /** A conversation's rolling customer sentiment turned negative (tenant room; dashboards). */
  'sentiment.alert': (view: SentimentAlertView) => void;
  /** A phone conversation's call moved (conversation and tenant rooms): the console re-reads its monitoring. */
  'voiceCall.updated': (view: VoiceCallUpdatedView) => void;
  /** Outbound (OUTBOUND_SOCKET_EVENTS): a campaign's board (tenant room), an agent's call and its preview line. */
  'outbound.board': (view: OutboundBoardView) => void;
  'outbound.call': (view: OutboundCallView) => void;
  'outbound.preview': (view: OutboundPreviewLineView) => void;
  /** A message campaign's live board (tenant room; MESSAGE_CAMPAIGN_SOCKET_EVENTS). */
  'messageCampaign.board': (view: MessageCampaignBoardPush) => void;
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
/** Video calls' signalling and call events ride the same namespaces (video.ts). */
export interface VisitorServerEvents extends VideoServerEvents {
  'conversation.updated': (view: ConversationView) => void;
  'message.created': (view: MessageView) => void;
  /** A stored message changed (the same view as staff get). */
  'message.updated': (view: MessageView) => void;
  'queue.position': (view: QueuePositionView) => void;
  typing: (view: TypingView) => void;
  'message.read': (view: ReadView) => void;
}

export type JoinAck = { ok: true; room: string } | { ok: false; errorCode: 'forbidden' | 'not_found' | 'validation'; errorMessage: string };

/** Client → server events; every join is authorised on its own, not only at connect. */
/** Video calls' signalling and call events ride the same namespaces (video.ts). */
export interface StaffClientEvents extends VideoClientEvents {
  join: (room: RoomRef, ack: (answer: JoinAck) => void) => void;
  leave: (room: RoomRef, ack: (answer: JoinAck) => void) => void;
  typing: (input: { conversationId: string; typing: boolean }) => void;
}
/** Video calls' signalling and call events ride the same namespaces (video.ts). */
export interface VisitorClientEvents extends VideoClientEvents {
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
  /** The tenant's lines, with how many of their agents have room now and how many customers wait. */
  lines: { id: string; name: string; agentsAvailable: number; waiting: number }[];
  /** Logged-in colleagues by current state and load; only `available`/`busy` with room can take a chat. */
  agents: { id: string; name: string; status: string; activeCount: number; capacity: number }[];
}

/** What the agent sees beside a chat: the line by name, the customer's menu choice and earlier conversations. */
export interface ConversationContext {
  conversationId: string;
  lineName: string | null;
  entryLineName: string | null;
  /** The web-chat menu choice (widget query type and submenu codes), null when none was made. */
  queryTypeId: string | null;
  submenuId: string | null;
  /** The same customer's other conversations in this tenant (same e-mail, or same visitor), newest first. */
  earlier: {
    id: string;
    channel: string;
    status: string;
    lineName: string | null;
    disposition: string | null;
    createdAt: string;
    closedAt: string | null;
  }[];
}
