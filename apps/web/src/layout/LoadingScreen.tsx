import { useTranslation } from 'react-i18next';
import { TenantLogo } from '../branding/TenantLogo';

/** Full-screen wait while the session is restored: tenant logo and a spinner (spec §2). */
export function LoadingScreen() {
  const { t } = useTranslation();
  return (
    <div className="loading-screen" data-testid="loading-screen" role="status" aria-live="polite">
      <TenantLogo variant="complete" alt="Centralita" className="loading-screen__logo" />
      <span className="spinner" aria-hidden="true" />
      <span className="loading-screen__text">{t('app.loading')}</span>
    </div>
  );
}
