import { assign, setup } from 'xstate';
import type { CallDirection } from '@centralita/contracts';
import { isDialerCall } from './dialer-call';
import type { CallEndReason, SipAdapter, SipEvent } from './sip-adapter';

/**
 * The console's softphone: unregistered → registering → registered → (ringing | calling) →
 * inCall (muted / held flags) → ended (disposition form) → registered; failed on errors.
 * Side effects are named actions with no-op defaults, bound to a SIP adapter and the presence
 * API with `.provide()` (see bindSoftphone), so the machine itself stays pure.
 */

export interface SoftphoneCall {
  callId: string | null;
  direction: CallDirection;
  remoteNumber: string;
  remoteName: string | null;
  /** When the call was answered (ms), null while it rings or if it never was. */
  answeredAt: number | null;
  endedAt: number | null;
  endReason: CallEndReason | null;
  /** The outbound dialer's call this is (X-Outbound-Call-Id), null for an ordinary call. */
  outboundCallId: string | null;
  /** The inbound phone conversation the voice server bridged (X-Centralita-Conversation), null otherwise. */
  conversationId: string | null;
}

export interface SoftphoneContext {
  call: SoftphoneCall | null;
  muted: boolean;
  held: boolean;
  /** Digits sent in this call, and those received. */
  dtmfSent: string;
  dtmfReceived: string;
  /** Why registration failed or the connection dropped: a SIP status code, 'connection' or 'disconnected'. */
  error: string | null;
  /** The last in-call action that failed, for a notice. */
  failedAction: string | null;
}

export type SoftphoneCommand =
  | { type: 'phone.register' }
  | { type: 'phone.unregister' }
  | { type: 'phone.dial'; target: string }
  | { type: 'phone.answer' }
  | { type: 'phone.decline' }
  | { type: 'phone.hangup' }
  | { type: 'phone.mute.toggle' }
  | { type: 'phone.hold.toggle' }
  | { type: 'phone.dtmf'; tone: string }
  | { type: 'phone.transfer'; target: string }
  /** The disposition was stored (or the agent dismissed the form): ready for the next call. */
  | { type: 'phone.wrapUp.done' };

export type SoftphoneEvent = SoftphoneCommand | (SipEvent & { at?: number });

const EMPTY_CALL_FLAGS = { muted: false, held: false, dtmfSent: '', dtmfReceived: '', failedAction: null as string | null };

export const softphoneMachine = setup({
  types: { context: {} as SoftphoneContext, events: {} as SoftphoneEvent },
  actions: {
    register: () => {},
    unregister: () => {},
    dial: (_, _params: { target: string }) => {},
    answer: () => {},
    decline: () => {},
    hangup: () => {},
    setMuted: (_, _params: { muted: boolean }) => {},
    setHeld: (_, _params: { held: boolean }) => {},
    sendDtmf: (_, _params: { tone: string }) => {},
    transfer: (_, _params: { target: string }) => {},
    /** Presence link: the agent is in a call (agent.callStarted). */
    reportInCall: () => {},
    /** Presence link: the call ended (agent.callEnded → afterCallWork). */
    reportCallEnded: () => {},
    resetCall: assign({ call: null, ...EMPTY_CALL_FLAGS }),
    clearError: assign({ error: null }),
    setError: assign((_, params: { error: string }) => ({ error: params.error })),
    startOutbound: assign((_, params: { target: string }) => ({ call: newCall('outbound', params.target, null), ...EMPTY_CALL_FLAGS })),
    startInbound: assign(
      (
        _,
        params: {
          callId: string;
          remoteNumber: string;
          remoteName: string | null;
          outboundCallId?: string | null;
          conversationId?: string | null;
        },
      ) => ({
        call: {
          ...newCall('inbound', params.remoteNumber, params.remoteName),
          callId: params.callId,
          outboundCallId: params.outboundCallId ?? null,
          conversationId: params.conversationId ?? null,
        },
        ...EMPTY_CALL_FLAGS,
      }),
    ),
    setCallId: assign(({ context }, params: { callId: string }) => ({ call: context.call && { ...context.call, callId: params.callId } })),
    toggleMuted: assign(({ context }) => ({ muted: !context.muted })),
    setHeldFlag: assign((_, params: { held: boolean }) => ({ held: params.held })),
    addSentTone: assign(({ context }, params: { tone: string }) => ({ dtmfSent: context.dtmfSent + params.tone })),
    addReceivedTone: assign(({ context }, params: { tone: string }) => ({ dtmfReceived: context.dtmfReceived + params.tone })),
    setFailedAction: assign((_, params: { action: string }) => ({ failedAction: params.action })),
    markAnswered: assign(({ context }, params: { callId: string; at: number }) => ({
      call: context.call && { ...context.call, callId: params.callId || context.call.callId, answeredAt: params.at },
    })),
    markEnded: assign(({ context }, params: { callId: string; reason: CallEndReason; at: number }) => ({
      call: context.call && {
        ...context.call,
        callId: context.call.callId ?? (params.callId || null),
        endedAt: params.at,
        endReason: params.reason,
      },
      held: false,
    })),
  },
  guards: {
    hasTarget: (_, params: { target: string }) => params.target.trim().length > 0,
    isTone: (_, params: { tone: string }) => /^[0-9*#A-D]$/.test(params.tone),
  },
}).createMachine({
  id: 'softphone',
  initial: 'unregistered',
  context: { call: null, error: null, ...EMPTY_CALL_FLAGS },
  on: {
    'sip.dtmfReceived': { actions: { type: 'addReceivedTone', params: ({ event }) => ({ tone: event.tone }) } },
  },
  states: {
    unregistered: {
      on: { 'phone.register': { target: 'registering' } },
    },
    registering: {
      entry: ['clearError', 'register'],
      on: {
        'sip.registered': { target: 'registered' },
        'sip.failed': { target: 'failed', actions: { type: 'setError', params: ({ event }) => ({ error: event.reason }) } },
        'phone.unregister': { target: 'unregistered', actions: 'unregister' },
      },
    },
    failed: {
      on: { 'phone.register': { target: 'registering' } },
    },
    registered: {
      entry: 'resetCall',
      on: {
        'phone.dial': {
          guard: { type: 'hasTarget', params: ({ event }) => ({ target: event.target }) },
          target: 'calling',
          actions: [
            { type: 'startOutbound', params: ({ event }) => ({ target: event.target.trim() }) },
            { type: 'dial', params: ({ event }) => ({ target: event.target.trim() }) },
          ],
        },
        'sip.incoming': { target: 'ringing', actions: { type: 'startInbound', params: ({ event }) => event } },
        'phone.unregister': { target: 'unregistered', actions: 'unregister' },
        'sip.unregistered': { target: 'unregistered' },
        'sip.disconnected': { target: 'failed', actions: { type: 'setError', params: { error: 'disconnected' } } },
        'sip.failed': { target: 'failed', actions: { type: 'setError', params: ({ event }) => ({ error: event.reason }) } },
      },
    },
    ringing: {
      on: {
        'phone.answer': { actions: 'answer' },
        'phone.decline': { actions: 'decline' },
        'sip.answered': {
          target: 'inCall',
          actions: { type: 'markAnswered', params: ({ event }) => ({ callId: event.callId, at: event.at ?? Date.now() }) },
        },
        'sip.ended': { target: 'ended', actions: { type: 'markEnded', params: ({ event }) => ({ ...event, at: event.at ?? Date.now() }) } },
        'sip.disconnected': { target: 'failed', actions: { type: 'setError', params: { error: 'disconnected' } } },
      },
    },
    calling: {
      on: {
        'sip.calling': { actions: { type: 'setCallId', params: ({ event }) => ({ callId: event.callId }) } },
        'phone.hangup': { actions: 'hangup' },
        'sip.answered': {
          target: 'inCall',
          actions: { type: 'markAnswered', params: ({ event }) => ({ callId: event.callId, at: event.at ?? Date.now() }) },
        },
        'sip.ended': { target: 'ended', actions: { type: 'markEnded', params: ({ event }) => ({ ...event, at: event.at ?? Date.now() }) } },
        'sip.disconnected': { target: 'failed', actions: { type: 'setError', params: { error: 'disconnected' } } },
      },
    },
    inCall: {
      entry: 'reportInCall',
      on: {
        'phone.mute.toggle': {
          actions: ['toggleMuted', { type: 'setMuted', params: ({ context }) => ({ muted: context.muted }) }],
        },
        'phone.hold.toggle': { actions: { type: 'setHeld', params: ({ context }) => ({ held: !context.held }) } },
        'sip.held': { actions: { type: 'setHeldFlag', params: ({ event }) => ({ held: event.held }) } },
        'phone.dtmf': {
          guard: { type: 'isTone', params: ({ event }) => ({ tone: event.tone }) },
          actions: [
            { type: 'addSentTone', params: ({ event }) => ({ tone: event.tone }) },
            { type: 'sendDtmf', params: ({ event }) => ({ tone: event.tone }) },
          ],
        },
        'phone.transfer': {
          guard: { type: 'hasTarget', params: ({ event }) => ({ target: event.target }) },
          actions: { type: 'transfer', params: ({ event }) => ({ target: event.target.trim() }) },
        },
        'sip.actionFailed': { actions: { type: 'setFailedAction', params: ({ event }) => ({ action: event.action }) } },
        'phone.hangup': { actions: 'hangup' },
        'sip.ended': {
          target: 'ended',
          actions: [{ type: 'markEnded', params: ({ event }) => ({ ...event, at: event.at ?? Date.now() }) }, 'reportCallEnded'],
        },
        'sip.disconnected': { target: 'failed', actions: [{ type: 'setError', params: { error: 'disconnected' } }, 'reportCallEnded'] },
      },
    },
    ended: {
      on: {
        'phone.wrapUp.done': { target: 'registered' },
        'phone.dial': {
          guard: { type: 'hasTarget', params: ({ event }) => ({ target: event.target }) },
          target: 'calling',
          actions: [
            { type: 'startOutbound', params: ({ event }) => ({ target: event.target.trim() }) },
            { type: 'dial', params: ({ event }) => ({ target: event.target.trim() }) },
          ],
        },
        'sip.incoming': { target: 'ringing', actions: { type: 'startInbound', params: ({ event }) => event } },
        'phone.unregister': { target: 'unregistered', actions: 'unregister' },
        'sip.disconnected': { target: 'failed', actions: { type: 'setError', params: { error: 'disconnected' } } },
      },
    },
  },
});

function newCall(direction: CallDirection, remoteNumber: string, remoteName: string | null): SoftphoneCall {
  return {
    callId: null,
    direction,
    remoteNumber,
    remoteName,
    answeredAt: null,
    endedAt: null,
    endReason: null,
    outboundCallId: null,
    conversationId: null,
  };
}

export interface PresenceLink {
  callStarted(): Promise<unknown>;
  callEnded(): Promise<unknown>;
  /**
   * A dialer call ended on the softphone: HangUp on the outbound API (call → wrapUp). When the
   * contact hung up first the call is already in wrap-up and the refusal is ignored.
   */
  dialerCallEnded?(outboundCallId: string): Promise<unknown>;
}

/**
 * The machine with its actions bound to a SIP adapter and the presence API. Adapter promises that
 * reject are reported back as events (send), so failures show up as state, never as silent logs.
 */
export function bindSoftphone(adapter: SipAdapter, presence: PresenceLink, send: (event: SoftphoneEvent) => void) {
  const report = (action: string) => (promise: Promise<unknown>) =>
    void promise.catch(() =>
      send(action === 'register' ? { type: 'sip.failed', reason: 'connection' } : { type: 'sip.actionFailed', action }),
    );
  const quietly = (promise: Promise<unknown>) => void promise.catch(() => undefined);
  return softphoneMachine.provide({
    actions: {
      register: () => report('register')(adapter.register()),
      unregister: () => quietly(adapter.unregister()),
      dial: (_, { target }) => report('dial')(adapter.dial(target)),
      answer: () => report('answer')(adapter.answer()),
      decline: () => report('decline')(adapter.decline()),
      hangup: () => report('hangup')(adapter.hangup()),
      setMuted: (_, { muted }) => adapter.setMuted(muted),
      setHeld: (_, { held }) => report('hold')(adapter.setHeld(held)),
      sendDtmf: (_, { tone }) => report('dtmf')(adapter.sendDtmf(tone)),
      transfer: (_, { target }) => report('transfer')(adapter.transfer(target)),
      // The agent may not have logged into a campaign: the call works without presence. A dialer
      // call's presence follows the outbound call machine (outboundCall → afterCallWork) instead.
      reportInCall: ({ context }) => {
        if (!isDialerCall(context.call)) quietly(presence.callStarted());
      },
      reportCallEnded: ({ context }) => {
        const outboundCallId = context.call?.outboundCallId;
        if (!outboundCallId) return quietly(presence.callEnded());
        if (presence.dialerCallEnded) quietly(presence.dialerCallEnded(outboundCallId));
      },
    },
  });
}
