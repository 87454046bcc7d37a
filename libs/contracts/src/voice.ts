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
  /**
   * The IVR (or the number itself) sent the call to a line's queue; `path` is the node names walked. `exit`: the key
   * pressed at the last node that chose this destination and that option's label (absent: a fallback, a timeout or no IVR).
   */
  | (VoiceEventBase & { type: 'call.queued'; attentionLineId: string; path: string[]; exit?: VoiceIvrExit | null })
  /** The IVR sent the call to one agent. */
  | (VoiceEventBase & { type: 'call.toAgent'; agentId: string; path: string[]; exit?: VoiceIvrExit | null })
  /**
   * The IVR sent the caller to a line's voicemail: after the beep their message is recorded until '#', their hang-up or
   * the maximum length; the call then ends (call.ended reason 'voicemail') and call.recorded {kind: 'voicemail'} follows.
   */
  | (VoiceEventBase & { type: 'call.voicemail'; attentionLineId: string; path: string[] })
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
  /**
   * Attended transfer (command 'consult'): the consulted agent's phone rings while the caller hears hold music and the
   * connected agent (`fromAgentId`) waits for the answer.
   */
  | (VoiceEventBase & { type: 'call.consultRinging'; agentId: string; fromAgentId: string })
  /** The consulted agent answered: the two agents talk, the caller hears hold music. */
  | (VoiceEventBase & { type: 'call.consultConnected'; agentId: string; fromAgentId: string })
  /**
   * The consulted agent's phone did not take the consultation ('busy', 'unavailable', 'noAnswer', 'media', 'badUri',
   * 'notConnected' when the call was not connected to `fromAgentId`, 'consulting' when another consultation runs): the
   * caller is back with the connected agent.
   */
  | (VoiceEventBase & { type: 'call.consultFailed'; agentId: string; fromAgentId: string; reason: string })
  /**
   * The consultation ended without a transfer ('cancelled' by the desk, 'hangUp' by the consulted agent's BYE): the
   * consulted agent's leg is gone, the caller talks with the connected agent again.
   */
  | (VoiceEventBase & { type: 'call.consultCancelled'; agentId: string; fromAgentId: string; reason: string })
  /** The transfer was completed: the caller is bridged to the consulted agent (`agentId`); `fromAgentId` got a BYE. */
  | (VoiceEventBase & { type: 'call.consultCompleted'; agentId: string; fromAgentId: string })
  /** The caller hung up before any agent answered. */
  | (VoiceEventBase & { type: 'call.abandoned'; stage: VoiceAbandonStage })
  /** The call ended after it was connected, or the platform ended it (IVR hang-up destination, closed line, error). */
  | (VoiceEventBase & { type: 'call.ended'; by: 'caller' | 'agent' | 'system'; reason: string })
  /**
   * The connected call's recording is stored (after call.ended): a stereo 8 kHz WAV in the file store (caller left, agent
   * right), from the agent's answer to the hang-up; `agentId` is who answered. kind 'voicemail' (absent: 'call'): the
   * caller's message after the voicemail beep (left channel; agentId null).
   */
  | (VoiceEventBase & { type: 'call.recorded'; fileId: string; durationMs: number; agentId: string | null; kind?: VoiceRecordingKind })
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

/** The option a caller chose at the IVR's last node to leave it for a line or an agent. */
export interface VoiceIvrExit {
  digit: string;
  label: string | null;
}

/** One step of the IVR path as the screen pop shows it: a node entered, or the option that left the IVR. */
export interface VoiceIvrPathStep {
  /** The node's name, or for the exit the option's label (else the line's or agent's name). */
  name: string;
  /** The key that led here; null for the first node, a timeout or a fallback. */
  digit: string | null;
}

/**
 * GET /api/voice/conversations/:id/screen-pop: what the agent's ringing softphone shows about the inbound call of a phone
 * conversation (the agent it is assigned to, or a supervisor). The contact's timeline and cases come from the contacts API.
 */
export interface VoiceScreenPop {
  callId: string;
  conversationId: string;
  /** The caller's number as the carrier presented it. */
  from: string | null;
  /** The number called (the trunk's inbound number). */
  to: string | null;
  lineId: string | null;
  lineName: string | null;
  ivrPath: VoiceIvrPathStep[];
  startedAt: string | null;
  /** When the caller started waiting in the queue (the time waited counts from here). */
  queuedAt: string | null;
  /** The conversation's contact (null for a conversation without one). */
  contact: { id: string; name: string; externalId: string } | null;
}

/** API → worker: what the conversation side asks of the live call. */
export type VoiceCommand =
  /** Ring this agent's softphone and bridge the caller to it when answered. */
  | { type: 'connect'; tenantId: string; callId: string; conversationId: string; agentId: string; agentSipUri: string }
  /**
   * Drop the connected agent's leg (BYE) and keep the caller on hold music (the conversation was transferred away from
   * `agentId`); answered by call.released. A 'connect' for another agent that overtakes it releases the same way first.
   */
  | { type: 'release'; tenantId: string; callId: string; agentId: string; reason: string }
  /**
   * Attended transfer: put the caller on hold music and ring `agentSipUri`; when it answers, the connected agent
   * `fromAgentId` and the consulted agent `agentId` talk (call.consultRinging / consultConnected / consultFailed).
   */
  | {
      type: 'consult';
      tenantId: string;
      callId: string;
      conversationId: string;
      fromAgentId: string;
      agentId: string;
      agentSipUri: string;
    }
  /** Bridge the caller to the consulted agent `agentId` and BYE the first agent (call.consultCompleted). */
  | { type: 'consult.complete'; tenantId: string; callId: string; agentId: string }
  /** End the consultation with `agentId` (CANCEL or BYE): the caller talks with the first agent again (call.consultCancelled). */
  | { type: 'consult.cancel'; tenantId: string; callId: string; agentId: string }
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

/** What a stored recording is: a connected call ('call') or a message left on a line's voicemail ('voicemail'). */
export const VOICE_RECORDING_KINDS = ['call', 'voicemail'] as const;
export type VoiceRecordingKind = (typeof VOICE_RECORDING_KINDS)[number];

/** The close reason of a phone conversation that ended with a voicemail (not an abandon: dashboards count it apart). */
export const VOICEMAIL_CLOSE_REASON = 'voicemail';

/**
 * An attended transfer's consultation (POST/DELETE /api/voice/conversations/:id/transfer/consult, POST …/complete, and
 * GET …/call's `consult`): whom the connected agent consults and how far it got. 'ringing' until the consulted agent's
 * softphone answers, 'active' while the two talk (the caller hears hold music), 'completing' / 'cancelling' once asked;
 * null agent: no consultation.
 */
export interface VoiceConsultView {
  callId: string;
  agentId: string | null;
  agentName: string | null;
  state: 'ringing' | 'active' | 'completing' | 'cancelling' | null;
}

/**
 * A stored recording of a connected inbound call (GET /voice/conversations/:id/recordings): a stereo 8 kHz WAV,
 * caller on the left, agent on the right. `url` plays it (signed, short-lived, Range requests), `downloadUrl` saves it.
 */
export interface VoiceRecordingView {
  id: string;
  callId: string;
  conversationId: string | null;
  /** 'voicemail': the caller's message left on a line's voicemail (no agent). */
  kind: VoiceRecordingKind;
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
