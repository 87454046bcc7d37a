import type { Language } from '@centralita/contracts';
import de from '../locales/de.json';
import el from '../locales/el.json';
import en from '../locales/en.json';
import es from '../locales/es.json';
import it from '../locales/it.json';
import ru from '../locales/ru.json';
import sr from '../locales/sr.json';
import { DESK_DICTIONARIES } from '../locales/desk';

export type Dictionary = typeof es & { desk: (typeof DESK_DICTIONARIES)['es'] };

/**
 * All seven dictionaries (es is the reference; locales.spec.ts keeps the others complete). The
 * agent desk, supervision and web-chat strings live in locales/desk/ and are merged under `desk`.
 */
export const DICTIONARIES: Record<Language, Dictionary> = {
  es: { ...es, desk: DESK_DICTIONARIES.es },
  en: { ...en, desk: DESK_DICTIONARIES.en },
  el: { ...el, desk: DESK_DICTIONARIES.el },
  it: { ...it, desk: DESK_DICTIONARIES.it },
  sr: { ...sr, desk: DESK_DICTIONARIES.sr },
  de: { ...de, desk: DESK_DICTIONARIES.de },
  ru: { ...ru, desk: DESK_DICTIONARIES.ru },
};
