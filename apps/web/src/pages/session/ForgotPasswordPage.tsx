import { useState, type FormEvent } from 'react';
import { Link } from 'react-router-dom';
import { Button } from 'primereact/button';
import { Message } from 'primereact/message';
import { useTranslation } from 'react-i18next';
import { useApi } from '../../app/ServicesContext';
import { isApiError } from '../../api/api-error';
import { describeError } from '../../api/error-text';
import { TextField } from '../../components/TextField';
import { useForm } from '../../components/useForm';
import { email, required } from '../../validation/rules';
import { SessionLayout } from './SessionLayout';

type Phase = { name: 'idle' } | { name: 'sending' } | { name: 'sent'; email: string } | { name: 'failed'; error: unknown };

/**
 * The answer is the same whether or not the address has an account, so the page cannot be used
 * to find out who is a user. Only failures that mean nothing was sent (no network, rate limit,
 * server down) are reported as such.
 */
export function ForgotPasswordPage() {
  const { t } = useTranslation();
  const api = useApi();
  const [phase, setPhase] = useState<Phase>({ name: 'idle' });
  const form = useForm({ email: '' }, () => ({ email: [required, email] }));

  const onSubmit = async (event: FormEvent) => {
    event.preventDefault();
    if (!form.submit() || phase.name === 'sending') return;
    const address = form.values.email.trim();
    setPhase({ name: 'sending' });
    try {
      await api.sendResetPasswordEmail(address);
      setPhase({ name: 'sent', email: address });
    } catch (error) {
      const undelivered = isApiError(error) && (error.kind === 'network' || error.status === 429 || error.status >= 500);
      setPhase(undelivered ? { name: 'failed', error } : { name: 'sent', email: address });
    }
  };

  return (
    <SessionLayout title={t('auth.forgot.title')} subtitle={t('auth.forgot.subtitle')}>
      {phase.name === 'sent' ? (
        <Message
          className="session__notice"
          severity="success"
          text={t('auth.forgot.sent', { email: phase.email })}
          data-testid="forgot-sent"
          role="status"
        />
      ) : (
        <form className="session__form" noValidate onSubmit={onSubmit} aria-busy={phase.name === 'sending'}>
          <TextField
            id="forgot-email"
            testId="forgot-email"
            label={t('auth.forgot.email')}
            type="email"
            icon="pi pi-envelope"
            autoComplete="email"
            autoFocus
            value={form.values.email}
            onChange={form.set('email')}
            onBlur={form.blur('email')}
            error={form.errorFor('email')}
          />
          {phase.name === 'failed' && (
            <div className="form-error" role="alert" data-testid="forgot-error">
              <i className="pi pi-times-circle" aria-hidden="true" />
              <span>{describeError(phase.error, t)}</span>
            </div>
          )}
          <Button
            type="submit"
            className="session__submit"
            data-testid="forgot-submit"
            label={phase.name === 'sending' ? t('auth.forgot.submitting') : t('auth.forgot.submit')}
            loading={phase.name === 'sending'}
            disabled={phase.name === 'sending'}
          />
        </form>
      )}
      <p className="session__switch">
        <Link to="/session/signin" className="text-link">
          <i className="pi pi-arrow-left" aria-hidden="true" /> {t('auth.forgot.back')}
        </Link>
      </p>
    </SessionLayout>
  );
}
