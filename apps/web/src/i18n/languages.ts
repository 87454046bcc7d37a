import { DEFAULT_LANGUAGE, LANGUAGES, type Language } from '@centralita/contracts';

export const LANGUAGE_STORAGE_KEY = 'language';

/** Each language named in itself, as people look for their own. */
export const LANGUAGE_NAMES: Record<Language, string> = {
  es: 'Español',
  en: 'English',
  el: 'Ελληνικά',
  it: 'Italiano',
  sr: 'Srpski',
  de: 'Deutsch',
  ru: 'Русский',
};

export function isLanguage(value: unknown): value is Language {
  return typeof value === 'string' && (LANGUAGES as readonly string[]).includes(value);
}

/** The earlier console stored Spanish as 'sp'; anything unknown falls back to Spanish. */
export function normaliseLanguage(value: string | null | undefined): Language {
  if (!value) return DEFAULT_LANGUAGE;
  const lower = value.toLowerCase();
  if (lower === 'sp') return 'es';
  const base = lower.split(/[-_]/)[0];
  return isLanguage(base) ? base : DEFAULT_LANGUAGE;
}
