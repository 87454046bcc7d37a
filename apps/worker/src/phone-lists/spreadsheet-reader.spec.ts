import { describe, expect, it } from '@jest/globals';
import { PHONE_IMPORT_LIMITS } from '@centralita/contracts';
import { checkRows, toE164 } from './phone-list-rows';
import { readSpreadsheet, SpreadsheetRefused } from './spreadsheet-reader';
import { xlsx, zip } from './testing/xlsx-fixture';

describe(readSpreadsheet.name, () => {
  it('reads the first sheet of an xlsx, inline and shared strings', () => {
    expect(
      readSpreadsheet(
        xlsx([
          ['phone', 'name'],
          ['+50688887777', 'Ana & Co'],
        ]),
      ),
    ).toEqual([
      ['phone', 'name'],
      ['+50688887777', 'Ana & Co'],
    ]);
  });

  it('reads csv with semicolons and quotes', () => {
    expect(readSpreadsheet(Buffer.from('phone;name\r\n"8888 7777";"Pérez; Ana"\r\n'))).toEqual([
      ['phone', 'name'],
      ['8888 7777', 'Pérez; Ana'],
    ]);
  });

  it('refuses formula-laden workbooks', () => {
    expect(() => readSpreadsheet(xlsx([['phone'], ['=HYPERLINK("http://x")']]))).toThrow(/formulas/);
  });

  it('refuses a zip bomb from its declared sizes before inflating', () => {
    const bomb = zip([{ name: 'xl/worksheets/sheet1.xml', data: Buffer.alloc(10 * 1024 * 1024, 0x20) }]);
    expect(() => readSpreadsheet(bomb)).toThrow(SpreadsheetRefused);
  });

  it('refuses an entry that inflates beyond what its header declares', () => {
    const liar = zip([{ name: 'xl/worksheets/sheet1.xml', data: Buffer.alloc(2 * 1024 * 1024, 0x61), forgeSize: 30_000 }]);
    expect(() => readSpreadsheet(liar, { ...PHONE_IMPORT_LIMITS, maxCompressionRatio: 1_000_000 })).toThrow(/allowed size/);
  });

  it('refuses files over the size limit and binary non-zip content', () => {
    expect(() => readSpreadsheet(Buffer.alloc(100), { ...PHONE_IMPORT_LIMITS, maxFileBytes: 10 })).toThrow(/larger/);
    expect(() => readSpreadsheet(Buffer.from([1, 0, 2, 3]))).toThrow(/neither/);
  });

  it('gives every refusal a stable code the console translates', () => {
    const codeOf = (run: () => unknown) => {
      try {
        run();
      } catch (error) {
        return error instanceof SpreadsheetRefused ? error.code : 'not refused';
      }
      return 'accepted';
    };
    expect(codeOf(() => readSpreadsheet(xlsx([['phone'], ['=1+1']])))).toBe('formulas');
    expect(codeOf(() => readSpreadsheet(zip([{ name: 'xl/worksheets/sheet1.xml', data: Buffer.alloc(10 * 1024 * 1024, 0x20) }])))).toBe(
      'zip_bomb',
    );
    expect(codeOf(() => readSpreadsheet(Buffer.alloc(100), { ...PHONE_IMPORT_LIMITS, maxFileBytes: 10 }))).toBe('too_large');
    expect(codeOf(() => readSpreadsheet(Buffer.from([1, 0, 2, 3])))).toBe('not_spreadsheet');
    expect(codeOf(() => readSpreadsheet(zip([{ name: 'docProps/app.xml', data: Buffer.from('<x/>') }])))).toBe('no_worksheet');
    const rows = Array.from({ length: 12 }, (_, i) => [`+5068888${String(i).padStart(4, '0')}`]);
    expect(codeOf(() => readSpreadsheet(xlsx(rows), { ...PHONE_IMPORT_LIMITS, maxRows: 10 }))).toBe('too_many_rows');
  });

  it('refuses more rows than allowed', () => {
    const rows = Array.from({ length: 12 }, (_, i) => [`+5068888${String(i).padStart(4, '0')}`]);
    expect(() => readSpreadsheet(xlsx(rows), { ...PHONE_IMPORT_LIMITS, maxRows: 10 })).toThrow(/more than 10 rows/);
  });
});

describe(checkRows.name, () => {
  it('normalises to E.164 and reports 7-digit phones and duplicates by line', () => {
    const { valid, errors } = checkRows(
      [
        ['Teléfono', 'Nombre'],
        ['8888-7777', 'Ana'],
        ['888-7777', 'Short'],
        ['+506 8888 7777', 'Again'],
        ['', 'Nobody'],
      ],
      'CR',
    );
    expect(valid).toEqual([{ line: 2, phone: '+50688887777', name: 'Ana' }]);
    expect(errors).toEqual([
      { line: 3, value: '888-7777', reason: 'phone must have at least 8 digits' },
      { line: 4, value: '+506 8888 7777', reason: 'duplicate of line 2' },
      { line: 5, value: '', reason: 'phone is required' },
    ]);
  });

  it('reads files without a header row (phone first, name second)', () => {
    expect(checkRows([['+34 612 345 678', 'Luis']], null).valid).toEqual([{ line: 1, phone: '+34612345678', name: 'Luis' }]);
  });
});

describe(toE164.name, () => {
  it('uses the default country for national numbers and 00 as +', () => {
    expect(toE164('8888 7777', 'CR')).toBe('+50688887777');
    expect(toE164('0034612345678', null)).toBe('+34612345678');
  });
});
