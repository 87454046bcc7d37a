import { useCallback, useEffect, useId, useLayoutEffect, useRef, useState, type FocusEvent, type MouseEvent } from 'react';
import { createPortal } from 'react-dom';
import { Link, NavLink, useLocation } from 'react-router-dom';
import { useTranslation } from 'react-i18next';
import type { MenuItem } from '@centralita/contracts';
import { useAuth } from '../app/ServicesContext';
import { TenantLogo } from '../branding/TenantLogo';
import { cx } from '../components/cx';
import { describeError } from '../api/error-text';
import { useMenu } from '../menu/MenuProvider';
import { groupContainsPath, iconClass, isSafeExternalUrl, labelKeys } from '../menu/menu-utils';
import { humanise } from '../routing/route-table';
import { usePreferences } from '../theme/PreferencesProvider';

export const SIDEBAR_ID = 'console-sidebar';

interface Hint {
  label: string;
  top: number;
  left: number;
}

interface EntryProps {
  item: MenuItem;
  depth: number;
  compact: boolean;
  /** Compact mode names icons in a floating hint; null hides it. */
  hint(label: string, target: HTMLElement | null): void;
}

function useLabel() {
  const { t } = useTranslation();
  return useCallback((item: MenuItem) => t(labelKeys(item), { defaultValue: humanise(item.key) }), [t]);
}

function hintHandlers(compact: boolean, label: string, hint: EntryProps['hint']) {
  if (!compact) return {};
  return {
    onMouseEnter: (e: MouseEvent<HTMLElement>) => hint(label, e.currentTarget),
    onMouseLeave: () => hint(label, null),
    onFocus: (e: FocusEvent<HTMLElement>) => hint(label, e.currentTarget),
    onBlur: () => hint(label, null),
  };
}

function Badge({ badge }: { badge: { value: string; severity?: string } }) {
  const severity = badge.severity && /^[a-z]+$/.test(badge.severity) ? badge.severity : 'info';
  return <span className={`sidebar-badge sidebar-badge--${severity}`}>{badge.value}</span>;
}

function SidebarLink({ item, depth, compact, hint }: EntryProps & { item: Extract<MenuItem, { type: 'link' }> }) {
  const label = useLabel()(item);
  return (
    <li className="sidebar__item">
      <NavLink
        to={item.path}
        className={({ isActive }) => cx('sidebar-link', depth > 0 && 'sidebar-link--nested', isActive && 'is-active')}
        aria-label={compact ? label : undefined}
        data-testid={`menu-link-${item.key}`}
        {...hintHandlers(compact, label, hint)}
      >
        {item.icon || depth === 0 ? (
          <i className={cx('sidebar-link__icon', iconClass(item.icon))} aria-hidden="true" />
        ) : (
          <span className="sidebar-link__bullet" aria-hidden="true" />
        )}
        <span className="sidebar-link__text" title={compact ? undefined : label}>
          {label}
        </span>
        {item.badge && <Badge badge={item.badge} />}
      </NavLink>
    </li>
  );
}

function SidebarExternalLink({ item, compact, hint }: EntryProps & { item: Extract<MenuItem, { type: 'extLink' }> }) {
  const { t } = useTranslation();
  const label = useLabel()(item);
  if (!isSafeExternalUrl(item.url)) return null;
  return (
    <li className="sidebar__item">
      <a
        href={item.url}
        target="_blank"
        rel="noopener noreferrer"
        className="sidebar-link"
        aria-label={compact ? `${label} (${t('sidebar.newTab')})` : undefined}
        {...hintHandlers(compact, label, hint)}
      >
        <i className={cx('sidebar-link__icon', iconClass(item.icon, 'pi pi-external-link'))} aria-hidden="true" />
        <span className="sidebar-link__text">{label}</span>
        <i className="pi pi-external-link sidebar-link__external" aria-hidden="true" />
        <span className="sr-only"> ({t('sidebar.newTab')})</span>
      </a>
    </li>
  );
}

function SidebarGroup({ item, depth, compact, hint }: EntryProps & { item: Extract<MenuItem, { type: 'group' }> }) {
  const label = useLabel()(item);
  const { pathname } = useLocation();
  const containsCurrent = groupContainsPath(item, pathname);
  const [open, setOpen] = useState(containsCurrent);
  const [flyout, setFlyout] = useState<{ top: number; left: number } | null>(null);
  const listId = useId();
  const buttonRef = useRef<HTMLButtonElement>(null);
  const flyoutRef = useRef<HTMLDivElement>(null);

  // Auto-open when navigation lands on one of the group's links (spec §2).
  useEffect(() => {
    if (containsCurrent) setOpen(true);
  }, [containsCurrent, pathname]);

  // A compact flyout closes on navigation, outside clicks and Escape.
  useEffect(() => setFlyout(null), [pathname, compact]);
  useEffect(() => {
    if (!flyout) return;
    const onPointerDown = (event: PointerEvent) => {
      const target = event.target as Node;
      if (!flyoutRef.current?.contains(target) && !buttonRef.current?.contains(target)) setFlyout(null);
    };
    const onKeyDown = (event: KeyboardEvent) => {
      if (event.key === 'Escape') {
        setFlyout(null);
        buttonRef.current?.focus();
      }
    };
    document.addEventListener('pointerdown', onPointerDown);
    document.addEventListener('keydown', onKeyDown);
    return () => {
      document.removeEventListener('pointerdown', onPointerDown);
      document.removeEventListener('keydown', onKeyDown);
    };
  }, [flyout]);

  const onClick = () => {
    if (!compact) {
      setOpen((value) => !value);
      return;
    }
    hint(label, null);
    if (flyout) {
      setFlyout(null);
      return;
    }
    const rect = buttonRef.current?.getBoundingClientRect();
    if (rect) setFlyout({ top: Math.max(8, Math.min(rect.top, window.innerHeight - 240)), left: rect.right + 8 });
  };

  const expanded = compact ? flyout !== null : open;
  return (
    <li className={cx('sidebar__item', 'sidebar-group', expanded && 'is-open')}>
      <button
        ref={buttonRef}
        type="button"
        className={cx('sidebar-link', 'sidebar-group__toggle', depth > 0 && 'sidebar-link--nested', containsCurrent && 'has-active')}
        aria-expanded={expanded}
        aria-controls={listId}
        aria-label={compact ? label : undefined}
        data-testid={`menu-group-${item.key}`}
        onClick={onClick}
        {...hintHandlers(compact && !flyout, label, hint)}
      >
        <i className={cx('sidebar-link__icon', iconClass(item.icon, 'pi pi-folder'))} aria-hidden="true" />
        <span className="sidebar-link__text">{label}</span>
        <i className="pi pi-chevron-down sidebar-group__chevron" aria-hidden="true" />
      </button>
      {compact ? (
        flyout &&
        createPortal(
          <div ref={flyoutRef} className="sidebar-flyout" style={{ top: flyout.top, left: flyout.left }} id={listId}>
            <div className="sidebar-flyout__title">{label}</div>
            <ul className="sidebar__list">
              {item.children.map((child, index) => (
                <SidebarEntry key={`${child.type}-${child.key}-${index}`} item={child} depth={depth + 1} compact={false} hint={hint} />
              ))}
            </ul>
          </div>,
          document.body,
        )
      ) : (
        <div className="sidebar-group__body" id={listId} hidden={!open}>
          <ul className="sidebar__list sidebar__list--nested">
            {item.children.map((child, index) => (
              <SidebarEntry key={`${child.type}-${child.key}-${index}`} item={child} depth={depth + 1} compact={false} hint={hint} />
            ))}
          </ul>
        </div>
      )}
    </li>
  );
}

function SidebarEntry(props: EntryProps) {
  const label = useLabel();
  const { item, compact } = props;
  switch (item.type) {
    case 'label':
      return compact ? (
        <li className="sidebar__divider" role="separator" aria-label={label(item)} />
      ) : (
        <li className="sidebar__label" role="presentation">
          {label(item)}
        </li>
      );
    case 'link':
      return <SidebarLink {...props} item={item} />;
    case 'extLink':
      return <SidebarExternalLink {...props} item={item} />;
    case 'group':
      return <SidebarGroup {...props} item={item} />;
    default:
      return null;
  }
}

function SidebarSkeleton({ compact }: { compact: boolean }) {
  return (
    <ul className="sidebar__list sidebar-skeleton" aria-hidden="true">
      {Array.from({ length: 7 }, (_, index) => (
        <li key={index} className="sidebar-skeleton__row">
          <span className="sidebar-skeleton__icon" />
          {!compact && <span className="sidebar-skeleton__text" style={{ width: `${55 + ((index * 17) % 35)}%` }} />}
        </li>
      ))}
    </ul>
  );
}

export function Sidebar() {
  const { t } = useTranslation();
  const { sidebarCompact: compact } = usePreferences();
  const { menu, reload } = useMenu();
  const { user } = useAuth();
  const [tip, setTip] = useState<Hint | null>(null);

  const hint = useCallback((label: string, target: HTMLElement | null) => {
    if (!target) {
      setTip(null);
      return;
    }
    const rect = target.getBoundingClientRect();
    setTip({ label, top: rect.top + rect.height / 2, left: rect.right + 10 });
  }, []);

  useLayoutEffect(() => setTip(null), [compact]);

  return (
    <aside id={SIDEBAR_ID} className={cx('sidebar', compact && 'sidebar--compact')} data-testid="sidebar" data-compact={String(compact)}>
      <div className="sidebar__brand">
        <Link to="/" className="sidebar__logo" aria-label={t('breadcrumb.home')}>
          <TenantLogo
            key={compact ? 'compact' : 'complete'}
            variant={compact ? 'compact' : 'complete'}
            alt={user?.clientName || 'Centralita'}
            className="sidebar__logo-img"
          />
        </Link>
      </div>
      <nav className="sidebar__nav" aria-label={t('sidebar.label')} aria-busy={menu.status === 'loading'} onScroll={() => setTip(null)}>
        {menu.status === 'loading' && menu.items.length === 0 && <SidebarSkeleton compact={compact} />}
        {menu.status === 'error' && (
          <div className="sidebar__state" role="alert" title={compact ? t('sidebar.error') : undefined}>
            <i className="pi pi-exclamation-triangle" aria-hidden="true" />
            {!compact && <p>{t('sidebar.error')}</p>}
            {!compact && <p className="sidebar__state-detail">{describeError(menu.error, t)}</p>}
            <button type="button" className="sidebar__retry" onClick={reload} aria-label={t('common.retry')}>
              <i className="pi pi-refresh" aria-hidden="true" />
              {!compact && <span>{t('common.retry')}</span>}
            </button>
          </div>
        )}
        {menu.status === 'ready' && menu.items.length === 0 && !compact && <p className="sidebar__state">{t('sidebar.empty')}</p>}
        {menu.items.length > 0 && (
          <ul className="sidebar__list">
            {menu.items.map((item, index) => (
              <SidebarEntry key={`${item.type}-${item.key}-${index}`} item={item} depth={0} compact={compact} hint={hint} />
            ))}
          </ul>
        )}
      </nav>
      {compact &&
        tip &&
        createPortal(
          <div className="sidebar-tooltip" role="tooltip" style={{ top: tip.top, left: tip.left }}>
            {tip.label}
          </div>,
          document.body,
        )}
    </aside>
  );
}
