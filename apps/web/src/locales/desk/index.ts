import type { Language } from '@centralita/contracts';
import de from './de.json';
import el from './el.json';
import en from './en.json';
import es from './es.json';
import it from './it.json';
import ru from './ru.json';
import sr from './sr.json';

/** Agent desk, live supervision and web-chat strings (merged under `desk` in i18n/resources.ts). */
export const DESK_DICTIONARIES: Record<Language, typeof es> = { es, en, el, it, sr, de, ru };
