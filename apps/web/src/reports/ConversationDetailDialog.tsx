import { useEffect, useState } from 'react';
import { Button } from 'primereact/button';
import { Dialog } from 'primereact/dialog';
import { ProgressSpinner } from 'primereact/progressspinner';
import { useTranslation } from 'react-i18next';
import { valueLabel, type ConversationDetail, type VoiceRecordingView } from '@centralita/contracts';
import { describeError } from '../api/error-text';
import { CallRecordingPlayer } from '../components/CallRecordingPlayer';
import { formatDateTime, formatNullable } from '../format/format';
import { normaliseLanguage } from '../i18n/languages';
import type { ReportsApi } from './reports-api';
import { messageSender, transitionActor, transitionText } from './report-format';

/** A conversation of the report: transcript, status changes and survey answers; user text rendered as text only. */
export function ConversationDetailDialog({ api, id, onHide }: { api: ReportsApi; id: string; onHide(): void }) {
  const { t, i18n } = useTranslation();
  const language = normaliseLanguage(i18n.resolvedLanguage ?? i18n.language);
  const [detail, setDetail] = useState<ConversationDetail | null>(null);
  const [error, setError] = useState<string | null>(null);
  /** A phone conversation's recordings: null while loading; the list (maybe empty) once read. */
  const [recordings, setRecordings] = useState<VoiceRecordingView[] | null>(null);
  const [recordingsError, setRecordingsError] = useState<string | null>(null);
  const isPhone = detail?.channel === 'phone';

  useEffect(() => {
    if (!isPhone) return;
    let live = true;
    api
      .recordings(id)
      .then((value) => live && setRecordings(value))
      .catch((e: unknown) => live && setRecordingsError(describeError(e, t)));
    return () => {
      live = false;
    };
  }, [api, id, isPhone, t]);

  useEffect(() => {
    let live = true;
    api
      .detail(id)
      .then((value) => live && setDetail(value))
      .catch((e: unknown) => live && setError(describeError(e, t)));
    return () => {
      live = false;
    };
  }, [api, id, t]);

  const download = async () => {
    try {
      const response = await api.detailDownload(id);
      const url = URL.createObjectURL(await response.blob());
      const link = document.createElement('a');
      link.href = url;
      link.download = `conversation-${id}.txt`;
      link.click();
      setTimeout(() => URL.revokeObjectURL(url), 1000);
    } catch (e) {
      setError(describeError(e, t));
    }
  };

  return (
    <Dialog
      header={t('reports.detail.title')}
      visible
      onHide={onHide}
      style={{ width: 'min(52rem, 95vw)' }}
      data-testid="conversation-detail"
      footer={
        <Button
          icon="pi pi-download"
          label={t('reports.detail.download')}
          onClick={() => void download()}
          disabled={!detail}
          data-testid="detail-download"
        />
      }
    >
      {error && (
        <div className="form-error" role="alert">
          <i className="pi pi-times-circle" aria-hidden="true" />
          <span>{error}</span>
        </div>
      )}
      {!detail && !error && <ProgressSpinner style={{ width: '2.5rem', height: '2.5rem' }} />}
      {detail && (
        <>
          <dl className="report-detail__meta">
            <dt>{t('reports.columns.customer')}</dt>
            <dd>{detail.customer}</dd>
            <dt>{t('reports.columns.channel')}</dt>
            <dd data-testid="detail-channel">{valueLabel('channel', detail.channel, language)}</dd>
            <dt>{t('reports.columns.line')}</dt>
            <dd>{formatNullable(detail.line, t)}</dd>
            <dt>{t('reports.detail.agents')}</dt>
            <dd>{detail.agents.length ? detail.agents.join(', ') : formatNullable(null, t)}</dd>
            <dt>{t('reports.columns.status')}</dt>
            <dd data-testid="detail-status">{valueLabel('conversationStatus', detail.status, language)}</dd>
            <dt>{t('reports.columns.createdAt')}</dt>
            <dd>{formatDateTime(detail.createdAt, t)}</dd>
            <dt>{t('reports.columns.closedAt')}</dt>
            <dd>{formatDateTime(detail.closedAt, t)}</dd>
          </dl>
          {isPhone && (
            <section data-testid="detail-recordings">
              <h3>{t('telephony.recordings.title')}</h3>
              {recordingsError ? (
                <div className="form-error" role="alert">
                  <i className="pi pi-times-circle" aria-hidden="true" />
                  <span>{recordingsError}</span>
                </div>
              ) : !recordings ? (
                <p className="muted">{t('telephony.recordings.loading')}</p>
              ) : recordings.length === 0 ? (
                <p className="muted">{t('telephony.recordings.none')}</p>
              ) : (
                recordings.map((recording) => (
                  <CallRecordingPlayer
                    key={recording.id}
                    url={recording.url}
                    downloadUrl={recording.downloadUrl}
                    createdAt={recording.createdAt}
                    durationMs={recording.durationMs}
                    agentName={recording.agentName}
                    voicemail={recording.kind === 'voicemail'}
                  />
                ))
              )}
            </section>
          )}
          <h3>{t('reports.detail.transcript')}</h3>
          {detail.messages.length === 0 ? (
            <p>{t('reports.detail.noMessages')}</p>
          ) : (
            <ol className="report-detail__transcript" data-testid="detail-transcript">
              {detail.messages.map((message, index) => (
                <li key={index}>
                  <small>
                    {formatDateTime(message.at, t)} · {messageSender(message, language)}
                  </small>
                  {message.text}
                </li>
              ))}
            </ol>
          )}
          <h3>{t('reports.detail.transitions')}</h3>
          <ol className="report-detail__transcript" data-testid="detail-transitions">
            {detail.transitions.map((row, index) => (
              <li key={index}>
                <small>
                  {formatDateTime(row.at, t)} · {transitionActor(row, language)}
                </small>
                {transitionText(row, language)}
              </li>
            ))}
          </ol>
          {detail.surveyAnswers.length > 0 && (
            <>
              <h3>{t('reports.detail.survey')}</h3>
              <ol className="report-detail__transcript">
                {detail.surveyAnswers.map((answer, index) => (
                  <li key={index}>
                    <small>
                      {formatDateTime(answer.at, t)} · {answer.poll}
                    </small>
                    {`${answer.question}: ${answer.value}`}
                  </li>
                ))}
              </ol>
            </>
          )}
        </>
      )}
    </Dialog>
  );
}
