import type { ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { useBranding } from '../../branding/BrandingProvider';
import { TenantLogo } from '../../branding/TenantLogo';
import { useDocumentTitle } from '../../hooks/useDocumentTitle';
import { LanguageSwitch } from '../../layout/LanguageSwitch';

const CHANNEL_ICONS = [
  ['pi pi-comments', 'Web chat'],
  ['pi pi-whatsapp', 'WhatsApp'],
  ['pi pi-facebook', 'Facebook'],
  ['pi pi-instagram', 'Instagram'],
  ['pi pi-twitter', 'X'],
  ['pi pi-telegram', 'Telegram'],
  ['pi pi-phone', 'Phone'],
  ['pi pi-envelope', 'Email'],
  ['pi pi-video', 'Video'],
] as const;

/** Two-panel frame shared by the public session pages. */
export function SessionLayout({ title, subtitle, children }: { title: string; subtitle?: string; children: ReactNode }) {
  const { t } = useTranslation();
  const { branding } = useBranding();
  useDocumentTitle(title);
  return (
    <div className="session">
      <div className="session__card">
        <aside
          className="session__brand"
          style={
            branding.loginImageUrl
              ? { backgroundImage: `linear-gradient(rgba(15,23,42,.55), rgba(15,23,42,.7)), url("${encodeURI(branding.loginImageUrl)}")` }
              : undefined
          }
        >
          <div className="session__brand-inner">
            <p className="session__eyebrow">{t('app.tagline')}</p>
            <h2 className="session__brand-title">{t('auth.brandTitle')}</h2>
            <p className="session__brand-text">{t('auth.brandText')}</p>
            <ul className="channel-list" aria-hidden="true">
              {CHANNEL_ICONS.map(([icon, name]) => (
                <li key={name} title={name}>
                  <i className={icon} />
                </li>
              ))}
            </ul>
          </div>
        </aside>
        <section className="session__panel">
          <div className="session__top">
            <TenantLogo variant="complete" alt="Centralita" className="session__logo" />
            <LanguageSwitch className="language-switch--light" />
          </div>
          <div className="session__content">
            <h1 className="session__title" data-testid="page-title">
              {title}
            </h1>
            {subtitle && <p className="session__subtitle">{subtitle}</p>}
            {children}
          </div>
        </section>
      </div>
    </div>
  );
}
