/**
 * Whole messages that ask to stop receiving messages, in the console's seven languages (es, en,
 * el, it, sr in both scripts, de, ru). Compared without case, accents or trailing punctuation.
 */
const OPT_OUT_WORDS = [
  // English, and the word customers use everywhere
  'STOP',
  'UNSUBSCRIBE',
  'STOP ALL',
  'OPT OUT',
  'OPTOUT',
  // Spanish
  'BAJA',
  'DAR DE BAJA',
  'DARME DE BAJA',
  'PARAR',
  'CANCELAR SUSCRIPCION',
  // Greek
  'ΣΤΟΠ',
  'ΔΙΑΓΡΑΦΗ',
  'ΑΠΕΓΓΡΑΦΗ',
  // Italian
  'DISISCRIVIMI',
  'DISISCRIVITI',
  'CANCELLAMI',
  // Serbian (Latin and Cyrillic)
  'ODJAVA',
  'ODJAVI',
  'ОДЈАВА',
  'ОДЈАВИ',
  'СТОП',
  // German
  'STOPP',
  'ABMELDEN',
  'ABBESTELLEN',
  // Russian
  'ОТПИСАТЬСЯ',
  'ОТПИСКА',
  'ОТПИШИТЕ',
];

const normalise = (text: string): string =>
  text
    .normalize('NFD')
    .replace(/\p{M}/gu, '')
    .toUpperCase()
    .replace(/[\s\p{P}]+$/u, '')
    .replace(/^[\s\p{P}]+/u, '')
    .replace(/\s+/g, ' ');

const NORMALISED = new Set(OPT_OUT_WORDS.map(normalise));

/** Whether a customer's whole message is a request to stop ("stop", "Baja.", "  ОТПИСАТЬСЯ! "). */
export function isOptOutText(text: string | undefined): boolean {
  return !!text && text.length <= 40 && NORMALISED.has(normalise(text));
}
