/**
 * Rows of a geographic spreadsheet (cases' province → canton → district catalogue). The header
 * names the columns, in Spanish or English, accents and case ignored: province/provincia,
 * canton/cantón, district/distrito, and optional codes (province code/código provincia, …).
 * Each row names one area and its parents: a province alone, a canton of a province, or a
 * district of a canton of a province.
 */
export type GeoLevel = 'province' | 'canton' | 'district';
export interface GeoEntry {
  level: GeoLevel;
  /** The official code when the file gives one, else null (matched by name under its parent). */
  code: string | null;
  name: string;
  /** Key of the parent entry (`province|<name>` …), null for provinces. */
  parentKey: string | null;
  key: string;
}
export interface GeoRowError {
  line: number;
  value: string;
  reason: string;
}

const LEVELS: GeoLevel[] = ['province', 'canton', 'district'];
const fold = (text: string) =>
  text
    .normalize('NFD')
    .replace(/\p{M}/gu, '')
    .toLowerCase()
    .replace(/[^a-z0-9]/g, '');

const HEADERS: Record<string, { level: GeoLevel; code: boolean }> = {
  province: { level: 'province', code: false },
  provincia: { level: 'province', code: false },
  canton: { level: 'canton', code: false },
  district: { level: 'district', code: false },
  distrito: { level: 'district', code: false },
  provincecode: { level: 'province', code: true },
  codigoprovincia: { level: 'province', code: true },
  codprovincia: { level: 'province', code: true },
  cantoncode: { level: 'canton', code: true },
  codigocanton: { level: 'canton', code: true },
  codcanton: { level: 'canton', code: true },
  districtcode: { level: 'district', code: true },
  codigodistrito: { level: 'district', code: true },
  coddistrito: { level: 'district', code: true },
};

const NAME_MAX = 120;
const CODE_MAX = 40;

/** Reads rows one at a time (the header first) and keeps each distinct area once, parents first. */
export class GeoRowChecker {
  readonly errors: GeoRowError[] = [];
  private readonly entries = new Map<string, GeoEntry>();
  private columns: Partial<Record<GeoLevel, { name?: number; code?: number }>> | null = null;
  private line = 0;
  rows = 0;

  push(cells: string[]): void {
    this.line += 1;
    if (!this.columns) return this.header(cells);
    if (cells.every((cell) => !cell.trim())) return;
    this.rows += 1;
    const cell = (index: number | undefined) => (index === undefined ? '' : (cells[index] ?? '').trim());
    const given = LEVELS.map((level) => ({ level, name: cell(this.columns?.[level]?.name), code: cell(this.columns?.[level]?.code) }));
    const present = given.filter((value) => value.name || value.code);
    if (present.length === 0) return this.problem(cells.join(' ').slice(0, 80), 'the row names no province');
    // A district without its canton (or a canton without its province) cannot be placed.
    if (present.some((value, i) => value.level !== LEVELS[i]))
      return this.problem(present.map((value) => value.name || value.code).join(' / '), 'every area needs its parent on the same row');
    let parentKey: string | null = null;
    const found: GeoEntry[] = [];
    for (const { level, name, code } of present) {
      if (!name) return this.problem(code, `the ${level} with code ${code} has no name`);
      if (name.length > NAME_MAX) return this.problem(name, `the ${level} name is longer than ${NAME_MAX} characters`);
      if (code.length > CODE_MAX) return this.problem(code, `the ${level} code is longer than ${CODE_MAX} characters`);
      const key: string = `${parentKey ?? ''}|${level}:${code ? `#${code}` : fold(name)}`;
      found.push({ level, code: code || null, name, parentKey, key });
      parentKey = key;
    }
    for (const entry of found) if (!this.entries.has(entry.key)) this.entries.set(entry.key, entry);
  }

  /** Areas in insertion order: provinces, then cantons, then districts. */
  get areas(): GeoEntry[] {
    return LEVELS.flatMap((level) => [...this.entries.values()].filter((entry) => entry.level === level));
  }

  /** Whether the header named a province column at all (checked after the first row). */
  get hasHeader(): boolean {
    return !!this.columns?.province?.name || this.columns?.province?.name === 0;
  }

  private header(cells: string[]): void {
    const columns: Partial<Record<GeoLevel, { name?: number; code?: number }>> = {};
    cells.forEach((cell, index) => {
      const known = HEADERS[fold(cell)];
      if (!known) return;
      const slot = (columns[known.level] ??= {});
      if (known.code) slot.code ??= index;
      else slot.name ??= index;
    });
    this.columns = columns;
    if (columns.province?.name === undefined)
      this.problem(cells.join(', ').slice(0, 80), 'the first row must name the columns: province, canton, district');
  }

  private problem(value: string, reason: string): void {
    this.errors.push({ line: this.line, value: value.slice(0, 120), reason });
  }
}
