import { useState } from 'react';
import { Link, useParams } from 'react-router-dom';
import { Button } from 'primereact/button';
import { Message } from 'primereact/message';
import { useTranslation } from 'react-i18next';
import { useApi } from '../../app/ServicesContext';
import { isApiError } from '../../api/api-error';
import { describeError } from '../../api/error-text';
import { SessionLayout } from './SessionLayout';

type Phase =
  { name: 'ready' } | { name: 'activating' } | { name: 'done'; email: string } | { name: 'invalid' } | { name: 'failed'; error: unknown };

/**
 * The link of a self-registration mail (/session/activate/:token). Activation is a deliberate
 * click (a POST with the token in the body), so a mail scanner that opens links creates nothing;
 * it creates the new organisation and its administrator, who then signs in.
 */
export function ActivateAccountPage() {
  const { t } = useTranslation();
  const api = useApi();
  const { token = '' } = useParams();
  const [phase, setPhase] = useState<Phase>({ name: 'ready' });

  const activate = async () => {
    if (phase.name === 'activating') return;
    setPhase({ name: 'activating' });
    try {
      const { email } = await api.confirmRegistration(token);
      setPhase({ name: 'done', email });
    } catch (error) {
      const invalid = isApiError(error) && (error.code === 'registration_link_invalid' || error.status === 400 || error.status === 403);
      setPhase(invalid ? { name: 'invalid' } : { name: 'failed', error });
    }
  };

  return (
    <SessionLayout title={t('auth.activate.title')} subtitle={t('auth.activate.subtitle')}>
      {phase.name === 'done' ? (
        <Message
          className="session__notice"
          severity="success"
          text={t('auth.activate.done', { email: phase.email })}
          data-testid="activate-done"
          role="status"
        />
      ) : phase.name === 'invalid' ? (
        <Message
          className="session__notice"
          severity="warn"
          text={t('errors.registration_link_invalid')}
          data-testid="activate-invalid"
          role="alert"
        />
      ) : (
        <>
          {phase.name === 'failed' && (
            <div className="form-error" role="alert" data-testid="activate-error">
              <i className="pi pi-times-circle" aria-hidden="true" />
              <span>{describeError(phase.error, t)}</span>
            </div>
          )}
          <Button
            type="button"
            className="session__submit"
            data-testid="activate-submit"
            label={phase.name === 'activating' ? t('auth.activate.submitting') : t('auth.activate.submit')}
            loading={phase.name === 'activating'}
            disabled={phase.name === 'activating'}
            onClick={activate}
          />
        </>
      )}
      <p className="session__switch">
        <Link to="/session/signin" className="text-link" data-testid="activate-signin">
          {t('auth.activate.signin')}
        </Link>
      </p>
    </SessionLayout>
  );
}
