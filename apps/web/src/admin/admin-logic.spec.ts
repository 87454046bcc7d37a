import { describe, expect, it } from '@jest/globals';
import { LANGUAGES, validateAttentionLine } from '@centralita/contracts';
import { DICTIONARIES } from '../i18n/resources';
import {
  FORM_RESOURCES,
  businessHoursProblems,
  formTitleKey,
  auditChanges,
  auditValue,
  formatIsoDate,
  fromIsoDate,
  hoursToRows,
  issuesByField,
  rowsToHours,
  serverIssues,
  toIsoDate,
  toPagedQuery,
} from './admin-logic';

describe(toPagedQuery.name, () => {
  it('turns the first row index into a 1-based page', () => {
    expect(toPagedQuery({ first: 50, rows: 25 }, '')).toEqual({ page: 3, pageSize: 25 });
  });
  it('maps the sort order and trims the search text', () => {
    expect(toPagedQuery({ first: 0, rows: 10, sortField: 'name', sortOrder: -1 }, '  acme ')).toEqual({
      page: 1,
      pageSize: 10,
      sortField: 'name',
      sortOrder: 'desc',
      q: 'acme',
    });
  });
  it('drops a sort without an order', () => {
    expect(toPagedQuery({ first: 0, rows: 10, sortField: 'name', sortOrder: 0 }, '')).toEqual({ page: 1, pageSize: 10 });
  });
});

describe(issuesByField.name, () => {
  it('keeps the first issue of each field', () => {
    expect(
      issuesByField([
        { field: 'a', key: 'required' },
        { field: 'a', key: 'maxLength' },
        { field: 'b', key: 'email' },
      ]),
    ).toEqual({
      a: { field: 'a', key: 'required' },
      b: { field: 'b', key: 'email' },
    });
  });
});

describe(serverIssues.name, () => {
  it('reads the issues of a validation envelope and ignores anything else', () => {
    expect(serverIssues({ issues: [{ field: 'x', key: 'range', values: { min: 1, max: 5 } }, 'junk'] })).toEqual([
      { field: 'x', key: 'range', values: { min: 1, max: 5 } },
    ]);
    expect(serverIssues(null)).toEqual([]);
  });
});

describe(auditChanges.name, () => {
  it('lists only changed fields, without ids and timestamps', () => {
    expect(auditChanges({ id: '1', name: 'A', n: 1, updatedAt: 'x' }, { id: '1', name: 'B', n: 1, updatedAt: 'y' })).toEqual([
      { field: 'name', before: 'A', after: 'B' },
    ]);
  });
  it('lists every filled field of a created row', () => {
    expect(auditChanges(null, { name: 'A', tags: ['x'], customer: null })).toEqual([
      { field: 'name', before: undefined, after: 'A' },
      { field: 'tags', before: undefined, after: ['x'] },
    ]);
  });
});

describe(auditValue.name, () => {
  it('shows empty values as N/A and joins arrays', () => {
    expect(auditValue(null, 'N/A')).toBe('N/A');
    expect(auditValue([], 'N/A')).toBe('N/A');
    expect(auditValue(['a', 'b'], 'N/A')).toBe('a, b');
    expect(auditValue(3, 'N/A')).toBe('3');
  });
});

describe(formatIsoDate.name, () => {
  it('shows a calendar date as DD-MM-YYYY without shifting time zones', () => {
    expect(formatIsoDate('2026-03-01', 'N/A')).toBe('01-03-2026');
    expect(formatIsoDate('2030-01-01T00:00:00.000Z', 'N/A')).toBe('01-01-2030');
    expect(formatIsoDate(null, 'N/A')).toBe('N/A');
  });
});

describe(toIsoDate.name, () => {
  it('round-trips a local calendar date', () => {
    expect(toIsoDate(fromIsoDate('2026-02-28'))).toBe('2026-02-28');
    expect(toIsoDate(new Date(2026, 0, 5))).toBe('2026-01-05');
  });
  it('maps empty and malformed values to empty', () => {
    expect(toIsoDate(null)).toBe('');
    expect(fromIsoDate('28-02-2026')).toBeNull();
  });
});

describe(hoursToRows.name, () => {
  it('gives seven rows, Monday first, open where a window exists', () => {
    const rows = hoursToRows([{ day: 0, from: '10:00', to: '14:00' }]);
    expect(rows.map((row) => row.day)).toEqual([1, 2, 3, 4, 5, 6, 0]);
    expect(rows[6]).toEqual({ day: 0, open: true, from: '10:00', to: '14:00' });
    expect(rows[0].open).toBe(false);
  });
  it('round-trips through rowsToHours, dropping closed days', () => {
    const windows = [{ day: 1, from: '08:00', to: '17:00' }];
    expect(rowsToHours(hoursToRows(windows))).toEqual(windows);
  });
});

describe(formTitleKey.name, () => {
  const lookup = (language: (typeof LANGUAGES)[number], key: string): unknown =>
    key.split('.').reduce<unknown>((node, part) => (node as Record<string, unknown> | undefined)?.[part], DICTIONARIES[language]);

  it('names an add screen "Add …" and an edit screen "Edit …"', () => {
    expect(formTitleKey('users', false)).toBe('admin.formTitles.users.add');
    expect(formTitleKey('users', true)).toBe('admin.formTitles.users.edit');
    expect(lookup('en', formTitleKey('users', false))).toBe('Add user');
    expect(lookup('en', formTitleKey('attention-lines', true))).toBe('Edit service line');
    expect(lookup('es', formTitleKey('trunks', false))).toBe('Agregar troncal');
    expect(lookup('ru', formTitleKey('polls', true))).toBe('Редактировать опрос');
  });

  it.each(LANGUAGES)('has a distinct add and edit title for every admin form in %s', (language) => {
    const titles = FORM_RESOURCES.flatMap((resource) => [
      lookup(language, formTitleKey(resource, false)),
      lookup(language, formTitleKey(resource, true)),
    ]);
    expect(titles.filter((title) => typeof title !== 'string' || title.trim() === '')).toEqual([]);
    expect(new Set(titles).size).toBe(titles.length);
  });
});

describe(businessHoursProblems.name, () => {
  const row = (day: number, from: string, to: string, open = true) => ({ day, open, from, to });

  it('names each ticked day whose hours cannot be saved, and why', () => {
    expect(
      businessHoursProblems([
        row(1, '09:00', '18:00'),
        row(2, '18:00', '09:00'),
        row(3, '', '18:00'),
        row(4, '10:00', '10:00'),
        row(0, '20:00', '08:00', false),
      ]),
    ).toEqual([
      { day: 2, problem: 'closesBeforeOpening', from: '18:00', to: '09:00' },
      { day: 3, problem: 'missingTime', from: '', to: '18:00' },
      { day: 4, problem: 'sameTime', from: '10:00', to: '10:00' },
    ]);
  });

  it('finds a problem exactly where the shared rule refuses the hours', () => {
    const cases = [
      row(1, '09:00', '18:00'),
      row(2, '23:00', '01:00'),
      row(3, '09:00', ''),
      row(5, '08:30', '08:30'),
      row(6, '00:00', '23:59'),
    ];
    for (const day of cases) {
      const refused = validateAttentionLine({
        name: 'Ventas',
        type: 'inbound',
        channel: 'WebChat',
        businessHours: rowsToHours([day]),
      }).some((issue) => issue.field === 'businessHours');
      expect([day.day, businessHoursProblems([day]).length > 0]).toEqual([day.day, refused]);
    }
  });
});
