import type { Language } from '@centralita/contracts';
import de from '../locales/de.json';
import el from '../locales/el.json';
import en from '../locales/en.json';
import es from '../locales/es.json';
import it from '../locales/it.json';
import ru from '../locales/ru.json';
import sr from '../locales/sr.json';

export type Dictionary = typeof es;

/** All seven dictionaries (es is the reference; locales.spec.ts keeps the others complete). */
export const DICTIONARIES: Record<Language, Dictionary> = { es, en, el, it, sr, de, ru };
