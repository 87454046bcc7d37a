import type { Language } from '@centralita/contracts';
import de from './de.json';
import el from './el.json';
import en from './en.json';
import es from './es.json';
import it from './it.json';
import ru from './ru.json';
import sr from './sr.json';

/** The integration keys screen's, the dialer sign-in page's and its sign-in notice's strings (merged under `integrationKeys`; es is the reference). */
export const INTEGRATION_KEYS_DICTIONARIES: Record<Language, typeof es> = { es, en, el, it, sr, de, ru };
