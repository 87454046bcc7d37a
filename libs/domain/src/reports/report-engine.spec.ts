import { REPORT_COLUMNS, REPORT_TYPES, type ReportFilters } from '@centralita/contracts';
import { isSortable, reportBatches, reportPage, ReportSortError, type SqlRunner } from './report-engine';

const T = Date.UTC(2026, 0, 15, 9);
const filters: ReportFilters = { from: new Date(T).toISOString(), to: new Date(T + 3600_000).toISOString() };
const scope = { tenantId: 'tenant-1', filters, now: T + 7200_000 };

/** A runner that answers each statement by what it reads, and records the statements. */
function fakeRunner(answer: (text: string, values: unknown[]) => Record<string, unknown>[]): SqlRunner & { calls: [string, unknown[]][] } {
  const calls: [string, unknown[]][] = [];
  const run = (async (text: string, values: unknown[]) => {
    calls.push([text, values]);
    return answer(text, values);
  }) as SqlRunner & { calls: [string, unknown[]][] };
  run.calls = calls;
  return run;
}

const logRow = (id: string, from: string | null, to: string, event: string, second: number) => ({
  entity_id: id,
  from_state: from,
  to_state: to,
  event,
  actor_kind: 'system',
  actor_id: null,
  at_ms: String(T + second * 1000),
  data: null,
  channel: 'webchat',
  attention_line_id: 'line-1',
  agent_id: 'agent-1',
});

describe(reportPage.name, () => {
  it('maps conversation rows and computes wait and handle time from their transition-log rows', async () => {
    const run = fakeRunner((text) => {
      if (text.startsWith('SELECT count(*)')) return [{ total: 1 }];
      if (text.includes('FROM transition_log'))
        return [
          logRow('c1', null, 'LiningUp', 'conversation.created', 0),
          logRow('c1', 'LiningUp', 'Active', 'conversation.assigned', 45),
          logRow('c1', 'Active', 'Closed', 'conversation.closed', 345),
        ];
      return [
        {
          id: 'c1',
          created_at: new Date(T),
          channel: 'webchat',
          line: 'Ventas',
          agent: 'Ana',
          customer_name: 'Carla',
          status: 'Closed',
          closed_at: new Date(T + 345_000),
          messages: 4,
        },
      ];
    });
    const page = await reportPage(run, 'conversations', scope, { page: 2, pageSize: 10 });
    expect(page).toEqual({
      total: 1,
      items: [
        {
          id: 'c1',
          createdAt: new Date(T).toISOString(),
          channel: 'webchat',
          line: 'Ventas',
          agent: 'Ana',
          customer: 'Carla',
          status: 'Closed',
          closedAt: new Date(T + 345_000).toISOString(),
          waitSeconds: 45,
          handleSeconds: 300,
          messages: 4,
        },
      ],
    });
    const [, pageSql] = run.calls;
    expect(pageSql![0]).toContain('ORDER BY c.created_at DESC NULLS LAST, c.id DESC');
    expect(pageSql![1]).toEqual(['tenant-1', filters.from, filters.to, 10, 10]);
  });

  it('refuses a sort field that is not a sortable column', async () => {
    const run = fakeRunner(() => [{ total: 0 }]);
    await expect(reportPage(run, 'conversations', scope, { page: 1, pageSize: 10, sortField: 'snapshot' })).rejects.toThrow(
      ReportSortError,
    );
  });

  it('offers exactly the columns marked sortable in the contracts', () => {
    for (const type of REPORT_TYPES)
      for (const column of REPORT_COLUMNS[type])
        expect([type, column.key, isSortable(type, column.key)]).toEqual([type, column.key, !!column.sortable]);
  });
});

describe(reportBatches.name, () => {
  it('walks the report with keyset batches until a short batch', async () => {
    const rows = (from: number, count: number) =>
      Array.from({ length: count }, (_, i) => ({
        id: `r${from + i}`,
        created_at: new Date(T),
        poll: 'P',
        question: 'Q',
        value: String(from + i),
        _key: `2026-01-15 09:00:00+00`,
        _id: `r${from + i}`,
      }));
    const run = fakeRunner((_text, values) => (values.includes('r1') ? rows(2, 1) : rows(0, 2)));
    const batches: unknown[][] = [];
    for await (const batch of reportBatches(run, 'survey-answers', scope, 2)) batches.push(batch.map((row) => row.value));
    expect(batches).toEqual([['0', '1'], ['2']]);
    expect(run.calls[1]![0]).toContain('(r.created_at, r.id) > ($4::timestamptz, $5::uuid)');
    expect(run.calls[1]![1]).toEqual(['tenant-1', filters.from, filters.to, '2026-01-15 09:00:00+00', 'r1', 2]);
  });
});
