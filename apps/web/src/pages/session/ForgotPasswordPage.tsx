import { useState, type FormEvent } from 'react';
import { Link } from 'react-router-dom';
import { useTranslation } from 'react-i18next';
import { useApi } from '../../app/ServicesContext';
import { isApiError } from '../../api/api-error';
import { useForm } from '../../components/useForm';
import { email, required } from '../../validation/rules';
import { EmailField, SessionForm, SessionNotice } from './SessionForm';
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
        <SessionNotice severity="success" text={t('auth.forgot.sent', { email: phase.email })} testId="forgot-sent" />
      ) : (
        <SessionForm
          onSubmit={onSubmit}
          busy={phase.name === 'sending'}
          failure={phase.name === 'failed' ? phase : undefined}
          errorTestId="forgot-error"
          submitTestId="forgot-submit"
          submitLabel={t('auth.forgot.submit')}
          busyLabel={t('auth.forgot.submitting')}
        >
          <EmailField id="forgot-email" label={t('auth.forgot.email')} autoFocus form={form} field="email" />
        </SessionForm>
      )}
      <p className="session__switch">
        <Link to="/session/signin" className="text-link">
          <i className="pi pi-arrow-left" aria-hidden="true" /> {t('auth.forgot.back')}
        </Link>
      </p>
    </SessionLayout>
  );
}
