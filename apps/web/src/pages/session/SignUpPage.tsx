import { useEffect, useState, type FormEvent } from 'react';
import { Link, Navigate } from 'react-router-dom';
import { Button } from 'primereact/button';
import { Message } from 'primereact/message';
import { useTranslation } from 'react-i18next';
import { homePathForRole, LIMITS, PASSWORD_POLICY } from '@centralita/contracts';
import { useApi, useAuth } from '../../app/ServicesContext';
import { describeError } from '../../api/error-text';
import { TextField } from '../../components/TextField';
import { useForm } from '../../components/useForm';
import { email, passwordRules, required } from '../../validation/rules';
import { LoadingScreen } from '../../layout/LoadingScreen';
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
        <Message className="session__notice" severity="info" text={t('auth.signup.closed')} data-testid="signup-closed" role="status" />
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
        <Message
          className="session__notice"
          severity="success"
          text={t('auth.signup.sent', { email: phase.email })}
          data-testid="signup-sent"
          role="status"
        />
      ) : (
        <form className="session__form" noValidate onSubmit={onSubmit} aria-busy={sending}>
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
          <TextField
            id="signup-email"
            testId="signup-email"
            label={t('auth.signup.email')}
            type="email"
            icon="pi pi-envelope"
            autoComplete="email"
            value={form.values.email}
            onChange={form.set('email')}
            onBlur={form.blur('email')}
            error={form.errorFor('email')}
          />
          <TextField
            id="signup-password"
            testId="signup-password"
            label={t('auth.signup.password')}
            type="password"
            icon="pi pi-lock"
            autoComplete="new-password"
            hint={t('auth.signup.passwordRule', { count: LIMITS.minPasswordLength, long: PASSWORD_POLICY.passphraseLength })}
            value={form.values.password}
            onChange={form.set('password')}
            onBlur={form.blur('password')}
            error={form.errorFor('password')}
          />
          {phase.name === 'failed' && (
            <div className="form-error" role="alert" data-testid="signup-error">
              <i className="pi pi-times-circle" aria-hidden="true" />
              <span>{describeError(phase.error, t)}</span>
            </div>
          )}
          <Button
            type="submit"
            className="session__submit"
            data-testid="signup-submit"
            label={sending ? t('auth.signup.submitting') : t('auth.signup.submit')}
            loading={sending}
            disabled={sending}
          />
        </form>
      )}
      {signInLink}
    </SessionLayout>
  );
}
