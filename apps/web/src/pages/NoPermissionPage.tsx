import { Link } from 'react-router-dom';
import { useTranslation } from 'react-i18next';
import { homePathForRole, type AppRoute } from '@centralita/contracts';
import { useAuth } from '../app/ServicesContext';
import { PageHeader } from '../layout/PageHeader';

/** Shown inside the layout when the role lacks the route's permission. */
export function NoPermissionPage({ route }: { route: AppRoute }) {
  const { t } = useTranslation();
  const { user } = useAuth();
  return (
    <>
      <PageHeader title={t(`routes.${route.titleKey}`)} icon="pi pi-lock" subtitle={t('noPermission.title')} />
      <section className="card state-card" data-testid="no-permission" role="alert">
        <span className="state-card__icon state-card__icon--warn" aria-hidden="true">
          <i className="pi pi-lock" />
        </span>
        <h2 className="state-card__title">{t('noPermission.title')}</h2>
        <p className="state-card__text">{t('noPermission.message')}</p>
        {route.permission && (
          <p className="state-card__meta">
            {t('placeholder.permission')}: <code>{route.permission}</code>
          </p>
        )}
        <Link to={homePathForRole(user?.role ?? '')} className="p-button state-card__action">
          <i className="pi pi-home" aria-hidden="true" />
          <span>{t('noPermission.home')}</span>
        </Link>
      </section>
    </>
  );
}
