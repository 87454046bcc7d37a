import { describe, expect, it } from '@jest/globals';
import { caseQuery, EMPTY_FILTERS, isOverdue, mentionedUsers, orNull, statusSeverity } from './case-logic';

describe(mentionedUsers.name, () => {
  const users = [
    { id: 'a', name: 'Ana' },
    { id: 'am', name: 'Ana María' },
    { id: 'b', name: 'Bruno Segundo' },
  ];

  it('finds every @Full Name of a known user, case-insensitively', () => {
    expect(mentionedUsers('@bruno segundo please call, cc @Ana', users).sort()).toEqual(['a', 'b']);
  });

  it('prefers the longest name, so "@Ana María" is not also "@Ana"', () => {
    expect(mentionedUsers('Thanks @Ana María!', users)).toEqual(['am']);
  });

  it('ignores a name that continues into a longer word and text without mentions', () => {
    expect(mentionedUsers('@Anabel wrote', users)).toEqual([]);
    expect(mentionedUsers('no mentions here', users)).toEqual([]);
  });
});

describe(caseQuery.name, () => {
  it('sends only the filters set, with the end date inclusive of its day', () => {
    const from = new Date(2026, 10, 1, 15, 30);
    const to = new Date(2026, 10, 3, 9, 0);
    const query = caseQuery({ ...EMPTY_FILTERS, q: '  router ', status: 'open', from, to });
    expect(query).toEqual({
      q: 'router',
      status: 'open',
      from: new Date(2026, 10, 1).toISOString(),
      to: new Date(2026, 10, 4).toISOString(),
    });
    expect(caseQuery(EMPTY_FILTERS)).toEqual({});
  });
});

describe(isOverdue.name, () => {
  it('is overdue only when open and past its due time', () => {
    const now = Date.parse('2026-11-26T10:00:00Z');
    expect(isOverdue({ dueAt: '2026-11-26T09:00:00Z', doneAt: null }, now)).toBe(true);
    expect(isOverdue({ dueAt: '2026-11-26T09:00:00Z', doneAt: '2026-11-26T09:30:00Z' }, now)).toBe(false);
    expect(isOverdue({ dueAt: '2026-11-26T11:00:00Z', doneAt: null }, now)).toBe(false);
    expect(isOverdue({ dueAt: null, doneAt: null }, now)).toBe(false);
  });
});

describe(statusSeverity.name, () => {
  it('gives each status its own colour', () => {
    expect(new Set(['open', 'in_progress', 'pending', 'resolved', 'closed'].map((s) => statusSeverity(s as never))).size).toBe(5);
  });
});

describe('orNull', () => {
  it('turns blank text into null and trims the rest', () => {
    expect(orNull('  ')).toBeNull();
    expect(orNull(undefined)).toBeNull();
    expect(orNull(' x ')).toBe('x');
  });
});
