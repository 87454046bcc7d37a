import { useTranslation } from 'react-i18next';
import type { AppRoute } from '@centralita/contracts';
import { PageHeader } from '../layout/PageHeader';
import { CAPABILITY_ICONS } from './capability-icons';

/** A screen another capability builds: says which one, so the page is never blank. */
export function PlaceholderPage({ route }: { route: AppRoute }) {
  const { t } = useTranslation();
  const capability = t(`capabilities.${route.capability}`);
  return (
    <>
      <PageHeader title={t(`routes.${route.titleKey}`)} icon={route.icon ?? CAPABILITY_ICONS[route.capability]} subtitle={capability} />
      <section className="card capability-card" data-testid="capability-placeholder" data-capability={route.capability}>
        <span className="capability-card__icon" aria-hidden="true">
          <i className={CAPABILITY_ICONS[route.capability]} />
        </span>
        <p className="capability-card__lead">{t('placeholder.lead', { capability })}</p>
        <p className="capability-card__body">{t('placeholder.body')}</p>
        <dl className="capability-card__facts">
          <div>
            <dt>{t('placeholder.capability')}</dt>
            <dd>{capability}</dd>
          </div>
          <div>
            <dt>{t('placeholder.route')}</dt>
            <dd>
              <code>{route.path}</code>
            </dd>
          </div>
          <div>
            <dt>{t('placeholder.permission')}</dt>
            <dd>{route.permission ? <code>{route.permission}</code> : t('placeholder.anyUser')}</dd>
          </div>
        </dl>
      </section>
    </>
  );
}
