import type { Language } from './constants';

/*
 * Labels of the files the console downloads straight from the API, in the language of the user who
 * asked (Accept-Language, as for report exports): the conversation detail as a text transcript or
 * a CSV of its events, and an outbound campaign's results CSV. As in report exports, only labels
 * and headers are translated; cell values (state names, outcome and disposition codes, ISO times)
 * are written the same whatever the language, so files from different users compare and import alike.
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
}

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
  },
};
