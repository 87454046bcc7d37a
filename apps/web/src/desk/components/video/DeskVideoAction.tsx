import { useCallback, useEffect, useRef, useState } from 'react';
import { createPortal } from 'react-dom';
import { useTranslation } from 'react-i18next';
import { Button } from 'primereact/button';
import { ProgressSpinner } from 'primereact/progressspinner';
import type {
  ConversationView,
  VideoCallEvent,
  VideoCallOffer,
  VideoCallView,
  VideoIceConfig,
  VideoRecordingView,
  VideoSignal,
} from '@centralita/contracts';
import { useServices } from '../../../app/ServicesContext';
import type { StaffSocket } from '../../realtime/socket-client';
import { CallRecorder, recordingMimeType } from './video-recorder';
import { VideoPeer, mediaFailure, stopStream, videoSupported, type PeerState } from './video-peer';
import './video-panel.css';

type Phase =
  | { name: 'idle' }
  | { name: 'offering' }
  | { name: 'waiting'; offer: VideoCallOffer }
  | { name: 'live'; offer: VideoCallOffer }
  | { name: 'ended'; reason: 'ended' | 'customerLeft' };

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/**
 * The desk's "Video" action and its panel (issue 23 items 1, 2 and 4): offer a call to the
 * customer of the selected conversation (they get a single-use link in the chat), then see and
 * hear each other; mute, camera off, screen sharing, recording once the customer agreed, hang up.
 * The conversation stays one: the chat goes on beside the panel, and the call's start and end
 * land in its history. The panel also lists the conversation's recordings, playable here.
 */
export function DeskVideoAction({
  conversation,
  meId,
  socket,
  dock,
}: {
  conversation: ConversationView;
  meId: string;
  socket: () => StaffSocket | null;
  /** Where the panel docks: the conversation pane, under its header, so it never covers the desk's controls. */
  dock?: HTMLElement | null;
}) {
  const { t } = useTranslation();
  const { client } = useServices();
  const [open, setOpen] = useState(false);
  const [phase, setPhase] = useState<Phase>({ name: 'idle' });
  const [error, setError] = useState<string | null>(null);
  const [peerState, setPeerState] = useState<PeerState>('new');
  const [muted, setMuted] = useState(false);
  const [cameraOff, setCameraOff] = useState(false);
  const [sharing, setSharing] = useState(false);
  const [minimised, setMinimised] = useState(false);
  const [consent, setConsent] = useState(false);
  const [recorder, setRecorder] = useState<{ id: string; recorder: CallRecorder } | null>(null);
  const [recordings, setRecordings] = useState<VideoRecordingView[] | null>(null);
  const localRef = useRef<HTMLVideoElement>(null);
  const remoteRef = useRef<HTMLVideoElement>(null);
  const media = useRef<{ local: MediaStream | null; remote: MediaStream | null; screen: MediaStream | null }>({
    local: null,
    remote: null,
    screen: null,
  });
  const peer = useRef<VideoPeer | null>(null);
  const ice = useRef<VideoIceConfig | null>(null);
  const callId = phase.name === 'waiting' || phase.name === 'live' ? phase.offer.call.id : null;
  const handles = conversation.status === 'Active' && conversation.agentId === meId;

  const loadRecordings = useCallback(() => {
    client
      .get<VideoRecordingView[]>(`/api/conversations/${conversation.id}/video-recordings`)
      .then(setRecordings)
      .catch(() => setRecordings([]));
  }, [client, conversation.id]);

  useEffect(() => {
    if (open) loadRecordings();
  }, [open, loadRecordings]);

  const cleanup = useCallback(() => {
    peer.current?.close();
    peer.current = null;
    stopStream(media.current.local);
    stopStream(media.current.screen);
    media.current = { local: null, remote: null, screen: null };
    setSharing(false);
  }, []);

  const stopRecording = useCallback(
    async (current = recorder) => {
      if (!current || !callId) return;
      setRecorder(null);
      try {
        await current.recorder.stop();
      } catch (failure) {
        setError(t('video.panel.recordFailed', { message: messageOf(failure) }));
      }
      await client.post(`/api/video-calls/${callId}/recordings/${current.id}/stop`).catch(() => undefined);
      socket()?.emit('video.signal', { callId, kind: 'recording', data: { on: false } });
      loadRecordings();
    },
    [recorder, callId, client, socket, t, loadRecordings],
  );

  // Signalling: join the call's room, answer the customer's readiness with an offer.
  useEffect(() => {
    const s = socket();
    if (!s || !callId) return;
    const send = (kind: VideoSignal['kind'], data: unknown) => s.emit('video.signal', { callId, kind, data });
    const join = () => void s.emitWithAck('video.join', { callId }).then(() => send('ready', null));
    const onSignal = (signal: VideoSignal) => {
      if (signal.callId !== callId) return;
      if (signal.kind === 'ready') {
        const local = media.current.local;
        // One negotiation at a time: the customer's page says "ready" on connecting and in reply to ours.
        if (!local || !ice.current || peer.current?.active) return;
        peer.current?.close();
        peer.current = new VideoPeer(
          {
            ice: ice.current,
            send,
            onRemoteStream: (remote) => {
              media.current.remote = remote;
              if (remoteRef.current) remoteRef.current.srcObject = remote;
            },
            onState: (state) => {
              setPeerState(state);
              if (state === 'connected')
                setPhase((current) => (current.name === 'waiting' ? { name: 'live', offer: current.offer } : current));
            },
          },
          local,
        );
        (window as unknown as { __videoPeer?: VideoPeer }).__videoPeer = peer.current;
        if (media.current.screen) void peer.current.replaceVideo(media.current.screen.getVideoTracks()[0] ?? null);
        void peer.current.offer();
      } else void peer.current?.handle(signal);
    };
    const onCall = (event: VideoCallEvent) => {
      if (event.callId !== callId) return;
      if (event.state === 'consent') {
        void client
          .get<VideoCallView[]>(`/api/conversations/${conversation.id}/video-calls`)
          .then((calls) => setConsent(Boolean(calls.find((call) => call.id === callId)?.recordingConsentAt)));
      } else if (event.state === 'ended') {
        void stopRecording();
        cleanup();
        setPhase({ name: 'ended', reason: 'ended' });
      } else if (event.state === 'left') {
        // Their page went away (a reload takes the call up again and says "ready"): start over then.
        peer.current?.close();
        peer.current = null;
        setPeerState('connecting');
      }
    };
    s.on('video.signal', onSignal);
    s.on('video.call', onCall);
    s.on('connect', join);
    join();
    return () => {
      s.off('video.signal', onSignal);
      s.off('video.call', onCall);
      s.off('connect', join);
    };
  }, [callId, socket, client, conversation.id, cleanup, stopRecording]);

  useEffect(() => () => cleanup(), [cleanup]);

  const offer = async () => {
    setError(null);
    if (!videoSupported()) return setError(t('video.problems.unsupported'));
    setPhase({ name: 'offering' });
    try {
      media.current.local = await navigator.mediaDevices.getUserMedia({ audio: true, video: { width: 640, height: 360 } });
    } catch (failure) {
      setPhase({ name: 'idle' });
      return setError(t(`video.problems.${mediaFailure(failure)}`));
    }
    if (localRef.current) localRef.current.srcObject = media.current.local;
    try {
      const made = await client.post<VideoCallOffer>(`/api/conversations/${conversation.id}/video-calls`);
      ice.current = await client.get<VideoIceConfig>(`/api/video-calls/${made.call.id}/ice`);
      setConsent(Boolean(made.call.recordingConsentAt));
      setPhase({ name: 'waiting', offer: made });
    } catch (failure) {
      cleanup();
      setPhase({ name: 'idle' });
      setError(t('video.panel.offerFailed', { message: messageOf(failure) }));
    }
  };

  useEffect(() => {
    if (localRef.current && media.current.local) localRef.current.srcObject = media.current.local;
  });

  const hangUp = async () => {
    if (!callId) return;
    await stopRecording();
    await client.post(`/api/conversations/${conversation.id}/video-calls/${callId}/end`).catch(() => undefined);
    cleanup();
    setPhase({ name: 'ended', reason: 'ended' });
  };

  const toggleMute = () => {
    for (const track of media.current.local?.getAudioTracks() ?? []) track.enabled = muted;
    setMuted(!muted);
  };
  const toggleCamera = () => {
    for (const track of media.current.local?.getVideoTracks() ?? []) track.enabled = cameraOff;
    setCameraOff(!cameraOff);
  };
  // Screen sharing swaps the outgoing video track (no renegotiation) and back to the camera when
  // the agent stops it or the browser's own "Stop sharing" ends the screen's track.
  const stopShare = useCallback(async () => {
    const screen = media.current.screen;
    if (!screen) return;
    media.current.screen = null;
    stopStream(screen);
    setSharing(false);
    await peer.current?.replaceVideo(media.current.local?.getVideoTracks()[0] ?? null);
  }, []);
  const startShare = async () => {
    if (media.current.screen) return;
    setError(null);
    let screen: MediaStream;
    try {
      screen = await navigator.mediaDevices.getDisplayMedia({ video: true, audio: false });
    } catch (failure) {
      // Closing the browser's picker without choosing is a refusal too: nothing to report then.
      if ((failure as { name?: string } | null)?.name !== 'NotAllowedError') setError(t('video.panel.shareFailed'));
      return;
    }
    const track = screen.getVideoTracks()[0];
    if (!track || !peer.current) return stopStream(screen);
    media.current.screen = screen;
    track.addEventListener('ended', () => void stopShare(), { once: true });
    setSharing(true);
    await peer.current.replaceVideo(track);
  };
  const startRecording = async () => {
    const mimeType = recordingMimeType();
    if (!callId || !mimeType || !media.current.local || !media.current.remote || !remoteRef.current || !localRef.current) return;
    setError(null);
    try {
      const made = await client.post<VideoRecordingView>(`/api/video-calls/${callId}/recordings`, { mimeType });
      const started = new CallRecorder(
        remoteRef.current,
        localRef.current,
        { remote: media.current.remote, local: media.current.local },
        mimeType,
        {
          upload: (index, blob) =>
            client.request(`/api/video-calls/${callId}/recordings/${made.id}/chunks/${index}`, {
              method: 'POST',
              rawBody: blob,
              headers: { 'Content-Type': 'application/octet-stream' },
            }),
        },
      );
      setRecorder({ id: made.id, recorder: started });
      socket()?.emit('video.signal', { callId, kind: 'recording', data: { on: true } });
    } catch (failure) {
      setError(t('video.panel.recordFailed', { message: messageOf(failure) }));
    }
  };

  const live = phase.name === 'live' || phase.name === 'waiting';
  const panel = open ? (
    <section
      className={`video-panel ${dock ? 'video-panel--docked' : 'video-panel--floating'}${minimised ? ' video-panel--minimised' : ''}`}
      aria-label={t('video.panel.title')}
      data-testid="video-panel"
      data-phase={phase.name}
      data-peer={peerState}
      data-sharing={sharing}
      data-minimised={minimised}
    >
      <header className="video-panel__header">
        <strong>
          <i className="pi pi-video" aria-hidden="true" /> {t('video.panel.title')} · {conversation.customerName}
          {minimised && live ? (
            <span className="video-panel__badge">
              {' · '}
              {phase.name === 'waiting' ? t('video.panel.waitingShort') : t('video.panel.live')}
            </span>
          ) : null}
        </strong>
        <span className="video-panel__header-actions">
          {minimised && live ? (
            <Button
              size="small"
              severity="danger"
              icon="pi pi-phone"
              text
              rounded
              aria-label={t('video.panel.hangUp')}
              onClick={() => void hangUp()}
              data-testid="video-panel-hangup-mini"
            />
          ) : null}
          <Button
            icon={minimised ? 'pi pi-window-maximize' : 'pi pi-window-minimize'}
            text
            rounded
            aria-label={minimised ? t('video.panel.restore') : t('video.panel.minimise')}
            title={minimised ? t('video.panel.restore') : t('video.panel.minimise')}
            onClick={() => setMinimised(!minimised)}
            data-testid="video-panel-minimise"
          />
          <Button
            icon="pi pi-times"
            text
            rounded
            aria-label={t('video.panel.close')}
            onClick={() => setOpen(false)}
            disabled={live}
            data-testid="video-panel-close"
          />
        </span>
      </header>
      <div className="video-panel__body">
        <div className="video-panel__stage" hidden={!live}>
          <figure>
            <video ref={remoteRef} autoPlay playsInline data-testid="video-panel-remote" />
            <figcaption>{t('video.panel.customer')}</figcaption>
          </figure>
          <figure className="video-panel__self">
            <video ref={localRef} autoPlay playsInline muted data-testid="video-panel-local" />
            <figcaption>{t('video.panel.you')}</figcaption>
          </figure>
        </div>
        <div className="video-panel__side">
          {error ? (
            <p className="video-panel__error" role="alert" data-testid="video-panel-error">
              {error}
            </p>
          ) : null}
          {phase.name === 'idle' || phase.name === 'ended' ? (
            <div className="video-panel__idle">
              {phase.name === 'ended' ? <p role="status">{t(`video.panel.${phase.reason}`)}</p> : null}
              <Button
                label={t('video.panel.offer')}
                icon="pi pi-video"
                disabled={!handles}
                onClick={() => void offer()}
                data-testid="video-offer"
              />
            </div>
          ) : null}
          {phase.name === 'offering' ? (
            <div className="video-panel__idle" aria-busy="true">
              <ProgressSpinner style={{ width: 32, height: 32 }} />
              <p>{t('video.panel.offering')}</p>
            </div>
          ) : null}
          {live ? (
            <>
              <p className="video-panel__status" role="status" data-testid="video-panel-status">
                {phase.name === 'waiting'
                  ? t('video.panel.waiting')
                  : peerState === 'connected'
                    ? t('video.panel.live')
                    : t('video.panel.connecting')}
              </p>
              {phase.name === 'waiting' ? <p className="video-panel__hint">{t('video.panel.linkHint')}</p> : null}
              {sharing ? (
                <p className="video-panel__sharing" data-testid="video-panel-sharing">
                  <i className="pi pi-desktop" aria-hidden="true" /> {t('video.panel.sharing')}
                </p>
              ) : null}
              <p
                className={consent ? 'video-panel__consent video-panel__consent--yes' : 'video-panel__consent'}
                data-testid="video-panel-consent"
              >
                <i className={consent ? 'pi pi-check-circle' : 'pi pi-info-circle'} aria-hidden="true" />{' '}
                {consent ? t('video.panel.consentGiven') : t('video.panel.consentMissing')}
              </p>
              <div className="video-panel__controls">
                <Button
                  size="small"
                  outlined
                  icon={muted ? 'pi pi-microphone-slash' : 'pi pi-microphone'}
                  label={muted ? t('video.panel.unmute') : t('video.panel.mute')}
                  onClick={toggleMute}
                  data-testid="video-panel-mute"
                />
                <Button
                  size="small"
                  outlined
                  icon={cameraOff ? 'pi pi-eye-slash' : 'pi pi-eye'}
                  label={cameraOff ? t('video.panel.cameraOn') : t('video.panel.cameraOff')}
                  onClick={toggleCamera}
                  data-testid="video-panel-camera"
                />
                <Button
                  size="small"
                  outlined
                  icon="pi pi-desktop"
                  label={sharing ? t('video.panel.stopShare') : t('video.panel.share')}
                  onClick={() => void (sharing ? stopShare() : startShare())}
                  disabled={phase.name !== 'live'}
                  data-testid="video-panel-share"
                />
                {recorder ? (
                  <Button
                    size="small"
                    severity="warning"
                    icon="pi pi-stop-circle"
                    label={t('video.panel.stopRecording')}
                    onClick={() => void stopRecording()}
                    data-testid="video-panel-stop-recording"
                  />
                ) : (
                  <Button
                    size="small"
                    outlined
                    icon="pi pi-circle"
                    label={t('video.panel.record')}
                    disabled={!consent || phase.name !== 'live'}
                    onClick={() => void startRecording()}
                    data-testid="video-panel-record"
                  />
                )}
                <Button
                  size="small"
                  severity="danger"
                  icon="pi pi-phone"
                  label={t('video.panel.hangUp')}
                  onClick={() => void hangUp()}
                  data-testid="video-panel-hangup"
                />
              </div>
              {recorder ? (
                <p className="video-panel__recording" data-testid="video-panel-recording">
                  <i className="pi pi-circle-fill" aria-hidden="true" /> {t('video.panel.recording')}
                </p>
              ) : null}
            </>
          ) : null}
          {/* During a call the list shows only once there is something to play, to keep the call's controls in view. */}
          {live && !recordings?.length ? null : <h4 className="video-panel__subtitle">{t('video.panel.recordings')}</h4>}
          {live && !recordings?.length ? null : recordings === null ? (
            <p className="muted">{t('video.panel.loadingRecordings')}</p>
          ) : recordings.length === 0 ? (
            <p className="muted">{t('video.panel.noRecordings')}</p>
          ) : (
            <ul className="video-panel__recordings" data-testid="video-recordings">
              {recordings.map((recording) => (
                <li key={recording.id} data-status={recording.status}>
                  {recording.status === 'ready' && recording.url ? (
                    <video controls preload="metadata" src={recording.url} data-testid="video-recording-player" />
                  ) : recording.status === 'failed' ? (
                    <span>{t('video.panel.failedRecording')}</span>
                  ) : (
                    <span>{t('video.panel.finalising')}</span>
                  )}
                </li>
              ))}
            </ul>
          )}
          {recordings?.some((recording) => recording.status !== 'ready' && recording.status !== 'failed') ? (
            <Button
              size="small"
              text
              icon="pi pi-refresh"
              onClick={loadRecordings}
              aria-label={t('video.panel.recordings')}
              data-testid="video-recordings-refresh"
            />
          ) : null}
        </div>
      </div>
    </section>
  ) : null;

  return (
    <>
      <Button label={t('video.action')} icon="pi pi-video" size="small" outlined onClick={() => setOpen(true)} data-testid="chat-video" />
      {panel ? createPortal(panel, dock ?? document.body) : null}
    </>
  );
}
