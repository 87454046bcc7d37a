import { useEffect, useState, type FormEvent } from 'react';
import { Navigate, useParams } from 'react-router-dom';
import { useTranslation } from 'react-i18next';
import { homePathForRole, type InvitationCheck } from '@centralita/contracts';
import { useApi, useAuth } from '../../app/ServicesContext';
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
  const form = usePasswordForm();

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
      body = <SessionWaiting testId="invitation-validating" text={t('auth.invitation.validating')} />;
      break;
    case 'signingIn':
      body = <SessionWaiting testId="invitation-signing-in" text={t('auth.invitation.signingIn')} />;
      break;
    case 'invalid':
      body = (
        <SessionNotice
          severity="error"
          text={t('auth.invitation.invalid')}
          testId="invitation-invalid"
          link={{ to: '/session/signin', label: t('auth.invitation.signin') }}
        />
      );
      break;
    case 'unreachable':
      body = <SessionUnreachable error={phase.error} onRetry={() => setAttempt((n) => n + 1)} />;
      break;
    default:
      body = (
        <SessionForm
          onSubmit={onSubmit}
          busy={phase.name === 'saving'}
          failure={phase.name === 'failed' ? phase : undefined}
          errorTestId="invitation-error"
          submitTestId="invitation-submit"
          submitLabel={t('auth.invitation.submit')}
          busyLabel={t('auth.invitation.submitting')}
        >
          <PasswordFields
            prefix="invitation"
            passwordLabel={t('auth.invitation.password')}
            confirmLabel={t('auth.invitation.confirm')}
            form={form}
          />
        </SessionForm>
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
