import type { CaseActivity, CaseStatus, CaseUser } from '@centralita/contracts';

export interface CaseFilterState {
  q: string;
  status: CaseStatus | null;
  typeId: string | null;
  ownerId: string | null;
  assigneeId: string | null;
  from: Date | null;
  to: Date | null;
}

export const EMPTY_FILTERS: CaseFilterState = { q: '', status: null, typeId: null, ownerId: null, assigneeId: null, from: null, to: null };

/** The list's query string: only the filters set; `to` is inclusive of its whole day. */
export function caseQuery(filters: CaseFilterState): Record<string, string> {
  const query: Record<string, string> = {};
  if (filters.q.trim()) query.q = filters.q.trim();
  if (filters.status) query.status = filters.status;
  if (filters.typeId) query.typeId = filters.typeId;
  if (filters.ownerId) query.ownerId = filters.ownerId;
  if (filters.assigneeId) query.assigneeId = filters.assigneeId;
  if (filters.from) query.from = startOfDay(filters.from).toISOString();
  if (filters.to) {
    const end = startOfDay(filters.to);
    end.setDate(end.getDate() + 1);
    query.to = end.toISOString();
  }
  return query;
}

function startOfDay(date: Date): Date {
  const copy = new Date(date);
  copy.setHours(0, 0, 0, 0);
  return copy;
}

/** Users mentioned in a note: each `@Full Name` of a known user (longest names first, so "@Ana María" beats "@Ana"). */
export function mentionedUsers(text: string, users: readonly CaseUser[]): string[] {
  const found: string[] = [];
  let rest = text;
  for (const user of [...users].sort((a, b) => b.name.length - a.name.length)) {
    const token = `@${user.name}`;
    const index = rest.toLocaleLowerCase().indexOf(token.toLocaleLowerCase());
    if (index < 0) continue;
    const next = rest.charAt(index + token.length);
    if (next && /[\p{L}\p{N}]/u.test(next)) continue;
    found.push(user.id);
    rest = rest.slice(0, index) + ' '.repeat(token.length) + rest.slice(index + token.length);
  }
  return found;
}

/** PrimeReact Tag severity of a status. */
export function statusSeverity(status: CaseStatus): 'info' | 'warning' | 'success' | 'secondary' | 'contrast' {
  switch (status) {
    case 'open':
      return 'info';
    case 'in_progress':
      return 'warning';
    case 'pending':
      return 'contrast';
    case 'resolved':
      return 'success';
    case 'closed':
      return 'secondary';
  }
}

/** An open activity whose due time has passed. */
export function isOverdue(activity: Pick<CaseActivity, 'dueAt' | 'doneAt'>, now: number): boolean {
  return !activity.doneAt && !!activity.dueAt && Date.parse(activity.dueAt) < now;
}

/** The value of an optional text field as the API takes it: blank is null. */
export const orNull = (value: string | null | undefined): string | null => (value && value.trim() ? value.trim() : null);
