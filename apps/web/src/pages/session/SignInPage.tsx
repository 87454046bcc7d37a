import { useState, type FormEvent } from 'react';
import { Link, Navigate, useLocation } from 'react-router-dom';
import { Button } from 'primereact/button';
import { Message } from 'primereact/message';
import { useTranslation } from 'react-i18next';
import { homePathForRole, VICIDIAL_NOTICE_INVALID, VICIDIAL_NOTICE_PARAM } from '@centralita/contracts';
import { useAuth, useAuthSelector } from '../../app/ServicesContext';
import { describeError } from '../../api/error-text';
import { isSubmitting } from '../../auth/auth.machine';
import { TextField } from '../../components/TextField';
import { useForm } from '../../components/useForm';
import { email, required } from '../../validation/rules';
import { LoadingScreen } from '../../layout/LoadingScreen';
import { SessionLayout } from './SessionLayout';

export function SignInPage() {
  const { t } = useTranslation();
  const location = useLocation();
  const { status, user, send } = useAuth();
  const submitting = useAuthSelector(isSubmitting);
  const failure = useAuthSelector((s) => s.context.error);
  const disconnected = useAuthSelector((s) => s.context.disconnected);
  const loggedOut = useAuthSelector((s) => s.context.loggedOut);
  const idleSignedOut = useAuthSelector((s) => s.context.idleSignedOut);
  const [attempted, setAttempted] = useState(false);
  // A dialer's sign-in link the API refused (VicidialSignInPage) lands here with ?notice=….
  const dialerLinkInvalid = new URLSearchParams(location.search).get(VICIDIAL_NOTICE_PARAM) === VICIDIAL_NOTICE_INVALID;
  const form = useForm({ email: '', password: '' }, () => ({ email: [required, email], password: [required] }));

  // A stored session is still being restored: wait rather than flash the form.
  if (status === 'initialising') return <LoadingScreen />;
  if (status === 'authenticated' && user) {
    const from = (location.state as { from?: string } | null)?.from;
    return <Navigate to={from && from !== '/' ? from : homePathForRole(user.role)} replace />;
  }

  const onSubmit = (event: FormEvent) => {
    event.preventDefault();
    if (!form.submit() || submitting) return;
    setAttempted(true);
    send({ type: 'auth.login', email: form.values.email.trim(), password: form.values.password });
  };

  const showError = attempted && !submitting && failure;
  return (
    <SessionLayout title={t('auth.signin.title')} subtitle={t('auth.signin.subtitle')}>
      {dialerLinkInvalid && !showError && (
        <Message
          className="session__notice"
          severity="warn"
          text={t('integrationKeys.signin.linkInvalid')}
          data-testid="vicidial-link-invalid"
          role="status"
        />
      )}
      {disconnected && (
        <Message
          className="session__notice"
          severity="warn"
          text={t('auth.signin.disconnected')}
          data-testid="disconnected-notice"
          role="status"
        />
      )}
      {loggedOut && !disconnected && !showError && (
        <Message
          className="session__notice"
          severity="info"
          text={t(idleSignedOut ? 'auth.signin.idleSignedOut' : 'auth.signin.loggedOut')}
          data-testid={idleSignedOut ? 'idle-signed-out-notice' : undefined}
          role="status"
        />
      )}
      <form className="session__form" noValidate onSubmit={onSubmit} aria-busy={submitting}>
        <TextField
          id="signin-email"
          testId="signin-email"
          label={t('auth.signin.email')}
          type="email"
          icon="pi pi-envelope"
          autoComplete="username"
          autoFocus
          value={form.values.email}
          onChange={form.set('email')}
          onBlur={form.blur('email')}
          error={form.errorFor('email')}
        />
        <TextField
          id="signin-password"
          testId="signin-password"
          label={t('auth.signin.password')}
          type="password"
          icon="pi pi-lock"
          autoComplete="current-password"
          value={form.values.password}
          onChange={form.set('password')}
          onBlur={form.blur('password')}
          error={form.errorFor('password')}
        />
        <div className="session__row session__row--end">
          <Link to="/session/forgot-password" className="text-link">
            {t('auth.signin.forgot')}
          </Link>
        </div>
        {showError && (
          <div className="form-error" role="alert" data-testid="signin-error">
            <i className="pi pi-times-circle" aria-hidden="true" />
            <span>{describeError(failure, t)}</span>
          </div>
        )}
        <Button
          type="submit"
          className="session__submit"
          data-testid="signin-submit"
          label={submitting ? t('auth.signin.submitting') : t('auth.signin.submit')}
          loading={submitting}
          disabled={submitting}
        />
      </form>
      <p className="session__switch">
        {t('auth.signin.noAccount')}{' '}
        <Link to="/session/signup" className="text-link" data-testid="signup-link">
          {t('auth.signin.signup')}
        </Link>
      </p>
    </SessionLayout>
  );
}
