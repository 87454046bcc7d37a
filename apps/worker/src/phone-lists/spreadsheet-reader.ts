import { Readable } from 'node:stream';
import { StringDecoder } from 'node:string_decoder';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { createInflateRaw } from 'node:zlib';
import { PHONE_IMPORT_LIMITS, type PhoneImportFailureCode } from '@centralita/contracts';
import { SaxesParser, type SaxesTagPlain } from 'saxes';

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

/** Receives each row of the sheet, in order, as text cells (the header is row one). */
export type RowSink = (cells: string[]) => void;

/** The sheet format's own bounds (Excel specifications and limits): a reference beyond them is not a real cell. */
const SHEET_MAX_COLUMN = 16_384; // XFD
const SHEET_MAX_ROW = 1_048_576;
/** Spreadsheet XML nests a handful of levels and carries a few dozen attributes per element at most. */
const XML_MAX_DEPTH = 64;
const XML_MAX_ATTRIBUTES = 128;
/**
 * The longest stretch of XML between two '<' (one text and one tag). A full cell of 32,767
 * characters, entity-escaped, stays far below it; it keeps the XML parser's own buffers small.
 */
const XML_MAX_RUN_BYTES = 1024 * 1024;
/** Inflated bytes handed to the XML parser at a time; the time budget is checked between them. */
const CHUNK_BYTES = 64 * 1024;
/** Compressed bytes fed to zlib at a time: what one step can inflate stays bounded (deflate's ratio is ~1:1032). */
const INFLATE_STEP_BYTES = 1024;

/** The time budget of one file: checked between chunks and rows, which are each bounded work. */
class Budget {
  private readonly deadline: number;
  constructor(private readonly ms: number) {
    this.deadline = Date.now() + ms;
  }
  check(): void {
    if (Date.now() > this.deadline)
      throw new SpreadsheetRefused('too_slow', `the file took longer than ${Math.round(this.ms / 1000)} s to read`);
  }
}

interface ZipEntry {
  name: string;
  method: number;
  compressedSize: number;
  size: number;
  offset: number;
}

const invalid = (why: string) => new SpreadsheetRefused('invalid_xlsx', `not a valid xlsx file (${why})`);
const bomb = () => new SpreadsheetRefused('zip_bomb', 'the file inflates beyond the allowed size (zip bomb?)');

/**
 * Reads the zip central directory and checks every entry's declared sizes BEFORE inflating
 * anything; inflation itself is capped at the declared size, so a lying header cannot blow up.
 */
function readZipDirectory(buf: Buffer, limits: Limits): ZipEntry[] {
  let eocd = -1;
  for (let i = buf.length - 22; i >= Math.max(0, buf.length - 22 - 65_535); i--) {
    if (buf.readUInt32LE(i) === 0x06054b50) {
      eocd = i;
      break;
    }
  }
  if (eocd < 0) throw invalid('no zip directory');
  const count = buf.readUInt16LE(eocd + 10);
  const dirOffset = buf.readUInt32LE(eocd + 16);
  if (count > limits.maxZipEntries) throw new SpreadsheetRefused('too_many_parts', `the file has too many parts (${count})`);
  const entries: ZipEntry[] = [];
  let p = dirOffset;
  let declared = 0;
  for (let i = 0; i < count; i++) {
    if (p + 46 > buf.length || buf.readUInt32LE(p) !== 0x02014b50) throw invalid('broken zip directory');
    const flags = buf.readUInt16LE(p + 8);
    const method = buf.readUInt16LE(p + 10);
    const compressedSize = buf.readUInt32LE(p + 20);
    const size = buf.readUInt32LE(p + 24);
    const nameLength = buf.readUInt16LE(p + 28);
    const extraLength = buf.readUInt16LE(p + 30);
    const commentLength = buf.readUInt16LE(p + 32);
    const offset = buf.readUInt32LE(p + 42);
    const name = buf.toString('utf8', p + 46, p + 46 + nameLength);
    // Bit 0: the entry is encrypted (zip password); method 99: WinZip AES.
    if (flags & 1 || method === 99) throw new SpreadsheetRefused('encrypted', 'the file is password-protected');
    declared += size;
    if (declared > limits.maxInflatedBytes) throw bomb();
    if (compressedSize > 0 && size / compressedSize > limits.maxCompressionRatio) {
      throw new SpreadsheetRefused('zip_bomb', 'the file is compressed suspiciously well (zip bomb?)');
    }
    entries.push({ name, method, compressedSize, size, offset });
    p += 46 + nameLength + extraLength + commentLength;
  }
  return entries;
}

/** One entry's inflated bytes in chunks, never more than it declared (a liar is a zip bomb). */
async function* inflateEntry(buf: Buffer, entry: ZipEntry, budget: Budget): AsyncGenerator<Buffer> {
  const p = entry.offset;
  if (p + 30 > buf.length || buf.readUInt32LE(p) !== 0x04034b50) throw invalid('broken entry');
  const start = p + 30 + buf.readUInt16LE(p + 26) + buf.readUInt16LE(p + 28);
  if (start + entry.compressedSize > buf.length) throw invalid('truncated entry');
  const data = buf.subarray(start, start + entry.compressedSize);
  if (entry.method === 0) {
    if (data.length > entry.size) throw bomb();
    for (let i = 0; i < data.length; i += CHUNK_BYTES) {
      budget.check();
      yield data.subarray(i, i + CHUNK_BYTES);
      await nextTurn();
    }
    return;
  }
  if (entry.method !== 8) throw new SpreadsheetRefused('unsupported_compression', 'unsupported compression in the xlsx file');
  const steps = function* () {
    for (let i = 0; i < data.length; i += INFLATE_STEP_BYTES) yield data.subarray(i, i + INFLATE_STEP_BYTES);
  };
  // pipe() applies backpressure between steps, so zlib never runs far ahead of the parser.
  const inflater = Readable.from(steps(), { objectMode: false }).pipe(createInflateRaw({ chunkSize: CHUNK_BYTES }));
  let total = 0;
  try {
    for await (const chunk of inflater as AsyncIterable<Buffer>) {
      total += chunk.length;
      if (total > entry.size) throw bomb();
      budget.check();
      yield chunk;
    }
  } catch (error) {
    if (error instanceof SpreadsheetRefused) throw error;
    throw invalid('damaged compressed data');
  } finally {
    inflater.destroy();
  }
}

/** The element name without its namespace prefix (`x:row` is a row too). */
const local = (name: string) => name.slice(name.indexOf(':') + 1);

interface XmlHandlers {
  open(name: string, attributes: Record<string, string>): void;
  text(value: string): void;
  close(name: string): void;
}

/**
 * Streams XML through saxes (the parser exceljs itself uses: no DTD, no entity expansion beyond the
 * five predefined ones, linear time) with bounds on nesting, attributes and run length. Whatever
 * the parser rejects, the file is not valid; a handler's refusal passes through as it is.
 */
async function parseXml(chunks: AsyncIterable<Buffer>, handlers: XmlHandlers): Promise<void> {
  const parser = new SaxesParser({ xmlns: false, position: false });
  let depth = 0;
  let attributes = 0;
  parser.on('doctype', () => {
    throw invalid('it declares a DTD');
  });
  parser.on('opentagstart', () => {
    attributes = 0;
    if (++depth > XML_MAX_DEPTH) throw invalid('elements nested too deeply');
  });
  parser.on('attribute', () => {
    if (++attributes > XML_MAX_ATTRIBUTES) throw invalid('an element has too many attributes');
  });
  parser.on('opentag', (tag: SaxesTagPlain) => handlers.open(local(tag.name), tag.attributes));
  parser.on('closetag', (tag: SaxesTagPlain) => {
    depth--;
    handlers.close(local(tag.name));
  });
  parser.on('text', (text) => handlers.text(text));
  parser.on('cdata', (text) => handlers.text(text));
  const decoder = new StringDecoder('utf8');
  let run = 0;
  try {
    for await (const chunk of chunks) {
      // Bytes since the last '<': one text plus one tag at most ('<' may not appear inside either).
      const first = chunk.indexOf(0x3c);
      if (first < 0) run += chunk.length;
      else {
        run += first;
        if (run <= XML_MAX_RUN_BYTES) run = chunk.length - 1 - chunk.lastIndexOf(0x3c);
      }
      if (run > XML_MAX_RUN_BYTES)
        throw new SpreadsheetRefused('cell_too_large', `the file holds a text longer than ${XML_MAX_RUN_BYTES} bytes`);
      parser.write(decoder.write(chunk));
    }
    parser.write(decoder.end());
    parser.close();
  } catch (error) {
    if (error instanceof SpreadsheetRefused) throw error;
    throw invalid(`malformed XML: ${error instanceof Error ? error.message.slice(0, 120) : 'parse error'}`);
  }
}

/** Column number (1 = A) and row of a cell reference such as `B12`, or null when it is not one. */
function cellReference(ref: string): { column: number; row: number } | null {
  const match = /^([A-Z]{1,3})([1-9][0-9]{0,6})$/.exec(ref);
  if (!match) return null;
  let column = 0;
  for (const ch of match[1]) column = column * 26 + (ch.charCodeAt(0) - 64);
  const row = Number(match[2]);
  return column <= SHEET_MAX_COLUMN && row <= SHEET_MAX_ROW ? { column, row } : null;
}

const badReference = (ref: string) =>
  new SpreadsheetRefused('bad_cell_reference', `the sheet refers to a cell outside the sheet ("${ref.slice(0, 20)}")`);
const tooLargeCell = (limits: Limits) =>
  new SpreadsheetRefused('cell_too_large', `a cell holds more than ${limits.maxCellChars} characters`);
const tooManyColumns = (limits: Limits) => new SpreadsheetRefused('too_many_columns', `a row has more than ${limits.maxColumns} columns`);
const tooManyRows = (limits: Limits) => new SpreadsheetRefused('too_many_rows', `the file has more than ${limits.maxRows} rows`);

/** The shared-string table: each `<si>` is the text of its `<t>` runs (phonetic guides left out). */
async function readSharedStrings(chunks: AsyncIterable<Buffer>, limits: Limits): Promise<string[]> {
  const strings: string[] = [];
  let inItem = false;
  let phonetic = 0;
  let capturing = false;
  let text = '';
  await parseXml(chunks, {
    open(name) {
      if (name === 'si') {
        inItem = true;
        text = '';
      } else if (name === 'rPh') phonetic++;
      else if (name === 't' && inItem && phonetic === 0) capturing = true;
    },
    text(value) {
      if (!capturing) return;
      text += value;
      if (text.length > limits.maxCellChars) throw tooLargeCell(limits);
    },
    close(name) {
      if (name === 't') capturing = false;
      else if (name === 'rPh') phonetic--;
      else if (name === 'si' && inItem) {
        inItem = false;
        strings.push(text);
        if (strings.length > limits.maxSharedStrings)
          throw new SpreadsheetRefused('too_many_cells', `the file has more than ${limits.maxSharedStrings} distinct texts`);
      }
    },
  });
  return strings;
}

/**
 * The rows of one worksheet, streamed to `sink`: bounded cell references, columns per row, cell
 * size and rows; formulas and references to missing shared strings refuse the file.
 */
async function readWorksheet(
  chunks: AsyncIterable<Buffer>,
  shared: string[],
  limits: Limits,
  budget: Budget,
  sink: RowSink,
): Promise<void> {
  let rows = 0;
  let cells: string[] | null = null;
  let cellCount = 0;
  let cell: { column: number | null; type: string | undefined; value: string | null; inline: boolean } | null = null;
  let capture: 'v' | 't' | null = null;
  let inlineText = false;
  let phonetic = 0;
  let captured = '';
  await parseXml(chunks, {
    open(name, attributes) {
      if (name === 'f') throw new SpreadsheetRefused('formulas', 'the file contains formulas; export plain values and try again');
      if (name === 'row') {
        if (cells) throw invalid('a row inside a row');
        if (attributes.r !== undefined && !/^[1-9][0-9]{0,6}$/.test(attributes.r)) throw badReference(attributes.r);
        if (attributes.r !== undefined && Number(attributes.r) > SHEET_MAX_ROW) throw badReference(attributes.r);
        if (++rows > limits.maxRows + 1) throw tooManyRows(limits);
        cells = [];
        cellCount = 0;
      } else if (name === 'c' && cells) {
        if (cell) throw invalid('a cell inside a cell');
        if (++cellCount > limits.maxColumns) throw tooManyColumns(limits);
        let column: number | null = null;
        if (attributes.r !== undefined) {
          const ref = cellReference(attributes.r);
          if (!ref) throw badReference(attributes.r);
          if (ref.column > limits.maxColumns) throw tooManyColumns(limits);
          column = ref.column;
        }
        cell = { column, type: attributes.t, value: null, inline: false };
      } else if (cell && name === 'v' && cell.value === null && !inlineText) {
        capture = 'v';
        captured = '';
      } else if (cell && name === 'is') {
        inlineText = true;
        cell.inline = true;
        captured = '';
      } else if (inlineText && name === 'rPh') phonetic++;
      else if (inlineText && name === 't' && phonetic === 0) capture = 't';
    },
    text(value) {
      if (!capture) return;
      captured += value;
      if (captured.length > limits.maxCellChars) throw tooLargeCell(limits);
    },
    close(name) {
      if (name === 'v' && capture === 'v' && cell) {
        cell.value = captured;
        capture = null;
      } else if (name === 't' && capture === 't') capture = null;
      else if (name === 'rPh' && inlineText) phonetic--;
      else if (name === 'is' && cell) {
        inlineText = false;
        cell.value = captured;
      } else if (name === 'c' && cell && cells) {
        const value = cellValue(cell, shared);
        const index = cell.column === null ? cells.length : cell.column - 1;
        if (index >= limits.maxColumns) throw tooManyColumns(limits);
        while (cells.length < index) cells.push('');
        cells[index] = value;
        cell = null;
      } else if (name === 'row' && cells) {
        const row = cells;
        cells = null;
        sink(row);
        budget.check();
      }
    },
  });
}

function cellValue(cell: { type: string | undefined; value: string | null; inline: boolean }, shared: string[]): string {
  if (cell.type === 'inlineStr') return cell.inline ? (cell.value ?? '') : '';
  if (cell.type !== 's') return cell.inline ? '' : (cell.value ?? '');
  if (cell.value === null) return '';
  const index = /^\s*(\d{1,9})\s*$/.exec(cell.value)?.[1];
  if (index === undefined || Number(index) >= shared.length)
    throw invalid(`a cell refers to shared text ${cell.value.slice(0, 12)}, which does not exist`);
  return shared[Number(index)];
}

/** The first worksheet of an xlsx, row by row. */
async function readXlsx(buf: Buffer, limits: Limits, budget: Budget, sink: RowSink): Promise<void> {
  const entries = readZipDirectory(buf, limits);
  const byName = new Map(entries.map((e) => [e.name, e]));
  const sheetEntry = byName.get('xl/worksheets/sheet1.xml') ?? entries.find((e) => /^xl\/worksheets\/[^/]+\.xml$/.test(e.name));
  if (!sheetEntry) throw new SpreadsheetRefused('no_worksheet', 'the xlsx file has no worksheet');
  const sharedEntry = byName.get('xl/sharedStrings.xml');
  const shared = sharedEntry ? await readSharedStrings(inflateEntry(buf, sharedEntry, budget), limits) : [];
  await readWorksheet(inflateEntry(buf, sheetEntry, budget), shared, limits, budget, sink);
}

/** Semicolon when the first line has more semicolons than commas, else comma. */
function csvSeparator(text: string): string {
  let semicolons = 0;
  let commas = 0;
  for (let i = 0; i < text.length && text[i] !== '\n'; i++) {
    if (text[i] === ';') semicolons++;
    else if (text[i] === ',') commas++;
  }
  return semicolons > commas ? ';' : ',';
}

/** CSV (comma or semicolon, quotes, CRLF), row by row, with the same bounds as a sheet. */
async function readCsv(buf: Buffer, limits: Limits, budget: Budget, sink: RowSink): Promise<void> {
  const text = buf.toString('utf8').replace(/^\uFEFF/, '');
  const separator = csvSeparator(text);
  let rows = 0;
  let row: string[] = [];
  let cell = '';
  let quoted = false;
  const endCell = () => {
    if (cell.length > limits.maxCellChars) throw tooLargeCell(limits);
    row.push(cell);
    if (row.length > limits.maxColumns) throw tooManyColumns(limits);
    cell = '';
  };
  const endRow = async () => {
    endCell();
    if (++rows > limits.maxRows + 1) throw tooManyRows(limits);
    sink(row);
    row = [];
    budget.check();
    if (rows % 1000 === 0) await nextTurn();
  };
  for (let i = 0; i < text.length; i++) {
    const ch = text[i];
    if (quoted) {
      if (ch === '"' && text[i + 1] === '"') {
        cell += '"';
        i++;
      } else if (ch === '"') quoted = false;
      else cell += ch;
      if (cell.length > limits.maxCellChars) throw tooLargeCell(limits);
    } else if (ch === '"') quoted = true;
    else if (ch === separator) endCell();
    else if (ch === '\n' || ch === '\r') {
      if (ch === '\r' && text[i + 1] === '\n') i++;
      await endRow();
    } else {
      cell += ch;
      if (cell.length > limits.maxCellChars) throw tooLargeCell(limits);
    }
  }
  if (cell !== '' || row.length) await endRow();
}

const CFB_MAGIC = Buffer.from([0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1]);
/** The stream an encrypted Office file keeps its workbook in (MS-OFFCRYPTO), as its UTF-16 directory name. */
const ENCRYPTED_PACKAGE = Buffer.from('EncryptedPackage', 'utf16le');

/**
 * Reads a spreadsheet row by row into `sink`, deciding the format by content (zip magic number),
 * never by the file name. Everything a file can make the reader do is bounded: size, inflation,
 * rows, columns, cell size, XML shape and time (`parseTimeoutMs`, which includes the sink's work).
 */
export async function eachSpreadsheetRow(buf: Buffer, limits: Limits, sink: RowSink): Promise<void> {
  const budget = new Budget(limits.parseTimeoutMs);
  if (buf.length > limits.maxFileBytes) throw new SpreadsheetRefused('too_large', `the file is larger than ${limits.maxFileBytes} bytes`);
  if (buf.length >= 4 && buf.readUInt32LE(0) === 0x04034b50) return readXlsx(buf, limits, budget, sink);
  // Office encrypts a password-protected workbook into an OLE compound file, not a zip.
  if (buf.subarray(0, 8).equals(CFB_MAGIC) && buf.includes(ENCRYPTED_PACKAGE))
    throw new SpreadsheetRefused('encrypted', 'the file is password-protected; save it without a password');
  if (buf.includes(0)) throw new SpreadsheetRefused('not_spreadsheet', 'the file is neither xlsx nor csv text');
  return readCsv(buf, limits, budget, sink);
}

/** Every row of a spreadsheet at once (tests and small files; imports stream with eachSpreadsheetRow). */
export async function readSpreadsheet(buf: Buffer, limits: Limits = PHONE_IMPORT_LIMITS): Promise<string[][]> {
  const rows: string[][] = [];
  await eachSpreadsheetRow(buf, limits, (cells) => rows.push(cells));
  return rows;
}
