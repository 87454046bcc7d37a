import { CHANNEL_KINDS, channelKindOf, type Language } from './constants';

/*
 * Labels of the files the console downloads straight from the API, in the language of the user who
 * asked (Accept-Language, as for report exports): the conversation detail as a text transcript or
 * a CSV of its events, and an outbound campaign's results CSV.
 *
 * The value tables (conversation states and events, who acted, channels, call outcomes and
 * dispositions) turn the codes the platform stores into words, for the console's reports and
 * conversation detail and for exported files alike (issue 24 item 8): one table, so a screen and
 * the file downloaded from it never name the same state differently. Times stay ISO-8601 in files.
 */

export interface DownloadLabels {
  /** The text transcript of a conversation (GET /api/reports/conversations/:id/detail/download?format=txt). */
  transcript: {
    conversation: string;
    channel: string;
    line: string;
    customer: string;
    agents: string;
    status: string;
    started: string;
    closed: string;
    /** Stands for a missing value (no line, no agent, not closed yet). */
    none: string;
    messages: string;
    statusChanges: string;
    survey: string;
  };
  /** The CSV of a conversation's events (format=csv): header row and the kind of each event. */
  detailCsv: {
    time: string;
    kind: string;
    who: string;
    text: string;
    message: string;
    status: string;
    survey: string;
  };
  /** The results CSV of an outbound campaign (GET /api/outbound/campaigns/:id/results.csv). */
  outboundResults: {
    phone: string;
    name: string;
    attempt: string;
    status: string;
    outcome: string;
    disposition: string;
    agent: string;
    createdAt: string;
    answeredAt: string;
    finishedAt: string;
  };
  /** A conversation's status (the state names of the conversation machine, spec §4). */
  conversationStatus: Record<ConversationStatusCode, string>;
  /** What moved a conversation from one status to the next (the transition log's `event`). */
  conversationEvent: Record<ConversationEventCode, string>;
  /** Who caused a status change (the transition log's `actor_kind`) or wrote a message. */
  actor: Record<ActorKindCode, string>;
  /** Channels with a common name; the spec §9 brand names (WebChat, WhatsApp…) are never translated. */
  channel: Record<TranslatedChannelCode, string>;
  /** How an outbound call ended. */
  callOutcome: Record<CallOutcomeCode, string>;
  /** What the agent recorded after an outbound call. */
  callDisposition: Record<CallDispositionCode, string>;
}

/** The conversation machine's states (libs/domain CONVERSATION_STATUSES; a console spec keeps them equal). */
export const CONVERSATION_STATUS_CODES = ['Transitory', 'LiningUp', 'Active', 'Inquest', 'Closed'] as const;
export type ConversationStatusCode = (typeof CONVERSATION_STATUS_CODES)[number];
/** Every event the conversation machine logs; 'xstate.init' is the creation row. */
export const CONVERSATION_EVENT_CODES = [
  'xstate.init',
  'conversation.menuCompleted',
  'conversation.assigned',
  'conversation.transferred',
  'conversation.abandoned',
  'conversation.queueTimedOut',
  'conversation.inactivityTimedOut',
  'conversation.closed',
  'conversation.surveyAnswered',
  'conversation.surveyExpired',
  'conversation.messageReceived',
] as const;
export type ConversationEventCode = (typeof CONVERSATION_EVENT_CODES)[number];
export const ACTOR_KIND_CODES = ['customer', 'agent', 'supervisor', 'system'] as const;
export type ActorKindCode = (typeof ACTOR_KIND_CODES)[number];
/** Channels a line can serve besides the spec §9 digital ones (ATTENTION_LINE_CHANNELS), keyed in lower case. */
export const TRANSLATED_CHANNEL_CODES = ['phone', 'email', 'video'] as const;
export type TranslatedChannelCode = (typeof TRANSLATED_CHANNEL_CODES)[number];
/** libs/domain CALL_OUTCOMES (a console spec keeps them equal). */
export const CALL_OUTCOME_CODES = ['done', 'abandoned', 'answeringMachine', 'busy', 'noAnswer', 'failed', 'cancelled'] as const;
export type CallOutcomeCode = (typeof CALL_OUTCOME_CODES)[number];
/** OUTBOUND_DISPOSITIONS of outbound.ts. */
export const CALL_DISPOSITION_CODES = ['sale', 'interested', 'callback', 'notInterested', 'wrongNumber', 'doNotCall'] as const;
export type CallDispositionCode = (typeof CALL_DISPOSITION_CODES)[number];

/** The tables of DownloadLabels that label stored codes (see valueLabel). */
export type ValueLabelKind = 'conversationStatus' | 'conversationEvent' | 'actor' | 'channel' | 'callOutcome' | 'callDisposition';

export const DOWNLOAD_LABELS: Record<Language, DownloadLabels> = {
  es: {
    transcript: {
      conversation: 'Conversación',
      channel: 'Canal',
      line: 'Línea',
      customer: 'Cliente',
      agents: 'Agentes',
      status: 'Estado',
      started: 'Inicio',
      closed: 'Cierre',
      none: 'N/D',
      messages: 'Transcripción',
      statusChanges: 'Cambios de estado',
      survey: 'Encuesta',
    },
    detailCsv: { time: 'Hora', kind: 'Tipo', who: 'Quién', text: 'Texto', message: 'Mensaje', status: 'Estado', survey: 'Encuesta' },
    outboundResults: {
      phone: 'Teléfono',
      name: 'Nombre',
      attempt: 'Intento',
      status: 'Estado',
      outcome: 'Resultado',
      disposition: 'Tipificación',
      agent: 'Agente',
      createdAt: 'Creada',
      answeredAt: 'Contestada',
      finishedAt: 'Finalizada',
    },
    conversationStatus: {
      Transitory: 'Transitoria',
      LiningUp: 'En cola',
      Active: 'Activa',
      Inquest: 'Encuesta',
      Closed: 'Cerrada',
    },
    conversationEvent: {
      'xstate.init': 'Creada',
      'conversation.menuCompleted': 'Menú completado',
      'conversation.assigned': 'Asignada a un agente',
      'conversation.transferred': 'Transferida',
      'conversation.abandoned': 'Abandonada por el cliente',
      'conversation.queueTimedOut': 'Tiempo máximo en cola agotado',
      'conversation.inactivityTimedOut': 'Cerrada por inactividad',
      'conversation.closed': 'Cerrada',
      'conversation.surveyAnswered': 'Encuesta respondida',
      'conversation.surveyExpired': 'Encuesta caducada',
      'conversation.messageReceived': 'Mensaje recibido',
    },
    actor: {
      customer: 'Cliente',
      agent: 'Agente',
      supervisor: 'Supervisor',
      system: 'Sistema',
    },
    channel: {
      phone: 'Teléfono',
      email: 'Correo electrónico',
      video: 'Vídeo',
    },
    callOutcome: {
      done: 'Finalizada',
      abandoned: 'Abandonada',
      answeringMachine: 'Contestador',
      busy: 'Ocupado',
      noAnswer: 'Sin respuesta',
      failed: 'Fallida',
      cancelled: 'Cancelada',
    },
    callDisposition: {
      sale: 'Venta',
      interested: 'Interesado',
      callback: 'Volver a llamar',
      notInterested: 'No interesado',
      wrongNumber: 'Número equivocado',
      doNotCall: 'No llamar',
    },
  },
  en: {
    transcript: {
      conversation: 'Conversation',
      channel: 'Channel',
      line: 'Line',
      customer: 'Customer',
      agents: 'Agents',
      status: 'Status',
      started: 'Started',
      closed: 'Closed',
      none: 'N/A',
      messages: 'Transcript',
      statusChanges: 'Status changes',
      survey: 'Survey',
    },
    detailCsv: { time: 'Time', kind: 'Kind', who: 'Who', text: 'Text', message: 'Message', status: 'Status', survey: 'Survey' },
    outboundResults: {
      phone: 'Phone',
      name: 'Name',
      attempt: 'Attempt',
      status: 'Status',
      outcome: 'Outcome',
      disposition: 'Disposition',
      agent: 'Agent',
      createdAt: 'Created',
      answeredAt: 'Answered',
      finishedAt: 'Finished',
    },
    conversationStatus: {
      Transitory: 'Transitory',
      LiningUp: 'In queue',
      Active: 'Active',
      Inquest: 'Survey',
      Closed: 'Closed',
    },
    conversationEvent: {
      'xstate.init': 'Created',
      'conversation.menuCompleted': 'Menu completed',
      'conversation.assigned': 'Assigned to an agent',
      'conversation.transferred': 'Transferred',
      'conversation.abandoned': 'Abandoned by the customer',
      'conversation.queueTimedOut': 'Queue time limit reached',
      'conversation.inactivityTimedOut': 'Closed for inactivity',
      'conversation.closed': 'Closed',
      'conversation.surveyAnswered': 'Survey answered',
      'conversation.surveyExpired': 'Survey expired',
      'conversation.messageReceived': 'Message received',
    },
    actor: {
      customer: 'Customer',
      agent: 'Agent',
      supervisor: 'Supervisor',
      system: 'System',
    },
    channel: {
      phone: 'Phone',
      email: 'Email',
      video: 'Video',
    },
    callOutcome: {
      done: 'Done',
      abandoned: 'Abandoned',
      answeringMachine: 'Answering machine',
      busy: 'Busy',
      noAnswer: 'No answer',
      failed: 'Failed',
      cancelled: 'Cancelled',
    },
    callDisposition: {
      sale: 'Sale',
      interested: 'Interested',
      callback: 'Call back',
      notInterested: 'Not interested',
      wrongNumber: 'Wrong number',
      doNotCall: 'Do not call',
    },
  },
  el: {
    transcript: {
      conversation: 'Συνομιλία',
      channel: 'Κανάλι',
      line: 'Γραμμή',
      customer: 'Πελάτης',
      agents: 'Πράκτορες',
      status: 'Κατάσταση',
      started: 'Έναρξη',
      closed: 'Κλείσιμο',
      none: 'Δ/Υ',
      messages: 'Απομαγνητοφώνηση',
      statusChanges: 'Αλλαγές κατάστασης',
      survey: 'Έρευνα',
    },
    detailCsv: {
      time: 'Ώρα',
      kind: 'Είδος',
      who: 'Ποιος',
      text: 'Κείμενο',
      message: 'Μήνυμα',
      status: 'Κατάσταση',
      survey: 'Έρευνα',
    },
    outboundResults: {
      phone: 'Τηλέφωνο',
      name: 'Όνομα',
      attempt: 'Προσπάθεια',
      status: 'Κατάσταση',
      outcome: 'Αποτέλεσμα',
      disposition: 'Διάθεση',
      agent: 'Πράκτορας',
      createdAt: 'Δημιουργία',
      answeredAt: 'Απάντηση',
      finishedAt: 'Λήξη',
    },
    conversationStatus: {
      Transitory: 'Μεταβατική',
      LiningUp: 'Σε αναμονή',
      Active: 'Ενεργή',
      Inquest: 'Έρευνα',
      Closed: 'Κλειστή',
    },
    conversationEvent: {
      'xstate.init': 'Δημιουργήθηκε',
      'conversation.menuCompleted': 'Ολοκληρώθηκε το μενού',
      'conversation.assigned': 'Ανατέθηκε σε πράκτορα',
      'conversation.transferred': 'Μεταφέρθηκε',
      'conversation.abandoned': 'Εγκαταλείφθηκε από τον πελάτη',
      'conversation.queueTimedOut': 'Έληξε ο χρόνος αναμονής στην ουρά',
      'conversation.inactivityTimedOut': 'Έκλεισε λόγω αδράνειας',
      'conversation.closed': 'Έκλεισε',
      'conversation.surveyAnswered': 'Απαντήθηκε η έρευνα',
      'conversation.surveyExpired': 'Έληξε η έρευνα',
      'conversation.messageReceived': 'Ελήφθη μήνυμα',
    },
    actor: {
      customer: 'Πελάτης',
      agent: 'Πράκτορας',
      supervisor: 'Επόπτης',
      system: 'Σύστημα',
    },
    channel: {
      phone: 'Τηλέφωνο',
      email: 'Ηλεκτρονικό ταχυδρομείο',
      video: 'Βίντεο',
    },
    callOutcome: {
      done: 'Τέλος',
      abandoned: 'Εγκαταλείφθηκε',
      answeringMachine: 'Τηλεφωνητής',
      busy: 'Κατειλημμένο',
      noAnswer: 'Χωρίς απάντηση',
      failed: 'Απέτυχε',
      cancelled: 'Ακυρώθηκε',
    },
    callDisposition: {
      sale: 'Πώληση',
      interested: 'Ενδιαφέρεται',
      callback: 'Επανάκληση',
      notInterested: 'Δεν ενδιαφέρεται',
      wrongNumber: 'Λάθος αριθμός',
      doNotCall: 'Μην καλείτε',
    },
  },
  it: {
    transcript: {
      conversation: 'Conversazione',
      channel: 'Canale',
      line: 'Linea',
      customer: 'Cliente',
      agents: 'Operatori',
      status: 'Stato',
      started: 'Inizio',
      closed: 'Chiusura',
      none: 'N/D',
      messages: 'Trascrizione',
      statusChanges: 'Cambi di stato',
      survey: 'Sondaggio',
    },
    detailCsv: { time: 'Ora', kind: 'Tipo', who: 'Chi', text: 'Testo', message: 'Messaggio', status: 'Stato', survey: 'Sondaggio' },
    outboundResults: {
      phone: 'Telefono',
      name: 'Nome',
      attempt: 'Tentativo',
      status: 'Stato',
      outcome: 'Esito',
      disposition: 'Classificazione',
      agent: 'Operatore',
      createdAt: 'Creata',
      answeredAt: 'Risposta',
      finishedAt: 'Terminata',
    },
    conversationStatus: {
      Transitory: 'Transitoria',
      LiningUp: 'In coda',
      Active: 'Attiva',
      Inquest: 'Sondaggio',
      Closed: 'Chiusa',
    },
    conversationEvent: {
      'xstate.init': 'Creata',
      'conversation.menuCompleted': 'Menu completato',
      'conversation.assigned': 'Assegnata a un operatore',
      'conversation.transferred': 'Trasferita',
      'conversation.abandoned': 'Abbandonata dal cliente',
      'conversation.queueTimedOut': 'Tempo massimo in coda scaduto',
      'conversation.inactivityTimedOut': 'Chiusa per inattività',
      'conversation.closed': 'Chiusa',
      'conversation.surveyAnswered': 'Sondaggio compilato',
      'conversation.surveyExpired': 'Sondaggio scaduto',
      'conversation.messageReceived': 'Messaggio ricevuto',
    },
    actor: {
      customer: 'Cliente',
      agent: 'Operatore',
      supervisor: 'Supervisore',
      system: 'Sistema',
    },
    channel: {
      phone: 'Telefono',
      email: 'E-mail',
      video: 'Video',
    },
    callOutcome: {
      done: 'Conclusa',
      abandoned: 'Abbandonata',
      answeringMachine: 'Segreteria',
      busy: 'Occupato',
      noAnswer: 'Nessuna risposta',
      failed: 'Fallita',
      cancelled: 'Annullata',
    },
    callDisposition: {
      sale: 'Vendita',
      interested: 'Interessato',
      callback: 'Richiamare',
      notInterested: 'Non interessato',
      wrongNumber: 'Numero errato',
      doNotCall: 'Non chiamare',
    },
  },
  sr: {
    transcript: {
      conversation: 'Razgovor',
      channel: 'Kanal',
      line: 'Linija',
      customer: 'Klijent',
      agents: 'Agenti',
      status: 'Status',
      started: 'Početak',
      closed: 'Zatvoren',
      none: 'N/P',
      messages: 'Transkript',
      statusChanges: 'Promene statusa',
      survey: 'Anketa',
    },
    detailCsv: { time: 'Vreme', kind: 'Vrsta', who: 'Ko', text: 'Tekst', message: 'Poruka', status: 'Status', survey: 'Anketa' },
    outboundResults: {
      phone: 'Telefon',
      name: 'Ime',
      attempt: 'Pokušaj',
      status: 'Status',
      outcome: 'Ishod',
      disposition: 'Razvrstavanje',
      agent: 'Agent',
      createdAt: 'Kreiran',
      answeredAt: 'Javljen',
      finishedAt: 'Završen',
    },
    conversationStatus: {
      Transitory: 'Prelazna',
      LiningUp: 'U redu čekanja',
      Active: 'Aktivna',
      Inquest: 'Anketa',
      Closed: 'Zatvorena',
    },
    conversationEvent: {
      'xstate.init': 'Razgovor započet',
      'conversation.menuCompleted': 'Meni završen',
      'conversation.assigned': 'Dodeljen agentu',
      'conversation.transferred': 'Prebačen',
      'conversation.abandoned': 'Klijent je odustao',
      'conversation.queueTimedOut': 'Isteklo vreme u redu čekanja',
      'conversation.inactivityTimedOut': 'Zatvoren zbog neaktivnosti',
      'conversation.closed': 'Zatvoren',
      'conversation.surveyAnswered': 'Anketa popunjena',
      'conversation.surveyExpired': 'Anketa istekla',
      'conversation.messageReceived': 'Primljena poruka',
    },
    actor: {
      customer: 'Klijent',
      agent: 'Agent',
      supervisor: 'Supervizor',
      system: 'Sistem',
    },
    channel: {
      phone: 'Telefon',
      email: 'E-pošta',
      video: 'Video',
    },
    callOutcome: {
      done: 'Gotov',
      abandoned: 'Napušten',
      answeringMachine: 'Telefonska sekretarica',
      busy: 'Zauzeto',
      noAnswer: 'Nema odgovora',
      failed: 'Neuspešan',
      cancelled: 'Otkazan',
    },
    callDisposition: {
      sale: 'Prodaja',
      interested: 'Zainteresovan',
      callback: 'Ponovo pozvati',
      notInterested: 'Nije zainteresovan',
      wrongNumber: 'Pogrešan broj',
      doNotCall: 'Ne zvati',
    },
  },
  de: {
    transcript: {
      conversation: 'Gespräch',
      channel: 'Kanal',
      line: 'Linie',
      customer: 'Kunde',
      agents: 'Agenten',
      status: 'Status',
      started: 'Beginn',
      closed: 'Geschlossen',
      none: 'k. A.',
      messages: 'Verlauf',
      statusChanges: 'Statuswechsel',
      survey: 'Umfrage',
    },
    detailCsv: { time: 'Zeit', kind: 'Art', who: 'Wer', text: 'Text', message: 'Nachricht', status: 'Status', survey: 'Umfrage' },
    outboundResults: {
      phone: 'Telefon',
      name: 'Name',
      attempt: 'Versuch',
      status: 'Status',
      outcome: 'Ergebnis',
      disposition: 'Disposition',
      agent: 'Agent',
      createdAt: 'Erstellt',
      answeredAt: 'Angenommen',
      finishedAt: 'Beendet',
    },
    conversationStatus: {
      Transitory: 'Vorübergehend',
      LiningUp: 'In Warteschlange',
      Active: 'Aktiv',
      Inquest: 'Umfrage',
      Closed: 'Geschlossen',
    },
    conversationEvent: {
      'xstate.init': 'Erstellt',
      'conversation.menuCompleted': 'Menü abgeschlossen',
      'conversation.assigned': 'Einem Agenten zugewiesen',
      'conversation.transferred': 'Weitergeleitet',
      'conversation.abandoned': 'Vom Kunden abgebrochen',
      'conversation.queueTimedOut': 'Maximale Wartezeit erreicht',
      'conversation.inactivityTimedOut': 'Wegen Inaktivität geschlossen',
      'conversation.closed': 'Geschlossen',
      'conversation.surveyAnswered': 'Umfrage beantwortet',
      'conversation.surveyExpired': 'Umfrage abgelaufen',
      'conversation.messageReceived': 'Nachricht empfangen',
    },
    actor: {
      customer: 'Kunde',
      agent: 'Agent',
      supervisor: 'Supervisor',
      system: 'System',
    },
    channel: {
      phone: 'Telefon',
      email: 'E-Mail',
      video: 'Video',
    },
    callOutcome: {
      done: 'Erledigt',
      abandoned: 'Abgebrochen',
      answeringMachine: 'Anrufbeantworter',
      busy: 'Besetzt',
      noAnswer: 'Keine Antwort',
      failed: 'Fehlgeschlagen',
      cancelled: 'Storniert',
    },
    callDisposition: {
      sale: 'Verkauf',
      interested: 'Interessiert',
      callback: 'Rückruf',
      notInterested: 'Kein Interesse',
      wrongNumber: 'Falsche Nummer',
      doNotCall: 'Nicht anrufen',
    },
  },
  ru: {
    transcript: {
      conversation: 'Разговор',
      channel: 'Канал',
      line: 'Линия',
      customer: 'Клиент',
      agents: 'Операторы',
      status: 'Статус',
      started: 'Начало',
      closed: 'Закрыт',
      none: 'Н/Д',
      messages: 'Расшифровка',
      statusChanges: 'Смены статуса',
      survey: 'Опрос',
    },
    detailCsv: { time: 'Время', kind: 'Тип', who: 'Кто', text: 'Текст', message: 'Сообщение', status: 'Статус', survey: 'Опрос' },
    outboundResults: {
      phone: 'Телефон',
      name: 'Имя',
      attempt: 'Попытка',
      status: 'Статус',
      outcome: 'Исход',
      disposition: 'Результат обработки',
      agent: 'Оператор',
      createdAt: 'Создан',
      answeredAt: 'Отвечен',
      finishedAt: 'Завершён',
    },
    conversationStatus: {
      Transitory: 'Переходная',
      LiningUp: 'В очереди',
      Active: 'Активная',
      Inquest: 'Опрос',
      Closed: 'Закрыта',
    },
    conversationEvent: {
      'xstate.init': 'Создан',
      'conversation.menuCompleted': 'Меню пройдено',
      'conversation.assigned': 'Назначен оператору',
      'conversation.transferred': 'Переведён',
      'conversation.abandoned': 'Клиент ушёл',
      'conversation.queueTimedOut': 'Истекло время ожидания в очереди',
      'conversation.inactivityTimedOut': 'Закрыт из-за бездействия',
      'conversation.closed': 'Закрыт',
      'conversation.surveyAnswered': 'Опрос пройден',
      'conversation.surveyExpired': 'Опрос истёк',
      'conversation.messageReceived': 'Получено сообщение',
    },
    actor: {
      customer: 'Клиент',
      agent: 'Оператор',
      supervisor: 'Супервизор',
      system: 'Система',
    },
    channel: {
      phone: 'Телефон',
      email: 'Электронная почта',
      video: 'Видео',
    },
    callOutcome: {
      done: 'Готово',
      abandoned: 'Брошен',
      answeringMachine: 'Автоответчик',
      busy: 'Занято',
      noAnswer: 'Нет ответа',
      failed: 'Ошибка',
      cancelled: 'Отменён',
    },
    callDisposition: {
      sale: 'Продажа',
      interested: 'Заинтересован',
      callback: 'Перезвонить',
      notInterested: 'Не заинтересован',
      wrongNumber: 'Неверный номер',
      doNotCall: 'Не звонить',
    },
  },
};

/**
 * The label of a stored code in `language`; a code no table knows (a newer state, a tenant's own
 * disposition) is shown as it is rather than hidden. Channels: the spec §9 brand name for the
 * digital ones (webchat and directline → WebChat), the translated word for phone, email and video.
 */
export function valueLabel(kind: ValueLabelKind, code: string, language: Language): string {
  if (kind === 'channel') {
    const brand = channelKindOf(code);
    if (brand) return CHANNEL_KINDS[brand];
  }
  const table = DOWNLOAD_LABELS[language][kind] as Record<string, string>;
  const key = kind === 'channel' ? code.trim().toLowerCase() : code;
  return Object.hasOwn(table, key) ? table[key]! : code;
}
