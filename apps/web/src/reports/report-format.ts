import type { ReportCell, ReportColumn } from '@centralita/contracts';
import { formatDateTime, formatDuration, formatNullable, type Translate } from '../format/format';

export interface ReportFilterState {
  from: Date | null;
  to: Date | null;
  attentionLineId?: string;
  campaignId?: string;
  channel?: string;
  agentId?: string;
}

/** The last seven days, from midnight six days ago to the coming midnight (local time). */
export function defaultWindow(now: Date): { from: Date; to: Date } {
  const to = new Date(now.getFullYear(), now.getMonth(), now.getDate() + 1);
  const from = new Date(now.getFullYear(), now.getMonth(), now.getDate() - 6);
  return { from, to };
}

/** The API query of the filters: ISO window plus the filters that are set. */
export function reportQuery(filters: ReportFilterState): Record<string, string> {
  const query: Record<string, string> = { from: filters.from!.toISOString(), to: filters.to!.toISOString() };
  for (const key of ['attentionLineId', 'campaignId', 'channel', 'agentId'] as const) if (filters[key]) query[key] = filters[key]!;
  return query;
}

/** A cell as the table shows it (spec §9: dates DD-MM-YYYY hh:mm:ss, durations hh:mm:ss, null N/A). */
export function formatReportCell(column: ReportColumn, value: ReportCell, t?: Translate): string {
  if (value === null || value === undefined) return formatNullable(null, t);
  switch (column.kind) {
    case 'datetime':
      return formatDateTime(value, t);
    case 'seconds':
      return formatDuration(Number(value), t);
    case 'ratio':
      return `${(Number(value) * 100).toFixed(1)} %`;
    default:
      return column.key === 'id' ? String(value).slice(0, 8) : formatNullable(value, t);
  }
}
