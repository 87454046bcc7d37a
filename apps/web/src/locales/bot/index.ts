import type { Language } from '@centralita/contracts';
import de from './de.json';
import el from './el.json';
import en from './en.json';
import es from './es.json';
import it from './it.json';
import ru from './ru.json';
import sr from './sr.json';

/** The bot's strings: its admin screen, the widget's bot mode and the desk's bot summary (merged under `bot`; es is the reference). */
export const BOT_DICTIONARIES: Record<Language, typeof es> = { es, en, el, it, sr, de, ru };
