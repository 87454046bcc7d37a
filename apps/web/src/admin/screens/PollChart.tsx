import { useEffect, useRef, useState } from 'react';
import { BarChart } from 'echarts/charts';
import { GridComponent, TooltipComponent } from 'echarts/components';
import * as echarts from 'echarts/core';
import { CanvasRenderer } from 'echarts/renderers';
import { useTranslation } from 'react-i18next';
import type { PollQuestionStats } from '@centralita/contracts';
import { describeError } from '../../api/error-text';
import { useApi } from '../../app/ServicesContext';

echarts.use([BarChart, GridComponent, TooltipComponent, CanvasRenderer]);

/** Answer counts of one poll question as a bar chart (tree-shaken ECharts from 'echarts/core'). */
export function PollChart({ pollId, questionId }: { pollId: string; questionId: string }) {
  const { t } = useTranslation();
  const api = useApi();
  const element = useRef<HTMLDivElement>(null);
  const [stats, setStats] = useState<PollQuestionStats | null>(null);
  const [error, setError] = useState<string | null>(null);

  useEffect(() => {
    let live = true;
    api.admin
      .pollQuestionStats(pollId, questionId)
      .then((s) => live && (setStats(s), setError(null)))
      .catch((e: unknown) => live && setError(describeError(e, t)));
    return () => {
      live = false;
    };
  }, [api, pollId, questionId, t]);

  useEffect(() => {
    if (!element.current || !stats) return;
    const chart = echarts.init(element.current);
    const primary = getComputedStyle(document.documentElement).getPropertyValue('--primary').trim() || '#2563eb';
    chart.setOption({
      grid: { left: 8, right: 24, top: 16, bottom: 8, containLabel: true },
      tooltip: { trigger: 'axis' },
      xAxis: { type: 'value', minInterval: 1 },
      yAxis: { type: 'category', data: stats.counts.map((c) => c.value).reverse(), axisLabel: { width: 220, overflow: 'truncate' } },
      series: [
        {
          type: 'bar',
          data: stats.counts.map((c) => c.count).reverse(),
          itemStyle: { color: primary, borderRadius: [0, 6, 6, 0] },
          label: { show: true, position: 'right' },
        },
      ],
    });
    const resize = () => chart.resize();
    window.addEventListener('resize', resize);
    return () => {
      window.removeEventListener('resize', resize);
      chart.dispose();
    };
  }, [stats]);

  if (error)
    return (
      <div className="form-error" role="alert">
        {error}
      </div>
    );
  return (
    <div className="poll-chart" data-testid="poll-chart">
      {stats && (
        <p className="muted">
          <strong>{stats.questionText}</strong> · {t('admin.polls.totalAnswers', { count: stats.total })}
        </p>
      )}
      {stats?.total === 0 ? (
        <p className="muted">{t('admin.polls.noAnswers')}</p>
      ) : (
        <div ref={element} className="poll-chart__canvas" style={{ height: Math.max(220, (stats?.counts.length ?? 0) * 44 + 40) }} />
      )}
    </div>
  );
}
