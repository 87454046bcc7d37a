import { neutraliseCell } from './admin';
import { REPORT_COLUMNS, REPORT_TYPES, csvLine, reportCellText } from './reports';

describe('report exports', () => {
  it('neutralises every formula trigger, carriage return included, and leaves other text alone', () => {
    expect(['=1+1', '+506', '-2', '@SUM(A1)', '\tx', '\rx', 'Ana', ' =x', ''].map(neutraliseCell)).toEqual([
      "'=1+1",
      "'+506",
      "'-2",
      "'@SUM(A1)",
      "'\tx",
      "'\rx",
      'Ana',
      ' =x',
      '',
    ]);
  });

  it('quotes every CSV field and doubles inner quotes', () => {
    expect(csvLine(['a', 'b "c"', 'x,y', 'line\nbreak'])).toBe('"a","b ""c""","x,y","line\nbreak"\r\n');
  });

  it('writes null as an empty cell and numbers as digits', () => {
    expect([null, 0, 12.5, 'x'].map(reportCellText)).toEqual(['', '0', '12.5', 'x']);
  });

  it('gives every report type unique column keys', () => {
    for (const type of REPORT_TYPES) {
      const keys = REPORT_COLUMNS[type].map((column) => column.key);
      expect(new Set(keys).size).toBe(keys.length);
    }
  });
});
