import { useEffect, useState, type FormEvent } from 'react';
import { Link, useParams } from 'react-router-dom';
import { Button } from 'primereact/button';
import { Message } from 'primereact/message';
import { useTranslation } from 'react-i18next';
import { LIMITS, PASSWORD_POLICY } from '@centralita/contracts';
import { useApi } from '../../app/ServicesContext';
import { isApiError } from '../../api/api-error';
import { describeError } from '../../api/error-text';
import { TextField } from '../../components/TextField';
import { useForm } from '../../components/useForm';
import { matches, passwordRules, required } from '../../validation/rules';
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
  const form = useForm({ password: '', confirm: '' }, (values) => ({
    password: passwordRules,
    confirm: [required, matches(() => values.password)],
  }));

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
      body = (
        <div className="session__waiting" role="status" data-testid="reset-validating">
          <span className="spinner spinner--sm" aria-hidden="true" />
          <span>{t('auth.reset.validating')}</span>
        </div>
      );
      break;
    case 'invalid':
      body = (
        <>
          <Message className="session__notice" severity="error" text={t('auth.reset.invalid')} data-testid="reset-invalid" role="alert" />
          <Link to="/session/forgot-password" className="p-button session__submit session__link-button">
            {t('auth.reset.requestNew')}
          </Link>
        </>
      );
      break;
    case 'unreachable':
      body = (
        <>
          <Message className="session__notice" severity="error" text={describeError(phase.error, t)} role="alert" />
          <Button className="session__submit" label={t('common.retry')} icon="pi pi-refresh" onClick={() => setAttempt((n) => n + 1)} />
        </>
      );
      break;
    case 'done':
      body = (
        <>
          <Message className="session__notice" severity="success" text={t('auth.reset.done')} data-testid="reset-done" role="status" />
          <Link to="/session/signin" className="p-button session__submit session__link-button">
            {t('auth.reset.signin')}
          </Link>
        </>
      );
      break;
    default:
      body = (
        <form className="session__form" noValidate onSubmit={onSubmit} aria-busy={phase.name === 'saving'}>
          <TextField
            id="reset-password"
            testId="reset-password"
            label={t('auth.reset.password')}
            type="password"
            icon="pi pi-lock"
            autoComplete="new-password"
            autoFocus
            hint={t('auth.signup.passwordRule', { count: LIMITS.minPasswordLength, long: PASSWORD_POLICY.passphraseLength })}
            value={form.values.password}
            onChange={form.set('password')}
            onBlur={form.blur('password')}
            error={form.errorFor('password')}
          />
          <TextField
            id="reset-confirm"
            testId="reset-confirm"
            label={t('auth.reset.confirm')}
            type="password"
            icon="pi pi-lock"
            autoComplete="new-password"
            value={form.values.confirm}
            onChange={form.set('confirm')}
            onBlur={form.blur('confirm')}
            error={form.errorFor('confirm')}
          />
          {phase.name === 'failed' && (
            <div className="form-error" role="alert" data-testid="reset-error">
              <i className="pi pi-times-circle" aria-hidden="true" />
              <span>{describeError(phase.error, t)}</span>
            </div>
          )}
          <Button
            type="submit"
            className="session__submit"
            data-testid="reset-submit"
            label={phase.name === 'saving' ? t('auth.reset.submitting') : t('auth.reset.submit')}
            loading={phase.name === 'saving'}
            disabled={phase.name === 'saving'}
          />
        </form>
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
