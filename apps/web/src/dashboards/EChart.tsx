import { useEffect, useRef } from 'react';
import { BarChart, LineChart, PieChart } from 'echarts/charts';
import { GridComponent, LegendComponent, TooltipComponent } from 'echarts/components';
import * as echarts from 'echarts/core';
import { SVGRenderer } from 'echarts/renderers';
import { seriesPoints, type ChartOption } from './dashboard-format';

// Only what the dashboards draw, from echarts/core: the chart code stays in the dashboards' lazy chunk.
echarts.use([BarChart, LineChart, PieChart, GridComponent, LegendComponent, TooltipComponent, SVGRenderer]);

/**
 * One ECharts instance (SVG renderer: crisp at any zoom, and its marks are in the DOM). The
 * container carries the number of data points it shows, which the browser test reads.
 */
export function EChart({ option, label, testId, height = 280 }: { option: ChartOption; label: string; testId: string; height?: number }) {
  const container = useRef<HTMLDivElement>(null);
  const chart = useRef<echarts.ECharts | null>(null);

  useEffect(() => {
    const element = container.current!;
    const instance = echarts.init(element, undefined, { renderer: 'svg' });
    chart.current = instance;
    const observer = new ResizeObserver(() => instance.resize());
    observer.observe(element);
    return () => {
      observer.disconnect();
      instance.dispose();
      chart.current = null;
    };
  }, []);

  useEffect(() => {
    const element = container.current;
    if (!chart.current || !element) return;
    // Axis and legend text follow the theme's text colour. No animation: a live reload must not
    // replay the drawing, and what is on screen is always the final figure.
    const color = getComputedStyle(element).color;
    const legend = option.legend ? { ...(option.legend as object), textStyle: { color } } : undefined;
    chart.current.setOption({ animation: false, textStyle: { color }, ...option, ...(legend ? { legend } : {}) }, true);
  }, [option]);

  return (
    <div
      ref={container}
      className="dash-chart"
      style={{ height }}
      role="img"
      aria-label={label}
      data-testid={testId}
      data-points={seriesPoints(option)}
    />
  );
}
