/**
 * Inbound voice (issue #22): the contract between the worker's voice server (SIP + rtpengine media,
 * apps/worker/src/voice) and the API, which keeps the caller's conversation on the phone channel.
 *
 * The worker owns the call leg and the IVR walk; the API owns the conversation machine. Events go
 * worker → API on QUEUES.voiceCallEvents, one call's events in order (job id `voice.<callId>.<seq>`);
 * commands go API → worker on QUEUES.voiceCommands.
 */

/** Where the caller is when they hang up without reaching an agent (reports count them apart). */
export const VOICE_ABANDON_STAGES = ['ivr', 'queue'] as const;
export type VoiceAbandonStage = (typeof VOICE_ABANDON_STAGES)[number];

interface VoiceEventBase {
  /** The worker's id of the inbound call leg (a UUID), stable for the call's life. */
  callId: string;
  tenantId: string;
  /** Order of this event within its call, from 1: the API refuses a repeat and holds a gap. */
  seq: number;
  /** When the worker observed it (epoch ms). */
  at: number;
}

export type VoiceCallEvent =
  /** The call was answered by the platform (the IVR starts, or the call goes straight to a line). */
  | (VoiceEventBase & {
      type: 'call.started';
      trunkId: string;
      /** The caller's number as the carrier presented it (E.164 when it can be read so). */
      from: string;
      /** The called number that matched the trunk's inbound number. */
      to: string;
      ivrId: string | null;
    })
  /** The caller reached an IVR node (digit: the key that led here; null for the first node or a timeout/fallback). */
  | (VoiceEventBase & { type: 'ivr.step'; ivrId: string; nodeId: string; nodeName: string; digit: string | null })
  /** The IVR (or the number itself) sent the call to a line's queue; `path` is the node names walked. */
  | (VoiceEventBase & { type: 'call.queued'; attentionLineId: string; path: string[] })
  /** The IVR sent the call to one agent. */
  | (VoiceEventBase & { type: 'call.toAgent'; agentId: string; path: string[] })
  /** An agent's softphone answered the bridged leg. */
  | (VoiceEventBase & { type: 'call.connected'; agentId: string })
  /**
   * The agent's softphone did not take the call ('busy' 486, 'unavailable' 480/404, 'noAnswer' ring timeout/408,
   * 'media' rtpengine refused the leg, 'sipNNN' any other final status): the caller is back on hold music.
   */
  | (VoiceEventBase & { type: 'call.connectFailed'; agentId: string; reason: string })
  /**
   * The platform dropped the connected agent's leg (BYE) on the API's 'release' (the conversation was transferred): the
   * caller is back on hold music, waiting for the next agent's 'connect'.
   */
  | (VoiceEventBase & { type: 'call.released'; agentId: string; reason: string })
  /** The caller hung up before any agent answered. */
  | (VoiceEventBase & { type: 'call.abandoned'; stage: VoiceAbandonStage })
  /** The call ended after it was connected, or the platform ended it (IVR hang-up destination, closed line, error). */
  | (VoiceEventBase & { type: 'call.ended'; by: 'caller' | 'agent' | 'system'; reason: string })
  /**
   * The connected call's recording is stored (after call.ended): a stereo 8 kHz WAV in the file store (caller left, agent
   * right), from the agent's answer to the hang-up; `agentId` is who answered.
   */
  | (VoiceEventBase & { type: 'call.recorded'; fileId: string; durationMs: number; agentId: string | null })
  /**
   * A supervisor's monitoring of the connected call: 'started' (their phone answered, the mixer runs in `mode`),
   * 'changed' (mode switched), 'ended' (stopped, their phone hung up, or the call ended; `reason` says which) and
   * 'failed' (their phone did not answer: 'busy', 'unavailable', 'noAnswer', 'media', 'badUri', 'notConnected').
   */
  | (VoiceEventBase & {
      type: 'call.monitor';
      supervisorId: string;
      state: 'started' | 'changed' | 'ended' | 'failed';
      mode: VoiceMonitorMode;
      reason: string;
    });

export type VoiceCallEventType = VoiceCallEvent['type'];

/** API → worker: what the conversation side asks of the live call. */
export type VoiceCommand =
  /** Ring this agent's softphone and bridge the caller to it when answered. */
  | { type: 'connect'; tenantId: string; callId: string; conversationId: string; agentId: string; agentSipUri: string }
  /**
   * Drop the connected agent's leg (BYE) and keep the caller on hold music (the conversation was transferred away from
   * `agentId`); answered by call.released. A 'connect' for another agent that overtakes it releases the same way first.
   */
  | { type: 'release'; tenantId: string; callId: string; agentId: string; reason: string }
  /** End the call (the conversation was closed, or the line is shut). */
  | { type: 'hangUp'; tenantId: string; callId: string; reason: string }
  /** Ring a supervisor's phone and, when answered, let them monitor the connected call in `mode`. */
  | { type: 'monitor'; tenantId: string; callId: string; supervisorId: string; supervisorSipUri: string; mode: VoiceMonitorMode }
  /** Switch the running monitoring to another mode (no signalling: only who hears whom changes). */
  | { type: 'monitor.mode'; tenantId: string; callId: string; supervisorId: string; mode: VoiceMonitorMode }
  /** End the supervisor's leg; the caller and the agent are bridged directly again. */
  | { type: 'monitor.stop'; tenantId: string; callId: string; supervisorId: string };

/**
 * How a supervisor monitors a connected call: 'listen' hears both sides and nobody hears them; 'whisper' also talks to
 * the agent only (the caller does not hear the supervisor); 'barge' is a three-way call (everybody hears everybody).
 */
export const VOICE_MONITOR_MODES = ['listen', 'whisper', 'barge'] as const;
export type VoiceMonitorMode = (typeof VOICE_MONITOR_MODES)[number];

/** GET /api/voice/conversations/:id/monitor: what live supervision shows and enables for the signed-in supervisor. */
export interface VoiceMonitorStatus {
  callId: string;
  /** The call is connected to an agent (only then can it be monitored). */
  connected: boolean;
  /** The signed-in supervisor has a softphone account (they monitor with it). */
  softphone: boolean;
  supervisorId: string | null;
  mode: VoiceMonitorMode | null;
  /** 'ringing': the supervisor's softphone is being called; 'active': they are on the call; null: nobody monitors. */
  state: 'ringing' | 'active' | null;
}

/**
 * A stored recording of a connected inbound call (GET /voice/conversations/:id/recordings): a stereo 8 kHz WAV,
 * caller on the left, agent on the right. `url` plays it (signed, short-lived, Range requests), `downloadUrl` saves it.
 */
export interface VoiceRecordingView {
  id: string;
  callId: string;
  conversationId: string | null;
  agentId: string | null;
  agentName: string | null;
  /** The caller's number as the carrier presented it. */
  from: string | null;
  durationMs: number;
  createdAt: string;
  url: string;
  downloadUrl: string;
}

/** The message of a recording whose audio is gone (deleted by retention, or the store failed): the spec's words. */
export const VOICE_RECORDING_MISSING_MESSAGE = 'The audio was not found, please try again later.';
