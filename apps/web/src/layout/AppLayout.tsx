import { Outlet, useLocation } from 'react-router-dom';
import { useTranslation } from 'react-i18next';
import { cx } from '../components/cx';
import { useDocumentTitle } from '../hooks/useDocumentTitle';
import { MenuProvider } from '../menu/MenuProvider';
import { findRoute, humanise } from '../routing/route-table';
import { usePreferences } from '../theme/PreferencesProvider';
import { Breadcrumb } from './Breadcrumb';
import { Header } from './Header';
import { IdleSignOut } from './IdleSignOut';
import { Sidebar } from './Sidebar';

/** layout1 of spec §9: dark sidebar, fixed top bar, breadcrumb bar, page. */
export function AppLayout() {
  const { t } = useTranslation();
  const { sidebarCompact } = usePreferences();
  const { pathname } = useLocation();
  const route = findRoute(pathname);
  const title = route ? t(`routes.${route.titleKey}`) : humanise(pathname.split('/').filter(Boolean).pop() ?? '');
  useDocumentTitle(title);

  return (
    <MenuProvider>
      <div className={cx('shell', sidebarCompact && 'shell--compact')} data-layout="layout1">
        <a className="skip-link" href="#main-content">
          {t('app.skipToContent')}
        </a>
        <Sidebar />
        <Header title={title} />
        <main className="shell__main" id="main-content" tabIndex={-1}>
          <Breadcrumb title={title} />
          <div className="shell__page">
            <Outlet />
          </div>
        </main>
        <IdleSignOut />
      </div>
    </MenuProvider>
  );
}
