import type {
  ActiveByAgentRow,
  AgentServiceRow,
  ComplianceRow,
  DashboardSummary,
  PauseDetailRow,
  QueueStatusRow,
  SentimentGroup,
  StaffingRow,
  TrendPoint,
} from '@centralita/contracts';
import { formatDuration } from '../format/format';

export type Translate = (key: string, options?: Record<string, unknown>) => string;

/** Filters of the shared bar; the window is [from, to). */
export interface DashboardFilterState {
  from: Date | null;
  to: Date | null;
  attentionLineId?: string;
  campaignId?: string;
  channel?: string;
  agentId?: string;
}

/** Today, from local midnight to the next. */
export function defaultRange(now: Date): { from: Date; to: Date } {
  return {
    from: new Date(now.getFullYear(), now.getMonth(), now.getDate()),
    to: new Date(now.getFullYear(), now.getMonth(), now.getDate() + 1),
  };
}

export function rangeIsValid(filters: DashboardFilterState): boolean {
  return !!filters.from && !!filters.to && filters.from < filters.to;
}

/** The API query: epoch-ms window plus the filters that are set. */
export function dashboardQuery(filters: DashboardFilterState): Record<string, string | number> {
  const query: Record<string, string | number> = { from: filters.from!.getTime(), to: filters.to!.getTime() };
  for (const key of ['attentionLineId', 'campaignId', 'channel', 'agentId'] as const) if (filters[key]) query[key] = filters[key]!;
  return query;
}

/** "No traffic" is a dash, never 0 %. */
export const NONE = '—';

export function percent(value: number | null | undefined): string {
  return value === null || value === undefined ? NONE : `${(value * 100).toFixed(1)} %`;
}

export function duration(ms: number | null | undefined): string {
  return ms === null || ms === undefined ? NONE : formatDuration(ms / 1000);
}

export function decimal(value: number | null | undefined, digits = 2): string {
  return value === null || value === undefined ? NONE : value.toFixed(digits);
}

/** Chart value of a ratio in percent (null stays a gap). */
const pct = (value: number | null) => (value === null ? null : Math.round(value * 1000) / 10);
const minutes = (ms: number) => Math.round(ms / 600) / 100;

// The options below are plain ECharts option objects (no echarts import), so they are unit-tested.
export type ChartOption = Record<string, unknown> & { series: ({ name?: string; data: unknown[] } & Record<string, unknown>)[] };

const axisTooltip = { trigger: 'axis' } as const;
/** Fixed meanings, so a colour says the same thing on every chart. */
export const COLORS = {
  good: '#16a34a',
  late: '#d97706',
  bad: '#dc2626',
  neutral: '#94a3b8',
  primary: '#2563eb',
  info: '#0ea5e9',
  violet: '#7c3aed',
} as const;
const colored = (color: string) => ({ itemStyle: { color }, lineStyle: { color } });
const legend = { top: 0, type: 'scroll' } as const;
const grid = { left: 48, right: 24, top: 40, bottom: 40, containLabel: true } as const;

/** The frame every bar/line chart shares: axis tooltip, scrolling legend, grid and one category x axis. */
function categoryChart({
  categories,
  yAxis,
  series,
}: {
  categories: string[];
  yAxis: unknown;
  series: ChartOption['series'];
}): ChartOption {
  return { tooltip: axisTooltip, legend, grid, xAxis: { type: 'category', data: categories }, yAxis, series };
}

/** Number of data points over every series: the browser test reads it from the chart's container. */
export function seriesPoints(option: ChartOption): number {
  return option.series.reduce((total, series) => total + series.data.filter((value) => value !== null && value !== undefined).length, 0);
}

export function bucketLabel(key: string): string {
  // '2026-01-15T09:00+01:00' → '15/01 09:00'; '2026-01-15' → '15/01/2026'
  const [day, time] = key.split('T');
  const [year, month, date] = day!.split('-');
  return time ? `${date}/${month} ${time.slice(0, 5)}` : `${date}/${month}/${year}`;
}

export function trendOption(points: readonly TrendPoint[], t: Translate): ChartOption {
  return categoryChart({
    categories: points.map((point) => bucketLabel(point.key)),
    yAxis: [
      { type: 'value', name: t('dashboards.chart.contacts'), minInterval: 1 },
      { type: 'value', name: '%', max: 100, min: 0 },
    ],
    series: [
      { name: t('dashboards.kpi.offered'), type: 'bar', ...colored(COLORS.primary), data: points.map((point) => point.offered) },
      { name: t('dashboards.kpi.answered'), type: 'bar', ...colored(COLORS.good), data: points.map((point) => point.answered) },
      { name: t('dashboards.kpi.abandoned'), type: 'bar', ...colored(COLORS.bad), data: points.map((point) => point.abandoned) },
      {
        name: t('dashboards.kpi.serviceLevel'),
        type: 'line',
        yAxisIndex: 1,
        connectNulls: false,
        ...colored(COLORS.violet),
        data: points.map((point) => pct(point.serviceLevel)),
      },
    ],
  });
}

export function percentagesOption(summary: DashboardSummary, t: Translate): ChartOption {
  const slices = [
    { key: 'withinThreshold', value: summary.answeredWithinThreshold, color: COLORS.good },
    { key: 'answeredLate', value: summary.answered - summary.answeredWithinThreshold, color: COLORS.late },
    { key: 'abandoned', value: summary.abandoned, color: COLORS.bad },
    { key: 'timedOut', value: summary.timedOut, color: COLORS.neutral },
  ].filter((slice) => slice.value > 0);
  return {
    tooltip: { trigger: 'item', formatter: '{b}: {c} ({d} %)' },
    legend: { bottom: 0 },
    series: [
      {
        name: t('dashboards.widget.percentages'),
        type: 'pie',
        radius: ['40%', '70%'],
        data: slices.map((slice) => ({ name: t(`dashboards.slice.${slice.key}`), value: slice.value, itemStyle: { color: slice.color } })),
      },
    ],
  };
}

export function queueOption(rows: readonly QueueStatusRow[], t: Translate): ChartOption {
  return categoryChart({
    categories: rows.map((row) => row.name),
    yAxis: { type: 'value', minInterval: 1 },
    series: [
      { name: t('dashboards.kpi.answered'), type: 'bar', stack: 'q', ...colored(COLORS.good), data: rows.map((row) => row.answered) },
      { name: t('dashboards.kpi.abandoned'), type: 'bar', stack: 'q', ...colored(COLORS.bad), data: rows.map((row) => row.abandoned) },
      { name: t('dashboards.kpi.timedOut'), type: 'bar', stack: 'q', ...colored(COLORS.neutral), data: rows.map((row) => row.timedOut) },
      { name: t('dashboards.kpi.waitingNow'), type: 'bar', ...colored(COLORS.info), data: rows.map((row) => row.waitingNow) },
    ],
  });
}

export function agentOption(rows: readonly AgentServiceRow[], t: Translate): ChartOption {
  return categoryChart({
    categories: rows.map((row) => row.name),
    yAxis: [
      { type: 'value', name: t('dashboards.chart.contacts'), minInterval: 1 },
      { type: 'value', name: '%', min: 0, max: 100 },
    ],
    series: [
      { name: t('dashboards.kpi.handled'), type: 'bar', data: rows.map((row) => row.handled) },
      { name: t('dashboards.kpi.occupancy'), type: 'line', yAxisIndex: 1, data: rows.map((row) => pct(row.occupancy)) },
    ],
  });
}

export function pauseOption(rows: readonly PauseDetailRow[], reasonLabel: (reasonId: string) => string, t: Translate): ChartOption {
  const agents = [...new Map(rows.map((row) => [row.agentId, row.name])).entries()];
  const reasons = [...new Set(rows.map((row) => row.reasonId))];
  return categoryChart({
    categories: agents.map(([, name]) => name),
    yAxis: { type: 'value', name: t('dashboards.chart.minutes') },
    series: reasons.map((reason) => ({
      name: reasonLabel(reason),
      type: 'bar',
      stack: 'pause',
      data: agents.map(([agentId]) => {
        const row = rows.find((candidate) => candidate.agentId === agentId && candidate.reasonId === reason);
        return row ? minutes(row.ms) : 0;
      }),
    })),
  });
}

export function complianceOption(rows: readonly ComplianceRow[], t: Translate): ChartOption {
  return categoryChart({
    categories: rows.map((row) => row.name),
    yAxis: { type: 'value', name: '%', min: 0, max: 100 },
    series: [
      { name: t('dashboards.kpi.compliance'), type: 'bar', data: rows.map((row) => pct(row.compliance)) },
      {
        name: t('dashboards.kpi.staffedWhileScheduled'),
        type: 'bar',
        data: rows.map((row) => (row.scheduledMs > 0 ? pct(row.staffedWhileScheduledMs / row.scheduledMs) : null)),
      },
    ],
  });
}

export function staffingOption(rows: readonly StaffingRow[], t: Translate): ChartOption {
  return categoryChart({
    categories: rows.map((row) => row.name),
    yAxis: { type: 'value', name: t('dashboards.chart.agents') },
    series: [
      { name: t('dashboards.kpi.recommendedAgents'), type: 'bar', data: rows.map((row) => row.recommendedAgents) },
      {
        name: t('dashboards.kpi.actualAgents'),
        type: 'bar',
        data: rows.map((row) => (row.actualAgents === null ? null : Math.round(row.actualAgents * 100) / 100)),
      },
    ],
  });
}

export function activeOption(rows: readonly ActiveByAgentRow[], t: Translate): ChartOption {
  return categoryChart({
    categories: rows.map((row) => row.name),
    yAxis: { type: 'value', minInterval: 1 },
    series: [
      { name: t('dashboards.kpi.active'), type: 'bar', data: rows.map((row) => row.active) },
      { name: t('dashboards.kpi.capacity'), type: 'bar', data: rows.map((row) => row.capacity) },
    ],
  });
}

export function sentimentBarOption(groups: readonly SentimentGroup[], t: Translate): ChartOption {
  return categoryChart({
    categories: groups.map((group) => group.name),
    yAxis: { type: 'value', minInterval: 1 },
    series: (['positive', 'neutral', 'negative'] as const).map((label) => ({
      name: t(`dashboards.sentiment.${label}`),
      type: 'bar',
      stack: 'sentiment',
      ...colored({ positive: COLORS.good, neutral: COLORS.neutral, negative: COLORS.bad }[label]),
      data: groups.map((group) => group[label]),
    })),
  });
}

export function sentimentTimeOption(groups: readonly SentimentGroup[], t: Translate): ChartOption {
  return categoryChart({
    categories: groups.map((group) => bucketLabel(group.key)),
    yAxis: { type: 'value', min: -1, max: 1 },
    series: [
      {
        name: t('dashboards.sentiment.average'),
        type: 'line',
        showSymbol: true,
        symbolSize: 8,
        ...colored(COLORS.violet),
        data: groups.map((group) => (group.average === null ? null : Math.round(group.average * 100) / 100)),
      },
    ],
  });
}
