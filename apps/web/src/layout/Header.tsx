import { useTranslation } from 'react-i18next';
import { usePreferences } from '../theme/PreferencesProvider';
import { LanguageSwitch } from './LanguageSwitch';
import { SIDEBAR_ID } from './Sidebar';
import { ThemePicker } from './ThemePicker';
import { UserMenu } from './UserMenu';

/** Fixed top bar, 64 px (spec §9). */
export function Header({ title }: { title: string }) {
  const { t } = useTranslation();
  const { sidebarCompact, toggleSidebar } = usePreferences();
  return (
    <header className="topbar" data-testid="topbar">
      <button
        type="button"
        className="icon-button"
        data-testid="sidebar-toggle"
        aria-controls={SIDEBAR_ID}
        aria-expanded={!sidebarCompact}
        aria-label={sidebarCompact ? t('header.expandSidebar') : t('header.collapseSidebar')}
        title={sidebarCompact ? t('header.expandSidebar') : t('header.collapseSidebar')}
        onClick={toggleSidebar}
      >
        <i className={sidebarCompact ? 'pi pi-bars' : 'pi pi-align-left'} aria-hidden="true" />
      </button>
      <span className="topbar__title">{title}</span>
      <div className="topbar__actions">
        <LanguageSwitch />
        <ThemePicker />
        <span className="topbar__divider" aria-hidden="true" />
        <UserMenu />
      </div>
    </header>
  );
}
