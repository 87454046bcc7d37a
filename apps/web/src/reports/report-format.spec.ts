import { describe, expect, it } from '@jest/globals';
import type { ReportColumn } from '@centralita/contracts';
import { defaultWindow, formatReportCell, reportQuery } from './report-format';

const column = (kind: ReportColumn['kind'], key: ReportColumn['key'] = 'value'): ReportColumn => ({ key, kind });

describe(formatReportCell.name, () => {
  it('shows durations as hh:mm:ss, ratios as percentages and nulls as N/A', () => {
    expect(formatReportCell(column('seconds'), 3725)).toBe('01:02:05');
    expect(formatReportCell(column('ratio'), 0.04)).toBe('4.0 %');
    expect(formatReportCell(column('number'), 0)).toBe('0');
    expect(formatReportCell(column('text'), null)).toBe('N/A');
  });

  it('shows dates as DD-MM-YYYY hh:mm:ss and conversation ids shortened', () => {
    expect(formatReportCell(column('datetime'), new Date(2026, 0, 15, 9, 5, 7).toISOString())).toBe('15-01-2026 09:05:07');
    expect(formatReportCell(column('text', 'id'), '4f3f4a9d-1111-4222-8333-444455556666')).toBe('4f3f4a9d');
  });

  it('keeps formula-looking text as text on screen', () => {
    expect(formatReportCell(column('text'), '=HYPERLINK("x")')).toBe('=HYPERLINK("x")');
  });
});

describe(reportQuery.name, () => {
  it('sends the window as ISO and only the filters that are set', () => {
    const { from, to } = defaultWindow(new Date(2026, 0, 15, 13, 30));
    expect([from, to]).toEqual([new Date(2026, 0, 9), new Date(2026, 0, 16)]);
    expect(reportQuery({ from, to, channel: 'webchat', agentId: undefined })).toEqual({
      from: from.toISOString(),
      to: to.toISOString(),
      channel: 'webchat',
    });
  });
});
