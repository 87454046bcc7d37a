import { useCallback, useEffect, useMemo, useRef, useState } from 'react';
import type {
  ActiveByAgentRow,
  AgentServiceRow,
  ComplianceRow,
  DashboardOptions,
  DashboardSettings,
  DashboardSummary,
  DashboardWidget,
  PauseDetailRow,
  QueueGrouping,
  QueuePositionRow,
  QueueStatusRow,
  SentimentAlertView,
  SentimentReport,
  StaffingRow,
  TrendPoint,
} from '@centralita/contracts';
import { useTranslation } from 'react-i18next';
import { useServices } from '../app/ServicesContext';
import { useToast } from '../toast/ToastProvider';
import { connectStaff } from '../desk/realtime/socket-client';
import { createDashboardsApi, type DashboardsApi } from './dashboards-api';
import { dashboardQuery, defaultRange, rangeIsValid, type DashboardFilterState } from './dashboard-format';

export interface DashboardData {
  summary?: DashboardSummary;
  trend?: TrendPoint[];
  queues?: QueueStatusRow[];
  agents?: AgentServiceRow[];
  pauses?: PauseDetailRow[];
  compliance?: ComplianceRow[];
  staffing?: StaffingRow[];
  sentiment?: SentimentReport;
  activeByAgent?: ActiveByAgentRow[];
  positions?: QueuePositionRow[];
}
type Source = keyof DashboardData;

/** What each widget reads. */
const SOURCES: Record<DashboardWidget, Source[]> = {
  summary: ['summary'],
  percentages: ['summary'],
  trend: ['trend'],
  queueStatus: ['queues'],
  agentService: ['agents'],
  pauses: ['pauses'],
  activeByAgent: ['activeByAgent'],
  compliance: ['compliance'],
  staffing: ['staffing'],
  sentiment: ['sentiment'],
  positions: ['positions'],
};
/** Sources that describe "now": refreshed when the socket reports a change. */
const LIVE: Source[] = ['activeByAgent', 'positions', 'summary', 'sentiment'];
const EMPTY_OPTIONS: DashboardOptions = { lines: [], campaigns: [], agents: [], channels: [] };

export type TrendUnit = 'hour' | 'day';
export type { QueueGrouping };

/**
 * The state of one dashboard page: client settings, filter-bar options and filters, the figures
 * its widgets need (only those), a reload on the settings' refresh interval, and — for live pages
 * — a debounced reload of the "now" figures whenever the staff socket reports a change.
 */
export function useDashboard(widgets: readonly DashboardWidget[], { live }: { live: boolean }) {
  const { client, session } = useServices();
  const { t } = useTranslation();
  const toast = useToast();
  const api: DashboardsApi = useMemo(() => createDashboardsApi(client), [client]);
  const [settings, setSettings] = useState<DashboardSettings | null>(null);
  const [options, setOptions] = useState<DashboardOptions>(EMPTY_OPTIONS);
  const [filters, setFilters] = useState<DashboardFilterState>(() => defaultRange(new Date()));
  const [trendUnit, setTrendUnit] = useState<TrendUnit>('hour');
  const [grouping, setGrouping] = useState<QueueGrouping>('line');
  const [data, setData] = useState<DashboardData>({});
  const [loading, setLoading] = useState(true);
  const [error, setError] = useState<unknown>(null);
  const [alerts, setAlerts] = useState<SentimentAlertView[]>([]);
  const generation = useRef(0);

  useEffect(() => {
    api.settings().then(setSettings).catch(setError);
    api
      .options()
      .then(setOptions)
      .catch(() => setOptions(EMPTY_OPTIONS));
  }, [api]);

  const visible = useMemo(
    () => (settings ? widgets.filter((widget) => settings.visibleWidgets.includes(widget)) : []),
    [settings, widgets],
  );
  const sources = useMemo(() => [...new Set(visible.flatMap((widget) => SOURCES[widget]))], [visible]);
  const valid = rangeIsValid(filters);

  const load = useCallback(
    async (only?: Source[]) => {
      if (!settings || !valid) return;
      const query = dashboardQuery(filters);
      const wanted = only ? sources.filter((source) => only.includes(source)) : sources;
      if (wanted.length === 0) return;
      // Only full loads take a generation: a newer full load wins; live partial reloads never hide one.
      const mine = only ? generation.current : ++generation.current;
      if (!only) setLoading(true);
      const fetchers: Record<Source, () => Promise<unknown>> = {
        summary: () => api.summary(query),
        trend: () => api.trend({ ...query, unit: trendUnit }),
        queues: () => api.queues({ ...query, by: grouping }),
        agents: () => api.agents(query),
        pauses: () => api.pauses(query),
        compliance: () => api.compliance(query),
        staffing: () => api.staffing(query),
        sentiment: () => api.sentiment(query),
        activeByAgent: () => api.activeByAgent(),
        positions: () => api.positions(filters.attentionLineId ? { attentionLineId: filters.attentionLineId } : {}),
      };
      try {
        const results = await Promise.all(wanted.map((source) => fetchers[source]()));
        if (mine !== generation.current) return;
        setData((held) => ({ ...held, ...Object.fromEntries(wanted.map((source, index) => [source, results[index]])) }));
        setError(null);
      } catch (failure) {
        if (!only && mine === generation.current) setError(failure);
      } finally {
        if (!only && mine === generation.current) setLoading(false);
      }
    },
    [api, filters, grouping, settings, sources, trendUnit, valid],
  );

  useEffect(() => {
    if (!valid) setLoading(false);
    void load();
  }, [load, valid]);

  // A window longer than two days reads better by day; set with the filters so one load follows.
  const changeFilters = useCallback((next: DashboardFilterState) => {
    setFilters(next);
    if (next.from && next.to) setTrendUnit(next.to.getTime() - next.from.getTime() > 2 * 86_400_000 ? 'day' : 'hour');
  }, []);

  useEffect(() => {
    if (!settings) return;
    const timer = setInterval(() => void load(), settings.refreshSeconds * 1000);
    return () => clearInterval(timer);
  }, [load, settings]);

  const loadRef = useRef(load);
  loadRef.current = load;
  const toastRef = useRef(toast);
  toastRef.current = toast;
  useEffect(() => {
    if (!live) return;
    let pending: ReturnType<typeof setTimeout> | null = null;
    const soon = () => {
      if (pending) return;
      pending = setTimeout(() => {
        pending = null;
        void loadRef.current(LIVE);
      }, 800);
    };
    const connection = connectStaff(() => session.getAccessToken(), { onResync: soon });
    const { socket } = connection;
    socket.on('conversation.updated', soon);
    socket.on('agent.updated', soon);
    socket.on('queue.updated', soon);
    socket.on('sentiment.alert', (view) => {
      setAlerts((held) => [view, ...held.filter((alert) => alert.conversationId !== view.conversationId)].slice(0, 20));
      toastRef.current.warn(t('dashboards.sentiment.alert', { name: view.customerName, score: view.rolling.toFixed(2) }));
      soon();
    });
    return () => {
      if (pending) clearTimeout(pending);
      connection.close();
    };
  }, [live, session, t]);

  return {
    api,
    settings,
    options,
    filters,
    setFilters: changeFilters,
    valid,
    trendUnit,
    setTrendUnit,
    grouping,
    setGrouping,
    data,
    loading: loading || !settings,
    error,
    reload: () => void load(),
    visible,
    alerts,
  };
}

export type DashboardState = ReturnType<typeof useDashboard>;
