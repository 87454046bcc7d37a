/**
 * The SIP side of the softphone, behind an interface so the machine and its tests never touch
 * sip.js (sipjs-adapter.ts is the real one; specs use a fake).
 */

/** What the SIP stack reports; each becomes an event of the softphone machine. */
export type SipEvent =
  | { type: 'sip.registered' }
  | { type: 'sip.unregistered' }
  /** The server could not be reached or refused the registration (reason: a status code or 'connection'). */
  | { type: 'sip.failed'; reason: string }
  /** The WebSocket dropped while registered. */
  | { type: 'sip.disconnected' }
  /**
   * `outboundCallId`: the dialer's call this is (X-Outbound-Call-Id on the INVITE), null for an ordinary call.
   * `conversationId`: the inbound phone conversation the voice server bridges (X-Centralita-Conversation), for the screen pop.
   */
  | {
      type: 'sip.incoming';
      callId: string;
      remoteNumber: string;
      remoteName: string | null;
      outboundCallId?: string | null;
      conversationId?: string | null;
    }
  | { type: 'sip.calling'; callId: string }
  | { type: 'sip.answered'; callId: string }
  /** The call ended, whoever hung up (or it was cancelled, declined or rejected). */
  | { type: 'sip.ended'; callId: string; reason: CallEndReason }
  | { type: 'sip.held'; held: boolean }
  | { type: 'sip.dtmfReceived'; tone: string }
  /** An in-call action failed (hold, transfer, DTMF…); the call goes on. */
  | { type: 'sip.actionFailed'; action: string };

export type CallEndReason = 'hangup' | 'remoteHangup' | 'cancelled' | 'declined' | 'rejected' | 'transferred';

export interface SipAdapter {
  register(): Promise<void>;
  unregister(): Promise<void>;
  dial(target: string): Promise<void>;
  answer(): Promise<void>;
  decline(): Promise<void>;
  hangup(): Promise<void>;
  setMuted(muted: boolean): void;
  setHeld(held: boolean): Promise<void>;
  sendDtmf(tone: string): Promise<void>;
  transfer(target: string): Promise<void>;
  dispose(): Promise<void>;
}

export const DTMF_TONES = ['1', '2', '3', '4', '5', '6', '7', '8', '9', '*', '0', '#'] as const;
