import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { formatDateTime, formatDuration } from '../format/format';
import './call-recording.css';

export interface CallRecordingPlayerProps {
  /** The signed URL the API gave (plays with Range requests). */
  url: string;
  /** The same recording as a download (Content-Disposition: attachment). */
  downloadUrl: string;
  createdAt: string;
  durationMs?: number | null;
  agentName?: string | null;
  /** A caller's message left on a line's voicemail (only the caller's side holds sound). */
  voicemail?: boolean;
}

/**
 * One call recording: an audio player (the stereo WAV, caller left, agent right) and its download. A recording whose
 * audio is gone (retention, store failure) fails to load in the <audio> element, which cannot read the API's answer:
 * the spec's message is then shown in the console's language instead of a silent, broken player.
 */
export function CallRecordingPlayer({ url, downloadUrl, createdAt, durationMs, agentName, voicemail }: CallRecordingPlayerProps) {
  const { t } = useTranslation();
  const [missing, setMissing] = useState(false);
  const when = formatDateTime(createdAt, t);
  return (
    <div className="call-recording" data-testid="call-recording" data-kind={voicemail ? 'voicemail' : 'call'}>
      <small className="call-recording__meta">
        {[
          voicemail ? t('telephony.recordings.voicemail') : null,
          when,
          agentName,
          durationMs != null ? formatDuration(Math.round(durationMs / 1000), t) : null,
        ]
          .filter(Boolean)
          .join(' · ')}
      </small>
      {missing ? (
        <div className="form-error" role="alert" data-testid="call-recording-missing">
          <i className="pi pi-times-circle" aria-hidden="true" />
          <span>{t('apiMessages.audioNotFound')}</span>
        </div>
      ) : (
        <div className="call-recording__controls">
          <audio
            controls
            preload="metadata"
            src={url}
            aria-label={t('telephony.recordings.player', { date: when })}
            onError={() => setMissing(true)}
          />
          <a className="p-button p-button-text p-button-sm" href={downloadUrl} download data-testid="call-recording-download">
            <i className="pi pi-download" aria-hidden="true" />
            <span>{t('telephony.recordings.download')}</span>
          </a>
        </div>
      )}
      <small className="muted">{t(voicemail ? 'telephony.recordings.voicemailChannels' : 'telephony.recordings.channels')}</small>
    </div>
  );
}
