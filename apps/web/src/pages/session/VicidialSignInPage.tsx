import { useEffect, useRef, useState } from 'react';
import { useNavigate, useParams } from 'react-router-dom';
import { useTranslation } from 'react-i18next';
import { homePathForRole, VICIDIAL_NOTICE_INVALID, VICIDIAL_NOTICE_PARAM, type AuthResult } from '@centralita/contracts';
import { isApiError } from '../../api/api-error';
import { useAuth, useServices } from '../../app/ServicesContext';
import { SessionUnreachable, SessionWaiting } from './SessionForm';
import { SessionLayout } from './SessionLayout';

type Phase = { name: 'signingIn' } | { name: 'leaving' } | { name: 'unreachable'; error: unknown };

/** An absolute http(s) callback leaves the console; a path stays in it. */
const isAbsolute = (callback: string) => /^https?:\/\//i.test(callback);

/**
 * /session/vicidial/:id[/:callback] — an external dialer's single-use sign-in link (spec's
 * ExternLoginVicidial). The id is exchanged once for an ordinary session, adopted like a login's
 * answer; then the agent goes to the callback bound to the link when it was issued (the one in
 * the URL is only informative: it could have been edited) or to their home page. A link the API
 * refuses (unknown, used, expired, revoked key) lands on the sign-in page with a notice.
 */
export function VicidialSignInPage() {
  const { t } = useTranslation();
  const { client } = useServices();
  const { send } = useAuth();
  const navigate = useNavigate();
  const { id = '' } = useParams();
  const [phase, setPhase] = useState<Phase>({ name: 'signingIn' });
  const [attempt, setAttempt] = useState(0);
  // A link opens once: React's development double effects and re-renders must not spend it twice.
  const started = useRef<string | null>(null);

  useEffect(() => {
    const key = `${id}#${attempt}`;
    if (started.current === key) return;
    started.current = key;
    setPhase({ name: 'signingIn' });
    client
      .post<AuthResult & { callback: string | null }>(`/api/auth/vicidial/${encodeURIComponent(id)}`, {}, { auth: false })
      .then(({ callback, ...result }) => {
        send({ type: 'auth.signedIn', result });
        if (callback && isAbsolute(callback)) {
          setPhase({ name: 'leaving' });
          window.location.assign(callback);
        } else navigate(callback ?? homePathForRole(result.user.role), { replace: true });
      })
      .catch((error: unknown) => {
        const unreachable = isApiError(error) && (error.kind === 'network' || error.status >= 500 || error.status === 429);
        if (unreachable) setPhase({ name: 'unreachable', error });
        else navigate(`/session/signin?${VICIDIAL_NOTICE_PARAM}=${VICIDIAL_NOTICE_INVALID}`, { replace: true });
      });
  }, [client, id, attempt, send, navigate]);

  return (
    <SessionLayout title={t('integrationKeys.vicidial.title')}>
      {phase.name === 'unreachable' ? (
        <SessionUnreachable error={phase.error} onRetry={() => setAttempt((n) => n + 1)} />
      ) : (
        <SessionWaiting
          testId="vicidial-signing-in"
          text={t(phase.name === 'leaving' ? 'integrationKeys.vicidial.redirecting' : 'integrationKeys.vicidial.signingIn')}
        />
      )}
    </SessionLayout>
  );
}
