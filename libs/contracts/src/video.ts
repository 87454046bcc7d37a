/**
 * Video calls (issue 23 items 1 and 2): the agent offers a call from a conversation, the customer
 * opens a single-use link to /VideoChatContainer/{videoChatId}, both sides talk peer to peer over
 * WebRTC signalled through the existing Socket.IO namespaces (staff for the agent, visitor for the
 * customer, who authenticates with the call's guest key), with a TURN relay when the network needs one.
 */

/** Why a video link cannot be used; the customer's page translates each (`video.reasons.<code>`). */
export const VIDEO_LINK_REASONS = ['unknown', 'expired', 'used', 'ended', 'conversation_closed'] as const;
export type VideoLinkReason = (typeof VIDEO_LINK_REASONS)[number];

export const VIDEO_CALL_STATUSES = ['offered', 'live', 'ended'] as const;
export type VideoCallStatus = (typeof VIDEO_CALL_STATUSES)[number];

/** Who or what ended a call. */
export type VideoCallEndedBy = 'agent' | 'customer' | 'agent_left' | 'replaced' | 'conversation_closed';

/** Limits shared by the API and the console. */
export const VIDEO_LIMITS = {
  /** Bytes of one recording chunk (the agent's browser sends one every few seconds: far below this). */
  maxChunkBytes: 8 * 1024 * 1024,
  /** Chunks of one recording (at 2 s each, over 11 hours). */
  maxChunks: 20_000,
  /** Characters of one signalling message (an SDP with many candidates stays well under). */
  maxSignalChars: 64 * 1024,
  /** Milliseconds the console asks MediaRecorder to cut chunks at. */
  chunkIntervalMs: 2_000,
} as const;

/** What the agent's console holds about a call. */
export interface VideoCallView {
  id: string;
  conversationId: string;
  status: VideoCallStatus;
  createdAt: string;
  expiresAt: string;
  usedAt: string | null;
  startedAt: string | null;
  endedAt: string | null;
  endedBy: VideoCallEndedBy | null;
  /** When the customer accepted being recorded on their page; recording needs it. */
  recordingConsentAt: string | null;
}

/** The answer to an offer: the call and the customer's link (sent to them as a chat message). */
export interface VideoCallOffer {
  call: VideoCallView;
  /** Absolute URL of the customer's page: `${PUBLIC_URL}/VideoChatContainer/${videoChatId}`. */
  link: string;
  videoChatId: string;
}

/** RTCIceServer as the browser takes it. */
export interface IceServer {
  urls: string[];
  username?: string;
  credential?: string;
}

/** ICE servers for one call: STUN/TURN with short-lived credentials (coturn REST API scheme). */
export interface VideoIceConfig {
  iceServers: IceServer[];
  /** 'relay' when the operator forces every call through TURN (VIDEO_FORCE_RELAY: no peer sees the other's address). */
  iceTransportPolicy: 'all' | 'relay';
  /** Seconds the TURN credentials stay valid. */
  ttlSeconds: number;
}

/** GET /api/public/video-calls/:videoChatId: the link still works. */
export interface VideoLinkView {
  status: 'ready';
  agentName: string;
  companyName: string;
  language: string;
  expiresAt: string;
}

/** POST /api/public/video-calls/:videoChatId/join: the link is used up; the guest key now speaks for the customer. */
export interface VideoGuestSession {
  callId: string;
  guestKey: string;
  agentName: string;
  /** Whether the customer has agreed to recording (the page's checkbox starts from it). */
  recordingConsent: boolean;
  ice: VideoIceConfig;
}

/** A finished (or finishing) recording, as the desk and the case detail list it. */
export interface VideoRecordingView {
  id: string;
  callId: string;
  status: 'recording' | 'finalising' | 'ready' | 'failed';
  durationMs: number | null;
  format: string | null;
  byteSize: number;
  createdAt: string;
  /** Signed, short-lived URL a <video> element can play (no bearer header needed); null until ready. */
  url: string | null;
}

/** POST …/recordings/:id/chunks/:index: where the upload stands. */
export interface VideoChunkAck {
  recordingId: string;
  index: number;
  /** The index the server expects next. */
  nextIndex: number;
  /** true when this index was already stored with the same bytes (a retried upload). */
  duplicate: boolean;
}

/** One WebRTC signalling message, relayed as is between the call's two parties. */
export interface VideoSignal {
  callId: string;
  /** offer/answer (sdp), candidate (ice), or a control message (media state, recording state). */
  kind: 'offer' | 'answer' | 'candidate' | 'media' | 'recording' | 'ready';
  data: unknown;
}

/** Call events pushed to both parties. */
export interface VideoCallEvent {
  callId: string;
  /** joined: the customer opened the page; left: their socket went away; ended: the call is over. */
  state: 'joined' | 'left' | 'consent' | 'ended';
  endedBy?: VideoCallEndedBy;
}

/** Events a staff or guest socket may send for video (added to the namespaces' maps by cast). */
export interface VideoClientEvents {
  'video.join': (input: { callId: string }, ack: (answer: { ok: boolean; errorCode?: string; errorMessage?: string }) => void) => void;
  'video.signal': (signal: VideoSignal) => void;
}

export interface VideoServerEvents {
  'video.signal': (signal: VideoSignal) => void;
  'video.call': (event: VideoCallEvent) => void;
}

/** The socket room of a call's parties (one per namespace: the agent's on /staff, the customer's on /visitor). */
export function videoRoom(callId: string): string {
  return `video:${callId}`;
}

/** A job of QUEUES.videoRecording: finalise one recording (idempotent: a finalised one is left as it is). */
export interface VideoRecordingJob {
  tenantId: string;
  recordingId: string;
}
