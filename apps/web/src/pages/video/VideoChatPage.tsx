import { useCallback, useEffect, useMemo, useRef, useState } from 'react';
import { useParams } from 'react-router-dom';
import i18next from 'i18next';
import { I18nextProvider, useTranslation } from 'react-i18next';
import { io, type Socket } from 'socket.io-client';
import { Button } from 'primereact/button';
import { Checkbox } from 'primereact/checkbox';
import { ProgressSpinner } from 'primereact/progressspinner';
import {
  DEFAULT_LANGUAGE,
  LANGUAGES,
  SOCKET_NAMESPACES,
  VIDEO_LINK_REASONS,
  type VideoGuestSession,
  type VideoLinkReason,
  type VideoLinkView,
  type VideoSignal,
  type VisitorClientEvents,
  type VisitorServerEvents,
} from '@centralita/contracts';
import { isApiError } from '../../api/api-error';
import { useServices } from '../../app/ServicesContext';
import { DICTIONARIES } from '../../i18n/resources';
import { pickLanguage } from '../../widget/widget-logic';
import { VideoPeer, mediaFailure, stopStream, videoSupported, type PeerState } from '../../desk/components/video/video-peer';
import './video-page.css';

type GuestSocket = Socket<VisitorServerEvents, VisitorClientEvents>;
type Problem = 'unsupported' | 'denied' | 'no_device' | 'network' | 'unreachable';

type Phase =
  | { name: 'loading' }
  | { name: 'refused'; reason: VideoLinkReason }
  | { name: 'problem'; problem: Problem }
  | { name: 'ready'; view: VideoLinkView }
  | { name: 'joining'; view: VideoLinkView | null }
  | { name: 'call'; session: VideoGuestSession }
  | { name: 'ended' };

const GUEST_KEY = (videoChatId: string) => `centralita.video.${videoChatId}`;
/**
 * How long an offer may take to connect. A network with no path between the browsers (UDP blocked
 * and no relay reachable) never reports a failure: the connection just stays new, so the page says
 * so itself rather than waiting for ever.
 */
const CONNECT_TIMEOUT_MS = 20_000;

function reasonOf(error: unknown): VideoLinkReason | null {
  if (!isApiError(error) || error.kind !== 'http') return null;
  const reason = (error.data as { reason?: unknown } | null)?.reason;
  return (VIDEO_LINK_REASONS as readonly unknown[]).includes(reason) ? (reason as VideoLinkReason) : null;
}

/**
 * /VideoChatContainer/{videoChatId}: the customer's side of a video call. Public (no session): the
 * single-use link is the credential, then the guest key the join gives (kept in this tab's session
 * storage, so a reload takes the call up again). Its own i18n instance in the customer's language
 * (?lang=, else the browser's), like the web-chat and unsubscribe pages.
 */
export function VideoChatPage() {
  const i18n = useMemo(() => {
    const instance = i18next.createInstance();
    void instance.init({
      resources: Object.fromEntries(LANGUAGES.map((lng) => [lng, { translation: DICTIONARIES[lng] }])),
      lng: pickLanguage(window.location.search, navigator.languages ?? [navigator.language]),
      fallbackLng: DEFAULT_LANGUAGE,
      interpolation: { escapeValue: false },
      initAsync: false,
    });
    return instance;
  }, []);
  useEffect(() => {
    document.documentElement.lang = i18n.language;
  }, [i18n]);
  return (
    <I18nextProvider i18n={i18n}>
      <VideoChat />
    </I18nextProvider>
  );
}

function VideoChat() {
  const { t } = useTranslation();
  const { client } = useServices();
  const { videoChatId = '' } = useParams();
  const [phase, setPhase] = useState<Phase>({ name: 'loading' });
  const [consent, setConsent] = useState(false);
  const [attempt, setAttempt] = useState(0);

  useEffect(() => {
    let current = true;
    setPhase({ name: 'loading' });
    if (!videoSupported()) {
      setPhase({ name: 'problem', problem: 'unsupported' });
      return;
    }
    const kept = sessionStorage.getItem(GUEST_KEY(videoChatId));
    const load = kept
      ? client
          .post<VideoGuestSession>('/api/public/video-guest/resume', undefined, { auth: false, headers: { 'x-video-guest-key': kept } })
          .then((session) => current && setPhase({ name: 'call', session }))
      : client
          .get<VideoLinkView>(`/api/public/video-calls/${encodeURIComponent(videoChatId)}`, { auth: false })
          .then((view) => current && setPhase({ name: 'ready', view }));
    load.catch((error: unknown) => {
      if (!current) return;
      if (kept) sessionStorage.removeItem(GUEST_KEY(videoChatId));
      const reason = reasonOf(error);
      if (kept && isApiError(error) && error.status === 410) setPhase({ name: 'ended' });
      else setPhase(reason ? { name: 'refused', reason } : { name: 'problem', problem: 'unreachable' });
    });
    return () => {
      current = false;
    };
  }, [client, videoChatId, attempt]);

  const join = async (view: VideoLinkView) => {
    setPhase({ name: 'joining', view });
    // Camera first: a refusal must not use the single-use link up.
    let probe: MediaStream;
    try {
      probe = await navigator.mediaDevices.getUserMedia({ audio: true, video: true });
    } catch (error) {
      setPhase({ name: 'problem', problem: mediaFailure(error) });
      return;
    }
    stopStream(probe);
    try {
      const session = await client.post<VideoGuestSession>(
        `/api/public/video-calls/${encodeURIComponent(videoChatId)}/join`,
        { recordingConsent: consent },
        { auth: false },
      );
      sessionStorage.setItem(GUEST_KEY(videoChatId), session.guestKey);
      setPhase({ name: 'call', session });
    } catch (error) {
      const reason = reasonOf(error);
      setPhase(reason ? { name: 'refused', reason } : { name: 'problem', problem: 'unreachable' });
    }
  };

  const ended = useCallback(() => {
    sessionStorage.removeItem(GUEST_KEY(videoChatId));
    setPhase({ name: 'ended' });
  }, [videoChatId]);
  // Stable: the call's effect depends on it, and must not start over when this page renders again.
  const problem = useCallback((which: Problem) => setPhase({ name: 'problem', problem: which }), []);

  return (
    <main className="video-page" data-testid="video-page">
      <header className="video-page__header">
        <i className="pi pi-video" aria-hidden="true" />
        <h1>{t('video.page.title')}</h1>
      </header>
      {phase.name === 'loading' || (phase.name === 'joining' && !phase.view) ? (
        <div className="video-page__card" data-testid="video-loading" aria-busy="true">
          <ProgressSpinner style={{ width: 48, height: 48 }} />
          <p>{t('video.page.loading')}</p>
        </div>
      ) : null}
      {phase.name === 'refused' ? (
        <div className="video-page__card video-page__card--notice" role="alert" data-testid="video-refused" data-reason={phase.reason}>
          <i className="pi pi-ban" aria-hidden="true" />
          <p>{t(`video.reasons.${phase.reason}`)}</p>
        </div>
      ) : null}
      {phase.name === 'problem' ? (
        <div className="video-page__card video-page__card--notice" role="alert" data-testid="video-problem" data-problem={phase.problem}>
          <i className="pi pi-exclamation-triangle" aria-hidden="true" />
          <p>{t(`video.problems.${phase.problem}`)}</p>
          {phase.problem !== 'unsupported' ? (
            <Button label={t('video.page.retry')} icon="pi pi-refresh" outlined onClick={() => setAttempt((n) => n + 1)} />
          ) : null}
        </div>
      ) : null}
      {phase.name === 'ready' || (phase.name === 'joining' && phase.view) ? (
        <JoinCard
          view={(phase as { view: VideoLinkView }).view}
          consent={consent}
          onConsent={setConsent}
          joining={phase.name === 'joining'}
          onJoin={() => void join((phase as { view: VideoLinkView }).view)}
        />
      ) : null}
      {phase.name === 'call' ? <GuestCall session={phase.session} onEnded={ended} onProblem={problem} /> : null}
      {phase.name === 'ended' ? (
        <div className="video-page__card" role="status" data-testid="video-ended">
          <i className="pi pi-check-circle" aria-hidden="true" />
          <p>{t('video.page.ended')}</p>
        </div>
      ) : null}
    </main>
  );
}

function JoinCard(props: {
  view: VideoLinkView;
  consent: boolean;
  onConsent: (value: boolean) => void;
  joining: boolean;
  onJoin: () => void;
}) {
  const { t } = useTranslation();
  return (
    <div className="video-page__card" data-testid="video-join-card">
      <p>{t('video.page.intro', { agent: props.view.agentName, company: props.view.companyName })}</p>
      <label className="video-page__consent">
        <Checkbox
          inputId="video-consent"
          checked={props.consent}
          onChange={(event) => props.onConsent(Boolean(event.checked))}
          data-testid="video-consent"
        />
        <span>{t('video.page.consent')}</span>
      </label>
      <Button
        label={props.joining ? t('video.page.joining') : t('video.page.join')}
        icon="pi pi-video"
        loading={props.joining}
        disabled={props.joining}
        onClick={props.onJoin}
        data-testid="video-join"
      />
    </div>
  );
}

function GuestCall({
  session,
  onEnded,
  onProblem,
}: {
  session: VideoGuestSession;
  onEnded: () => void;
  onProblem: (problem: Problem) => void;
}) {
  const { t } = useTranslation();
  const { client } = useServices();
  const localRef = useRef<HTMLVideoElement>(null);
  const remoteRef = useRef<HTMLVideoElement>(null);
  const [local, setLocal] = useState<MediaStream | null>(null);
  const [state, setState] = useState<PeerState>('new');
  const [muted, setMuted] = useState(false);
  const [cameraOff, setCameraOff] = useState(false);
  const [recording, setRecording] = useState(false);
  const [consent, setConsent] = useState(session.recordingConsent);
  const peerRef = useRef<VideoPeer | null>(null);
  const guestHeaders = useMemo(() => ({ 'x-video-guest-key': session.guestKey }), [session.guestKey]);

  useEffect(() => {
    let stream: MediaStream | null = null;
    let socket: GuestSocket | null = null;
    let cancelled = false;
    let connectTimer: ReturnType<typeof setTimeout> | undefined;
    void navigator.mediaDevices.getUserMedia({ audio: true, video: { width: 640, height: 360 } }).then(
      (media) => {
        if (cancelled) return stopStream(media);
        stream = media;
        setLocal(media);
        socket = io(SOCKET_NAMESPACES.visitor, {
          path: '/socket.io',
          transports: ['websocket', 'polling'],
          auth: { videoGuestKey: session.guestKey },
        });
        const send = (kind: VideoSignal['kind'], data: unknown) => socket?.emit('video.signal', { callId: session.callId, kind, data });
        const fresh = () => {
          peerRef.current?.close();
          const peer = new VideoPeer(
            {
              ice: session.ice,
              send,
              onRemoteStream: (remote) => {
                if (remoteRef.current) remoteRef.current.srcObject = remote;
              },
              onState: (next) => {
                setState(next);
                if (next === 'connected') clearTimeout(connectTimer);
                if (next === 'failed') onProblem('network');
              },
            },
            media,
          );
          peerRef.current = peer;
          (window as unknown as { __videoPeer?: VideoPeer }).__videoPeer = peer;
          clearTimeout(connectTimer);
          connectTimer = setTimeout(() => {
            if (peerRef.current === peer && peer.pc.connectionState !== 'connected') onProblem('network');
          }, CONNECT_TIMEOUT_MS);
          return peer;
        };
        socket.on('connect', () => send('ready', null));
        socket.on('video.signal', (signal) => {
          if (signal.kind === 'ready') return peerRef.current?.active ? undefined : send('ready', null);
          if (signal.kind === 'recording') return setRecording(Boolean((signal.data as { on?: boolean } | null)?.on));
          const peer = signal.kind === 'offer' ? fresh() : peerRef.current;
          void peer?.handle(signal).catch(() => onProblem('network'));
        });
        socket.on('video.call', (event) => {
          if (event.state === 'ended') onEnded();
        });
        socket.on('connect_error', (error) => {
          if ((error as { data?: { errorCode?: string } }).data?.errorCode) onEnded();
        });
      },
      (error: unknown) => onProblem(mediaFailure(error)),
    );
    return () => {
      cancelled = true;
      clearTimeout(connectTimer);
      peerRef.current?.close();
      peerRef.current = null;
      socket?.close();
      stopStream(stream);
    };
  }, [session, onEnded, onProblem]);

  useEffect(() => {
    if (localRef.current) localRef.current.srcObject = local;
  }, [local]);

  const toggleMute = () => {
    for (const track of local?.getAudioTracks() ?? []) track.enabled = muted;
    setMuted(!muted);
  };
  const toggleCamera = () => {
    for (const track of local?.getVideoTracks() ?? []) track.enabled = cameraOff;
    setCameraOff(!cameraOff);
  };
  const leave = async () => {
    await client.post('/api/public/video-guest/end', undefined, { auth: false, headers: guestHeaders }).catch(() => undefined);
    onEnded();
  };
  const changeConsent = async (value: boolean) => {
    setConsent(value);
    await client.post('/api/public/video-guest/consent', { consent: value }, { auth: false, headers: guestHeaders }).catch(() => undefined);
  };

  return (
    <div className="video-page__call" data-testid="video-call" data-state={state}>
      <p className="video-page__status" role="status">
        {state === 'connected' ? t('video.page.live', { agent: session.agentName }) : t('video.page.waitingAgent')}
      </p>
      {recording ? (
        <p className="video-page__recording" data-testid="video-recording-notice">
          <i className="pi pi-circle-fill" aria-hidden="true" /> {t('video.page.recordingNow')}
        </p>
      ) : null}
      <div className="video-page__stage">
        <figure>
          <video ref={remoteRef} autoPlay playsInline data-testid="video-remote" />
          <figcaption>{t('video.page.agent')}</figcaption>
        </figure>
        <figure className="video-page__self">
          <video ref={localRef} autoPlay playsInline muted data-testid="video-local" />
          <figcaption>{t('video.page.you')}</figcaption>
        </figure>
      </div>
      <div className="video-page__controls">
        <Button
          icon={muted ? 'pi pi-microphone-slash' : 'pi pi-microphone'}
          label={muted ? t('video.page.unmute') : t('video.page.mute')}
          outlined
          onClick={toggleMute}
          data-testid="video-mute"
        />
        <Button
          icon={cameraOff ? 'pi pi-eye-slash' : 'pi pi-eye'}
          label={cameraOff ? t('video.page.cameraOn') : t('video.page.cameraOff')}
          outlined
          onClick={toggleCamera}
          data-testid="video-camera"
        />
        <Button icon="pi pi-phone" label={t('video.page.leave')} severity="danger" onClick={() => void leave()} data-testid="video-leave" />
      </div>
      <label className="video-page__consent">
        <Checkbox
          inputId="video-consent-live"
          checked={consent}
          onChange={(event) => void changeConsent(Boolean(event.checked))}
          data-testid="video-consent-live"
        />
        <span>{t('video.page.consentToggle')}</span>
      </label>
    </div>
  );
}
