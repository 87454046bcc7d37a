import type { Language } from '@centralita/contracts';
import { folded, type Folded } from '../../i18n/plural-keys';
import de from './de.json';
import el from './el.json';
import en from './en.json';
import es from './es.json';
import it from './it.json';
import ru from './ru.json';
import sr from './sr.json';

// Checked against es by folded shape: the plural forms (`_one`, `_few`…) differ by language.
const checked: Record<Language, Folded<typeof es>> = {
  es: folded(es),
  en: folded(en),
  el: folded(el),
  it: folded(it),
  sr: folded(sr),
  de: folded(de),
  ru: folded(ru),
};
/** The video calls area's strings (merged under `video` in i18n/resources.ts; es is the reference). */
export const VIDEO_DICTIONARIES = checked as unknown as Record<Language, typeof es>;
