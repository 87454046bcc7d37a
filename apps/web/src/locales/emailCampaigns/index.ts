import type { Language } from '@centralita/contracts';
import de from './de.json';
import el from './el.json';
import en from './en.json';
import es from './es.json';
import it from './it.json';
import ru from './ru.json';
import sr from './sr.json';

/** Email templates and email campaigns (issue 21), merged under `emailCampaigns` in i18n/resources.ts; es is the reference. */
export const EMAIL_CAMPAIGNS_DICTIONARIES: Record<Language, typeof es> = { es, en, el, it, sr, de, ru };
