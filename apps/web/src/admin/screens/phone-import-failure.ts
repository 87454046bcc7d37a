import { PHONE_IMPORT_FAILURE_CODES, PHONE_IMPORT_LIMITS, type PhoneImportState } from '@centralita/contracts';

type Translate = (key: string, values?: Record<string, unknown>) => string;

/**
 * Why an import was refused, in the user's language: translated from the worker's stable code;
 * the worker's English text is the fallback for codes this console does not know (or none).
 */
export function importFailureText(state: Pick<PhoneImportState, 'failure' | 'failureCode' | 'errorRows'>, t: Translate): string {
  if (state.errorRows || state.failureCode === 'rows_invalid') return t('admin.phoneLists.rejected', { count: state.errorRows });
  const code = state.failureCode;
  if (code && (PHONE_IMPORT_FAILURE_CODES as readonly string[]).includes(code)) {
    return t(`admin.phoneLists.failures.${code}`, {
      mb: PHONE_IMPORT_LIMITS.maxFileBytes / 1024 / 1024,
      rows: PHONE_IMPORT_LIMITS.maxRows,
      columns: PHONE_IMPORT_LIMITS.maxColumns,
      chars: PHONE_IMPORT_LIMITS.maxCellChars,
      seconds: PHONE_IMPORT_LIMITS.parseTimeoutMs / 1000,
    });
  }
  return state.failure ?? '';
}
