import { phoneDigits, validatePhone, LIMITS } from '@centralita/contracts';
import { parsePhoneNumberFromString, type CountryCode } from 'libphonenumber-js';

export interface ImportedRow {
  line: number;
  phone: string;
  name: string | null;
}
export interface RowError {
  line: number;
  value: string;
  reason: string;
}

const PHONE_HEADERS = ['phone', 'telefono', 'teléfono', 'numero', 'número', 'number', 'mobile', 'celular'];
const NAME_HEADERS = ['name', 'nombre', 'contact', 'contacto'];

/** E.164 of a raw number: '+' or '00' numbers are international; others use the list's country. */
export function toE164(raw: string, defaultCountry: string | null): string | null {
  const trimmed = raw.trim().replace(/^00/, '+');
  const parsed = parsePhoneNumberFromString(trimmed, (defaultCountry ?? undefined) as CountryCode | undefined);
  if (parsed?.isPossible()) return parsed.number;
  // No country to resolve a national number: keep its digits as international when long enough.
  if (!defaultCountry && trimmed.startsWith('+') && phoneDigits(trimmed).length >= LIMITS.minPhoneDigits) return `+${phoneDigits(trimmed)}`;
  return null;
}

/**
 * Validates every row (line numbers as the user sees them, header = line 1). Phones need 8+
 * digits and a valid E.164 form; duplicates (after normalisation) are errors too.
 */
export function checkRows(rows: string[][], defaultCountry: string | null): { valid: ImportedRow[]; errors: RowError[] } {
  const header = (rows[0] ?? []).map((cell) => cell.trim().toLowerCase());
  let phoneCol = header.findIndex((h) => PHONE_HEADERS.includes(h));
  let nameCol = header.findIndex((h) => NAME_HEADERS.includes(h));
  const hasHeader = phoneCol >= 0;
  if (!hasHeader) {
    phoneCol = 0;
    nameCol = 1;
  }
  const valid: ImportedRow[] = [];
  const errors: RowError[] = [];
  const seen = new Map<string, number>();
  rows.forEach((cells, index) => {
    if (hasHeader && index === 0) return;
    const line = index + 1;
    if (cells.every((cell) => cell.trim() === '')) return;
    const raw = (cells[phoneCol] ?? '').trim();
    const issue = validatePhone(raw);
    if (issue) {
      errors.push({
        line,
        value: raw,
        reason: issue.key === 'required' ? 'phone is required' : `phone must have at least ${LIMITS.minPhoneDigits} digits`,
      });
      return;
    }
    const e164 = toE164(raw, defaultCountry);
    if (!e164) {
      errors.push({ line, value: raw, reason: 'phone is not a valid number' });
      return;
    }
    const first = seen.get(e164);
    if (first !== undefined) {
      errors.push({ line, value: raw, reason: `duplicate of line ${first}` });
      return;
    }
    seen.set(e164, line);
    const name = nameCol >= 0 ? (cells[nameCol] ?? '').trim().slice(0, 160) : '';
    valid.push({ line, phone: e164, name: name || null });
  });
  return { valid, errors };
}
