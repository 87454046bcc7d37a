import type { Language } from '@centralita/contracts';

/** The chat message that carries the customer's link, in the tenant's language. */
export const VIDEO_INVITE: Record<Language, (link: string) => string> = {
  es: (link) => `Su agente le invita a una videollamada. Ábrala aquí (enlace de un solo uso): ${link}`,
  en: (link) => `Your agent invites you to a video call. Open it here (single-use link): ${link}`,
  el: (link) => `Ο εκπρόσωπός σας σας προσκαλεί σε βιντεοκλήση. Ανοίξτε την εδώ (σύνδεσμος μίας χρήσης): ${link}`,
  it: (link) => `Il suo operatore la invita a una videochiamata. La apra qui (link monouso): ${link}`,
  sr: (link) => `Vaš agent vas poziva na video poziv. Otvorite ga ovde (link za jednokratnu upotrebu): ${link}`,
  de: (link) => `Ihr Mitarbeiter lädt Sie zu einem Videoanruf ein. Öffnen Sie ihn hier (Einmal-Link): ${link}`,
  ru: (link) => `Ваш оператор приглашает вас на видеозвонок. Откройте его здесь (одноразовая ссылка): ${link}`,
};

/** The history's system messages: the call's start and end (with its length, m:ss). */
export const VIDEO_HISTORY: Record<Language, { started: string; ended: (length: string) => string }> = {
  es: { started: 'Videollamada iniciada', ended: (length) => `Videollamada finalizada (${length})` },
  en: { started: 'Video call started', ended: (length) => `Video call ended (${length})` },
  el: { started: 'Η βιντεοκλήση ξεκίνησε', ended: (length) => `Η βιντεοκλήση έληξε (${length})` },
  it: { started: 'Videochiamata iniziata', ended: (length) => `Videochiamata terminata (${length})` },
  sr: { started: 'Video poziv je započet', ended: (length) => `Video poziv je završen (${length})` },
  de: { started: 'Videoanruf begonnen', ended: (length) => `Videoanruf beendet (${length})` },
  ru: { started: 'Видеозвонок начат', ended: (length) => `Видеозвонок завершён (${length})` },
};

export function callLength(ms: number): string {
  const seconds = Math.max(0, Math.round(ms / 1000));
  const hours = Math.floor(seconds / 3600);
  const minutes = Math.floor((seconds % 3600) / 60);
  const rest = String(seconds % 60).padStart(2, '0');
  return hours ? `${hours}:${String(minutes).padStart(2, '0')}:${rest}` : `${minutes}:${rest}`;
}
