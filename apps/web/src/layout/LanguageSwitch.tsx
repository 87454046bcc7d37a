import { useId } from 'react';
import { useTranslation } from 'react-i18next';
import { LANGUAGES } from '@centralita/contracts';
import { cx } from '../components/cx';
import { LANGUAGE_NAMES, normaliseLanguage } from '../i18n/languages';

/**
 * A native <select> on purpose: keyboard and screen-reader friendly for free, and browser tests
 * can drive it with `selectOption('[data-testid=language-switch]', 'en')`.
 */
export function LanguageSwitch({ className }: { className?: string }) {
  const { t, i18n } = useTranslation();
  const id = useId();
  const current = normaliseLanguage(i18n.resolvedLanguage ?? i18n.language);
  return (
    <div className={cx('language-switch', className)}>
      <label htmlFor={id} className="sr-only">
        {t('header.language')}
      </label>
      <i className="pi pi-globe language-switch__icon" aria-hidden="true" />
      <select
        id={id}
        className="language-switch__select"
        data-testid="language-switch"
        value={current}
        title={t('header.language')}
        onChange={(event) => void i18n.changeLanguage(event.target.value)}
      >
        {LANGUAGES.map((lng) => (
          <option key={lng} value={lng} lang={lng}>
            {LANGUAGE_NAMES[lng]}
          </option>
        ))}
      </select>
      <i className="pi pi-chevron-down language-switch__chevron" aria-hidden="true" />
    </div>
  );
}
