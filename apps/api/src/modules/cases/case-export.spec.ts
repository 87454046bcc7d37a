import { LANGUAGES } from '@centralita/contracts';
import { CASE_EXPORT_LABELS, caseCsv, caseExportCells, type CaseExportRow } from './case-export';
import { costaRicaGeoRows } from './costa-rica-catalogues';

const row: CaseExportRow = {
  id: 'x',
  code: 'C-000007',
  number: 7,
  subject: '=cmd|calc',
  status: 'in_progress',
  typeId: null,
  typeName: 'Queja',
  ownerId: null,
  ownerName: 'Ana',
  contactName: '@evil',
  contactEmail: null,
  contactPhone: '+50688881234',
  createdAt: '2026-11-26T10:00:00.000Z',
  updatedAt: '2026-11-26T10:00:00.000Z',
  description: 'Line "one"',
  assignees: 'Bruno',
};

describe('case export', () => {
  it('neutralises cells a spreadsheet would run and names the status in the language asked', () => {
    const cells = caseExportCells(row, 'de');
    expect(cells[2]).toBe('In Bearbeitung');
    expect(cells[4]).toBe("'=cmd|calc");
    expect(cells[6]).toBe("'@evil");
    expect(cells[8]).toBe("'+50688881234");
  });

  it('writes a BOM, a translated header and quoted fields', () => {
    const csv = caseCsv([row], 'en');
    expect(csv.startsWith('\uFEFF"Code","Created","Status"')).toBe(true);
    expect(csv).toContain('"Line ""one"""');
  });

  it('has every label in all seven languages', () => {
    for (const language of LANGUAGES) {
      expect(Object.values(CASE_EXPORT_LABELS[language].columns).every(Boolean)).toBe(true);
      expect(Object.keys(CASE_EXPORT_LABELS[language].status)).toEqual(['open', 'in_progress', 'pending', 'resolved', 'closed']);
    }
  });
});

describe(costaRicaGeoRows.name, () => {
  const rows = costaRicaGeoRows();
  it("seeds Costa Rica's 7 provinces, 84 cantons and San José's 123 districts with official codes", () => {
    expect(rows.filter((r) => r.level === 'province')).toHaveLength(7);
    expect(rows.filter((r) => r.level === 'canton')).toHaveLength(84);
    expect(rows.filter((r) => r.level === 'district' && r.code.startsWith('1'))).toHaveLength(123);
    expect(rows.find((r) => r.name === 'Pérez Zeledón')?.code).toBe('119');
    expect(rows.find((r) => r.name === 'Puerto Jiménez')?.code).toBe('613');
    expect(rows.find((r) => r.name === 'Los Guido')?.code).toBe('10313');
  });
  it('keeps every code unique and every parent listed before its children', () => {
    expect(new Set(rows.map((r) => `${r.level}:${r.code}`)).size).toBe(rows.length);
    const seen = new Set<string>();
    for (const r of rows) {
      if (r.parentCode) expect(seen.has(r.parentCode)).toBe(true);
      seen.add(r.code);
    }
  });
});
