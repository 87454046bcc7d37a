import { useEffect, useMemo, useState } from 'react';
import { createActor, type SnapshotFrom } from 'xstate';
import type { CallerLookup, ContactPersonView, SoftphoneSettings, VoiceScreenPop } from '@centralita/contracts';
import { useServices } from '../app/ServicesContext';
import { createContactsApi } from '../desk/components/ContactPersonPanel';
import { createOutboundApi, type AgentCall, type OutboundApi } from '../outbound/outbound-api';
import type { SipAdapter, SipEvent } from './sip-adapter';
import { createSoftphoneApi, type SoftphoneApi } from './softphone-api';
import { bindSoftphone, softphoneMachine, type SoftphoneEvent } from './softphone.machine';

export type SoftphoneSnapshot = SnapshotFrom<typeof softphoneMachine>;

/** The dialer's call on the line: its screen pop from the outbound API (loading, found, or not available). */
export type DialerPop = { status: 'loading' } | { status: 'ready'; call: AgentCall } | { status: 'unavailable' };

/**
 * An inbound call the voice server bridged (X-Centralita-Conversation): the call's screen pop from the voice API and
 * the caller's contact as the desk's person panel shows it (person null: none, or `personFailed`).
 */
export type InboundPop =
  | { status: 'loading' }
  | { status: 'ready'; pop: VoiceScreenPop; person: ContactPersonView | null; personFailed: boolean }
  | { status: 'unavailable' };

export interface SoftphoneHandle {
  api: SoftphoneApi;
  /** The outbound API: dialer calls are dispositioned with UpdDISPO there. */
  outbound: OutboundApi;
  /** null while loading. */
  settings: SoftphoneSettings | null;
  loadError: unknown;
  snapshot: SoftphoneSnapshot | null;
  send(event: SoftphoneEvent): void;
  /** Screen pop for the current call's number; null while it loads or without a call. */
  caller: CallerLookup | null;
  /** For a dialer call (X-Outbound-Call-Id): its screen pop; null for any other call. */
  dialer: DialerPop | null;
  /** For an inbound call of a phone conversation (X-Centralita-Conversation): its screen pop; null for any other call. */
  inbound: InboundPop | null;
}

/**
 * The agent's phone: loads their SIP settings, starts sip.js (loaded on demand) behind the
 * softphone machine, registers, and looks the caller up for the screen pop. Stopping the
 * component unregisters and closes the WebSocket.
 */
export function useSoftphone(): SoftphoneHandle {
  const { client } = useServices();
  const api = useMemo(() => createSoftphoneApi(client), [client]);
  const outbound = useMemo(() => createOutboundApi(client), [client]);
  const [settings, setSettings] = useState<SoftphoneSettings | null>(null);
  const [loadError, setLoadError] = useState<unknown>(null);
  const [snapshot, setSnapshot] = useState<SoftphoneSnapshot | null>(null);
  const [sender, setSender] = useState<{ send(event: SoftphoneEvent): void }>({ send: () => {} });
  const [caller, setCaller] = useState<CallerLookup | null>(null);
  const [dialer, setDialer] = useState<DialerPop | null>(null);
  const [inbound, setInbound] = useState<InboundPop | null>(null);
  const contacts = useMemo(() => createContactsApi(client), [client]);

  useEffect(() => {
    let live = true;
    api
      .settings()
      .then((loaded) => live && setSettings(loaded))
      .catch((error: unknown) => live && setLoadError(error));
    return () => {
      live = false;
    };
  }, [api]);

  useEffect(() => {
    if (!settings?.configured) return;
    let stopped = false;
    let adapter: SipAdapter | null = null;
    let actor: ReturnType<typeof createActor<ReturnType<typeof bindSoftphone>>> | null = null;
    const send = (event: SoftphoneEvent) => {
      if (!stopped) actor?.send(event);
    };
    void import('./sipjs-adapter').then(({ createSipJsAdapter }) => {
      if (stopped) return;
      adapter = createSipJsAdapter(settings, (event: SipEvent) => send({ ...event, at: Date.now() }));
      actor = createActor(
        bindSoftphone(
          adapter,
          { callStarted: api.callStarted, callEnded: api.callEnded, dialerCallEnded: (callId) => outbound.hangUp(callId) },
          send,
        ),
      );
      actor.subscribe((next) => setSnapshot(next));
      actor.start();
      setSender({ send });
      actor.send({ type: 'phone.register' });
    });
    return () => {
      stopped = true;
      actor?.stop();
      void adapter?.dispose().catch(() => undefined);
    };
  }, [settings, api, outbound]);

  const number = snapshot?.context.call?.remoteNumber ?? null;
  const outboundCallId = snapshot?.context.call?.outboundCallId ?? null;
  useEffect(() => {
    setCaller(null);
    // A dialer call's screen pop is the outbound call's (below), not a phone-list look-up.
    if (!number || outboundCallId) return;
    let live = true;
    api
      .lookup(number)
      .then((found) => live && setCaller(found))
      .catch(() => live && setCaller({ number, contacts: [] }));
    return () => {
      live = false;
    };
  }, [api, number, outboundCallId]);

  // A dialer call: the agent's active outbound call is the screen pop (the same as the desk panel's).
  useEffect(() => {
    setDialer(outboundCallId ? { status: 'loading' } : null);
    if (!outboundCallId) return;
    let live = true;
    outbound
      .currentCall()
      .then(
        (current) =>
          live && setDialer(current && current.id === outboundCallId ? { status: 'ready', call: current } : { status: 'unavailable' }),
      )
      .catch(() => live && setDialer({ status: 'unavailable' }));
    return () => {
      live = false;
    };
  }, [outbound, outboundCallId]);

  // An inbound phone conversation's call: the voice API's pop (line, IVR path, wait) and the contact's person.
  const conversationId = snapshot?.context.call?.conversationId ?? null;
  useEffect(() => {
    setInbound(conversationId ? { status: 'loading' } : null);
    if (!conversationId) return;
    let live = true;
    const person = contacts.byConversation(conversationId).then(
      (found) => ({ person: found, personFailed: false }),
      () => ({ person: null, personFailed: true }),
    );
    client
      .get<VoiceScreenPop>(`/api/voice/conversations/${encodeURIComponent(conversationId)}/screen-pop`)
      .then(async (pop) => {
        const found = await person;
        if (live) setInbound({ status: 'ready', pop, ...found });
      })
      .catch(() => live && setInbound({ status: 'unavailable' }));
    return () => {
      live = false;
    };
  }, [client, contacts, conversationId]);

  return { api, outbound, settings, loadError, snapshot, send: sender.send, caller, dialer, inbound };
}
