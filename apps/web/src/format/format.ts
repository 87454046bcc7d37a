/**
 * Display formats of spec §9: dates DD-MM-YYYY hh:mm:ss, times and durations hh:mm:ss, missing
 * values 'N/A', booleans Si/No and the active flag Activo/Inactivo (both translated).
 * Hours are on the 24-hour clock: a contact centre reads 14:05, not an ambiguous 02:05.
 */
export const NOT_AVAILABLE = 'N/A';

/** The slice of i18next's `t` these formatters need, so they stay testable without i18next. */
export type Translate = (key: string) => string;

type DateInput = Date | string | number | null | undefined;

const pad = (value: number) => String(value).padStart(2, '0');

export function toDate(value: DateInput): Date | null {
  if (value === null || value === undefined || value === '') return null;
  const date = value instanceof Date ? value : new Date(value);
  return Number.isNaN(date.getTime()) ? null : date;
}

function notAvailable(t?: Translate): string {
  return t ? t('format.notAvailable') : NOT_AVAILABLE;
}

/** DD-MM-YYYY hh:mm:ss in local time. */
export function formatDateTime(value: DateInput, t?: Translate): string {
  const date = toDate(value);
  if (!date) return notAvailable(t);
  return `${pad(date.getDate())}-${pad(date.getMonth() + 1)}-${date.getFullYear()} ${formatTime(date)}`;
}

/** DD-MM-YYYY in local time. */
export function formatDate(value: DateInput, t?: Translate): string {
  const date = toDate(value);
  if (!date) return notAvailable(t);
  return `${pad(date.getDate())}-${pad(date.getMonth() + 1)}-${date.getFullYear()}`;
}

/** hh:mm:ss of a point in time, local clock. */
export function formatTime(value: DateInput, t?: Translate): string {
  const date = toDate(value);
  if (!date) return notAvailable(t);
  return `${pad(date.getHours())}:${pad(date.getMinutes())}:${pad(date.getSeconds())}`;
}

/** hh:mm:ss of a length of time given in seconds; hours keep growing past 24. */
export function formatDuration(seconds: number | null | undefined, t?: Translate): string {
  if (seconds === null || seconds === undefined || !Number.isFinite(seconds)) return notAvailable(t);
  const sign = seconds < 0 ? '-' : '';
  const total = Math.floor(Math.abs(seconds));
  const hours = Math.floor(total / 3600);
  const minutes = Math.floor((total % 3600) / 60);
  return `${sign}${pad(hours)}:${pad(minutes)}:${pad(total % 60)}`;
}

/** Any value, or 'N/A' when it is null, undefined or blank. */
export function formatNullable(value: unknown, t?: Translate): string {
  if (value === null || value === undefined) return notAvailable(t);
  const text = String(value);
  return text.trim() === '' ? notAvailable(t) : text;
}

export function formatBoolean(value: boolean | null | undefined, t: Translate): string {
  if (value === null || value === undefined) return notAvailable(t);
  return t(value ? 'format.yes' : 'format.no');
}

export function formatActive(value: boolean | null | undefined, t: Translate): string {
  if (value === null || value === undefined) return notAvailable(t);
  return t(value ? 'format.active' : 'format.inactive');
}
