import { useEffect, useState, type FormEvent } from 'react';
import { Link, Navigate, useParams } from 'react-router-dom';
import { Button } from 'primereact/button';
import { Message } from 'primereact/message';
import { useTranslation } from 'react-i18next';
import { homePathForRole, LIMITS, PASSWORD_POLICY, type InvitationCheck } from '@centralita/contracts';
import { useApi, useAuth } from '../../app/ServicesContext';
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
  | { name: 'signingIn' };

/**
 * /session/invitation/:token — the invitee chooses a password; the account is created and they are
 * signed in. The token travels in request bodies only, never in a URL the API logs.
 */
export function AcceptInvitationPage() {
  const { t } = useTranslation();
  const api = useApi();
  const { status, user, send } = useAuth();
  const { token = '' } = useParams();
  const [phase, setPhase] = useState<Phase>({ name: 'validating' });
  const [invitation, setInvitation] = useState<InvitationCheck | null>(null);
  const [attempt, setAttempt] = useState(0);
  const form = useForm({ password: '', confirm: '' }, (values) => ({
    password: passwordRules,
    confirm: [required, matches(() => values.password)],
  }));

  useEffect(() => {
    let cancelled = false;
    setPhase({ name: 'validating' });
    api
      .checkInvitation(token)
      .then((data) => {
        if (cancelled) return;
        setInvitation(data);
        setPhase({ name: 'ready' });
      })
      .catch((error: unknown) => {
        if (cancelled) return;
        const unreachable = isApiError(error) && (error.kind === 'network' || error.status >= 500 || error.status === 429);
        setPhase(unreachable ? { name: 'unreachable', error } : { name: 'invalid' });
      });
    return () => {
      cancelled = true;
    };
  }, [api, token, attempt]);

  if (phase.name === 'signingIn' && status === 'authenticated' && user) return <Navigate to={homePathForRole(user.role)} replace />;

  const onSubmit = async (event: FormEvent) => {
    event.preventDefault();
    if (!form.submit() || phase.name === 'saving' || !invitation) return;
    setPhase({ name: 'saving' });
    try {
      await api.acceptInvitation(token, form.values.password);
      // The account exists now: sign in through the console's one session path.
      setPhase({ name: 'signingIn' });
      send({ type: 'auth.login', email: invitation.email, password: form.values.password });
    } catch (error) {
      if (isApiError(error) && error.code === 'invitation_invalid') setPhase({ name: 'invalid' });
      else setPhase({ name: 'failed', error });
    }
  };

  let body;
  switch (phase.name) {
    case 'validating':
      body = (
        <div className="session__waiting" role="status" data-testid="invitation-validating">
          <span className="spinner spinner--sm" aria-hidden="true" />
          <span>{t('auth.invitation.validating')}</span>
        </div>
      );
      break;
    case 'signingIn':
      body = (
        <div className="session__waiting" role="status" data-testid="invitation-signing-in">
          <span className="spinner spinner--sm" aria-hidden="true" />
          <span>{t('auth.invitation.signingIn')}</span>
        </div>
      );
      break;
    case 'invalid':
      body = (
        <>
          <Message
            className="session__notice"
            severity="error"
            text={t('auth.invitation.invalid')}
            data-testid="invitation-invalid"
            role="alert"
          />
          <Link to="/session/signin" className="p-button session__submit session__link-button">
            {t('auth.invitation.signin')}
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
    default:
      body = (
        <form className="session__form" noValidate onSubmit={onSubmit} aria-busy={phase.name === 'saving'}>
          <TextField
            id="invitation-password"
            testId="invitation-password"
            label={t('auth.invitation.password')}
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
            id="invitation-confirm"
            testId="invitation-confirm"
            label={t('auth.invitation.confirm')}
            type="password"
            icon="pi pi-lock"
            autoComplete="new-password"
            value={form.values.confirm}
            onChange={form.set('confirm')}
            onBlur={form.blur('confirm')}
            error={form.errorFor('confirm')}
          />
          {phase.name === 'failed' && (
            <div className="form-error" role="alert" data-testid="invitation-error">
              <i className="pi pi-times-circle" aria-hidden="true" />
              <span>{describeError(phase.error, t)}</span>
            </div>
          )}
          <Button
            type="submit"
            className="session__submit"
            data-testid="invitation-submit"
            label={phase.name === 'saving' ? t('auth.invitation.submitting') : t('auth.invitation.submit')}
            loading={phase.name === 'saving'}
            disabled={phase.name === 'saving'}
          />
        </form>
      );
  }

  const showForm = phase.name === 'ready' || phase.name === 'saving' || phase.name === 'failed';
  return (
    <SessionLayout
      title={
        invitation
          ? t('auth.invitation.title', { organisation: invitation.organisationName })
          : t('auth.invitation.title', { organisation: 'Centralita' })
      }
      subtitle={showForm && invitation ? t('auth.invitation.subtitle', { email: invitation.email }) : undefined}
    >
      {body}
    </SessionLayout>
  );
}
