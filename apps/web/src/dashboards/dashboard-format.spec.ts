import { describe, expect, it } from '@jest/globals';
import type { DashboardSummary, PauseDetailRow, TrendPoint } from '@centralita/contracts';
import {
  bucketLabel,
  dashboardQuery,
  defaultRange,
  duration,
  pauseOption,
  percent,
  percentagesOption,
  rangeIsValid,
  seriesPoints,
  trendOption,
} from './dashboard-format';

const t = (key: string) => key;

describe('dashboard formatting', () => {
  it('shows no traffic as a dash, never 0', () => {
    expect(percent(null)).toBe('—');
    expect(percent(0.25)).toBe('25.0 %');
    expect(duration(null)).toBe('—');
    expect(duration(193_333.33)).toBe('00:03:13');
  });

  it('builds the query from the filters that are set', () => {
    const from = new Date(2026, 0, 15);
    const to = new Date(2026, 0, 16);
    expect(dashboardQuery({ from, to, attentionLineId: 'l1', channel: undefined })).toEqual({
      from: from.getTime(),
      to: to.getTime(),
      attentionLineId: 'l1',
    });
    expect(rangeIsValid({ from: to, to: from })).toBe(false);
    expect(defaultRange(new Date(2026, 0, 15, 13, 5))).toEqual({ from, to });
  });

  it('labels hour and day buckets', () => {
    expect(bucketLabel('2026-01-15T09:00+01:00')).toBe('15/01 09:00');
    expect(bucketLabel('2026-01-15')).toBe('15/01/2026');
  });

  it('puts every trend point on the chart and keeps a line without traffic as a gap', () => {
    const point = (key: string, offered: number, serviceLevel: number | null) =>
      ({ key, offered, answered: offered, abandoned: 0, serviceLevel }) as TrendPoint;
    const option = trendOption([point('2026-01-15T09:00+00:00', 4, 0.25), point('2026-01-15T10:00+00:00', 0, null)], t);
    expect(option.series.map((series) => series.data)).toEqual([
      [4, 0],
      [4, 0],
      [0, 0],
      [25, null],
    ]);
    expect(seriesPoints(option)).toBe(7);
  });

  it('splits the answered contacts into within and after the threshold', () => {
    const option = percentagesOption({ answered: 3, answeredWithinThreshold: 1, abandoned: 1, timedOut: 0 } as DashboardSummary, t);
    expect((option.series[0]!.data as { name: string; value: number }[]).map(({ name, value }) => ({ name, value }))).toEqual([
      { name: 'dashboards.slice.withinThreshold', value: 1 },
      { name: 'dashboards.slice.answeredLate', value: 2 },
      { name: 'dashboards.slice.abandoned', value: 1 },
    ]);
  });

  it('stacks pause minutes per reason for each agent', () => {
    const rows: PauseDetailRow[] = [
      { agentId: 'a', name: 'Ana', reasonId: 'break', ms: 120_000 },
      { agentId: 'a', name: 'Ana', reasonId: 'lunch', ms: 600_000 },
      { agentId: 'b', name: 'Bo', reasonId: 'break', ms: 30_000 },
    ];
    const option = pauseOption(rows, (id) => id, t);
    expect(option.series.map((series) => [series.name, series.data])).toEqual([
      ['break', [2, 0.5]],
      ['lunch', [10, 0]],
    ]);
  });
});
