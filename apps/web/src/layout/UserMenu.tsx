import { useTranslation } from 'react-i18next';
import { useAuth } from '../app/ServicesContext';
import { usePopover } from '../components/usePopover';
import { UserAvatar } from './UserAvatar';

export function UserMenu() {
  const { t } = useTranslation();
  const { user, send } = useAuth();
  const { open, toggle, rootRef, triggerRef } = usePopover();
  if (!user) return null;
  const role = t(`roles.${user.role}`, { defaultValue: user.role });
  return (
    <div className="header-popover" ref={rootRef}>
      <button
        ref={triggerRef}
        type="button"
        className="user-button"
        data-testid="user-menu"
        aria-haspopup="true"
        aria-expanded={open}
        aria-label={`${t('header.userMenu')}: ${user.name}`}
        onClick={toggle}
      >
        <UserAvatar name={user.name} src={user.avatar} />
        <span className="user-button__text">
          <span className="user-button__name">{user.name}</span>
          <span className="user-button__role">{role}</span>
        </span>
        <i className="pi pi-chevron-down user-button__chevron" aria-hidden="true" />
      </button>
      {open && (
        <div className="popover-panel user-panel" role="dialog" aria-label={t('header.userMenu')}>
          <div className="user-panel__head">
            <UserAvatar name={user.name} src={user.avatar} size="lg" />
            <div className="user-panel__who">
              <strong data-testid="user-menu-name">{user.name}</strong>
              <span className="user-panel__email">{user.email}</span>
            </div>
          </div>
          <dl className="user-panel__facts">
            <div>
              <dt>{t('header.role')}</dt>
              <dd data-testid="user-menu-role">{role}</dd>
            </div>
            <div>
              <dt>{t('header.tenant')}</dt>
              <dd data-testid="user-menu-tenant">{user.clientName || '—'}</dd>
            </div>
            <div>
              <dt>{t('header.status')}</dt>
              <dd>
                <span className="status-dot status-dot--online" aria-hidden="true" /> {t('header.online')}
              </dd>
            </div>
          </dl>
          <button type="button" className="user-panel__logout" data-testid="logout" onClick={() => send({ type: 'auth.logout' })}>
            <i className="pi pi-sign-out" aria-hidden="true" />
            {t('header.logout')}
          </button>
        </div>
      )}
    </div>
  );
}
