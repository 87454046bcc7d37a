import i18next, { type i18n as I18n } from 'i18next';
import { initReactI18next } from 'react-i18next';
import { DEFAULT_LANGUAGE, LANGUAGES, type Language } from '@centralita/contracts';
import type { StorageLike } from '../auth/session-store';
import { LANGUAGE_STORAGE_KEY, normaliseLanguage } from './languages';
import { bindPrimeLocale } from './primereact-locale';
import { DICTIONARIES } from './resources';

export function initI18n(storage: StorageLike): I18n {
  const language = normaliseLanguage(storage.getItem(LANGUAGE_STORAGE_KEY));
  const instance = i18next.createInstance();
  void instance.use(initReactI18next).init({
    resources: Object.fromEntries(LANGUAGES.map((lng) => [lng, { translation: DICTIONARIES[lng] }])),
    lng: language,
    fallbackLng: DEFAULT_LANGUAGE,
    supportedLngs: [...LANGUAGES],
    interpolation: { escapeValue: false },
    returnNull: false,
    initAsync: false,
  });
  document.documentElement.lang = language;
  instance.on('languageChanged', (lng) => {
    document.documentElement.lang = lng;
    storage.setItem(LANGUAGE_STORAGE_KEY, lng);
  });
  // PrimeReact's own texts (date picker, filters, dialogs' accept/reject) follow the console language.
  bindPrimeLocale(instance);
  return instance;
}

export function currentLanguage(instance: I18n): Language {
  return normaliseLanguage(instance.resolvedLanguage ?? instance.language);
}
