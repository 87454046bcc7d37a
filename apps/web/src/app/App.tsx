import { useEffect, useState } from 'react';
import { RouterProvider } from 'react-router-dom';
import { I18nextProvider } from 'react-i18next';
import { PrimeReactProvider } from 'primereact/api';
import { BrandingProvider } from '../branding/BrandingProvider';
import { currentLanguage } from '../i18n/i18n';
import { PrimeLocaleSync } from '../i18n/primereact-locale';
import { createRouter } from '../routing/router';
import { PreferencesProvider } from '../theme/PreferencesProvider';
import { ToastProvider } from '../toast/ToastProvider';
import type { AppServices } from './services';
import { ServicesProvider } from './ServicesContext';

export function App({ services }: { services: AppServices }) {
  const [router] = useState(createRouter);

  useEffect(() => {
    services.auth.start();
  }, [services]);

  return (
    <PrimeReactProvider value={{ ripple: false, inputStyle: 'outlined', locale: currentLanguage(services.i18n) }}>
      <I18nextProvider i18n={services.i18n}>
        <PrimeLocaleSync />
        <ServicesProvider services={services}>
          <PreferencesProvider storage={services.storage}>
            <ToastProvider>
              <BrandingProvider>
                <RouterProvider router={router} />
              </BrandingProvider>
            </ToastProvider>
          </PreferencesProvider>
        </ServicesProvider>
      </I18nextProvider>
    </PrimeReactProvider>
  );
}
