import type { PagedQuery, RuleIssue } from '@centralita/contracts';

/** What a lazy PrimeReact DataTable reports (first row index, rows per page, sort). */
export interface TableState {
  first: number;
  rows: number;
  sortField?: string | null;
  sortOrder?: 1 | -1 | 0 | null;
}

/** The admin resources edited through AdminFormPage; each has `admin.formTitles.<resource>.add|edit` in every language. */
export const FORM_RESOURCES = [
  'users',
  'roles',
  'clients',
  'attention-lines',
  'campaigns',
  'polls',
  'ivrs',
  'trunks',
  'qna',
  'predefined-messages',
  'outbound/campaigns',
] as const;
export type FormResource = (typeof FORM_RESOURCES)[number];

/**
 * The title of an admin form as it is: "Add user" on an add screen, "Edit user" with ?id=. The
 * route's own title cannot say it, since one route serves both (and some are named "Save …").
 */
export function formTitleKey(resource: FormResource, editing: boolean): string {
  return `admin.formTitles.${resource}.${editing ? 'edit' : 'add'}`;
}

/** DataTable state plus the search box → the API's paged query. */
export function toPagedQuery(state: TableState, search: string): PagedQuery {
  const query: PagedQuery = { page: Math.floor(state.first / state.rows) + 1, pageSize: state.rows };
  if (state.sortField && state.sortOrder) {
    query.sortField = state.sortField;
    query.sortOrder = state.sortOrder === -1 ? 'desc' : 'asc';
  }
  const q = search.trim();
  if (q) query.q = q;
  return query;
}

/** The first issue of each field (what the form shows under it). */
export function issuesByField(issues: RuleIssue[]): Record<string, RuleIssue> {
  const out: Record<string, RuleIssue> = {};
  for (const issue of issues) out[issue.field] ??= issue;
  return out;
}

/** Server answers: a validation envelope lists `data.issues` (shared rules) — turn them back into per-field issues. */
export function serverIssues(data: unknown): RuleIssue[] {
  const issues = (data as { issues?: unknown } | null)?.issues;
  if (!Array.isArray(issues)) return [];
  return issues.filter(
    (issue): issue is RuleIssue =>
      typeof issue === 'object' &&
      issue !== null &&
      typeof (issue as RuleIssue).field === 'string' &&
      typeof (issue as RuleIssue).key === 'string',
  );
}

export interface AuditChange {
  field: string;
  before: unknown;
  after: unknown;
}

const HIDDEN = new Set(['id', 'createdAt', 'updatedAt']);

/** Fields whose value differs between the two snapshots of an audit row (all fields for create/delete). */
export function auditChanges(before: Record<string, unknown> | null, after: Record<string, unknown> | null): AuditChange[] {
  const keys = [...new Set([...Object.keys(before ?? {}), ...Object.keys(after ?? {})])].filter((key) => !HIDDEN.has(key)).sort();
  return keys
    .map((field) => ({ field, before: before?.[field], after: after?.[field] }))
    .filter((change) => JSON.stringify(change.before ?? null) !== JSON.stringify(change.after ?? null));
}

/** A value of an audit snapshot as text (arrays joined, null as the N/A word). */
export function auditValue(value: unknown, notAvailable: string): string {
  if (value === null || value === undefined || value === '') return notAvailable;
  if (Array.isArray(value)) return value.length ? value.join(', ') : notAvailable;
  if (typeof value === 'object') return JSON.stringify(value);
  return String(value);
}

/** 'YYYY-MM-DD' (a calendar date, no time zone) → 'DD-MM-YYYY' of spec §9. */
export function formatIsoDate(value: string | null | undefined, notAvailable: string): string {
  const match = /^(\d{4})-(\d{2})-(\d{2})/.exec(value ?? '');
  return match ? `${match[3]}-${match[2]}-${match[1]}` : notAvailable;
}

const pad2 = (value: number) => String(value).padStart(2, '0');

/** A picked local date → 'YYYY-MM-DD' ('' when cleared). */
export function toIsoDate(value: Date | null | undefined): string {
  if (!value || Number.isNaN(value.getTime())) return '';
  return `${value.getFullYear()}-${pad2(value.getMonth() + 1)}-${pad2(value.getDate())}`;
}

/** 'YYYY-MM-DD' → a local Date at midnight (null when empty or malformed). */
export function fromIsoDate(value: string): Date | null {
  const match = /^(\d{4})-(\d{2})-(\d{2})$/.exec(value);
  return match ? new Date(Number(match[1]), Number(match[2]) - 1, Number(match[3])) : null;
}

export interface DayHours {
  day: number;
  open: boolean;
  from: string;
  to: string;
}

/** Monday first, as contact centres read a week; day numbers stay 0 = Sunday … 6 = Saturday. */
export const WEEK_ORDER = [1, 2, 3, 4, 5, 6, 0] as const;

/** Business-hours windows → one editable row per weekday (first window of each day). */
export function hoursToRows(windows: { day: number; from: string; to: string }[]): DayHours[] {
  return WEEK_ORDER.map((day) => {
    const window = windows.find((w) => w.day === day);
    return window ? { day, open: true, from: window.from, to: window.to } : { day, open: false, from: '09:00', to: '18:00' };
  });
}

const HOUR_MINUTE = /^([01]\d|2[0-3]):[0-5]\d$/;

/** Why a ticked day's hours cannot be saved: a time left empty, a window that ends before it starts, or one of no length. */
export type DayHoursProblem = 'missingTime' | 'closesBeforeOpening' | 'sameTime';

/**
 * Each ticked day whose hours the shared rule (validateAttentionLine) would refuse, and why, so the
 * form can name the day and the times instead of one "format not valid" for the whole week.
 * Windows cannot pass midnight (the API stores from < to within one day).
 */
export function businessHoursProblems(rows: DayHours[]): { day: number; problem: DayHoursProblem; from: string; to: string }[] {
  return rows.flatMap((row) => {
    if (!row.open) return [];
    const problem: DayHoursProblem | null =
      !HOUR_MINUTE.test(row.from) || !HOUR_MINUTE.test(row.to)
        ? 'missingTime'
        : row.from === row.to
          ? 'sameTime'
          : row.to < row.from
            ? 'closesBeforeOpening'
            : null;
    return problem ? [{ day: row.day, problem, from: row.from, to: row.to }] : [];
  });
}

/** Editable rows → the windows the API stores (closed days dropped). */
export function rowsToHours(rows: DayHours[]): { day: number; from: string; to: string }[] {
  return rows.filter((row) => row.open).map(({ day, from, to }) => ({ day, from, to }));
}
