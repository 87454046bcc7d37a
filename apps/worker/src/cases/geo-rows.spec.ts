import { GeoRowChecker } from './geo-rows';

const read = (rows: string[][]) => {
  const checker = new GeoRowChecker();
  for (const row of rows) checker.push(row);
  return checker;
};

describe(GeoRowChecker.name, () => {
  it('reads Spanish or English headers in any order, with optional codes, parents first', () => {
    const checker = read([
      ['Distrito', 'Cantón', 'Provincia', 'Código cantón'],
      ['Carmen', 'San José', 'San José', '101'],
      ['Merced', 'San José', 'San José', '101'],
    ]);
    expect(checker.errors).toEqual([]);
    expect(checker.areas.map((a) => [a.level, a.name, a.code])).toEqual([
      ['province', 'San José', null],
      ['canton', 'San José', '101'],
      ['district', 'Carmen', null],
      ['district', 'Merced', null],
    ]);
    expect(checker.rows).toBe(2);
  });

  it('keeps one area per name under the same parent, ignoring case and accents', () => {
    const checker = read([
      ['province', 'canton'],
      ['Limón', 'Pococí'],
      ['LIMON', 'pococi'],
    ]);
    expect(checker.areas).toHaveLength(2);
  });

  it('names the line of a row without its parent, a name too long, or a file without a province column', () => {
    expect(
      read([
        ['province', 'canton', 'district'],
        ['', 'Solo', ''],
        ['Cartago', 'x'.repeat(121), ''],
      ]).errors.map((e) => e.line),
    ).toEqual([2, 3]);
    expect(read([['name', 'phone']]).errors).toEqual([expect.objectContaining({ line: 1 })]);
    expect(
      read([
        ['province', 'district'],
        ['Cartago', 'Oriental'],
      ]).errors,
    ).toEqual([expect.objectContaining({ line: 2, reason: expect.stringContaining('parent') })]);
  });
});
