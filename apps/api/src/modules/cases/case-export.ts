import { csvLine, neutraliseCell, type CaseStatus, type CaseSummary, type Language } from '@centralita/contracts';
import ExcelJS from 'exceljs';
import { PassThrough, type Readable } from 'node:stream';

export type CaseExportRow = CaseSummary & { description: string; assignees: string };

const COLUMNS = [
  'code',
  'createdAt',
  'status',
  'type',
  'subject',
  'description',
  'contactName',
  'contactEmail',
  'contactPhone',
  'owner',
  'assignees',
] as const;
type Column = (typeof COLUMNS)[number];

/** Column headers and status names of a case export, in the language of the user who asked. */
export const CASE_EXPORT_LABELS: Record<Language, { columns: Record<Column, string>; status: Record<CaseStatus, string> }> = {
  es: {
    columns: {
      code: 'Código',
      createdAt: 'Creado',
      status: 'Estado',
      type: 'Tipo',
      subject: 'Asunto',
      description: 'Descripción',
      contactName: 'Contacto',
      contactEmail: 'Correo',
      contactPhone: 'Teléfono',
      owner: 'Responsable',
      assignees: 'Asignados',
    },
    status: { open: 'Abierto', in_progress: 'En curso', pending: 'Pendiente', resolved: 'Resuelto', closed: 'Cerrado' },
  },
  en: {
    columns: {
      code: 'Code',
      createdAt: 'Created',
      status: 'Status',
      type: 'Type',
      subject: 'Subject',
      description: 'Description',
      contactName: 'Contact',
      contactEmail: 'Email',
      contactPhone: 'Phone',
      owner: 'Owner',
      assignees: 'Assignees',
    },
    status: { open: 'Open', in_progress: 'In progress', pending: 'Pending', resolved: 'Resolved', closed: 'Closed' },
  },
  el: {
    columns: {
      code: 'Κωδικός',
      createdAt: 'Δημιουργία',
      status: 'Κατάσταση',
      type: 'Τύπος',
      subject: 'Θέμα',
      description: 'Περιγραφή',
      contactName: 'Επαφή',
      contactEmail: 'Email',
      contactPhone: 'Τηλέφωνο',
      owner: 'Υπεύθυνος',
      assignees: 'Ανατεθειμένοι',
    },
    status: { open: 'Ανοιχτή', in_progress: 'Σε εξέλιξη', pending: 'Σε αναμονή', resolved: 'Επιλύθηκε', closed: 'Κλειστή' },
  },
  it: {
    columns: {
      code: 'Codice',
      createdAt: 'Creato',
      status: 'Stato',
      type: 'Tipo',
      subject: 'Oggetto',
      description: 'Descrizione',
      contactName: 'Contatto',
      contactEmail: 'Email',
      contactPhone: 'Telefono',
      owner: 'Responsabile',
      assignees: 'Assegnatari',
    },
    status: { open: 'Aperto', in_progress: 'In corso', pending: 'In attesa', resolved: 'Risolto', closed: 'Chiuso' },
  },
  sr: {
    columns: {
      code: 'Šifra',
      createdAt: 'Kreiran',
      status: 'Status',
      type: 'Tip',
      subject: 'Predmet',
      description: 'Opis',
      contactName: 'Kontakt',
      contactEmail: 'Email',
      contactPhone: 'Telefon',
      owner: 'Odgovorni',
      assignees: 'Dodeljeni',
    },
    status: { open: 'Otvoren', in_progress: 'U toku', pending: 'Na čekanju', resolved: 'Rešen', closed: 'Zatvoren' },
  },
  de: {
    columns: {
      code: 'Code',
      createdAt: 'Erstellt',
      status: 'Status',
      type: 'Typ',
      subject: 'Betreff',
      description: 'Beschreibung',
      contactName: 'Kontakt',
      contactEmail: 'E-Mail',
      contactPhone: 'Telefon',
      owner: 'Verantwortlich',
      assignees: 'Zugewiesen',
    },
    status: { open: 'Offen', in_progress: 'In Bearbeitung', pending: 'Wartend', resolved: 'Gelöst', closed: 'Geschlossen' },
  },
  ru: {
    columns: {
      code: 'Код',
      createdAt: 'Создано',
      status: 'Статус',
      type: 'Тип',
      subject: 'Тема',
      description: 'Описание',
      contactName: 'Контакт',
      contactEmail: 'Email',
      contactPhone: 'Телефон',
      owner: 'Ответственный',
      assignees: 'Исполнители',
    },
    status: { open: 'Открыто', in_progress: 'В работе', pending: 'Ожидает', resolved: 'Решено', closed: 'Закрыто' },
  },
};

/** One exported row as text cells, neutralised so a spreadsheet never runs `=…`. */
export function caseExportCells(row: CaseExportRow, language: Language): string[] {
  const labels = CASE_EXPORT_LABELS[language];
  const values: Record<Column, string> = {
    code: row.code,
    createdAt: row.createdAt,
    status: labels.status[row.status] ?? row.status,
    type: row.typeName ?? '',
    subject: row.subject,
    description: row.description,
    contactName: row.contactName ?? '',
    contactEmail: row.contactEmail ?? '',
    contactPhone: row.contactPhone ?? '',
    owner: row.ownerName ?? '',
    assignees: row.assignees,
  };
  return COLUMNS.map((column) => neutraliseCell(values[column]));
}

export function caseExportHeaders(language: Language): string[] {
  return COLUMNS.map((column) => CASE_EXPORT_LABELS[language].columns[column]);
}

/** The CSV (UTF-8 with BOM, so spreadsheet programs read accents right). */
export function caseCsv(rows: CaseExportRow[], language: Language): string {
  return `\uFEFF${csvLine(caseExportHeaders(language))}${rows.map((row) => csvLine(caseExportCells(row, language))).join('')}`;
}

/** The xlsx, written by exceljs's streaming writer row by row. */
export function caseXlsx(rows: CaseExportRow[], language: Language): Readable {
  const out = new PassThrough();
  const workbook = new ExcelJS.stream.xlsx.WorkbookWriter({ stream: out, useStyles: false, useSharedStrings: false });
  const sheet = workbook.addWorksheet('Cases');
  sheet.addRow(caseExportHeaders(language)).commit();
  for (const row of rows) sheet.addRow(caseExportCells(row, language)).commit();
  sheet.commit();
  void workbook.commit().catch((error: unknown) => out.destroy(error as Error));
  return out;
}
