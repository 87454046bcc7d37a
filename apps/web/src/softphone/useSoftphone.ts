import { useEffect, useMemo, useState } from 'react';
import { createActor, type SnapshotFrom } from 'xstate';
import type { CallerLookup, SoftphoneSettings } from '@centralita/contracts';
import { useServices } from '../app/ServicesContext';
import type { SipAdapter, SipEvent } from './sip-adapter';
import { createSoftphoneApi, type SoftphoneApi } from './softphone-api';
import { bindSoftphone, softphoneMachine, type SoftphoneEvent } from './softphone.machine';

export type SoftphoneSnapshot = SnapshotFrom<typeof softphoneMachine>;

export interface SoftphoneHandle {
  api: SoftphoneApi;
  /** null while loading. */
  settings: SoftphoneSettings | null;
  loadError: unknown;
  snapshot: SoftphoneSnapshot | null;
  send(event: SoftphoneEvent): void;
  /** Screen pop for the current call's number; null while it loads or without a call. */
  caller: CallerLookup | null;
}

/**
 * The agent's phone: loads their SIP settings, starts sip.js (loaded on demand) behind the
 * softphone machine, registers, and looks the caller up for the screen pop. Stopping the
 * component unregisters and closes the WebSocket.
 */
export function useSoftphone(): SoftphoneHandle {
  const { client } = useServices();
  const api = useMemo(() => createSoftphoneApi(client), [client]);
  const [settings, setSettings] = useState<SoftphoneSettings | null>(null);
  const [loadError, setLoadError] = useState<unknown>(null);
  const [snapshot, setSnapshot] = useState<SoftphoneSnapshot | null>(null);
  const [sender, setSender] = useState<{ send(event: SoftphoneEvent): void }>({ send: () => {} });
  const [caller, setCaller] = useState<CallerLookup | null>(null);

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
      actor = createActor(bindSoftphone(adapter, { callStarted: api.callStarted, callEnded: api.callEnded }, send));
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
  }, [settings, api]);

  const number = snapshot?.context.call?.remoteNumber ?? null;
  useEffect(() => {
    setCaller(null);
    if (!number) return;
    let live = true;
    api
      .lookup(number)
      .then((found) => live && setCaller(found))
      .catch(() => live && setCaller({ number, contacts: [] }));
    return () => {
      live = false;
    };
  }, [api, number]);

  return { api, settings, loadError, snapshot, send: sender.send, caller };
}
