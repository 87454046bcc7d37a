import { useCallback, useEffect, useMemo, useState } from 'react';
import { useParams, useSearchParams } from 'react-router-dom';
import i18next from 'i18next';
import { I18nextProvider, useTranslation } from 'react-i18next';
import { Button } from 'primereact/button';
import { DEFAULT_LANGUAGE, LANGUAGES, type UnsubscribeResult, type UnsubscribeView } from '@centralita/contracts';
import { isApiError } from '../../api/api-error';
import { useServices } from '../../app/ServicesContext';
import { DICTIONARIES } from '../../i18n/resources';
import { pickLanguage } from '../../widget/widget-logic';
import { SessionNotice, SessionUnreachable, SessionWaiting } from '../session/SessionForm';
import { SessionLayout } from '../session/SessionLayout';
import './unsubscribe.css';

type Phase =
  | { name: 'loading' }
  | { name: 'invalid' }
  | { name: 'unreachable'; error: unknown }
  | { name: 'ready'; view: UnsubscribeView }
  | { name: 'saving'; view: UnsubscribeView }
  | { name: 'failed'; view: UnsubscribeView; tooMany: boolean }
  | { name: 'done'; view: UnsubscribeView | UnsubscribeResult }
  | { name: 'already'; view: UnsubscribeView };

/**
 * /session/Unsubscribe/{email}?token=…&lang=…: the page of a mail's List-Unsubscribe link. Public
 * (no session): the signed token is what proves the link came from a mail to this address. Its own
 * i18n instance in the recipient's language (?lang=, else the browser's), like the web-chat page,
 * so it never changes a console user's stored language.
 */
export function UnsubscribePage() {
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
    const follow = (lng: string) => {
      document.documentElement.lang = lng;
    };
    i18n.on('languageChanged', follow);
    return () => i18n.off('languageChanged', follow);
  }, [i18n]);
  return (
    <I18nextProvider i18n={i18n}>
      <Unsubscribe />
    </I18nextProvider>
  );
}

function Unsubscribe() {
  const { t } = useTranslation();
  const { client } = useServices();
  const { email = '' } = useParams();
  const [params] = useSearchParams();
  const token = params.get('token') ?? '';
  const [phase, setPhase] = useState<Phase>({ name: 'loading' });
  const [attempt, setAttempt] = useState(0);
  const path = `/api/public/unsubscribe/${encodeURIComponent(email)}`;

  useEffect(() => {
    let current = true;
    setPhase({ name: 'loading' });
    client
      .get<UnsubscribeView>(path, { query: { token }, auth: false })
      .then((view) => current && setPhase(view.unsubscribed ? { name: 'already', view } : { name: 'ready', view }))
      .catch((error: unknown) => {
        if (!current) return;
        const broken = isApiError(error) && error.kind === 'http' && error.status === 400;
        setPhase(broken ? { name: 'invalid' } : { name: 'unreachable', error });
      });
    return () => {
      current = false;
    };
  }, [client, path, token, attempt]);

  const confirm = useCallback(
    async (view: UnsubscribeView) => {
      setPhase({ name: 'saving', view });
      try {
        setPhase({ name: 'done', view: await client.post<UnsubscribeResult>(path, {}, { query: { token }, auth: false }) });
      } catch (error) {
        if (isApiError(error) && error.kind === 'http' && error.status === 400) setPhase({ name: 'invalid' });
        else setPhase({ name: 'failed', view, tooMany: isApiError(error) && error.status === 429 });
      }
    },
    [client, path, token],
  );

  const names = (view: UnsubscribeView | UnsubscribeResult) => ({ tenant: view.tenantName, address: view.maskedAddress });
  let body;
  switch (phase.name) {
    case 'loading':
      body = <SessionWaiting testId="unsubscribe-loading" text={t('mailBlacklist.unsubscribe.loading')} />;
      break;
    case 'invalid':
      body = <SessionNotice severity="error" text={t('mailBlacklist.unsubscribe.invalid')} testId="unsubscribe-invalid" />;
      break;
    case 'unreachable':
      body = <SessionUnreachable error={phase.error} onRetry={() => setAttempt((n) => n + 1)} />;
      break;
    case 'done':
      body = <SessionNotice severity="success" text={t('mailBlacklist.unsubscribe.done', names(phase.view))} testId="unsubscribe-done" />;
      break;
    case 'already':
      body = (
        <SessionNotice severity="info" text={t('mailBlacklist.unsubscribe.already', names(phase.view))} testId="unsubscribe-already" />
      );
      break;
    default: {
      const { view } = phase;
      body = (
        <div className="unsubscribe" data-testid="unsubscribe-ready">
          <p className="unsubscribe__lead" data-testid="unsubscribe-lead">
            {t('mailBlacklist.unsubscribe.lead', names(view))}
          </p>
          <p className="muted">{t('mailBlacklist.unsubscribe.hint')}</p>
          {phase.name === 'failed' && (
            <SessionNotice
              severity="error"
              text={t(phase.tooMany ? 'mailBlacklist.unsubscribe.tooMany' : 'mailBlacklist.unsubscribe.failed')}
              testId="unsubscribe-error"
            />
          )}
          <Button
            className="session__submit"
            icon="pi pi-ban"
            label={t(phase.name === 'saving' ? 'mailBlacklist.unsubscribe.confirming' : 'mailBlacklist.unsubscribe.confirm')}
            loading={phase.name === 'saving'}
            disabled={phase.name === 'saving'}
            onClick={() => void confirm(view)}
            data-testid="unsubscribe-confirm"
          />
        </div>
      );
    }
  }

  return <SessionLayout title={t('mailBlacklist.unsubscribe.title')}>{body}</SessionLayout>;
}
