import { LANGUAGES, type Language } from '@centralita/contracts';

/**
 * The system lines a phone conversation's history shows (stored as messages of sender kind
 * `system`, like the re-queue notice): written in the tenant's language when they happen, since the
 * console shows a message's text as it is stored.
 */
export const VOICE_HISTORY = {
  incoming: {
    es: 'Llamada entrante de {from} a {to}',
    en: 'Incoming call from {from} to {to}',
    el: 'Εισερχόμενη κλήση από {from} προς {to}',
    it: 'Chiamata in arrivo da {from} a {to}',
    sr: 'Dolazni poziv sa {from} na {to}',
    de: 'Eingehender Anruf von {from} an {to}',
    ru: 'Входящий звонок с {from} на {to}',
  },
  ivrKey: {
    es: 'IVR: {node} (tecla {digit})',
    en: 'IVR: {node} (key {digit})',
    el: 'IVR: {node} (πλήκτρο {digit})',
    it: 'IVR: {node} (tasto {digit})',
    sr: 'IVR: {node} (taster {digit})',
    de: 'IVR: {node} (Taste {digit})',
    ru: 'IVR: {node} (клавиша {digit})',
  },
  ivrNode: {
    es: 'IVR: {node}',
    en: 'IVR: {node}',
    el: 'IVR: {node}',
    it: 'IVR: {node}',
    sr: 'IVR: {node}',
    de: 'IVR: {node}',
    ru: 'IVR: {node}',
  },
  abandonedIvr: {
    es: 'La persona que llamaba colgó en el IVR',
    en: 'The caller hung up in the IVR',
    el: 'Ο καλών έκλεισε στο IVR',
    it: 'Il chiamante ha riagganciato nell’IVR',
    sr: 'Pozivalac je prekinuo vezu u IVR-u',
    de: 'Der Anrufer hat im IVR aufgelegt',
    ru: 'Звонящий положил трубку в IVR',
  },
  abandonedQueue: {
    es: 'La persona que llamaba colgó mientras esperaba en la cola',
    en: 'The caller hung up while waiting in the queue',
    el: 'Ο καλών έκλεισε ενώ περίμενε στην ουρά',
    it: 'Il chiamante ha riagganciato mentre era in coda',
    sr: 'Pozivalac je prekinuo vezu dok je čekao u redu',
    de: 'Der Anrufer hat in der Warteschlange aufgelegt',
    ru: 'Звонящий положил трубку, ожидая в очереди',
  },
  ended: {
    es: 'Llamada finalizada ({reason})',
    en: 'Call ended ({reason})',
    el: 'Η κλήση τερματίστηκε ({reason})',
    it: 'Chiamata terminata ({reason})',
    sr: 'Poziv je završen ({reason})',
    de: 'Anruf beendet ({reason})',
    ru: 'Звонок завершён ({reason})',
  },
} as const satisfies Record<string, Record<Language, string>>;

export type VoiceHistoryKey = keyof typeof VOICE_HISTORY;

/** The line in `language` with its {placeholders} filled (an unknown language reads as Spanish, the default). */
export function voiceHistoryLine(key: VoiceHistoryKey, language: string, values: Record<string, string> = {}): string {
  const lang = (LANGUAGES as readonly string[]).includes(language) ? (language as Language) : 'es';
  return VOICE_HISTORY[key][lang].replace(/\{(\w+)\}/g, (whole, name: string) => values[name] ?? whole);
}
