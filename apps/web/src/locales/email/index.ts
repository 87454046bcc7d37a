import type { Language } from '@centralita/contracts';
import { folded, type Folded } from '../../i18n/plural-keys';
import de from './de.json';
import el from './el.json';
import en from './en.json';
import es from './es.json';
import it from './it.json';
import ru from './ru.json';
import sr from './sr.json';

// Checked against es by folded shape (the same check as every area).
const checked: Record<Language, Folded<typeof es>> = {
  es: folded(es),
  en: folded(en),
  el: folded(el),
  it: folded(it),
  sr: folded(sr),
  de: folded(de),
  ru: folded(ru),
};
/** The desk's email view and reply composer (issue 20), merged under `email` in i18n/resources.ts. */
export const EMAIL_DICTIONARIES = checked as unknown as Record<Language, typeof es>;
