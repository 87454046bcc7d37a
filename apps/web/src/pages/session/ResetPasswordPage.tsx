import { useEffect, useState, type FormEvent } from 'react';
import { Link, useParams } from 'react-router-dom';
import { useTranslation } from 'react-i18next';
import { useApi } from '../../app/ServicesContext';
import { isApiError } from '../../api/api-error';
import { PasswordFields, SessionForm, SessionNotice, SessionUnreachable, SessionWaiting, usePasswordForm } from './SessionForm';
import { SessionLayout } from './SessionLayout';

type Phase =
  | { name: 'validating' }
  | { name: 'invalid' }
  | { name: 'unreachable'; error: unknown }
  | { name: 'ready' }
  | { name: 'saving' }
  | { name: 'failed'; error: unknown }
  | { name: 'done' };

/** The validation call answers the envelope; a data of false or {valid:false} also means invalid. */
function tokenAccepted(data: unknown): boolean {
  if (data === false) return false;
  if (data && typeof data === 'object' && 'valid' in data) return (data as { valid: unknown }).valid !== false;
  return true;
}

export function ResetPasswordPage() {
  const { t } = useTranslation();
  const api = useApi();
  const { token = '' } = useParams();
  const [phase, setPhase] = useState<Phase>({ name: 'validating' });
  const [attempt, setAttempt] = useState(0);
  const form = usePasswordForm();

  useEffect(() => {
    let cancelled = false;
    setPhase({ name: 'validating' });
    api
      .validateResetToken(token)
      .then((data) => !cancelled && setPhase(tokenAccepted(data) ? { name: 'ready' } : { name: 'invalid' }))
      .catch((error: unknown) => {
        if (cancelled) return;
        const unreachable = isApiError(error) && (error.kind === 'network' || error.status >= 500);
        setPhase(unreachable ? { name: 'unreachable', error } : { name: 'invalid' });
      });
    return () => {
      cancelled = true;
    };
  }, [api, token, attempt]);

  const onSubmit = async (event: FormEvent) => {
    event.preventDefault();
    if (!form.submit() || phase.name === 'saving') return;
    setPhase({ name: 'saving' });
    try {
      await api.resetPassword(token, form.values.password);
      setPhase({ name: 'done' });
    } catch (error) {
      if (isApiError(error) && error.code === 'reset_token_invalid') setPhase({ name: 'invalid' });
      else setPhase({ name: 'failed', error });
    }
  };

  let body;
  switch (phase.name) {
    case 'validating':
      body = <SessionWaiting testId="reset-validating" text={t('auth.reset.validating')} />;
      break;
    case 'invalid':
      body = (
        <SessionNotice
          severity="error"
          text={t('auth.reset.invalid')}
          testId="reset-invalid"
          link={{ to: '/session/forgot-password', label: t('auth.reset.requestNew') }}
        />
      );
      break;
    case 'unreachable':
      body = <SessionUnreachable error={phase.error} onRetry={() => setAttempt((n) => n + 1)} />;
      break;
    case 'done':
      body = (
        <SessionNotice
          severity="success"
          text={t('auth.reset.done')}
          testId="reset-done"
          link={{ to: '/session/signin', label: t('auth.reset.signin') }}
        />
      );
      break;
    default:
      body = (
        <SessionForm
          onSubmit={onSubmit}
          busy={phase.name === 'saving'}
          failure={phase.name === 'failed' ? phase : undefined}
          errorTestId="reset-error"
          submitTestId="reset-submit"
          submitLabel={t('auth.reset.submit')}
          busyLabel={t('auth.reset.submitting')}
        >
          <PasswordFields prefix="reset" passwordLabel={t('auth.reset.password')} confirmLabel={t('auth.reset.confirm')} form={form} />
        </SessionForm>
      );
  }

  return (
    <SessionLayout
      title={t('auth.reset.title')}
      subtitle={phase.name === 'ready' || phase.name === 'saving' || phase.name === 'failed' ? t('auth.reset.subtitle') : undefined}
    >
      {body}
      <p className="session__switch">
        <Link to="/session/signin" className="text-link">
          <i className="pi pi-arrow-left" aria-hidden="true" /> {t('auth.forgot.back')}
        </Link>
      </p>
    </SessionLayout>
  );
}
