import type { Language } from '@centralita/contracts';
import de from '../locales/de.json';
import el from '../locales/el.json';
import en from '../locales/en.json';
import es from '../locales/es.json';
import it from '../locales/it.json';
import ru from '../locales/ru.json';
import sr from '../locales/sr.json';
import { BOT_DICTIONARIES } from '../locales/bot';
import { CHANNELS_DICTIONARIES } from '../locales/channels';
import { CRM_DICTIONARIES } from '../locales/crm';
import { CONTACTS_DICTIONARIES } from '../locales/contacts';
import { MAIL_BLACKLIST_DICTIONARIES } from '../locales/mailBlacklist';
import { MESSAGE_CAMPAIGNS_DICTIONARIES } from '../locales/messageCampaigns';
import { EMAIL_CAMPAIGNS_DICTIONARIES } from '../locales/emailCampaigns';
import { DASHBOARDS_DICTIONARIES } from '../locales/dashboards';
import { DESK_DICTIONARIES } from '../locales/desk';
import { EMAIL_DICTIONARIES } from '../locales/email';
import { OUTBOUND_DICTIONARIES } from '../locales/outbound';
import { OUTBOUND_TEMPLATES_DICTIONARIES } from '../locales/outboundTemplates';
import { REPORTS_DICTIONARIES } from '../locales/reports';
import { SOFTPHONE_DICTIONARIES } from '../locales/softphone';
import { TELEPHONY_DICTIONARIES } from '../locales/telephony';
import { VIDEO_DICTIONARIES } from '../locales/video';
import { INTEGRATION_KEYS_DICTIONARIES } from '../locales/integrationKeys';
import { folded, type Folded } from './plural-keys';

/**
 * Area namespaces: each area of the console keeps its strings in locales/<area>/ and they are
 * merged under that key (t('reports.title')). namespaces.spec.ts keeps all seven complete.
 */
export const AREA_DICTIONARIES = {
  desk: DESK_DICTIONARIES,
  telephony: TELEPHONY_DICTIONARIES,
  reports: REPORTS_DICTIONARIES,
  dashboards: DASHBOARDS_DICTIONARIES,
  outbound: OUTBOUND_DICTIONARIES,
  outboundTemplates: OUTBOUND_TEMPLATES_DICTIONARIES,
  softphone: SOFTPHONE_DICTIONARIES,
  channels: CHANNELS_DICTIONARIES,
  crm: CRM_DICTIONARIES,
  mailBlacklist: MAIL_BLACKLIST_DICTIONARIES,
  contacts: CONTACTS_DICTIONARIES,
  email: EMAIL_DICTIONARIES,
  messageCampaigns: MESSAGE_CAMPAIGNS_DICTIONARIES,
  emailCampaigns: EMAIL_CAMPAIGNS_DICTIONARIES,
  bot: BOT_DICTIONARIES,
  integrationKeys: INTEGRATION_KEYS_DICTIONARIES,
  video: VIDEO_DICTIONARIES,
} as const;
type Areas = { [K in keyof typeof AREA_DICTIONARIES]: (typeof AREA_DICTIONARIES)[K]['es'] };

export type Dictionary = typeof es & Areas;

/** All seven dictionaries (es is the reference; locales.spec.ts keeps the others complete). */
export const DICTIONARIES: Record<Language, Dictionary> = {
  es: withAreas(folded(es), 'es'),
  en: withAreas(folded(en), 'en'),
  el: withAreas(folded(el), 'el'),
  it: withAreas(folded(it), 'it'),
  sr: withAreas(folded(sr), 'sr'),
  de: withAreas(folded(de), 'de'),
  ru: withAreas(folded(ru), 'ru'),
};

/** Each language is checked against es by its folded shape: plural forms differ by language (ru has four). */
function withAreas(base: Folded<typeof es>, lng: Language): Dictionary {
  const areas = Object.fromEntries(Object.entries(AREA_DICTIONARIES).map(([area, dictionaries]) => [area, dictionaries[lng]]));
  return { ...(base as unknown as typeof es), ...(areas as Areas) };
}
