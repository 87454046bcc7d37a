import { Link, useParams } from 'react-router-dom';
import { useTranslation } from 'react-i18next';
import type { AppRoute } from '@centralita/contracts';
import { SessionLayout } from './SessionLayout';

interface PublicCapabilityPageProps {
  titleKey: string;
  capability: AppRoute['capability'];
  icon: string;
  param: string;
}

/** Public pages whose feature ships with a later capability: they say which one lives here. */
export function PublicCapabilityPage({ titleKey, capability, icon, param }: PublicCapabilityPageProps) {
  const { t } = useTranslation();
  const params = useParams();
  const reference = params[param];
  const capabilityName = t(`capabilities.${capability}`);
  return (
    <SessionLayout title={t(`routes.${titleKey}`)}>
      <div className="capability-card capability-card--public" data-testid="capability-placeholder" data-capability={capability}>
        <span className="capability-card__icon" aria-hidden="true">
          <i className={icon} />
        </span>
        <p className="capability-card__lead">{t('publicPage.lead', { capability: capabilityName })}</p>
        <p className="capability-card__body">{t('publicPage.body')}</p>
        {reference && (
          <dl className="capability-card__facts">
            <div>
              <dt>{t('publicPage.reference')}</dt>
              <dd>
                <code>{reference}</code>
              </dd>
            </div>
          </dl>
        )}
      </div>
      <p className="session__switch">
        <Link to="/session/signin" className="text-link">
          {t('publicPage.signin')}
        </Link>
      </p>
    </SessionLayout>
  );
}
