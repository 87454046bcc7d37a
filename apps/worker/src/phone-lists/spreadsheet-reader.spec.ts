import { describe, expect, it } from '@jest/globals';
import { PHONE_IMPORT_LIMITS } from '@centralita/contracts';
import ExcelJS from 'exceljs';
import fc from 'fast-check';
import { checkRows, toE164 } from './phone-list-rows';
import { eachSpreadsheetRow, readSpreadsheet, SpreadsheetRefused, type Limits } from './spreadsheet-reader';
import { officeEncrypted, xlsx, zip } from './testing/xlsx-fixture';

/** The refusal code of a file, or 'accepted'. */
async function codeOf(file: Buffer, limits: Limits = PHONE_IMPORT_LIMITS): Promise<string> {
  try {
    await readSpreadsheet(file, limits);
    return 'accepted';
  } catch (error) {
    return error instanceof SpreadsheetRefused ? error.code : `not refused: ${String(error)}`;
  }
}

/** Repetitive hostile XML compresses beyond the ratio limit; these cases reach the parser past that check. */
const loosely = (file: Buffer) => codeOf(file, { ...PHONE_IMPORT_LIMITS, maxCompressionRatio: 1e9 });

const sheet = (body: string) =>
  zip([{ name: 'xl/worksheets/sheet1.xml', data: Buffer.from(`<worksheet><sheetData>${body}</sheetData></worksheet>`) }]);

describe(readSpreadsheet.name, () => {
  it('reads the first sheet of an xlsx, inline and shared strings', async () => {
    expect(
      await readSpreadsheet(
        xlsx([
          ['phone', 'name'],
          ['+50688887777', 'Ana & Co'],
        ]),
      ),
    ).toEqual([
      ['phone', 'name'],
      ['+50688887777', 'Ana & Co'],
    ]);
    const shared = zip([
      {
        name: 'xl/sharedStrings.xml',
        data: Buffer.from('<sst><si><t>phone</t></si><si><r><t>An</t></r><r><t>a</t></r><rPh><t>ana</t></rPh></si></sst>'),
      },
      {
        name: 'xl/worksheets/sheet1.xml',
        data: Buffer.from(
          '<x:worksheet xmlns:x="urn:x"><x:sheetData><x:row r="1"><x:c r="A1" t="s"><x:v>0</x:v></x:c></x:row>' +
            '<x:row r="2"><x:c r="A2"><x:v>50688887777</x:v></x:c><x:c r="C2" t="s"><x:v>1</x:v></x:c></x:row><x:row r="3"/></x:sheetData></x:worksheet>',
        ),
      },
    ]);
    expect(await readSpreadsheet(shared)).toEqual([['phone'], ['50688887777', '', 'Ana'], []]);
  });

  it('reads back what a spreadsheet program wrote: shared strings, rich text, numbers, gaps', async () => {
    const book = new ExcelJS.Workbook();
    const contacts = book.addWorksheet('Contacts');
    contacts.addRow(['Teléfono', 'Nombre']);
    contacts.addRow([50688887777, 'Ana & <Co>']);
    contacts.getCell('A3').value = '+506 6000 1234';
    contacts.getCell('D3').value = { richText: [{ text: 'Lu' }, { text: 'is', font: { bold: true } }] };
    book.addWorksheet('Other').addRow(['not read']);
    const file = Buffer.from(await book.xlsx.writeBuffer());
    expect(await readSpreadsheet(file)).toEqual([
      ['Teléfono', 'Nombre'],
      ['50688887777', 'Ana & <Co>'],
      ['+506 6000 1234', '', '', 'Luis'],
    ]);
  });

  it('reads any sheet of text cells back exactly, as xlsx and as csv', async () => {
    // XML cannot carry most control characters (spreadsheet programs escape them as _xHHHH_).
    const cell = fc.string({ maxLength: 12, unit: 'grapheme' }).map((s) => s.replace(/[\u0000-\u001f\ufffe\uffff]/g, ''));
    const rows = fc.array(
      fc.array(
        cell.filter((c) => !c.startsWith('=')),
        { minLength: 1, maxLength: 5 },
      ),
      { maxLength: 12 },
    );
    await fc.assert(
      fc.asyncProperty(rows, async (sheetRows) => {
        expect(await readSpreadsheet(xlsx(sheetRows))).toEqual(sheetRows);
        const quoted = sheetRows.map((r) => r.map((c) => `"${c.replace(/"/g, '""')}"`).join(','));
        expect(await readSpreadsheet(Buffer.from(quoted.map((line) => `${line}\r\n`).join('')))).toEqual(sheetRows);
      }),
      { numRuns: 200 },
    );
  });

  it('reads csv with semicolons and quotes', async () => {
    expect(await readSpreadsheet(Buffer.from('phone;name\r\n"8888 7777";"Pérez; Ana"\r\n'))).toEqual([
      ['phone', 'name'],
      ['8888 7777', 'Pérez; Ana'],
    ]);
  });

  it('refuses formula-laden workbooks', async () => {
    await expect(readSpreadsheet(xlsx([['phone'], ['=HYPERLINK("http://x")']]))).rejects.toThrow(/formulas/);
  });

  it('refuses a zip bomb from its declared sizes before inflating', async () => {
    const bomb = zip([{ name: 'xl/worksheets/sheet1.xml', data: Buffer.alloc(10 * 1024 * 1024, 0x20) }]);
    await expect(readSpreadsheet(bomb)).rejects.toThrow(SpreadsheetRefused);
  });

  it('refuses an entry that inflates beyond what its header declares', async () => {
    const liar = zip([{ name: 'xl/worksheets/sheet1.xml', data: Buffer.alloc(2 * 1024 * 1024, 0x61), forgeSize: 30_000 }]);
    await expect(readSpreadsheet(liar, { ...PHONE_IMPORT_LIMITS, maxCompressionRatio: 1_000_000 })).rejects.toThrow(/allowed size/);
  });

  it('refuses files over the size limit and binary non-zip content', async () => {
    await expect(readSpreadsheet(Buffer.alloc(100), { ...PHONE_IMPORT_LIMITS, maxFileBytes: 10 })).rejects.toThrow(/larger/);
    await expect(readSpreadsheet(Buffer.from([1, 0, 2, 3]))).rejects.toThrow(/neither/);
  });

  it('gives every refusal a stable code the console translates', async () => {
    expect(await codeOf(xlsx([['phone'], ['=1+1']]))).toBe('formulas');
    expect(await codeOf(zip([{ name: 'xl/worksheets/sheet1.xml', data: Buffer.alloc(10 * 1024 * 1024, 0x20) }]))).toBe('zip_bomb');
    expect(await codeOf(Buffer.alloc(100), { ...PHONE_IMPORT_LIMITS, maxFileBytes: 10 })).toBe('too_large');
    expect(await codeOf(Buffer.from([1, 0, 2, 3]))).toBe('not_spreadsheet');
    expect(await codeOf(zip([{ name: 'docProps/app.xml', data: Buffer.from('<x/>') }]))).toBe('no_worksheet');
    const rows = Array.from({ length: 12 }, (_, i) => [`+5068888${String(i).padStart(4, '0')}`]);
    expect(await codeOf(xlsx(rows), { ...PHONE_IMPORT_LIMITS, maxRows: 10 })).toBe('too_many_rows');
  });

  it('refuses more rows than allowed', async () => {
    const rows = Array.from({ length: 12 }, (_, i) => [`+5068888${String(i).padStart(4, '0')}`]);
    await expect(readSpreadsheet(xlsx(rows), { ...PHONE_IMPORT_LIMITS, maxRows: 10 })).rejects.toThrow(/more than 10 rows/);
  });

  it('refuses cell references outside the sheet without allocating them', async () => {
    expect(await loosely(sheet('<row r="1"><c r="AAAAAAAA1" t="inlineStr"><is><t>x</t></is></c></row>'))).toBe('bad_cell_reference');
    expect(await loosely(sheet('<row r="1"><c r="XFE1"><v>1</v></c></row>'))).toBe('bad_cell_reference');
    expect(await loosely(sheet('<row r="99999999999"><c r="A1"><v>1</v></c></row>'))).toBe('bad_cell_reference');
    expect(await loosely(sheet('<row r="1"><c r="A1048577"><v>1</v></c></row>'))).toBe('bad_cell_reference');
  });

  it('bounds columns per row, by position and by count', async () => {
    expect(await loosely(sheet('<row r="1"><c r="XFD1"><v>1</v></c></row>'))).toBe('too_many_columns');
    expect(await loosely(sheet(`<row>${'<c><v>1</v></c>'.repeat(1001)}</row>`))).toBe('too_many_columns');
    expect(await loosely(sheet(`<row>${'<c r="A1"><v>1</v></c>'.repeat(1001)}</row>`))).toBe('too_many_columns');
    expect(await loosely(Buffer.from(`phone${','.repeat(1000)}\n`))).toBe('too_many_columns');
    expect(await loosely(sheet(`<row>${'<c><v>1</v></c>'.repeat(1000)}</row>`))).toBe('accepted');
  });

  it('bounds the size of a cell, inline, shared, csv and raw text', async () => {
    const big = 'x'.repeat(32_768);
    expect(await loosely(sheet(`<row><c t="inlineStr"><is><t>${big}</t></is></c></row>`))).toBe('cell_too_large');
    expect(
      await loosely(
        zip([
          { name: 'xl/sharedStrings.xml', data: Buffer.from(`<sst><si><t>${big}</t></si></sst>`) },
          { name: 'xl/worksheets/sheet1.xml', data: Buffer.from('<worksheet/>') },
        ]),
      ),
    ).toBe('cell_too_large');
    expect(await loosely(Buffer.from(`phone\n"${big}"\n`))).toBe('cell_too_large');
    expect(await loosely(sheet(`<row><c><v>${'1'.repeat(2 * 1024 * 1024)}</v></c></row>`))).toBe('cell_too_large');
    expect(await loosely(sheet(`<row><c t="inlineStr"><is><t>${'>'.repeat(2 * 1024 * 1024)}</t></is></c></row>`))).toBe('cell_too_large');
    expect(await loosely(sheet(`<row><c r="${'>'.repeat(2 * 1024 * 1024)}"/></row>`))).toBe('cell_too_large');
    expect(await loosely(sheet(`<row><c t="inlineStr"><is><t>${'x'.repeat(32_767)}</t></is></c></row>`))).toBe('accepted');
  });

  it('refuses malformed XML in linear time: unclosed rows and strings, nesting, DTDs and entities', async () => {
    // CPU time, not wall-clock: a loaded machine delays the test without making the parse slower.
    const started = process.cpuUsage();
    expect(await loosely(sheet('<row r="1">'.repeat(200_000)))).toBe('invalid_xlsx');
    expect(
      await loosely(
        zip([
          { name: 'xl/sharedStrings.xml', data: Buffer.from(`<sst>${'<si><t>a'.repeat(200_000)}`) },
          { name: 'xl/worksheets/sheet1.xml', data: Buffer.from('<worksheet/>') },
        ]),
      ),
    ).toBe('invalid_xlsx');
    const used = process.cpuUsage(started);
    expect((used.user + used.system) / 1000).toBeLessThan(5000);
    expect(await loosely(sheet(`<row><c>${'<x>'.repeat(100)}</c></row>`))).toBe('invalid_xlsx');
    expect(await loosely(sheet(`<row ${Array.from({ length: 200 }, (_, i) => `a${i}=">"`).join(' ')}/>`))).toBe('invalid_xlsx');
    const laughs =
      '<?xml version="1.0"?><!DOCTYPE w [<!ENTITY a "aaaaaaaaaa"><!ENTITY b "&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;">]>' +
      '<worksheet><sheetData><row><c t="inlineStr"><is><t>&b;</t></is></c></row></sheetData></worksheet>';
    expect(await loosely(zip([{ name: 'xl/worksheets/sheet1.xml', data: Buffer.from(laughs) }]))).toBe('invalid_xlsx');
    expect(await loosely(sheet('<row><c t="inlineStr"><is><t>&nbsp;&#0;</t></is></c></row>'))).toBe('invalid_xlsx');
    expect(await loosely(sheet('<row><c t="inlineStr"><is><t>&#xD800;</t></is></c></row>'))).toBe('invalid_xlsx');
  });

  it('refuses a shared-string index that does not exist instead of reading it as blank', async () => {
    const file = zip([
      { name: 'xl/sharedStrings.xml', data: Buffer.from('<sst><si><t>phone</t></si></sst>') },
      {
        name: 'xl/worksheets/sheet1.xml',
        data: Buffer.from('<worksheet><sheetData><row><c t="s"><v>7</v></c></row></sheetData></worksheet>'),
      },
    ]);
    expect(await loosely(file)).toBe('invalid_xlsx');
  });

  it('refuses a truncated zip and damaged compressed data as invalid, not as a bomb', async () => {
    const good = xlsx([['phone'], ['+50688887777']]);
    expect(await codeOf(good.subarray(0, good.length - 30))).toBe('invalid_xlsx');
    // Deflate data starting 0xff declares a reserved block type: zlib refuses it.
    const damaged = zip([{ name: 'xl/worksheets/sheet1.xml', data: Buffer.from('<worksheet/>') }]);
    damaged.fill(0xff, 30 + 'xl/worksheets/sheet1.xml'.length, 30 + 'xl/worksheets/sheet1.xml'.length + 4);
    expect(await codeOf(damaged)).toBe('invalid_xlsx');
  });

  it('recognises password-protected workbooks, zip-encrypted and Office-encrypted', async () => {
    const file = zip([{ name: 'xl/worksheets/sheet1.xml', data: Buffer.from('<worksheet/>') }]);
    file.writeUInt16LE(1, file.lastIndexOf(Buffer.from([0x50, 0x4b, 0x01, 0x02])) + 8);
    expect(await codeOf(file)).toBe('encrypted');
    expect(await codeOf(officeEncrypted())).toBe('encrypted');
    expect(await codeOf(Buffer.concat([officeEncrypted().subarray(0, 512), Buffer.alloc(512)]))).toBe('not_spreadsheet');
  });

  it('refuses NUL bytes anywhere in a csv', async () => {
    expect(await codeOf(Buffer.concat([Buffer.from(`phone\n${'+50688887777\n'.repeat(1000)}`), Buffer.from([0])]))).toBe('not_spreadsheet');
  });

  it('gives up on a file slower than its time budget', async () => {
    const rows = Array.from({ length: 500 }, (_, i) => [`+5068${String(i).padStart(7, '0')}`]);
    // A sink that spends 1 ms on every row: 500 rows cannot fit a 50 ms budget.
    const slow = () => {
      const until = Date.now() + 1;
      while (Date.now() < until) {
        // busy, as a slow row would be
      }
    };
    await expect(eachSpreadsheetRow(xlsx(rows), { ...PHONE_IMPORT_LIMITS, parseTimeoutMs: 50 }, slow)).rejects.toMatchObject({
      code: 'too_slow',
    });
    const csv = Buffer.from(rows.map((r) => r[0]).join('\n'));
    await expect(eachSpreadsheetRow(csv, { ...PHONE_IMPORT_LIMITS, parseTimeoutMs: 50 }, slow)).rejects.toMatchObject({ code: 'too_slow' });
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
    expect(valid).toEqual([{ line: 2, phone: '+50688887777', name: 'Ana', fields: null }]);
    expect(errors).toEqual([
      { line: 3, value: '888-7777', reason: 'phone must have at least 8 digits', code: 'digits' },
      { line: 4, value: '+506 8888 7777', reason: 'duplicate of line 2', code: 'duplicate', first: 2 },
      { line: 5, value: '', reason: 'phone is required', code: 'required' },
    ]);
  });

  it('echoes at most 200 characters of a refused value, however long the cell', () => {
    const { errors } = checkRows([['phone'], ['x'.repeat(30_000)]], 'CR');
    expect(errors).toEqual([{ line: 2, value: 'x'.repeat(200), reason: 'phone must have at least 8 digits', code: 'digits' }]);
  });

  it('reads files without a header row (phone first, name second)', () => {
    expect(checkRows([['+34 612 345 678', 'Luis']], null).valid).toEqual([{ line: 1, phone: '+34612345678', name: 'Luis', fields: null }]);
  });

  it('keeps the other columns of a list with a header row by lower-cased header (email campaigns map them)', () => {
    const { valid } = checkRows(
      [
        ['Nombre', 'Email', 'Teléfono', 'Ciudad', '', 'EMAIL'],
        ['Ana', ' Ana@Example.com ', '+34 612 345 678', 'Madrid', 'x', 'dup'],
      ],
      null,
    );
    expect(valid).toEqual([{ line: 2, phone: '+34612345678', name: 'Ana', fields: { email: 'Ana@Example.com', ciudad: 'Madrid' } }]);
  });
});

describe(toE164.name, () => {
  it('uses the default country for national numbers and 00 as +', () => {
    expect(toE164('8888 7777', 'CR')).toBe('+50688887777');
    expect(toE164('0034612345678', null)).toBe('+34612345678');
  });

  it('takes no more than the 15 digits of E.164 as an international number', () => {
    expect(toE164('+999 1234 5678 901', null)).toBe('+99912345678901');
    expect(toE164(`+${'9'.repeat(16)}`, null)).toBeNull();
    expect(toE164(`+${'1'.repeat(30_000)}`, null)).toBeNull();
  });
});
