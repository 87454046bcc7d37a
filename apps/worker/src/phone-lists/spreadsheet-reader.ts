import { inflateRawSync } from 'node:zlib';
import { PHONE_IMPORT_LIMITS, type PhoneImportFailureCode } from '@centralita/contracts';

/** A file refused as a whole (too big, a zip bomb, formulas…): nothing of it is imported. */
export class SpreadsheetRefused extends Error {
  /** `reason` is English (logs, errors CSV); `code` is what the console translates. */
  constructor(
    readonly code: PhoneImportFailureCode,
    readonly reason: string,
  ) {
    super(reason);
    this.name = 'SpreadsheetRefused';
  }
}

/** The import limits as numbers, not the literal defaults: an admin or a test may set others. */
export type Limits = { readonly [K in keyof typeof PHONE_IMPORT_LIMITS]: number };

interface ZipEntry {
  name: string;
  method: number;
  compressedSize: number;
  size: number;
  offset: number;
}

/**
 * Reads the zip central directory and checks every entry's declared sizes BEFORE inflating
 * anything; inflation itself is capped (zlib maxOutputLength), so a lying header cannot blow up.
 */
function readZipDirectory(buf: Buffer, limits: Limits): ZipEntry[] {
  let eocd = -1;
  for (let i = buf.length - 22; i >= Math.max(0, buf.length - 22 - 65_535); i--) {
    if (buf.readUInt32LE(i) === 0x06054b50) {
      eocd = i;
      break;
    }
  }
  if (eocd < 0) throw new SpreadsheetRefused('invalid_xlsx', 'not a valid xlsx file (no zip directory)');
  const count = buf.readUInt16LE(eocd + 10);
  const dirOffset = buf.readUInt32LE(eocd + 16);
  if (count > limits.maxZipEntries) throw new SpreadsheetRefused('too_many_parts', `the file has too many parts (${count})`);
  const entries: ZipEntry[] = [];
  let p = dirOffset;
  let declared = 0;
  for (let i = 0; i < count; i++) {
    if (p + 46 > buf.length || buf.readUInt32LE(p) !== 0x02014b50)
      throw new SpreadsheetRefused('invalid_xlsx', 'not a valid xlsx file (broken zip directory)');
    const method = buf.readUInt16LE(p + 10);
    const compressedSize = buf.readUInt32LE(p + 20);
    const size = buf.readUInt32LE(p + 24);
    const nameLength = buf.readUInt16LE(p + 28);
    const extraLength = buf.readUInt16LE(p + 30);
    const commentLength = buf.readUInt16LE(p + 32);
    const offset = buf.readUInt32LE(p + 42);
    const name = buf.toString('utf8', p + 46, p + 46 + nameLength);
    declared += size;
    if (declared > limits.maxInflatedBytes)
      throw new SpreadsheetRefused('zip_bomb', 'the file inflates beyond the allowed size (zip bomb?)');
    if (compressedSize > 0 && size / compressedSize > limits.maxCompressionRatio) {
      throw new SpreadsheetRefused('zip_bomb', 'the file is compressed suspiciously well (zip bomb?)');
    }
    entries.push({ name, method, compressedSize, size, offset });
    p += 46 + nameLength + extraLength + commentLength;
  }
  return entries;
}

function inflateEntry(buf: Buffer, entry: ZipEntry, limits: Limits): string {
  const p = entry.offset;
  if (p + 30 > buf.length || buf.readUInt32LE(p) !== 0x04034b50)
    throw new SpreadsheetRefused('invalid_xlsx', 'not a valid xlsx file (broken entry)');
  const start = p + 30 + buf.readUInt16LE(p + 26) + buf.readUInt16LE(p + 28);
  const data = buf.subarray(start, start + entry.compressedSize);
  if (entry.method === 0) return data.toString('utf8');
  if (entry.method !== 8) throw new SpreadsheetRefused('unsupported_compression', 'unsupported compression in the xlsx file');
  try {
    // Never trust the declared size: cap the actual output too.
    return inflateRawSync(data, { maxOutputLength: Math.min(entry.size, limits.maxInflatedBytes) + 1 }).toString('utf8');
  } catch {
    throw new SpreadsheetRefused('zip_bomb', 'the file inflates beyond the allowed size (zip bomb?)');
  }
}

const XML_ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" };
function unescapeXml(text: string): string {
  return text.replace(/&(#x?[0-9a-fA-F]+|amp|lt|gt|quot|apos);/g, (_, code: string) => {
    if (code[0] !== '#') return XML_ENTITIES[code];
    const n = code[1] === 'x' ? parseInt(code.slice(2), 16) : parseInt(code.slice(1), 10);
    return Number.isFinite(n) ? String.fromCodePoint(n) : '';
  });
}

function columnIndex(ref: string): number {
  const letters = /^[A-Z]+/.exec(ref)?.[0] ?? 'A';
  let n = 0;
  for (const ch of letters) n = n * 26 + (ch.charCodeAt(0) - 64);
  return n - 1;
}

/** The first worksheet of an xlsx as rows of text cells. Formulas refuse the file. */
export function readXlsx(buf: Buffer, limits: Limits = PHONE_IMPORT_LIMITS): string[][] {
  const entries = readZipDirectory(buf, limits);
  const byName = new Map(entries.map((e) => [e.name, e]));
  const sheetEntry = byName.get('xl/worksheets/sheet1.xml') ?? entries.find((e) => /^xl\/worksheets\/[^/]+\.xml$/.test(e.name));
  if (!sheetEntry) throw new SpreadsheetRefused('no_worksheet', 'the xlsx file has no worksheet');
  const shared: string[] = [];
  const sharedEntry = byName.get('xl/sharedStrings.xml');
  if (sharedEntry) {
    for (const si of inflateEntry(buf, sharedEntry, limits).matchAll(/<si>([\s\S]*?)<\/si>/g)) {
      shared.push(unescapeXml([...si[1].matchAll(/<t[^>]*>([\s\S]*?)<\/t>/g)].map((t) => t[1]).join('')));
    }
  }
  const xml = inflateEntry(buf, sheetEntry, limits);
  if (/<f[\s>]/.test(xml)) throw new SpreadsheetRefused('formulas', 'the file contains formulas; export plain values and try again');
  const rows: string[][] = [];
  for (const row of xml.matchAll(/<row\b[^>]*?(?:\/>|>([\s\S]*?)<\/row>)/g)) {
    if (rows.length >= limits.maxRows + 1) throw new SpreadsheetRefused('too_many_rows', `the file has more than ${limits.maxRows} rows`);
    const cells: string[] = [];
    for (const cell of (row[1] ?? '').matchAll(/<c\b([^>]*?)(?:\/>|>([\s\S]*?)<\/c>)/g)) {
      const attrs = cell[1];
      const ref = /\br="([A-Z]+\d+)"/.exec(attrs)?.[1];
      const type = /\bt="(\w+)"/.exec(attrs)?.[1];
      const body = cell[2] ?? '';
      let value = '';
      if (type === 's') value = shared[Number(/<v>([\s\S]*?)<\/v>/.exec(body)?.[1])] ?? '';
      else if (type === 'inlineStr') value = unescapeXml([...body.matchAll(/<t[^>]*>([\s\S]*?)<\/t>/g)].map((t) => t[1]).join(''));
      else value = unescapeXml(/<v>([\s\S]*?)<\/v>/.exec(body)?.[1] ?? '');
      const index = ref ? columnIndex(ref) : cells.length;
      while (cells.length < index) cells.push('');
      cells[index] = value;
    }
    rows.push(cells);
  }
  return rows;
}

/** CSV (comma or semicolon, quotes, CRLF) as rows. */
export function readCsv(buf: Buffer, limits: Limits = PHONE_IMPORT_LIMITS): string[][] {
  const text = buf.toString('utf8').replace(/^\uFEFF/, '');
  const firstLine = text.split(/\r?\n/, 1)[0] ?? '';
  const separator = (firstLine.match(/;/g)?.length ?? 0) > (firstLine.match(/,/g)?.length ?? 0) ? ';' : ',';
  const rows: string[][] = [];
  let row: string[] = [];
  let cell = '';
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i];
    if (quoted) {
      if (ch === '"' && text[i + 1] === '"') {
        cell += '"';
        i++;
      } else if (ch === '"') quoted = false;
      else cell += ch;
    } else if (ch === '"') quoted = true;
    else if (ch === separator) {
      row.push(cell);
      cell = '';
    } else if (ch === '\n' || ch === '\r') {
      if (ch === '\r' && text[i + 1] === '\n') i++;
      row.push(cell);
      rows.push(row);
      if (rows.length > limits.maxRows + 1) throw new SpreadsheetRefused('too_many_rows', `the file has more than ${limits.maxRows} rows`);
      row = [];
      cell = '';
    } else cell += ch;
  }
  if (cell !== '' || row.length) {
    row.push(cell);
    rows.push(row);
  }
  return rows;
}

/** Decides by content (zip magic number), never by the file name. */
export function readSpreadsheet(buf: Buffer, limits: Limits = PHONE_IMPORT_LIMITS): string[][] {
  if (buf.length > limits.maxFileBytes) throw new SpreadsheetRefused('too_large', `the file is larger than ${limits.maxFileBytes} bytes`);
  if (buf.length >= 4 && buf.readUInt32LE(0) === 0x04034b50) return readXlsx(buf, limits);
  if (buf.subarray(0, 8192).includes(0)) throw new SpreadsheetRefused('not_spreadsheet', 'the file is neither xlsx nor csv text');
  return readCsv(buf, limits);
}
