import {
  DOWNLOAD_LABELS,
  LIMITS,
  PHONE_IMPORT_FAILURE_CODES,
  PHONE_IMPORT_LIMITS,
  fillLabel,
  neutraliseCell,
  type Language,
  type PhoneImportFailureCode,
  type PhoneRowErrorCode,
} from '@centralita/contracts';

export interface ImportErrorRow {
  line: number;
  value: string;
  reason: string;
  code?: PhoneRowErrorCode;
  first?: number;
}

/** Imports stored before rows carried a code: their English reasons, read back into a code. */
function codeOfReason(reason: string): { code: PhoneRowErrorCode; first?: number } | null {
  if (reason === 'phone is required') return { code: 'required' };
  if (/^phone must have at least \d+ digits$/.test(reason)) return { code: 'digits' };
  if (reason === 'phone is not a valid number') return { code: 'invalid' };
  const duplicate = /^duplicate of line (\d+)$/.exec(reason);
  return duplicate ? { code: 'duplicate', first: Number(duplicate[1]) } : null;
}

function rowProblem(error: ImportErrorRow, language: Language): string {
  const labels = DOWNLOAD_LABELS[language].phoneImportErrors;
  const coded = error.code ? { code: error.code, first: error.first } : codeOfReason(error.reason);
  if (!coded) return error.reason;
  if (coded.code === 'digits') return fillLabel(labels.digits, { count: LIMITS.minPhoneDigits });
  if (coded.code === 'duplicate') return fillLabel(labels.duplicate, { line: coded.first ?? '?' });
  return labels[coded.code];
}

function failureText(code: PhoneImportFailureCode | null, failure: string, language: Language): string {
  if (!code || !(PHONE_IMPORT_FAILURE_CODES as readonly string[]).includes(code)) return failure;
  return fillLabel(DOWNLOAD_LABELS[language].phoneImportFailure[code], {
    mb: PHONE_IMPORT_LIMITS.maxFileBytes / 1024 / 1024,
    rows: PHONE_IMPORT_LIMITS.maxRows,
    columns: PHONE_IMPORT_LIMITS.maxColumns,
    chars: PHONE_IMPORT_LIMITS.maxCellChars,
    seconds: PHONE_IMPORT_LIMITS.parseTimeoutMs / 1000,
  });
}

/**
 * The errors file of a phone-list import in `language` (the requester's): header row, then each
 * refused row with why; a file refused as a whole gets one row saying why. Cells are neutralised
 * so a spreadsheet never runs them.
 */
export function importErrorCsv(
  state: { errors: ImportErrorRow[]; failure: string | null; failureCode: PhoneImportFailureCode | null },
  language: Language,
): string {
  const labels = DOWNLOAD_LABELS[language].phoneImportErrors;
  const quote = (value: string) => `"${neutraliseCell(value).replace(/"/g, '""')}"`;
  const lines = [
    [labels.line, labels.value, labels.problem].map(quote).join(','),
    ...state.errors.map((e) => [String(e.line), quote(e.value), quote(rowProblem(e, language))].join(',')),
  ];
  if (state.failure && state.errors.length === 0) lines.push(`,,${quote(failureText(state.failureCode, state.failure, language))}`);
  return `${lines.join('\r\n')}\r\n`;
}
