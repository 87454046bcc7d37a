import { Link } from 'react-router-dom';
import { useTranslation } from 'react-i18next';
import type { AppRoute, MenuItem } from '@centralita/contracts';
import { useAuth } from '../app/ServicesContext';
import { useBranding } from '../branding/BrandingProvider';
import { TenantLogo } from '../branding/TenantLogo';
import { LANGUAGE_NAMES, normaliseLanguage } from '../i18n/languages';
import { PageHeader } from '../layout/PageHeader';
import { UserAvatar } from '../layout/UserAvatar';
import { useMenu } from '../menu/MenuProvider';
import { iconClass } from '../menu/menu-utils';
import { findRoute } from '../routing/route-table';
import { CAPABILITY_ICONS } from './capability-icons';
import { usePreferences } from '../theme/PreferencesProvider';
import { findTheme } from '../theme/themes';

type LinkItem = Extract<MenuItem, { type: 'link' }>;

function links(items: MenuItem[]): LinkItem[] {
  return items.flatMap((item) => (item.type === 'link' ? [item] : item.type === 'group' ? links(item.children) : []));
}

function shortcutIcon(item: LinkItem): string {
  if (item.icon) return iconClass(item.icon);
  const route = findRoute(item.path);
  return iconClass(route?.icon ?? (route ? CAPABILITY_ICONS[route.capability] : undefined));
}

/** /dashboard/default: who is signed in, for which tenant, with which branding. */
export function DashboardHomePage({ route }: { route: AppRoute }) {
  const { t, i18n } = useTranslation();
  const { user } = useAuth();
  const { branding } = useBranding();
  const { themeId, sidebarCompact } = usePreferences();
  const { menu } = useMenu();
  if (!user) return null;
  const role = t(`roles.${user.role}`, { defaultValue: user.role });
  const shortcuts = links(menu.items)
    .filter((item) => item.path.toLowerCase() !== route.path.toLowerCase())
    .slice(0, 8);

  return (
    <>
      <PageHeader title={t(`routes.${route.titleKey}`)} icon={route.icon} subtitle={user.clientName} />
      <section className="card welcome" data-testid="welcome-card">
        <UserAvatar name={user.name} src={user.avatar} size="lg" />
        <div className="welcome__text">
          <h2 className="welcome__greeting">{t('welcome.greeting', { name: user.name })}</h2>
          <p className="welcome__subtitle">{t('welcome.subtitle')}</p>
        </div>
        <span className="chip chip--primary">{role}</span>
      </section>

      <div className="grid grid--3">
        <section className="card">
          <h3 className="card__title">
            <i className="pi pi-user" aria-hidden="true" /> {t('welcome.profile')}
          </h3>
          <dl className="facts">
            <div>
              <dt>{t('welcome.name')}</dt>
              <dd data-testid="welcome-name">{user.name}</dd>
            </div>
            <div>
              <dt>{t('welcome.email')}</dt>
              <dd>{user.email}</dd>
            </div>
            <div>
              <dt>{t('welcome.role')}</dt>
              <dd data-testid="welcome-role">{role}</dd>
            </div>
            <div>
              <dt>{t('welcome.tenant')}</dt>
              <dd data-testid="welcome-tenant">{user.clientName || '—'}</dd>
            </div>
            <div>
              <dt>{t('welcome.sessionTime')}</dt>
              <dd>{t('common.minutes', { count: user.sessionTime })}</dd>
            </div>
          </dl>
        </section>

        <section className="card">
          <h3 className="card__title">
            <i className="pi pi-image" aria-hidden="true" /> {t('welcome.branding')}
          </h3>
          <div className="branding-preview">
            <figure>
              <div className="branding-preview__frame branding-preview__frame--square">
                <TenantLogo variant="compact" alt={t('welcome.compactLogo')} />
              </div>
              <figcaption>{t('welcome.compactLogo')}</figcaption>
            </figure>
            <figure className="branding-preview__wide">
              <div className="branding-preview__frame">
                <TenantLogo variant="complete" alt={t('welcome.fullLogo')} />
              </div>
              <figcaption>{t('welcome.fullLogo')}</figcaption>
            </figure>
          </div>
          {branding.mainColor && (
            <p className="branding-preview__colour">
              <span className="swatch" style={{ background: branding.mainColor }} aria-hidden="true" />
              {t('welcome.mainColor')}: <code>{branding.mainColor}</code>
            </p>
          )}
        </section>

        <section className="card">
          <h3 className="card__title">
            <i className="pi pi-sliders-h" aria-hidden="true" /> {t('welcome.preferences')}
          </h3>
          <dl className="facts">
            <div>
              <dt>{t('welcome.language')}</dt>
              <dd>{LANGUAGE_NAMES[normaliseLanguage(i18n.resolvedLanguage)]}</dd>
            </div>
            <div>
              <dt>{t('welcome.theme')}</dt>
              <dd>
                <span className="swatch" style={{ background: findTheme(themeId).primary }} aria-hidden="true" />
                {t(`themes.${themeId}`)}
              </dd>
            </div>
            <div>
              <dt>{t('welcome.navigation')}</dt>
              <dd>{sidebarCompact ? t('welcome.compact') : t('welcome.full')}</dd>
            </div>
          </dl>
        </section>
      </div>

      {(menu.status === 'loading' || shortcuts.length > 0) && (
        <section className="card">
          <h3 className="card__title">
            <i className="pi pi-th-large" aria-hidden="true" /> {t('welcome.shortcuts')}
          </h3>
          {menu.status === 'loading' && shortcuts.length === 0 ? (
            <div className="shortcut-grid" aria-busy="true">
              {Array.from({ length: 4 }, (_, index) => (
                <span key={index} className="shortcut shortcut--skeleton" />
              ))}
            </div>
          ) : (
            <div className="shortcut-grid">
              {shortcuts.map((item) => (
                <Link key={item.path} to={item.path} className="shortcut">
                  <i className={shortcutIcon(item)} aria-hidden="true" />
                  <span>{t(`routes.${item.key}`, { defaultValue: item.key })}</span>
                </Link>
              ))}
            </div>
          )}
        </section>
      )}

      <section className="card">
        <h3 className="card__title">
          <i className="pi pi-key" aria-hidden="true" /> {t('welcome.permissions')}
        </h3>
        {user.permissions?.length ? (
          <ul className="chip-list">
            {user.permissions.map((permission) => (
              <li key={permission} className="chip">
                <code>{permission}</code>
              </li>
            ))}
          </ul>
        ) : (
          <p className="muted">{t('welcome.noPermissions')}</p>
        )}
      </section>
    </>
  );
}
