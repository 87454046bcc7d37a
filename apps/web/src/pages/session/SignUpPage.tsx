import { useState, type FormEvent } from 'react';
import { Link, Navigate } from 'react-router-dom';
import { Button } from 'primereact/button';
import { useTranslation } from 'react-i18next';
import { homePathForRole, LIMITS } from '@centralita/contracts';
import { useAuth, useAuthSelector } from '../../app/ServicesContext';
import { describeError } from '../../api/error-text';
import { isSubmitting } from '../../auth/auth.machine';
import { TextField } from '../../components/TextField';
import { useForm } from '../../components/useForm';
import { email, passwordRules, required } from '../../validation/rules';
import { LoadingScreen } from '../../layout/LoadingScreen';
import { SessionLayout } from './SessionLayout';

export function SignUpPage() {
  const { t } = useTranslation();
  const { status, user, send } = useAuth();
  const submitting = useAuthSelector(isSubmitting);
  const failure = useAuthSelector((s) => s.context.error);
  const [attempted, setAttempted] = useState(false);
  const form = useForm({ username: '', email: '', password: '' }, () => ({
    username: [required],
    email: [required, email],
    password: passwordRules,
  }));

  if (status === 'initialising') return <LoadingScreen />;
  if (status === 'authenticated' && user) return <Navigate to={homePathForRole(user.role)} replace />;

  const onSubmit = (event: FormEvent) => {
    event.preventDefault();
    if (!form.submit() || submitting) return;
    setAttempted(true);
    send({
      type: 'auth.register',
      username: form.values.username.trim(),
      email: form.values.email.trim(),
      password: form.values.password,
    });
  };

  const showError = attempted && !submitting && failure;
  return (
    <SessionLayout title={t('auth.signup.title')} subtitle={t('auth.signup.subtitle')}>
      <form className="session__form" noValidate onSubmit={onSubmit} aria-busy={submitting}>
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
          hint={t('auth.signup.passwordHint', { count: LIMITS.minPasswordLength })}
          value={form.values.password}
          onChange={form.set('password')}
          onBlur={form.blur('password')}
          error={form.errorFor('password')}
        />
        {showError && (
          <div className="form-error" role="alert" data-testid="signup-error">
            <i className="pi pi-times-circle" aria-hidden="true" />
            <span>{describeError(failure, t)}</span>
          </div>
        )}
        <Button
          type="submit"
          className="session__submit"
          data-testid="signup-submit"
          label={submitting ? t('auth.signup.submitting') : t('auth.signup.submit')}
          loading={submitting}
          disabled={submitting}
        />
      </form>
      <p className="session__switch">
        {t('auth.signup.haveAccount')}{' '}
        <Link to="/session/signin" className="text-link">
          {t('auth.signup.signin')}
        </Link>
      </p>
    </SessionLayout>
  );
}
