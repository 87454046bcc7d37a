import type { SoftphoneSettings } from '@centralita/contracts';
import { Inviter, Web, type Invitation, type Session } from 'sip.js';
import { OUTBOUND_CALL_ID_HEADER, outboundCallIdFrom } from './dialer-call';
import { CONVERSATION_HEADER, conversationIdFrom } from './screen-pop';
import type { CallEndReason, SipAdapter, SipEvent } from './sip-adapter';

/** sip.js (SessionManager: one UserAgent, its Registerer and one call at a time) behind SipAdapter. */
export function createSipJsAdapter(settings: SoftphoneSettings, emit: (event: SipEvent) => void): SipAdapter {
  const domain = settings.domain;
  const target = (value: string) => (value.startsWith('sip:') ? value : `sip:${value}@${domain}`);
  const audio = document.createElement('audio');
  audio.autoplay = true;

  let session: Session | null = null;
  let answered = false;
  let hungUpHere = false;
  let declined = false;
  let registered = false;

  const callIdOf = (current: Session) => (current as Invitation | Inviter).request.callId;

  const manager = new Web.SessionManager(settings.wsUrl, {
    aor: `sip:${settings.extension}@${domain}`,
    maxSimultaneousSessions: 1,
    media: { constraints: { audio: true, video: false }, remote: { audio } },
    reconnectionAttempts: 0,
    registrationRetry: false,
    userAgentOptions: {
      authorizationUsername: settings.authUser || settings.extension,
      authorizationPassword: settings.password,
      displayName: settings.displayName,
      logLevel: 'error',
      sessionDescriptionHandlerFactoryOptions: {
        // No STUN unless the tenant configured one: host candidates work on a LAN, and a public STUN would leak.
        peerConnectionConfiguration: { iceServers: settings.iceServers.map((urls) => ({ urls })) },
        iceGatheringTimeout: 2000,
      },
    },
    registererRegisterOptions: {
      requestDelegate: {
        onReject: (response) => emit({ type: 'sip.failed', reason: String(response.message.statusCode) }),
      },
    },
    delegate: {
      onRegistered: () => {
        registered = true;
        emit({ type: 'sip.registered' });
      },
      onUnregistered: () => {
        if (registered) emit({ type: 'sip.unregistered' });
        registered = false;
      },
      onServerDisconnect: (error) => {
        if (error) emit({ type: registered ? 'sip.disconnected' : 'sip.failed', reason: 'connection' } as SipEvent);
        registered = false;
      },
      onCallReceived: (incoming) => {
        track(incoming);
        emit({
          type: 'sip.incoming',
          callId: callIdOf(incoming),
          remoteNumber: incoming.remoteIdentity.uri.user ?? '',
          remoteName: incoming.remoteIdentity.displayName || null,
          outboundCallId: outboundCallIdFrom((incoming as Invitation).request.getHeader(OUTBOUND_CALL_ID_HEADER)),
          conversationId: conversationIdFrom((incoming as Invitation).request.getHeader(CONVERSATION_HEADER)),
        });
      },
      onCallCreated: (created) => {
        // Incoming calls are reported by onCallReceived; this is for our own INVITEs.
        if (created instanceof Inviter) {
          track(created);
          emit({ type: 'sip.calling', callId: callIdOf(created) });
        }
      },
      onCallAnswered: (current) => {
        answered = true;
        emit({ type: 'sip.answered', callId: callIdOf(current) });
      },
      onCallHangup: (current) => {
        if (current !== session) return;
        const reason: CallEndReason = answered
          ? hungUpHere
            ? 'hangup'
            : 'remoteHangup'
          : declined
            ? 'declined'
            : hungUpHere
              ? 'cancelled'
              : 'rejected';
        session = null;
        emit({ type: 'sip.ended', callId: callIdOf(current), reason });
      },
      onCallHold: (_current, held) => emit({ type: 'sip.held', held }),
      onCallDTMFReceived: (_current, tone) => emit({ type: 'sip.dtmfReceived', tone }),
    },
  });

  function track(next: Session) {
    session = next;
    answered = false;
    hungUpHere = false;
    declined = false;
  }

  const current = (): Session => {
    if (!session) throw new Error('no call');
    return session;
  };

  return {
    async register() {
      await manager.connect();
      await manager.register();
    },
    async unregister() {
      if (registered) await manager.unregister();
      registered = false;
    },
    async dial(number) {
      await manager.call(target(number), { earlyMedia: false });
    },
    answer: async () => manager.answer(current()),
    async decline() {
      declined = true;
      await manager.decline(current());
    },
    async hangup() {
      hungUpHere = true;
      await manager.hangup(current());
    },
    setMuted: (muted) => (muted ? manager.mute(current()) : manager.unmute(current())),
    setHeld: async (held) => (held ? manager.hold(current()) : manager.unhold(current())),
    sendDtmf: async (tone) => manager.sendDTMF(current(), tone),
    async transfer(to) {
      await manager.transfer(current(), target(to));
    },
    async dispose() {
      try {
        if (session) {
          hungUpHere = true;
          await manager.hangup(session);
        }
        if (registered) await manager.unregister();
      } finally {
        registered = false;
        await manager.disconnect();
        audio.srcObject = null;
      }
    },
  };
}
