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
  voicemailLeft: {
    es: 'Mensaje de voz dejado ({seconds} s)',
    en: 'Voicemail left ({seconds} s)',
    el: 'Αφέθηκε φωνητικό μήνυμα ({seconds} δευτ.)',
    it: 'Messaggio vocale lasciato ({seconds} s)',
    sr: 'Ostavljena govorna poruka ({seconds} s)',
    de: 'Sprachnachricht hinterlassen ({seconds} s)',
    ru: 'Оставлено голосовое сообщение ({seconds} с)',
  },
  connectBusy: {
    es: 'El teléfono de {agent} estaba ocupado: la llamada vuelve a la cola',
    en: '{agent}’s phone was busy: the call goes back to the queue',
    el: 'Το τηλέφωνο του/της {agent} ήταν κατειλημμένο: η κλήση επιστρέφει στην ουρά',
    it: 'Il telefono di {agent} era occupato: la chiamata torna in coda',
    sr: 'Telefon korisnika {agent} je bio zauzet: poziv se vraća u red',
    de: 'Das Telefon von {agent} war besetzt: der Anruf geht zurück in die Warteschlange',
    ru: 'Телефон {agent} был занят: звонок возвращается в очередь',
  },
  connectNoAnswer: {
    es: '{agent} no contestó la llamada: vuelve a la cola',
    en: '{agent} did not answer the call: it goes back to the queue',
    el: 'Ο/Η {agent} δεν απάντησε στην κλήση: επιστρέφει στην ουρά',
    it: '{agent} non ha risposto alla chiamata: torna in coda',
    sr: '{agent} nije odgovorio/la na poziv: vraća se u red',
    de: '{agent} hat den Anruf nicht angenommen: er geht zurück in die Warteschlange',
    ru: '{agent} не ответил(а) на звонок: он возвращается в очередь',
  },
  connectUnavailable: {
    es: 'El teléfono de {agent} no está conectado: la llamada vuelve a la cola',
    en: '{agent}’s phone is not connected: the call goes back to the queue',
    el: 'Το τηλέφωνο του/της {agent} δεν είναι συνδεδεμένο: η κλήση επιστρέφει στην ουρά',
    it: 'Il telefono di {agent} non è connesso: la chiamata torna in coda',
    sr: 'Telefon korisnika {agent} nije povezan: poziv se vraća u red',
    de: 'Das Telefon von {agent} ist nicht verbunden: der Anruf geht zurück in die Warteschlange',
    ru: 'Телефон {agent} не подключён: звонок возвращается в очередь',
  },
  connectFailed: {
    es: 'No se pudo pasar la llamada a {agent} ({reason}): vuelve a la cola',
    en: 'The call could not be put through to {agent} ({reason}): it goes back to the queue',
    el: 'Η κλήση δεν μπόρεσε να μεταβιβαστεί στον/στην {agent} ({reason}): επιστρέφει στην ουρά',
    it: 'Non è stato possibile passare la chiamata a {agent} ({reason}): torna in coda',
    sr: 'Poziv nije mogao da se prebaci korisniku {agent} ({reason}): vraća se u red',
    de: 'Der Anruf konnte nicht zu {agent} durchgestellt werden ({reason}): er geht zurück in die Warteschlange',
    ru: 'Не удалось соединить звонок с {agent} ({reason}): он возвращается в очередь',
  },
  consultRinging: {
    es: '{from} consulta a {agent}: la persona que llama queda en espera',
    en: '{from} is consulting {agent}: the caller is on hold',
    el: 'Ο/Η {from} συμβουλεύεται τον/την {agent}: ο καλών είναι σε αναμονή',
    it: '{from} consulta {agent}: il chiamante è in attesa',
    sr: '{from} konsultuje korisnika {agent}: pozivalac je na čekanju',
    de: '{from} hält Rücksprache mit {agent}: der Anrufer wartet',
    ru: '{from} консультируется с {agent}: звонящий на удержании',
  },
  consultConnected: {
    es: '{agent} atendió la consulta de {from}',
    en: '{agent} answered the consultation from {from}',
    el: 'Ο/Η {agent} απάντησε στη συμβουλή από τον/την {from}',
    it: '{agent} ha risposto alla consultazione di {from}',
    sr: '{agent} je odgovorio/la na konsultaciju korisnika {from}',
    de: '{agent} hat die Rückfrage von {from} angenommen',
    ru: '{agent} ответил(а) на консультацию от {from}',
  },
  consultFailed: {
    es: 'No se pudo consultar a {agent} ({reason}): la llamada sigue con {from}',
    en: '{agent} could not be consulted ({reason}): the call stays with {from}',
    el: 'Δεν ήταν δυνατή η συμβουλή με τον/την {agent} ({reason}): η κλήση μένει στον/στην {from}',
    it: 'Non è stato possibile consultare {agent} ({reason}): la chiamata resta a {from}',
    sr: 'Konsultacija sa korisnikom {agent} nije uspela ({reason}): poziv ostaje kod korisnika {from}',
    de: 'Rückfrage bei {agent} nicht möglich ({reason}): der Anruf bleibt bei {from}',
    ru: 'Не удалось проконсультироваться с {agent} ({reason}): звонок остаётся у {from}',
  },
  consultCancelled: {
    es: 'Consulta con {agent} terminada sin transferir: la llamada sigue con {from}',
    en: 'Consultation with {agent} ended without a transfer: the call stays with {from}',
    el: 'Η συμβουλή με τον/την {agent} έληξε χωρίς μεταβίβαση: η κλήση μένει στον/στην {from}',
    it: 'Consultazione con {agent} terminata senza trasferimento: la chiamata resta a {from}',
    sr: 'Konsultacija sa korisnikom {agent} je završena bez prebacivanja: poziv ostaje kod korisnika {from}',
    de: 'Rückfrage bei {agent} ohne Weiterleitung beendet: der Anruf bleibt bei {from}',
    ru: 'Консультация с {agent} завершена без перевода: звонок остаётся у {from}',
  },
  consultCompleted: {
    es: '{from} transfirió la llamada a {agent} tras consultarle',
    en: '{from} transferred the call to {agent} after consulting them',
    el: 'Ο/Η {from} μεταβίβασε την κλήση στον/στην {agent} μετά από συμβουλή',
    it: '{from} ha trasferito la chiamata a {agent} dopo averlo/a consultato/a',
    sr: '{from} je prebacio/la poziv korisniku {agent} nakon konsultacije',
    de: '{from} hat den Anruf nach Rückfrage an {agent} übergeben',
    ru: '{from} перевёл(а) звонок на {agent} после консультации',
  },
} as const satisfies Record<string, Record<Language, string>>;

/** The history line of a call.connectFailed reason (the worker's codes, libs/contracts voice.ts); other codes show as they are. */
export function connectFailureKey(reason: string): VoiceHistoryKey {
  if (reason === 'busy') return 'connectBusy';
  if (reason === 'noAnswer') return 'connectNoAnswer';
  if (reason === 'unavailable') return 'connectUnavailable';
  return 'connectFailed';
}

export type VoiceHistoryKey = keyof typeof VOICE_HISTORY;

/** The line in `language` with its {placeholders} filled (an unknown language reads as Spanish, the default). */
export function voiceHistoryLine(key: VoiceHistoryKey, language: string, values: Record<string, string> = {}): string {
  const lang = (LANGUAGES as readonly string[]).includes(language) ? (language as Language) : 'es';
  return VOICE_HISTORY[key][lang].replace(/\{(\w+)\}/g, (whole, name: string) => values[name] ?? whole);
}
