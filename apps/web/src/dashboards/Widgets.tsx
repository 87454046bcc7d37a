import { useMemo, type ReactNode } from 'react';
import { SelectButton } from 'primereact/selectbutton';
import { useTranslation } from 'react-i18next';
import { QUEUE_GROUPINGS, valueLabel, type DashboardSettings, type DashboardSummary, type DashboardWidget } from '@centralita/contracts';
import { normaliseLanguage } from '../i18n/languages';
import { formatDateTime } from '../format/format';
import {
  activeOption,
  agentOption,
  complianceOption,
  decimal,
  duration,
  percent,
  percentagesOption,
  pauseOption,
  queueOption,
  sentimentBarOption,
  sentimentTimeOption,
  staffingOption,
  trendOption,
  type Translate,
} from './dashboard-format';
import { Help, KpiCard, Panel } from './DashboardParts';
import { EChart } from './EChart';
import type { DashboardState } from './useDashboard';

/** Interpolation values of the help texts: the client's own thresholds, so the help tells the truth. */
function helpValues(settings: DashboardSettings | null) {
  return {
    threshold: settings?.serviceLevelThresholdSec ?? 20,
    target: settings?.targetServiceLevelPct ?? 80,
    short: settings?.shortAbandonSec ?? 0,
    mode: settings ? settings.shortAbandonMode : 'count',
    negative: settings?.negativeThreshold ?? -0.25,
  };
}

function useHelp(state: DashboardState): (key: string) => string {
  const { t } = useTranslation();
  const values = helpValues(state.settings);
  return (key) => t(`dashboards.help.${key}`, { ...values, mode: t(`dashboards.settings.modes.${values.mode}`) });
}

/** Groups without a line or agent (NO_GROUP from the KPI library) read "Unassigned". */
const named = <T extends { key: string; name: string }>(t: Translate, rows: readonly T[]): T[] =>
  rows.map((row) => (row.key === '(none)' ? { ...row, name: t('dashboards.state.unassigned') } : row));

const statusLabel = (t: Translate, status: string | null) => (status ? t(`desk.agentStatus.${status}`, { defaultValue: status }) : '—');
const reasonLabel = (t: Translate) => (reasonId: string) => t(`desk.pauseReasons.${reasonId}`, { defaultValue: reasonId });

function Table({ testId, head, rows }: { testId: string; head: string[]; rows: ReactNode[][] }) {
  return (
    <div className="dash-table-wrap">
      <table className="dash-table" data-testid={testId}>
        <thead>
          <tr>
            {head.map((cell) => (
              <th key={cell} scope="col">
                {cell}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {rows.map((row, index) => (
            <tr key={index}>
              {row.map((cell, column) => (
                <td key={column}>{cell}</td>
              ))}
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

/**
 * Why handled can exceed offered, in words: chats passed on by another agent count once per agent,
 * calls are never offered to a chat queue. Empty when every handled contact was an offered chat.
 */
export function handledNote(t: Translate, summary: DashboardSummary): string {
  const { fromTransfer, calls } = summary.handledBreakdown;
  const parts = [
    ...(fromTransfer > 0 ? [t('dashboards.kpi.handledFromTransfer', { count: fromTransfer })] : []),
    ...(calls > 0 ? [t('dashboards.kpi.handledCalls', { count: calls })] : []),
  ];
  return parts.length ? t('dashboards.kpi.handledIncludes', { parts: parts.join(', ') }) : '';
}

export function SummaryWidget({ state, tabular }: { state: DashboardState; tabular?: boolean }) {
  const { t } = useTranslation();
  const help = useHelp(state);
  const summary = state.data.summary;
  const cards: [string, string, string][] = summary
    ? [
        ['offered', String(summary.offered), 'offered'],
        ['answered', String(summary.answered), 'answered'],
        ['abandoned', String(summary.abandoned), 'abandoned'],
        ['serviceLevel', percent(summary.serviceLevel), 'serviceLevel'],
        ['abandonmentRate', percent(summary.abandonmentRate), 'abandonmentRate'],
        ['asa', duration(summary.averageSpeedOfAnswerMs), 'asa'],
        ['aht', duration(summary.averageHandleTimeMs), 'aht'],
        ['handled', String(summary.handled), 'handled'],
        ['occupancy', percent(summary.occupancy), 'occupancy'],
        ['waitingNow', String(summary.waitingNow), 'waitingNow'],
        ['longestWaitNow', duration(summary.longestWaitNowMs), 'longestWaitNow'],
      ]
    : [];
  return (
    <Panel
      id="summary"
      title={t('dashboards.widget.summary')}
      help={help('summary')}
      loading={state.loading && !summary}
      empty={false}
      wide
    >
      {tabular ? (
        // The classic dashboard: the same figures as one table, each with what it measures.
        <Table
          testId="classic-table"
          head={[t('dashboards.classic.figure'), t('dashboards.classic.value'), t('dashboards.classic.meaning')]}
          rows={cards.map(([id, value, key]) => [
            t(`dashboards.kpi.${key}`),
            <span key={id} data-testid={`classic-${id}`}>
              {value}
              {id === 'handled' && summary && handledNote(t, summary) ? (
                <small className="dash-kpi__note"> {handledNote(t, summary)}</small>
              ) : null}
            </span>,
            help(key),
          ])}
        />
      ) : (
        <div className="dash-kpis">
          {cards.map(([id, value, key]) => (
            <KpiCard
              key={id}
              id={id}
              label={t(`dashboards.kpi.${key}`)}
              value={value}
              help={help(key)}
              note={id === 'handled' && summary ? handledNote(t, summary) : undefined}
            />
          ))}
        </div>
      )}
    </Panel>
  );
}

export function PercentagesWidget({ state }: { state: DashboardState }) {
  const { t } = useTranslation();
  const help = useHelp(state);
  const summary = state.data.summary;
  const option = useMemo(() => (summary ? percentagesOption(summary, t) : null), [summary, t]);
  return (
    <Panel
      id="percentages"
      title={t('dashboards.widget.percentages')}
      help={help('percentages')}
      loading={state.loading && !summary}
      empty={!summary || summary.offered === 0}
    >
      {option && <EChart option={option} label={t('dashboards.widget.percentages')} testId="chart-percentages" />}
    </Panel>
  );
}

export function TrendWidget({ state }: { state: DashboardState }) {
  const { t } = useTranslation();
  const help = useHelp(state);
  const trend = state.data.trend;
  const option = useMemo(() => (trend ? trendOption(trend, t) : null), [trend, t]);
  // The API buckets by hour over at most 8 days.
  const { from, to } = state.filters;
  const hourly = !!from && !!to && to.getTime() - from.getTime() <= 8 * 86_400_000;
  const units = [
    { value: 'hour', label: t('dashboards.trendUnit.hour'), disabled: !hourly },
    { value: 'day', label: t('dashboards.trendUnit.day') },
  ];
  return (
    <Panel
      id="trend"
      title={t('dashboards.widget.trend')}
      help={help('trend')}
      loading={state.loading && !trend}
      empty={!trend || trend.every((point) => point.offered === 0 && point.handled === 0)}
      wide
      actions={
        <SelectButton
          value={state.trendUnit}
          options={units}
          optionDisabled="disabled"
          allowEmpty={false}
          onChange={(event) => state.setTrendUnit(event.value)}
        />
      }
    >
      {option && <EChart option={option} label={t('dashboards.widget.trend')} testId="chart-trend" />}
    </Panel>
  );
}

export function QueueStatusWidget({ state }: { state: DashboardState }) {
  const { t, i18n } = useTranslation();
  const help = useHelp(state);
  const language = normaliseLanguage(i18n.resolvedLanguage ?? i18n.language);
  const rows = useMemo(() => {
    if (!state.data.queues) return undefined;
    // By channel the key is the channel's code: its name is the channel's label in the user's language.
    const labelled =
      state.grouping === 'channel'
        ? state.data.queues.map((row) => ({ ...row, name: valueLabel('channel', row.key, language) }))
        : state.data.queues;
    return named(t, labelled);
  }, [state.data.queues, state.grouping, language, t]);
  const option = useMemo(() => (rows ? queueOption(rows, t) : null), [rows, t]);
  // By channel, the phone row also tells the calls that never reached a queue (absent under a line, campaign or agent filter).
  const phone = state.grouping === 'channel' ? state.data.queues?.find((row) => row.key === 'phone') : undefined;
  const groupings = QUEUE_GROUPINGS.map((value) => ({ value, label: t(`dashboards.grouping.${value}`) }));
  return (
    <Panel
      id="queueStatus"
      title={t('dashboards.widget.queueStatus')}
      help={help('queueStatus')}
      loading={state.loading && !rows}
      empty={!rows || rows.length === 0}
      wide
      actions={
        <SelectButton value={state.grouping} options={groupings} allowEmpty={false} onChange={(event) => state.setGrouping(event.value)} />
      }
    >
      {option && rows && (
        <>
          <EChart option={option} label={t('dashboards.widget.queueStatus')} testId="chart-queueStatus" />
          <Table
            testId="table-queueStatus"
            head={[
              t(`dashboards.grouping.${state.grouping}`),
              t('dashboards.kpi.offered'),
              t('dashboards.kpi.answered'),
              t('dashboards.kpi.abandoned'),
              t('dashboards.kpi.serviceLevel'),
              t('dashboards.kpi.asa'),
              t('dashboards.kpi.waitingNow'),
              t('dashboards.kpi.longestWaitNow'),
            ]}
            rows={rows.map((row) => [
              row.name,
              row.offered,
              row.answered,
              row.abandoned,
              percent(row.serviceLevel),
              duration(row.averageSpeedOfAnswerMs),
              row.waitingNow,
              duration(row.longestWaitNowMs),
            ])}
          />
          {phone?.abandonedInIvr !== undefined && (
            <p data-testid="queueStatus-callsOutsideQueues">
              {t('dashboards.kpi.callsOutsideQueues', {
                ivr: phone.abandonedInIvr,
                closed: phone.closedLine ?? 0,
                voicemail: phone.voicemail ?? 0,
              })}
            </p>
          )}
        </>
      )}
    </Panel>
  );
}

export function AgentServiceWidget({ state }: { state: DashboardState }) {
  const { t } = useTranslation();
  const help = useHelp(state);
  const rows = state.data.agents;
  const option = useMemo(() => (rows ? agentOption(rows, t) : null), [rows, t]);
  return (
    <Panel
      id="agentService"
      title={t('dashboards.widget.agentService')}
      help={help('agentService')}
      loading={state.loading && !rows}
      empty={!rows || rows.length === 0}
      wide
    >
      {option && rows && (
        <>
          <EChart option={option} label={t('dashboards.widget.agentService')} testId="chart-agentService" />
          <Table
            testId="table-agentService"
            head={[
              t('dashboards.filters.agent'),
              t('dashboards.kpi.status'),
              t('dashboards.kpi.handled'),
              t('dashboards.kpi.aht'),
              t('dashboards.kpi.occupancy'),
              t('dashboards.kpi.staffed'),
              t('dashboards.kpi.pauseTime'),
              t('dashboards.kpi.active'),
            ]}
            rows={rows.map((row) => [
              row.name,
              statusLabel(t, row.statusNow),
              row.handled,
              duration(row.averageHandleTimeMs),
              percent(row.occupancy),
              duration(row.staffedMs),
              duration(row.times.paused ?? 0),
              row.activeNow,
            ])}
          />
        </>
      )}
    </Panel>
  );
}

export function PausesWidget({ state }: { state: DashboardState }) {
  const { t } = useTranslation();
  const help = useHelp(state);
  const rows = state.data.pauses;
  const option = useMemo(() => (rows ? pauseOption(rows, reasonLabel(t), t) : null), [rows, t]);
  return (
    <Panel
      id="pauses"
      title={t('dashboards.widget.pauses')}
      help={help('pauses')}
      loading={state.loading && !rows}
      empty={!rows || rows.length === 0}
      wide
    >
      {option && rows && (
        <>
          <EChart option={option} label={t('dashboards.widget.pauses')} testId="chart-pauses" />
          <Table
            testId="table-pauses"
            head={[t('dashboards.filters.agent'), t('dashboards.column.reason'), t('dashboards.kpi.pauseTime')]}
            rows={rows.map((row) => [row.name, reasonLabel(t)(row.reasonId), duration(row.ms)])}
          />
        </>
      )}
    </Panel>
  );
}

export function ActiveByAgentWidget({ state }: { state: DashboardState }) {
  const { t } = useTranslation();
  const help = useHelp(state);
  const rows = state.data.activeByAgent;
  const option = useMemo(() => (rows ? activeOption(rows, t) : null), [rows, t]);
  return (
    <Panel
      id="activeByAgent"
      title={t('dashboards.widget.activeByAgent')}
      help={help('activeByAgent')}
      loading={state.loading && !rows}
      empty={!rows || rows.length === 0}
      live
    >
      {option && <EChart option={option} label={t('dashboards.widget.activeByAgent')} testId="chart-activeByAgent" />}
    </Panel>
  );
}

export function ComplianceWidget({ state }: { state: DashboardState }) {
  const { t } = useTranslation();
  const help = useHelp(state);
  const rows = state.data.compliance;
  const option = useMemo(() => (rows ? complianceOption(rows, t) : null), [rows, t]);
  return (
    <Panel
      id="compliance"
      title={t('dashboards.widget.compliance')}
      help={help('compliance')}
      loading={state.loading && !rows}
      empty={!rows || rows.length === 0}
    >
      {option && rows && (
        <>
          <EChart option={option} label={t('dashboards.widget.compliance')} testId="chart-compliance" />
          <Table
            testId="table-compliance"
            head={[
              t('dashboards.filters.agent'),
              t('dashboards.kpi.scheduled'),
              t('dashboards.kpi.loggedIn'),
              t('dashboards.kpi.compliance'),
            ]}
            rows={rows.map((row) => [row.name, duration(row.scheduledMs), duration(row.loggedInWhileScheduledMs), percent(row.compliance)])}
          />
        </>
      )}
    </Panel>
  );
}

export function StaffingWidget({ state }: { state: DashboardState }) {
  const { t } = useTranslation();
  const help = useHelp(state);
  const rows = state.data.staffing;
  const option = useMemo(() => (rows ? staffingOption(rows, t) : null), [rows, t]);
  return (
    <Panel
      id="staffing"
      title={t('dashboards.widget.staffing')}
      help={help('staffing')}
      loading={state.loading && !rows}
      empty={!rows || rows.length === 0}
      wide
    >
      {option && rows && (
        <>
          <EChart option={option} label={t('dashboards.widget.staffing')} testId="chart-staffing" />
          <Table
            testId="table-staffing"
            head={[
              t('dashboards.grouping.line'),
              t('dashboards.kpi.arrivals'),
              t('dashboards.kpi.arrivalRate'),
              t('dashboards.kpi.aht'),
              t('dashboards.kpi.recommendedAgents'),
              t('dashboards.kpi.actualAgents'),
            ]}
            rows={rows.map((row) => [
              row.name,
              row.arrivals,
              decimal(row.arrivalRatePerHour, 1),
              duration(row.ahtSec === null ? null : row.ahtSec * 1000),
              row.recommendedAgents ?? '—',
              decimal(row.actualAgents),
            ])}
          />
        </>
      )}
    </Panel>
  );
}

export function PositionsWidget({ state }: { state: DashboardState }) {
  const { t } = useTranslation();
  const help = useHelp(state);
  const rows = state.data.positions;
  return (
    <Panel
      id="positions"
      title={t('dashboards.widget.positions')}
      help={help('positions')}
      loading={state.loading && !rows}
      empty={!rows || rows.length === 0}
      live
      wide
    >
      {rows && (
        <Table
          testId="table-positions"
          head={[
            t('dashboards.grouping.line'),
            t('dashboards.column.position'),
            t('dashboards.column.customer'),
            t('dashboards.filters.channel'),
            t('dashboards.column.since'),
          ]}
          rows={rows.map((row) => [row.lineName, row.position, row.customerName, row.channel, formatDateTime(row.queuedAt, t)])}
        />
      )}
    </Panel>
  );
}

export function SentimentWidget({ state }: { state: DashboardState }) {
  const { t } = useTranslation();
  const help = useHelp(state);
  const report = state.data.sentiment;
  const byLine = useMemo(() => (report ? sentimentBarOption(named(t, report.byLine), t) : null), [report, t]);
  const byAgent = useMemo(() => (report ? sentimentBarOption(named(t, report.byAgent), t) : null), [report, t]);
  const overTime = useMemo(() => (report ? sentimentTimeOption(report.overTime, t) : null), [report, t]);
  const loading = state.loading && !report;
  const empty = !report || report.overall.messages === 0;
  const negative = report?.turningNegative ?? [];
  return (
    <>
      <Panel id="sentiment" title={t('dashboards.widget.sentiment')} help={help('sentiment')} loading={loading} empty={empty} wide>
        {report && (
          <div className="dash-kpis">
            <KpiCard
              id="sentimentMessages"
              label={t('dashboards.sentiment.messages')}
              value={String(report.overall.messages)}
              help={help('sentiment')}
            />
            <KpiCard
              id="sentimentAverage"
              label={t('dashboards.sentiment.average')}
              value={decimal(report.overall.average)}
              help={help('sentimentAverage')}
            />
            <KpiCard
              id="sentimentPositive"
              label={t('dashboards.sentiment.positive')}
              value={String(report.overall.positive)}
              help={help('sentimentLabels')}
            />
            <KpiCard
              id="sentimentNeutral"
              label={t('dashboards.sentiment.neutral')}
              value={String(report.overall.neutral)}
              help={help('sentimentLabels')}
            />
            <KpiCard
              id="sentimentNegative"
              label={t('dashboards.sentiment.negative')}
              value={String(report.overall.negative)}
              help={help('sentimentLabels')}
            />
          </div>
        )}
      </Panel>
      <Panel id="sentimentByLine" title={t('dashboards.sentiment.byLine')} help={help('sentimentLabels')} loading={loading} empty={empty}>
        {byLine && <EChart option={byLine} label={t('dashboards.sentiment.byLine')} testId="chart-sentiment-line" />}
      </Panel>
      <Panel id="sentimentByAgent" title={t('dashboards.sentiment.byAgent')} help={help('sentimentLabels')} loading={loading} empty={empty}>
        {byAgent && <EChart option={byAgent} label={t('dashboards.sentiment.byAgent')} testId="chart-sentiment-agent" />}
      </Panel>
      <Panel
        id="sentimentOverTime"
        title={t('dashboards.sentiment.overTime')}
        help={help('sentimentAverage')}
        loading={loading}
        empty={empty}
        wide
      >
        {overTime && <EChart option={overTime} label={t('dashboards.sentiment.overTime')} testId="chart-sentiment-time" />}
      </Panel>
      <Panel
        id="turningNegative"
        title={t('dashboards.sentiment.turningNegative')}
        help={help('turningNegative')}
        loading={loading}
        empty={negative.length === 0}
        live
        wide
      >
        <Table
          testId="table-turningNegative"
          head={[
            t('dashboards.column.customer'),
            t('dashboards.kpi.status'),
            t('dashboards.sentiment.rolling'),
            t('dashboards.column.lastMessage'),
          ]}
          rows={negative.map((row) => [
            <span
              key="name"
              className={state.alerts.some((alert) => alert.conversationId === row.conversationId) ? 'dash-alert' : undefined}
            >
              {state.alerts.some((alert) => alert.conversationId === row.conversationId) && <i className="pi pi-bell" aria-hidden="true" />}{' '}
              {row.customerName}
            </span>,
            t(`desk.conversationStatus.${row.status}`, { defaultValue: row.status }),
            decimal(row.rolling),
            formatDateTime(row.lastMessageAt, t),
          ])}
        />
      </Panel>
    </>
  );
}

export const WIDGETS: Record<DashboardWidget, (props: { state: DashboardState; tabular?: boolean }) => ReactNode> = {
  summary: SummaryWidget,
  percentages: PercentagesWidget,
  trend: TrendWidget,
  queueStatus: QueueStatusWidget,
  agentService: AgentServiceWidget,
  pauses: PausesWidget,
  activeByAgent: ActiveByAgentWidget,
  compliance: ComplianceWidget,
  staffing: StaffingWidget,
  positions: PositionsWidget,
  sentiment: SentimentWidget,
};

export { Help };
