import type { PhoneImportFailureCode } from './admin';
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
  /**
   * The errors file of a phone-list import (GET /api/phone-lists/imports/:id/errors.csv): header
   * row and why a row was refused ({count} digits, {line} of the first copy).
   */
  phoneImportErrors: {
    line: string;
    value: string;
    problem: string;
    required: string;
    digits: string;
    invalid: string;
    duplicate: string;
  };
  /** Why a whole file was refused (PhoneImportState.failureCode), with {mb}, {rows}, {columns}, {chars}, {seconds}. */
  phoneImportFailure: Record<PhoneImportFailureCode, string>;
  /** An outbound call attempt's state (libs/domain OUTBOUND_CALL_STATUSES), as the console's outbound screens name it. */
  callStatus: Record<CallStatusCode, string>;
  /** The built-in agent pause reasons; a tenant's own codes are shown as they are. */
  pauseReason: Record<PauseReasonCode, string>;
}

/** The conversation machine's states (libs/domain CONVERSATION_STATUSES; a console spec keeps them equal). */
export const CONVERSATION_STATUS_CODES = ['Transitory', 'LiningUp', 'Active', 'Inquest', 'Closed'] as const;
export type ConversationStatusCode = (typeof CONVERSATION_STATUS_CODES)[number];
/** Every event the conversation machine logs; 'xstate.init' is the creation row. */
export const CONVERSATION_EVENT_CODES = [
  'xstate.init',
  'conversation.menuCompleted',
  'conversation.agentStarted',
  'conversation.assigned',
  'conversation.transferred',
  'conversation.abandoned',
  'conversation.queueTimedOut',
  'conversation.inactivityTimedOut',
  'conversation.closed',
  'conversation.surveyAnswered',
  'conversation.surveyExpired',
  'conversation.messageReceived',
  'conversation.callAnswered',
] as const;
export type ConversationEventCode = (typeof CONVERSATION_EVENT_CODES)[number];
/** `bot`: the line's bot (issue 23), a message sender kind that never steps a machine. */
export const ACTOR_KIND_CODES = ['customer', 'agent', 'supervisor', 'system', 'bot'] as const;
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

/** Why the worker refused one row of a phone-list import (stored with the row's error). */
export const PHONE_ROW_ERROR_CODES = ['required', 'digits', 'invalid', 'duplicate'] as const;
export type PhoneRowErrorCode = (typeof PHONE_ROW_ERROR_CODES)[number];

/** libs/domain OUTBOUND_CALL_STATUSES (a console spec keeps them equal). */
export const CALL_STATUS_CODES = [
  'queued',
  'dialing',
  'ringing',
  'answeredByHuman',
  'connected',
  'wrapUp',
  'done',
  'abandoned',
  'answeringMachine',
  'busy',
  'noAnswer',
  'failed',
  'cancelled',
] as const;
export type CallStatusCode = (typeof CALL_STATUS_CODES)[number];
/** The pause reasons every tenant starts with (seed) and the one the platform takes for a lost connection. */
export const PAUSE_REASON_CODES = ['break', 'lunch', 'training', 'meeting', 'auto_away'] as const;
export type PauseReasonCode = (typeof PAUSE_REASON_CODES)[number];

/** The tables of DownloadLabels that label stored codes (see valueLabel). */
export type ValueLabelKind =
  'conversationStatus' | 'conversationEvent' | 'actor' | 'channel' | 'callOutcome' | 'callDisposition' | 'callStatus' | 'pauseReason';

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
      'conversation.agentStarted': 'Iniciada por el agente',
      'conversation.assigned': 'Asignada a un agente',
      'conversation.transferred': 'Transferida',
      'conversation.abandoned': 'Abandonada por el cliente',
      'conversation.queueTimedOut': 'Tiempo máximo en cola agotado',
      'conversation.inactivityTimedOut': 'Cerrada por inactividad',
      'conversation.closed': 'Cerrada',
      'conversation.surveyAnswered': 'Encuesta respondida',
      'conversation.surveyExpired': 'Encuesta caducada',
      'conversation.messageReceived': 'Mensaje recibido',
      'conversation.callAnswered': 'Llamada atendida',
    },
    actor: {
      customer: 'Cliente',
      agent: 'Agente',
      supervisor: 'Supervisor',
      system: 'Sistema',
      bot: 'Bot',
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
    phoneImportErrors: {
      line: 'Línea',
      value: 'Valor',
      problem: 'Problema',
      required: 'Falta el teléfono',
      digits: 'El teléfono debe tener al menos {count} dígitos',
      invalid: 'El teléfono no es un número válido',
      duplicate: 'Repite la línea {line}',
    },
    phoneImportFailure: {
      too_large: 'El archivo supera {mb} MB.',
      not_spreadsheet: 'El archivo no es un xlsx ni un csv de texto.',
      invalid_xlsx: 'El archivo xlsx no es válido o está dañado.',
      too_many_parts: 'El archivo xlsx tiene demasiadas partes internas.',
      zip_bomb: 'El archivo se descomprime por encima del tamaño permitido (posible bomba zip).',
      unsupported_compression: 'El archivo xlsx usa una compresión no admitida.',
      no_worksheet: 'El archivo xlsx no tiene ninguna hoja.',
      formulas: 'El archivo contiene fórmulas; exporte solo valores y vuelva a intentarlo.',
      too_many_rows: 'El archivo tiene más de {rows} filas.',
      rows_invalid: 'Hay filas con errores; corríjalas y vuelva a importar el archivo.',
      no_phones: 'El archivo no tiene números de teléfono.',
      encrypted: 'El archivo está protegido con contraseña; guárdelo sin contraseña y vuelva a intentarlo.',
      bad_cell_reference:
        'El archivo xlsx hace referencia a celdas fuera de los límites de una hoja; está dañado o no lo creó un programa de hojas de cálculo.',
      too_many_columns: 'Una fila tiene más de {columns} columnas.',
      cell_too_large: 'Una celda contiene más de {chars} caracteres.',
      too_many_cells: 'El archivo xlsx tiene demasiados textos distintos.',
      too_slow: 'La lectura del archivo tardó más de {seconds} segundos; divídalo en archivos más pequeños.',
      import_failed: 'No se pudo completar la importación; vuelva a intentarlo.',
    },
    callStatus: {
      queued: 'En cola',
      dialing: 'Marcando',
      ringing: 'Timbrando',
      answeredByHuman: 'Contestada por persona',
      connected: 'Conectada',
      wrapUp: 'Cierre',
      done: 'Finalizada',
      abandoned: 'Abandonada',
      answeringMachine: 'Contestador',
      busy: 'Ocupado',
      noAnswer: 'Sin respuesta',
      failed: 'Fallida',
      cancelled: 'Cancelada',
    },
    pauseReason: {
      break: 'Descanso',
      lunch: 'Almuerzo',
      training: 'Capacitación',
      meeting: 'Reunión',
      auto_away: 'Ausente (desconexión)',
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
      'conversation.agentStarted': 'Started by the agent',
      'conversation.assigned': 'Assigned to an agent',
      'conversation.transferred': 'Transferred',
      'conversation.abandoned': 'Abandoned by the customer',
      'conversation.queueTimedOut': 'Queue time limit reached',
      'conversation.inactivityTimedOut': 'Closed for inactivity',
      'conversation.closed': 'Closed',
      'conversation.surveyAnswered': 'Survey answered',
      'conversation.surveyExpired': 'Survey expired',
      'conversation.messageReceived': 'Message received',
      'conversation.callAnswered': 'Call answered',
    },
    actor: {
      customer: 'Customer',
      agent: 'Agent',
      supervisor: 'Supervisor',
      system: 'System',
      bot: 'Bot',
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
    phoneImportErrors: {
      line: 'Line',
      value: 'Value',
      problem: 'Problem',
      required: 'phone is required',
      digits: 'phone must have at least {count} digits',
      invalid: 'phone is not a valid number',
      duplicate: 'duplicate of line {line}',
    },
    phoneImportFailure: {
      too_large: 'The file is larger than {mb} MB.',
      not_spreadsheet: 'The file is neither xlsx nor csv text.',
      invalid_xlsx: 'The xlsx file is not valid or is damaged.',
      too_many_parts: 'The xlsx file has too many internal parts.',
      zip_bomb: 'The file inflates beyond the allowed size (possible zip bomb).',
      unsupported_compression: 'The xlsx file uses an unsupported compression.',
      no_worksheet: 'The xlsx file has no worksheet.',
      formulas: 'The file contains formulas; export plain values and try again.',
      too_many_rows: 'The file has more than {rows} rows.',
      rows_invalid: 'Some rows have errors; correct them and import the file again.',
      no_phones: 'The file has no phone numbers.',
      encrypted: 'The file is password-protected; save it without a password and try again.',
      bad_cell_reference:
        'The xlsx file refers to cells outside the limits of a worksheet; it is damaged or was not made by a spreadsheet program.',
      too_many_columns: 'A row has more than {columns} columns.',
      cell_too_large: 'A cell holds more than {chars} characters.',
      too_many_cells: 'The xlsx file has too many different texts.',
      too_slow: 'The file took more than {seconds} seconds to read; split it into smaller files.',
      import_failed: 'The import could not be completed; try again.',
    },
    callStatus: {
      queued: 'Queued',
      dialing: 'Dialling',
      ringing: 'Ringing',
      answeredByHuman: 'Answered by a person',
      connected: 'Connected',
      wrapUp: 'Wrap-up',
      done: 'Done',
      abandoned: 'Abandoned',
      answeringMachine: 'Answering machine',
      busy: 'Busy',
      noAnswer: 'No answer',
      failed: 'Failed',
      cancelled: 'Cancelled',
    },
    pauseReason: {
      break: 'Break',
      lunch: 'Lunch',
      training: 'Training',
      meeting: 'Meeting',
      auto_away: 'Away (disconnected)',
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
      'conversation.agentStarted': 'Ξεκίνησε από τον εκπρόσωπο',
      'conversation.assigned': 'Ανατέθηκε σε πράκτορα',
      'conversation.transferred': 'Μεταφέρθηκε',
      'conversation.abandoned': 'Εγκαταλείφθηκε από τον πελάτη',
      'conversation.queueTimedOut': 'Έληξε ο χρόνος αναμονής στην ουρά',
      'conversation.inactivityTimedOut': 'Έκλεισε λόγω αδράνειας',
      'conversation.closed': 'Έκλεισε',
      'conversation.surveyAnswered': 'Απαντήθηκε η έρευνα',
      'conversation.surveyExpired': 'Έληξε η έρευνα',
      'conversation.messageReceived': 'Ελήφθη μήνυμα',
      'conversation.callAnswered': 'Η κλήση απαντήθηκε',
    },
    actor: {
      customer: 'Πελάτης',
      agent: 'Πράκτορας',
      supervisor: 'Επόπτης',
      system: 'Σύστημα',
      bot: 'Bot',
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
    phoneImportErrors: {
      line: 'Γραμμή',
      value: 'Τιμή',
      problem: 'Πρόβλημα',
      required: 'Λείπει το τηλέφωνο',
      digits: 'Το τηλέφωνο πρέπει να έχει τουλάχιστον {count} ψηφία',
      invalid: 'Το τηλέφωνο δεν είναι έγκυρος αριθμός',
      duplicate: 'Διπλότυπο της γραμμής {line}',
    },
    phoneImportFailure: {
      too_large: 'Το αρχείο είναι μεγαλύτερο από {mb} MB.',
      not_spreadsheet: 'Το αρχείο δεν είναι ούτε xlsx ούτε κείμενο csv.',
      invalid_xlsx: 'Το αρχείο xlsx δεν είναι έγκυρο ή είναι κατεστραμμένο.',
      too_many_parts: 'Το αρχείο xlsx έχει πάρα πολλά εσωτερικά μέρη.',
      zip_bomb: 'Το αρχείο αποσυμπιέζεται πέρα από το επιτρεπτό μέγεθος (πιθανή βόμβα zip).',
      unsupported_compression: 'Το αρχείο xlsx χρησιμοποιεί μη υποστηριζόμενη συμπίεση.',
      no_worksheet: 'Το αρχείο xlsx δεν έχει φύλλο εργασίας.',
      formulas: 'Το αρχείο περιέχει τύπους· εξαγάγετε μόνο τιμές και δοκιμάστε ξανά.',
      too_many_rows: 'Το αρχείο έχει περισσότερες από {rows} γραμμές.',
      rows_invalid: 'Ορισμένες γραμμές έχουν σφάλματα· διορθώστε τις και εισαγάγετε ξανά το αρχείο.',
      no_phones: 'Το αρχείο δεν έχει αριθμούς τηλεφώνου.',
      encrypted: 'Το αρχείο προστατεύεται με κωδικό πρόσβασης· αποθηκεύστε το χωρίς κωδικό και δοκιμάστε ξανά.',
      bad_cell_reference:
        'Το αρχείο xlsx αναφέρεται σε κελιά εκτός των ορίων ενός φύλλου· είναι κατεστραμμένο ή δεν δημιουργήθηκε από πρόγραμμα υπολογιστικών φύλλων.',
      too_many_columns: 'Μια γραμμή έχει περισσότερες από {columns} στήλες.',
      cell_too_large: 'Ένα κελί περιέχει περισσότερους από {chars} χαρακτήρες.',
      too_many_cells: 'Το αρχείο xlsx έχει πάρα πολλά διαφορετικά κείμενα.',
      too_slow: 'Η ανάγνωση του αρχείου διήρκεσε περισσότερο από {seconds} δευτερόλεπτα· χωρίστε το σε μικρότερα αρχεία.',
      import_failed: 'Η εισαγωγή δεν ολοκληρώθηκε· δοκιμάστε ξανά.',
    },
    callStatus: {
      queued: 'Σε ουρά',
      dialing: 'Κλήση',
      ringing: 'Κουδουνίζει',
      answeredByHuman: 'Απάντησε άνθρωπος',
      connected: 'Συνδεδεμένη',
      wrapUp: 'Ολοκλήρωση',
      done: 'Τέλος',
      abandoned: 'Εγκαταλείφθηκε',
      answeringMachine: 'Τηλεφωνητής',
      busy: 'Κατειλημμένο',
      noAnswer: 'Χωρίς απάντηση',
      failed: 'Απέτυχε',
      cancelled: 'Ακυρώθηκε',
    },
    pauseReason: {
      break: 'Διάλειμμα',
      lunch: 'Γεύμα',
      training: 'Εκπαίδευση',
      meeting: 'Σύσκεψη',
      auto_away: 'Απών (αποσύνδεση)',
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
      'conversation.agentStarted': "Avviata dall'operatore",
      'conversation.assigned': 'Assegnata a un operatore',
      'conversation.transferred': 'Trasferita',
      'conversation.abandoned': 'Abbandonata dal cliente',
      'conversation.queueTimedOut': 'Tempo massimo in coda scaduto',
      'conversation.inactivityTimedOut': 'Chiusa per inattività',
      'conversation.closed': 'Chiusa',
      'conversation.surveyAnswered': 'Sondaggio compilato',
      'conversation.surveyExpired': 'Sondaggio scaduto',
      'conversation.messageReceived': 'Messaggio ricevuto',
      'conversation.callAnswered': 'Chiamata risposta',
    },
    actor: {
      customer: 'Cliente',
      agent: 'Operatore',
      supervisor: 'Supervisore',
      system: 'Sistema',
      bot: 'Bot',
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
    phoneImportErrors: {
      line: 'Riga',
      value: 'Valore',
      problem: 'Problema',
      required: 'Manca il telefono',
      digits: 'Il telefono deve avere almeno {count} cifre',
      invalid: 'Il telefono non è un numero valido',
      duplicate: 'Duplicato della riga {line}',
    },
    phoneImportFailure: {
      too_large: 'Il file supera {mb} MB.',
      not_spreadsheet: 'Il file non è né xlsx né testo csv.',
      invalid_xlsx: 'Il file xlsx non è valido o è danneggiato.',
      too_many_parts: 'Il file xlsx ha troppe parti interne.',
      zip_bomb: 'Il file si decomprime oltre la dimensione consentita (possibile zip bomb).',
      unsupported_compression: 'Il file xlsx usa una compressione non supportata.',
      no_worksheet: 'Il file xlsx non ha alcun foglio.',
      formulas: 'Il file contiene formule; esporta solo i valori e riprova.',
      too_many_rows: 'Il file ha più di {rows} righe.',
      rows_invalid: 'Alcune righe contengono errori; correggile e importa di nuovo il file.',
      no_phones: 'Il file non contiene numeri di telefono.',
      encrypted: 'Il file è protetto da password; salvalo senza password e riprova.',
      bad_cell_reference:
        'Il file xlsx fa riferimento a celle fuori dai limiti di un foglio; è danneggiato o non è stato creato da un programma per fogli di calcolo.',
      too_many_columns: 'Una riga ha più di {columns} colonne.',
      cell_too_large: 'Una cella contiene più di {chars} caratteri.',
      too_many_cells: 'Il file xlsx contiene troppi testi diversi.',
      too_slow: 'La lettura del file ha richiesto più di {seconds} secondi; dividilo in file più piccoli.',
      import_failed: "Non è stato possibile completare l'importazione; riprova.",
    },
    callStatus: {
      queued: 'In coda',
      dialing: 'Composizione',
      ringing: 'Squilla',
      answeredByHuman: 'Risposta da una persona',
      connected: 'Connessa',
      wrapUp: 'Chiusura',
      done: 'Conclusa',
      abandoned: 'Abbandonata',
      answeringMachine: 'Segreteria',
      busy: 'Occupato',
      noAnswer: 'Nessuna risposta',
      failed: 'Fallita',
      cancelled: 'Annullata',
    },
    pauseReason: {
      break: 'Pausa',
      lunch: 'Pranzo',
      training: 'Formazione',
      meeting: 'Riunione',
      auto_away: 'Assente (disconnesso)',
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
      'conversation.agentStarted': 'Započeo agent',
      'conversation.assigned': 'Dodeljen agentu',
      'conversation.transferred': 'Prebačen',
      'conversation.abandoned': 'Klijent je odustao',
      'conversation.queueTimedOut': 'Isteklo vreme u redu čekanja',
      'conversation.inactivityTimedOut': 'Zatvoren zbog neaktivnosti',
      'conversation.closed': 'Zatvoren',
      'conversation.surveyAnswered': 'Anketa popunjena',
      'conversation.surveyExpired': 'Anketa istekla',
      'conversation.messageReceived': 'Primljena poruka',
      'conversation.callAnswered': 'Poziv je javljen',
    },
    actor: {
      customer: 'Klijent',
      agent: 'Agent',
      supervisor: 'Supervizor',
      system: 'Sistem',
      bot: 'Bot',
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
    phoneImportErrors: {
      line: 'Red',
      value: 'Vrednost',
      problem: 'Problem',
      required: 'Nedostaje telefon',
      digits: 'Telefon mora imati najmanje {count} cifara',
      invalid: 'Telefon nije ispravan broj',
      duplicate: 'Duplikat reda {line}',
    },
    phoneImportFailure: {
      too_large: 'Datoteka je veća od {mb} MB.',
      not_spreadsheet: 'Datoteka nije ni xlsx ni csv tekst.',
      invalid_xlsx: 'Datoteka xlsx nije ispravna ili je oštećena.',
      too_many_parts: 'Datoteka xlsx ima previše unutrašnjih delova.',
      zip_bomb: 'Datoteka se raspakuje preko dozvoljene veličine (moguća zip bomba).',
      unsupported_compression: 'Datoteka xlsx koristi nepodržanu kompresiju.',
      no_worksheet: 'Datoteka xlsx nema nijedan list.',
      formulas: 'Datoteka sadrži formule; izvezite samo vrednosti i pokušajte ponovo.',
      too_many_rows: 'Datoteka ima više od {rows} redova.',
      rows_invalid: 'Neki redovi imaju greške; ispravite ih i ponovo uvezite datoteku.',
      no_phones: 'Datoteka nema brojeve telefona.',
      encrypted: 'Datoteka je zaštićena lozinkom; sačuvajte je bez lozinke i pokušajte ponovo.',
      bad_cell_reference: 'Datoteka xlsx upućuje na ćelije izvan granica radnog lista; oštećena je ili je nije napravio program za tabele.',
      too_many_columns: 'Red ima više od {columns} kolona.',
      cell_too_large: 'Ćelija sadrži više od {chars} znakova.',
      too_many_cells: 'Datoteka xlsx ima previše različitih tekstova.',
      too_slow: 'Čitanje datoteke trajalo je duže od {seconds} sekundi; podelite je na manje datoteke.',
      import_failed: 'Uvoz nije mogao da se završi; pokušajte ponovo.',
    },
    callStatus: {
      queued: 'U redu',
      dialing: 'Biranje',
      ringing: 'Zvoni',
      answeredByHuman: 'Javila se osoba',
      connected: 'Povezan',
      wrapUp: 'Završavanje',
      done: 'Gotov',
      abandoned: 'Napušten',
      answeringMachine: 'Telefonska sekretarica',
      busy: 'Zauzeto',
      noAnswer: 'Nema odgovora',
      failed: 'Neuspešan',
      cancelled: 'Otkazan',
    },
    pauseReason: {
      break: 'Odmor',
      lunch: 'Ručak',
      training: 'Obuka',
      meeting: 'Sastanak',
      auto_away: 'Odsutan (prekid veze)',
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
      'conversation.agentStarted': 'Vom Agenten gestartet',
      'conversation.assigned': 'Einem Agenten zugewiesen',
      'conversation.transferred': 'Weitergeleitet',
      'conversation.abandoned': 'Vom Kunden abgebrochen',
      'conversation.queueTimedOut': 'Maximale Wartezeit erreicht',
      'conversation.inactivityTimedOut': 'Wegen Inaktivität geschlossen',
      'conversation.closed': 'Geschlossen',
      'conversation.surveyAnswered': 'Umfrage beantwortet',
      'conversation.surveyExpired': 'Umfrage abgelaufen',
      'conversation.messageReceived': 'Nachricht empfangen',
      'conversation.callAnswered': 'Anruf angenommen',
    },
    actor: {
      customer: 'Kunde',
      agent: 'Agent',
      supervisor: 'Supervisor',
      system: 'System',
      bot: 'Bot',
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
    phoneImportErrors: {
      line: 'Zeile',
      value: 'Wert',
      problem: 'Problem',
      required: 'Telefonnummer fehlt',
      digits: 'Die Telefonnummer muss mindestens {count} Ziffern haben',
      invalid: 'Die Telefonnummer ist keine gültige Nummer',
      duplicate: 'Duplikat von Zeile {line}',
    },
    phoneImportFailure: {
      too_large: 'Die Datei ist größer als {mb} MB.',
      not_spreadsheet: 'Die Datei ist weder xlsx noch CSV-Text.',
      invalid_xlsx: 'Die xlsx-Datei ist ungültig oder beschädigt.',
      too_many_parts: 'Die xlsx-Datei hat zu viele interne Teile.',
      zip_bomb: 'Die Datei wird beim Entpacken größer als erlaubt (mögliche Zip-Bombe).',
      unsupported_compression: 'Die xlsx-Datei verwendet eine nicht unterstützte Komprimierung.',
      no_worksheet: 'Die xlsx-Datei hat kein Arbeitsblatt.',
      formulas: 'Die Datei enthält Formeln; exportieren Sie nur Werte und versuchen Sie es erneut.',
      too_many_rows: 'Die Datei hat mehr als {rows} Zeilen.',
      rows_invalid: 'Einige Zeilen sind fehlerhaft; korrigieren Sie sie und importieren Sie die Datei erneut.',
      no_phones: 'Die Datei enthält keine Telefonnummern.',
      encrypted: 'Die Datei ist passwortgeschützt; speichern Sie sie ohne Passwort und versuchen Sie es erneut.',
      bad_cell_reference:
        'Die xlsx-Datei verweist auf Zellen außerhalb der Grenzen eines Tabellenblatts; sie ist beschädigt oder wurde nicht von einem Tabellenkalkulationsprogramm erstellt.',
      too_many_columns: 'Eine Zeile hat mehr als {columns} Spalten.',
      cell_too_large: 'Eine Zelle enthält mehr als {chars} Zeichen.',
      too_many_cells: 'Die xlsx-Datei enthält zu viele verschiedene Texte.',
      too_slow: 'Das Lesen der Datei dauerte länger als {seconds} Sekunden; teilen Sie sie in kleinere Dateien auf.',
      import_failed: 'Der Import konnte nicht abgeschlossen werden; versuchen Sie es erneut.',
    },
    callStatus: {
      queued: 'In Warteschlange',
      dialing: 'Wählt',
      ringing: 'Klingelt',
      answeredByHuman: 'Von einer Person angenommen',
      connected: 'Verbunden',
      wrapUp: 'Nachbereitung',
      done: 'Erledigt',
      abandoned: 'Abgebrochen',
      answeringMachine: 'Anrufbeantworter',
      busy: 'Besetzt',
      noAnswer: 'Keine Antwort',
      failed: 'Fehlgeschlagen',
      cancelled: 'Storniert',
    },
    pauseReason: {
      break: 'Pause',
      lunch: 'Mittagessen',
      training: 'Schulung',
      meeting: 'Besprechung',
      auto_away: 'Abwesend (getrennt)',
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
      'conversation.agentStarted': 'Начат оператором',
      'conversation.assigned': 'Назначен оператору',
      'conversation.transferred': 'Переведён',
      'conversation.abandoned': 'Клиент ушёл',
      'conversation.queueTimedOut': 'Истекло время ожидания в очереди',
      'conversation.inactivityTimedOut': 'Закрыт из-за бездействия',
      'conversation.closed': 'Закрыт',
      'conversation.surveyAnswered': 'Опрос пройден',
      'conversation.surveyExpired': 'Опрос истёк',
      'conversation.messageReceived': 'Получено сообщение',
      'conversation.callAnswered': 'Звонок принят',
    },
    actor: {
      customer: 'Клиент',
      agent: 'Оператор',
      supervisor: 'Супервизор',
      system: 'Система',
      bot: 'Бот',
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
    phoneImportErrors: {
      line: 'Строка',
      value: 'Значение',
      problem: 'Проблема',
      required: 'Не указан телефон',
      digits: 'Телефон должен содержать не менее {count} цифр',
      invalid: 'Телефон не является допустимым номером',
      duplicate: 'Повтор строки {line}',
    },
    phoneImportFailure: {
      too_large: 'Файл больше {mb} МБ.',
      not_spreadsheet: 'Файл не является ни xlsx, ни текстом csv.',
      invalid_xlsx: 'Файл xlsx недействителен или повреждён.',
      too_many_parts: 'В файле xlsx слишком много внутренних частей.',
      zip_bomb: 'При распаковке файл превышает допустимый размер (возможна zip-бомба).',
      unsupported_compression: 'Файл xlsx использует неподдерживаемое сжатие.',
      no_worksheet: 'В файле xlsx нет ни одного листа.',
      formulas: 'Файл содержит формулы; экспортируйте только значения и повторите попытку.',
      too_many_rows: 'В файле больше {rows} строк.',
      rows_invalid: 'В некоторых строках есть ошибки; исправьте их и импортируйте файл снова.',
      no_phones: 'В файле нет телефонных номеров.',
      encrypted: 'Файл защищён паролем; сохраните его без пароля и повторите попытку.',
      bad_cell_reference: 'Файл xlsx ссылается на ячейки за пределами листа; он повреждён или создан не программой для работы с таблицами.',
      too_many_columns: 'В строке больше {columns} столбцов.',
      cell_too_large: 'Ячейка содержит больше {chars} символов.',
      too_many_cells: 'В файле xlsx слишком много различных текстов.',
      too_slow: 'Чтение файла заняло больше {seconds} секунд; разделите его на файлы поменьше.',
      import_failed: 'Не удалось завершить импорт; повторите попытку.',
    },
    callStatus: {
      queued: 'В очереди',
      dialing: 'Набор',
      ringing: 'Звонит',
      answeredByHuman: 'Ответил человек',
      connected: 'Соединён',
      wrapUp: 'Завершение',
      done: 'Готово',
      abandoned: 'Брошен',
      answeringMachine: 'Автоответчик',
      busy: 'Занято',
      noAnswer: 'Нет ответа',
      failed: 'Ошибка',
      cancelled: 'Отменён',
    },
    pauseReason: {
      break: 'Перерыв',
      lunch: 'Обед',
      training: 'Обучение',
      meeting: 'Совещание',
      auto_away: 'Отошёл (отключение)',
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
    // Email is a kind of its own (issue 20) but a word, not a brand: it keeps its translation.
    if (brand && !(TRANSLATED_CHANNEL_CODES as readonly string[]).includes(brand)) return CHANNEL_KINDS[brand];
  }
  const table = DOWNLOAD_LABELS[language][kind] as Record<string, string>;
  const key = kind === 'channel' ? code.trim().toLowerCase() : code;
  return Object.hasOwn(table, key) ? table[key]! : code;
}

/** `text` with each {name} replaced by its value (the download tables' placeholders). */
export function fillLabel(text: string, values: Record<string, string | number>): string {
  return text.replace(/\{(\w+)\}/g, (whole, name: string) => (Object.hasOwn(values, name) ? String(values[name]) : whole));
}
