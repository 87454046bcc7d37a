import { useTranslation } from 'react-i18next';
import { cx } from '../components/cx';
import { usePopover } from '../components/usePopover';
import { THEMES } from '../theme/themes';
import { usePreferences } from '../theme/PreferencesProvider';

/** Palette button opening the eleven colour themes; each swatch is `theme-option-<id>`. */
export function ThemePicker() {
  const { t } = useTranslation();
  const { themeId, setTheme } = usePreferences();
  const { open, toggle, close, rootRef, triggerRef } = usePopover();
  return (
    <div className="header-popover" ref={rootRef}>
      <button
        ref={triggerRef}
        type="button"
        className="icon-button"
        data-testid="theme-switch"
        data-theme-current={themeId}
        aria-haspopup="true"
        aria-expanded={open}
        aria-label={t('header.theme')}
        title={t('header.theme')}
        onClick={toggle}
      >
        <i className="pi pi-palette" aria-hidden="true" />
      </button>
      {open && (
        <div className="popover-panel theme-picker" role="dialog" aria-label={t('header.theme')}>
          <p className="popover-panel__title">{t('header.theme')}</p>
          <div className="theme-picker__grid" role="radiogroup" aria-label={t('header.theme')}>
            {THEMES.map((theme) => (
              <button
                key={theme.id}
                type="button"
                role="radio"
                aria-checked={theme.id === themeId}
                className={cx('theme-swatch', theme.id === themeId && 'is-selected')}
                data-testid={`theme-option-${theme.id}`}
                title={t(`themes.${theme.id}`)}
                onClick={() => {
                  setTheme(theme.id);
                  close();
                }}
              >
                <span className="theme-swatch__colour" style={{ background: theme.primary }} aria-hidden="true">
                  {theme.id === themeId && <i className="pi pi-check" />}
                </span>
                <span className="theme-swatch__name">{t(`themes.${theme.id}`)}</span>
              </button>
            ))}
          </div>
        </div>
      )}
    </div>
  );
}
