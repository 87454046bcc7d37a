import { phoneDigits, validatePhone, LIMITS, type PhoneRowErrorCode } from '@centralita/contracts';
import { parsePhoneNumberFromString, type CountryCode } from 'libphonenumber-js';

export interface ImportedRow {
  line: number;
  phone: string;
  name: string | null;
  /** The row's other columns by lower-cased header (a list with a header row), for email campaigns' mappings; null without. */
  fields: Record<string, string> | null;
}
export interface RowError {
  line: number;
  value: string;
  /** English, for logs and API clients; `code` (and `first`, the line a duplicate repeats) word it in the user's language. */
  reason: string;
  code: PhoneRowErrorCode;
  first?: number;
}

const PHONE_HEADERS = ['phone', 'telefono', 'teléfono', 'numero', 'número', 'number', 'mobile', 'celular'];
const NAME_HEADERS = ['name', 'nombre', 'contact', 'contacto'];
/** Other columns kept per row (issue 21, email campaigns): at most this many, each header and cell bounded. */
const FIELDS_MAX = 30;
const FIELD_HEADER_MAX = 60;
const FIELD_VALUE_MAX = 320;

/** E.164 numbers have at most 15 digits. */
const E164_MAX_DIGITS = 15;
/** A refused row's value is echoed in the report (jsonb and the errors CSV) at most this long. */
const ERROR_VALUE_MAX = 200;

/** E.164 of a raw number: '+' or '00' numbers are international; others use the list's country. */
export function toE164(raw: string, defaultCountry: string | null): string | null {
  const trimmed = raw.trim().replace(/^00/, '+');
  const parsed = parsePhoneNumberFromString(trimmed, (defaultCountry ?? undefined) as CountryCode | undefined);
  if (parsed?.isPossible()) return parsed.number;
  // No country to resolve a national number: keep its digits as international when long enough.
  const digits = phoneDigits(trimmed);
  if (!defaultCountry && trimmed.startsWith('+') && digits.length >= LIMITS.minPhoneDigits && digits.length <= E164_MAX_DIGITS)
    return `+${digits}`;
  return null;
}

/**
 * Validates rows one at a time, as a reader streams them (line numbers as the user sees them,
 * header = line 1). Phones need 8+ digits and a valid E.164 form; duplicates (after
 * normalisation) are errors too. Only what the import stores is kept, never the rows.
 */
export class RowChecker {
  readonly valid: ImportedRow[] = [];
  readonly errors: RowError[] = [];
  private readonly seen = new Map<string, number>();
  private index = 0;
  private phoneCol = 0;
  private nameCol = 1;
  private hasHeader = false;
  /** Column index → header of the columns kept as fields. */
  private fieldColumns: [number, string][] = [];

  constructor(private readonly defaultCountry: string | null) {}

  push(cells: string[]): void {
    const index = this.index++;
    if (index === 0) {
      const header = cells.map((cell) => cell.trim().toLowerCase());
      const phoneCol = header.findIndex((h) => PHONE_HEADERS.includes(h));
      this.hasHeader = phoneCol >= 0;
      if (this.hasHeader) {
        this.phoneCol = phoneCol;
        this.nameCol = header.findIndex((h) => NAME_HEADERS.includes(h));
        const kept = new Set<string>();
        header.forEach((name, column) => {
          if (
            column === this.phoneCol ||
            column === this.nameCol ||
            !name ||
            name.length > FIELD_HEADER_MAX ||
            /[\u0000-\u001f]/.test(name)
          )
            return;
          if (kept.has(name) || kept.size >= FIELDS_MAX) return;
          kept.add(name);
          this.fieldColumns.push([column, name]);
        });
        return;
      }
    }
    const line = index + 1;
    if (cells.every((cell) => cell.trim() === '')) return;
    const raw = (cells[this.phoneCol] ?? '').trim();
    const value = raw.slice(0, ERROR_VALUE_MAX);
    const issue = validatePhone(raw);
    if (issue) {
      this.errors.push({
        line,
        value,
        reason: issue.key === 'required' ? 'phone is required' : `phone must have at least ${LIMITS.minPhoneDigits} digits`,
        code: issue.key === 'required' ? 'required' : 'digits',
      });
      return;
    }
    const e164 = toE164(raw, this.defaultCountry);
    if (!e164) {
      this.errors.push({ line, value, reason: 'phone is not a valid number', code: 'invalid' });
      return;
    }
    const first = this.seen.get(e164);
    if (first !== undefined) {
      this.errors.push({ line, value, reason: `duplicate of line ${first}`, code: 'duplicate', first });
      return;
    }
    this.seen.set(e164, line);
    const name = this.nameCol >= 0 ? (cells[this.nameCol] ?? '').trim().slice(0, 160) : '';
    const fields = this.fieldColumns.length
      ? Object.fromEntries(this.fieldColumns.map(([column, header]) => [header, (cells[column] ?? '').trim().slice(0, FIELD_VALUE_MAX)]))
      : null;
    this.valid.push({ line, phone: e164, name: name || null, fields });
  }
}

/** Every row at once (see RowChecker). */
export function checkRows(rows: string[][], defaultCountry: string | null): { valid: ImportedRow[]; errors: RowError[] } {
  const checker = new RowChecker(defaultCountry);
  for (const cells of rows) checker.push(cells);
  return { valid: checker.valid, errors: checker.errors };
}
