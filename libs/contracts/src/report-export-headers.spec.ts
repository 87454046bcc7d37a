import { DEFAULT_LANGUAGE, LANGUAGES } from './constants';
import { REPORT_EXPORT_HEADERS, reportCellLabel, reportExportHeaders } from './report-export-headers';
import { REPORT_COLUMNS, REPORT_TYPES } from './reports';

const others = LANGUAGES.filter((language) => language !== 'en');
const english = Object.keys(REPORT_EXPORT_HEADERS.en).sort();

describe(reportExportHeaders.name, () => {
  it.each(LANGUAGES)('heads every column of every report in %s, with no blank header and no two alike in one file', (language) => {
    for (const type of REPORT_TYPES) {
      const headers = reportExportHeaders(type, language);
      expect(headers).toHaveLength(REPORT_COLUMNS[type].length);
      expect(headers.filter((header) => typeof header !== 'string' || header.trim() === '')).toEqual([]);
      expect(new Set(headers).size).toBe(headers.length);
    }
  });

  it.each(LANGUAGES)('has in %s exactly the keys of the English table', (language) => {
    expect(Object.keys(REPORT_EXPORT_HEADERS[language]).sort()).toEqual(english);
  });

  it.each(others)('is really translated in %s (not a copy of the English)', (language) => {
    const same = english.filter((key) => REPORT_EXPORT_HEADERS[language][key as never] === REPORT_EXPORT_HEADERS.en[key as never]);
    // A few words are the same in both (Agent, Status…), never most of them.
    expect(same.length).toBeLessThan(english.length / 4);
  });

  it.each(LANGUAGES)('gives duration columns, whose cells are plain seconds, their unit in %s', (language) => {
    for (const type of REPORT_TYPES) {
      const headers = reportExportHeaders(type, language);
      REPORT_COLUMNS[type].forEach((column, index) => {
        if (column.kind === 'seconds') expect(headers[index]).toMatch(/\((s|с)\)$/);
      });
    }
  });

  it('keeps the English headers the exports always had', () => {
    expect(reportExportHeaders('conversations', 'en')).toEqual([
      'Conversation',
      'Started',
      'Channel',
      'Line',
      'Agent',
      'Customer',
      'Status',
      'Closed',
      'Wait (s)',
      'Handle time (s)',
      'Messages',
    ]);
  });

  it('heads files in Spanish by default, and in German for German', () => {
    expect(DEFAULT_LANGUAGE).toBe('es');
    expect(reportExportHeaders('queue', 'es').slice(0, 3)).toEqual(['Línea', 'Canal', 'Ofrecidas']);
    expect(reportExportHeaders('queue', 'de').slice(0, 3)).toEqual(['Linie', 'Kanal', 'Angeboten']);
  });
});

describe(reportCellLabel.name, () => {
  it('writes a code column as its label in the requester’s language', () => {
    expect(reportCellLabel('status', 'LiningUp', 'ru')).toBe('В очереди');
    expect(reportCellLabel('status', 'Closed', 'el')).toBe('Κλειστή');
    expect(reportCellLabel('channel', 'webchat', 'de')).toBe('WebChat');
    expect(reportCellLabel('channel', 'Phone', 'it')).toBe('Telefono');
    expect(reportCellLabel('outcome', 'answeringMachine', 'es')).toBe('Contestador');
    expect(reportCellLabel('disposition', 'doNotCall', 'en')).toBe('Do not call');
  });

  it('leaves names, numbers, times and empty cells as they are', () => {
    expect(reportCellLabel('customer', 'Closed', 'es')).toBe('Closed');
    expect(reportCellLabel('line', 'webchat', 'es')).toBe('webchat');
    expect(reportCellLabel('messages', 3, 'ru')).toBe(3);
    expect(reportCellLabel('status', null, 'ru')).toBeNull();
    expect(reportCellLabel('status', '', 'ru')).toBe('');
  });
});

describe('pause reasons in report cells', () => {
  it("names each built-in reason in the reader's language and keeps a tenant's own code", () => {
    expect(reportCellLabel('reasons', 'break: 300; lunch: 1800; coffee_run: 60', 'es')).toBe(
      'Descanso: 300; Almuerzo: 1800; coffee_run: 60',
    );
    expect(reportCellLabel('reasons', 'auto_away: 12', 'ru')).toBe('Отошёл (отключение): 12');
    expect(reportCellLabel('reasons', null, 'en')).toBeNull();
  });
});
