import { useEffect, useState, type FormEvent } from 'react';
import { Link, Navigate } from 'react-router-dom';
import { useTranslation } from 'react-i18next';
import { homePathForRole } from '@centralita/contracts';
import { useApi, useAuth } from '../../app/ServicesContext';
import { TextField } from '../../components/TextField';
import { useForm } from '../../components/useForm';
import { email, passwordRules, required } from '../../validation/rules';
import { LoadingScreen } from '../../layout/LoadingScreen';
import { EmailField, NewPasswordField, SessionForm, SessionNotice } from './SessionForm';
import { SessionLayout } from './SessionLayout';

type Phase = { name: 'idle' } | { name: 'sending' } | { name: 'sent'; email: string } | { name: 'failed'; error: unknown };

/**
 * Self-registration, when the operator opened it (GET /api/auth/registration). Sending the form
 * never signs in: the answer is "check your email" whether or not the address has an account, and
 * the mailed link creates a new organisation whose first administrator is the new user.
 */
export function SignUpPage() {
  const { t } = useTranslation();
  const api = useApi();
  const { status, user } = useAuth();
  const [open, setOpen] = useState<boolean | null>(null);
  const [phase, setPhase] = useState<Phase>({ name: 'idle' });
  const form = useForm({ username: '', email: '', password: '' }, () => ({
    username: [required],
    email: [required, email],
    password: passwordRules,
  }));

  useEffect(() => {
    let live = true;
    api
      .registrationOptions()
      .then((options) => live && setOpen(options.enabled))
      .catch(() => live && setOpen(false));
    return () => {
      live = false;
    };
  }, [api]);

  if (status === 'initialising' || open === null) return <LoadingScreen />;
  if (status === 'authenticated' && user) return <Navigate to={homePathForRole(user.role)} replace />;

  const signInLink = (
    <p className="session__switch">
      {t('auth.signup.haveAccount')}{' '}
      <Link to="/session/signin" className="text-link">
        {t('auth.signup.signin')}
      </Link>
    </p>
  );

  if (!open) {
    return (
      <SessionLayout title={t('auth.signup.title')} subtitle={t('auth.signup.closedSubtitle')}>
        <SessionNotice severity="info" text={t('auth.signup.closed')} testId="signup-closed" />
        {signInLink}
      </SessionLayout>
    );
  }

  const onSubmit = async (event: FormEvent) => {
    event.preventDefault();
    if (!form.submit() || phase.name === 'sending') return;
    const address = form.values.email.trim();
    setPhase({ name: 'sending' });
    try {
      await api.register({ username: form.values.username.trim(), email: address, password: form.values.password });
      setPhase({ name: 'sent', email: address });
    } catch (error) {
      setPhase({ name: 'failed', error });
    }
  };
  const sending = phase.name === 'sending';

  return (
    <SessionLayout title={t('auth.signup.title')} subtitle={t('auth.signup.subtitle')}>
      {phase.name === 'sent' ? (
        <SessionNotice severity="success" text={t('auth.signup.sent', { email: phase.email })} testId="signup-sent" />
      ) : (
        <SessionForm
          onSubmit={onSubmit}
          busy={sending}
          failure={phase.name === 'failed' ? phase : undefined}
          errorTestId="signup-error"
          submitTestId="signup-submit"
          submitLabel={t('auth.signup.submit')}
          busyLabel={t('auth.signup.submitting')}
        >
          <TextField
            id="signup-username"
            testId="signup-username"
            label={t('auth.signup.username')}
            icon="pi pi-user"
            autoComplete="name"
            autoFocus
            value={form.values.username}
            onChange={form.set('username')}
            onBlur={form.blur('username')}
            error={form.errorFor('username')}
          />
          <EmailField id="signup-email" label={t('auth.signup.email')} form={form} field="email" />
          <NewPasswordField id="signup-password" label={t('auth.signup.password')} form={form} field="password" />
        </SessionForm>
      )}
      {signInLink}
    </SessionLayout>
  );
}
