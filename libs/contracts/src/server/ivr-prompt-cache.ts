import { createHash } from 'node:crypto';
import type { Language } from '../constants';

/**
 * The cache of spoken IVR prompts (table ivr_prompt_audio, one row per tenant and key): the API
 * renders text with espeak-ng + sox when an IVR is published and files it under this key; the
 * voice server finds the audio of a text it must speak (the closed line's message) by computing the
 * same key. Bump the version when the rendering changes (voice, rate, format): everything is
 * rendered again.
 */
export const IVR_PROMPT_RENDER_VERSION = 'espeak-ng/sox 8k mono s16 v1';

export function ivrPromptCacheKey(language: Language, text: string): string {
  return createHash('sha256').update(`${IVR_PROMPT_RENDER_VERSION}\n${language}\n${text}`).digest('hex');
}

/**
 * What a caller hears when the IVR sends them to a line that is closed and the tenant wrote no
 * off-hours message (platform settings): the web chat's own off-hours sentence, said for a phone.
 */
export const VOICE_LINE_CLOSED_TEXT: Record<Language, string> = {
  es: 'Ahora mismo estamos cerrados. Llame de nuevo en nuestro horario de atención.',
  en: 'We are closed right now. Please call again during our opening hours.',
  el: 'Αυτή τη στιγμή είμαστε κλειστά. Καλέστε ξανά κατά τις ώρες λειτουργίας μας.',
  it: 'Al momento siamo chiusi. Richiami durante il nostro orario di apertura.',
  sr: 'Trenutno ne radimo. Pozovite ponovo tokom našeg radnog vremena.',
  de: 'Wir haben gerade geschlossen. Bitte rufen Sie während unserer Öffnungszeiten wieder an.',
  ru: 'Сейчас мы не работаем. Пожалуйста, позвоните в часы нашей работы.',
};

/** The closed line's sentence in `language`: the tenant's off-hours message when it wrote one, else the default. */
export function voiceLineClosedText(language: Language, offHoursMessage: string | null | undefined): string {
  const own = (offHoursMessage ?? '').trim();
  return own || VOICE_LINE_CLOSED_TEXT[language] || VOICE_LINE_CLOSED_TEXT.es;
}
