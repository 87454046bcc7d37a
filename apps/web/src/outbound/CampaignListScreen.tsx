import { useCallback, useEffect, useMemo, useRef, useState } from 'react';
import { useNavigate, useSearchParams } from 'react-router-dom';
import { Button } from 'primereact/button';
import { Column } from 'primereact/column';
import { DataTable } from 'primereact/datatable';
import { ProgressBar } from 'primereact/progressbar';
import { TabPanel, TabView } from 'primereact/tabview';
import { Tag } from 'primereact/tag';
import type { Socket } from 'socket.io-client';
import { useTranslation } from 'react-i18next';
import { OUTBOUND_SOCKET_EVENTS, type AppRoute, type DialerCampaignView, type OutboundBoardView } from '@centralita/contracts';
import { describeError } from '../api/error-text';
import { useServices } from '../app/ServicesContext';
import { connectStaff } from '../desk/realtime/socket-client';
import { formatDateTime } from '../format/format';
import { PageHeader } from '../layout/PageHeader';
import { ACTIONS_BY_STATUS } from './campaign-actions';
import { CallbacksTab } from './CallbacksTab';
import { CampaignResults } from './CampaignResults';
import { DoNotCallTab } from './DoNotCallTab';
import { MessageCampaignsTab } from './message-campaigns/MessageCampaignsTab';
import { createOutboundApi, type CampaignAction, type CampaignCommand } from './outbound-api';
import './outbound.css';

const FORM = '/OutboundCampaign/SubmitOutboundCampaing';
/** Tabs of the page, in order; ?tab= keeps the open one across reloads and links. */
const TABS = ['campaigns', 'dnc', 'callbacks', 'messages'] as const;

const ACTION_ICONS: Record<CampaignAction, string> = {
  start: 'pi pi-play',
  pause: 'pi pi-pause',
  resume: 'pi pi-replay',
  cancel: 'pi pi-times',
};
const SEVERITY: Record<string, 'success' | 'info' | 'warning' | 'danger' | undefined> = {
  running: 'success',
  paused: 'warning',
  scheduled: 'info',
  cancelled: 'danger',
};

/**
 * /OutboundCampaign/CampaignList: campaigns with start/pause/resume/cancel and the live board of the
 * selected one; the do-not-call list and the booked callbacks in their own tabs.
 */
export function CampaignListScreen({ route }: { route: AppRoute }) {
  const { t } = useTranslation();
  const { client, session } = useServices();
  const api = useMemo(() => createOutboundApi(client), [client]);
  const navigate = useNavigate();
  const [params, setParams] = useSearchParams();
  const tab = Math.max(0, TABS.indexOf(params.get('tab') as (typeof TABS)[number]));
  const [rows, setRows] = useState<DialerCampaignView[]>([]);
  const [loading, setLoading] = useState(true);
  const [failure, setFailure] = useState<string | null>(null);
  const [selected, setSelected] = useState<string | null>(null);
  const [board, setBoard] = useState<OutboundBoardView | null>(null);
  const [busy, setBusy] = useState<string | null>(null);
  const selectedRef = useRef<string | null>(null);
  selectedRef.current = selected;

  const load = useCallback(async () => {
    try {
      const page = await api.campaigns({ pageSize: 200, sortField: 'createdAt', sortOrder: 'desc' });
      setRows(page.items);
      setFailure(null);
      setSelected((current) => current ?? page.items.find((row) => row.status === 'running')?.id ?? page.items[0]?.id ?? null);
    } catch (error) {
      setFailure(describeError(error, t));
    } finally {
      setLoading(false);
    }
  }, [api, t]);

  const loadBoard = useCallback(
    async (id: string) => {
      try {
        const view = await api.board(id);
        if (selectedRef.current === id) setBoard(view);
      } catch (error) {
        setFailure(describeError(error, t));
      }
    },
    [api, t],
  );

  useEffect(() => void load(), [load]);
  useEffect(() => {
    setBoard(null);
    if (selected) void loadBoard(selected);
  }, [selected, loadBoard]);
  // An idle campaign gets no pushes: read the board again when the dialer expected the reason to end.
  const idleUntil = board?.idle?.until ?? null;
  useEffect(() => {
    if (!selected || !idleUntil) return;
    const delay = Math.min(Math.max(Date.parse(idleUntil) - Date.now(), 0) + IDLE_RECHECK_AFTER_MS, MAX_TIMER_MS);
    const timer = setTimeout(() => void loadBoard(selected), delay);
    return () => clearTimeout(timer);
  }, [selected, idleUntil, loadBoard]);

  // Live: the API pushes the board on every call change; agent changes refresh it too.
  useEffect(() => {
    const connection = connectStaff(() => session.getAccessToken(), {
      onResync: () => {
        void load();
        if (selectedRef.current) void loadBoard(selectedRef.current);
      },
    });
    const socket = connection.socket as unknown as Socket;
    let timer: ReturnType<typeof setTimeout> | null = null;
    socket.on(OUTBOUND_SOCKET_EVENTS.board, (view: OutboundBoardView) => {
      if (view.campaignId === selectedRef.current) setBoard(view);
      setRows((held) =>
        held.map((row) => (row.id === view.campaignId && row.status !== view.status ? { ...row, status: view.status } : row)),
      );
    });
    socket.on('agent.updated', () => {
      if (timer || !selectedRef.current) return;
      timer = setTimeout(() => {
        timer = null;
        if (selectedRef.current) void loadBoard(selectedRef.current);
      }, 300);
    });
    return () => {
      if (timer) clearTimeout(timer);
      connection.close();
    };
  }, [session, load, loadBoard]);

  const act = async (row: DialerCampaignView, action: CampaignCommand) => {
    setBusy(`${row.id}:${action}`);
    try {
      const updated = await api.act(row.id, action);
      setRows((held) => held.map((item) => (item.id === updated.id ? updated : item)));
      if (selectedRef.current === row.id) void loadBoard(row.id);
    } catch (error) {
      setFailure(describeError(error, t));
    } finally {
      setBusy(null);
    }
  };

  const exportCsv = async (id: string) => {
    try {
      const response = await api.exportResults(id);
      const blob = await response.blob();
      const url = URL.createObjectURL(blob);
      const link = document.createElement('a');
      link.href = url;
      link.download = 'outbound-results.csv';
      link.click();
      URL.revokeObjectURL(url);
    } catch (error) {
      setFailure(describeError(error, t));
    }
  };

  const actions = (row: DialerCampaignView) => (
    <div className="admin-actions">
      {(ACTIONS_BY_STATUS[row.status] ?? []).map((action) => (
        <Button
          key={action}
          icon={ACTION_ICONS[action]}
          rounded
          text
          severity={action === 'cancel' ? 'danger' : undefined}
          aria-label={t(`outbound.actions.${action}`)}
          tooltip={t(`outbound.actions.${action}`)}
          data-testid={`campaign-${action}`}
          loading={busy === `${row.id}:${action}`}
          onClick={(event) => {
            event.stopPropagation();
            void act(row, action);
          }}
        />
      ))}
      {row.status === 'draft' && row.scheduleFrom && (
        <Button
          icon="pi pi-calendar-plus"
          rounded
          text
          aria-label={t('outbound.actions.schedule')}
          tooltip={t('outbound.actions.schedule')}
          data-testid="campaign-schedule"
          loading={busy === `${row.id}:schedule`}
          onClick={(event) => {
            event.stopPropagation();
            void act(row, 'schedule');
          }}
        />
      )}
      {(row.status === 'draft' || row.status === 'scheduled' || row.status === 'paused') && (
        <Button
          icon="pi pi-pencil"
          rounded
          text
          aria-label={t('outbound.actions.edit')}
          tooltip={t('outbound.actions.edit')}
          onClick={(event) => {
            event.stopPropagation();
            navigate(`${FORM}?id=${encodeURIComponent(row.id)}`);
          }}
        />
      )}
    </div>
  );

  return (
    <div className="page outbound-page">
      <PageHeader
        title={t(`routes.${route.titleKey}`)}
        icon={route.icon ?? 'pi pi-phone'}
        subtitle={t('outbound.list.subtitle')}
        actions={<Button icon="pi pi-plus" label={t('outbound.list.add')} data-testid="outbound-add" onClick={() => navigate(FORM)} />}
      />
      {failure && (
        <p className="form-error" role="alert" data-testid="outbound-error">
          {failure}
        </p>
      )}
      <TabView
        activeIndex={tab}
        onTabChange={(event) =>
          setParams(
            (held) => {
              const next = new URLSearchParams(held);
              if (event.index === 0) next.delete('tab');
              else next.set('tab', TABS[event.index]);
              return next;
            },
            { replace: true },
          )
        }
        className="outbound-tabs"
        data-testid="outbound-tabs"
      >
        <TabPanel
          header={t('outbound.tabs.campaigns')}
          leftIcon="pi pi-phone"
          pt={{ headerAction: { 'data-testid': 'tab-campaigns' } as never }}
        >
          <section className="card">
            <DataTable
              value={rows}
              dataKey="id"
              loading={loading}
              selectionMode="single"
              selection={rows.find((row) => row.id === selected) ?? null}
              onSelectionChange={(event) => {
                // A second click on the selected row keeps it selected: the board stays.
                const row = event.value as DialerCampaignView | null;
                if (row) setSelected(row.id);
              }}
              emptyMessage={t('outbound.list.empty')}
              data-testid="outbound-campaigns"
              size="small"
            >
              <Column field="name" header={t('outbound.fields.name')} body={(row: DialerCampaignView) => <strong>{row.name}</strong>} />
              <Column field="mode" header={t('outbound.fields.mode')} body={(row: DialerCampaignView) => t(`outbound.modes.${row.mode}`)} />
              <Column
                field="status"
                header={t('outbound.fields.status')}
                body={(row: DialerCampaignView) => (
                  <Tag
                    value={t(`outbound.status.${row.status}`)}
                    severity={SEVERITY[row.status]}
                    data-testid={`campaign-status-${row.id}`}
                  />
                )}
              />
              <Column
                field="phoneListName"
                header={t('outbound.fields.phoneList')}
                body={(row: DialerCampaignView) => row.phoneListName ?? t('format.notAvailable')}
              />
              <Column
                field="abandonCapPercent"
                header={t('outbound.fields.abandonCap')}
                body={(row: DialerCampaignView) => `${row.abandonCapPercent} %`}
              />
              <Column
                field="createdAt"
                header={t('outbound.fields.createdAt')}
                body={(row: DialerCampaignView) => formatDateTime(row.createdAt, t)}
              />
              <Column header={t('admin.list.actions')} body={actions} style={{ width: '11rem' }} />
            </DataTable>
          </section>
          {selected && <CampaignBoard board={board} onExport={() => void exportCsv(selected)} />}
          {/* Keyed by campaign: switching campaigns starts a fresh report, never the last campaign's rows while the new ones load. */}
          {selected && (
            <CampaignResults
              key={selected}
              campaignId={selected}
              version={board ? `${board.dialed}:${board.answered}:${board.remainingRecords}` : ''}
            />
          )}
        </TabPanel>
        <TabPanel header={t('outbound.tabs.dnc')} leftIcon="pi pi-ban" pt={{ headerAction: { 'data-testid': 'tab-dnc' } as never }}>
          <DoNotCallTab api={api} campaigns={rows} />
        </TabPanel>
        <TabPanel
          header={t('outbound.tabs.callbacks')}
          leftIcon="pi pi-calendar-clock"
          pt={{ headerAction: { 'data-testid': 'tab-callbacks' } as never }}
        >
          <CallbacksTab api={api} campaigns={rows} />
        </TabPanel>
        <TabPanel
          header={t('messageCampaigns.tab')}
          leftIcon="pi pi-whatsapp"
          pt={{ headerAction: { 'data-testid': 'tab-messages' } as never }}
        >
          <MessageCampaignsTab />
        </TabPanel>
      </TabView>
    </div>
  );
}

function Metric({ label, value, testId, tone }: { label: string; value: string | number; testId: string; tone?: 'ok' | 'warn' | 'bad' }) {
  return (
    <div className={`outbound-metric${tone ? ` outbound-metric--${tone}` : ''}`}>
      <span className="outbound-metric__value" data-testid={testId}>
        {value}
      </span>
      <span className="outbound-metric__label">{label}</span>
    </div>
  );
}

/** After the expected end of an idle reason, the dialer's next rounds have had time to dial (or record a new reason). */
const IDLE_RECHECK_AFTER_MS = 5_000;
/** setTimeout's ceiling (about 24.8 days). */
const MAX_TIMER_MS = 2_147_483_647;

/** The live board of one campaign. */
export function CampaignBoard({ board, onExport }: { board: OutboundBoardView | null; onExport: () => void }) {
  const { t } = useTranslation();
  if (!board)
    return (
      <section className="card" role="status">
        <p className="muted">{t('common.loading')}</p>
      </section>
    );
  const rate = board.abandonRatePercent;
  const tone = rate === null ? 'ok' : rate >= board.abandonCapPercent ? 'bad' : rate >= board.abandonCapPercent / 2 ? 'warn' : 'ok';
  return (
    <section className="card outbound-board" data-testid="outbound-board" aria-live="polite">
      <header className="outbound-board__header">
        <h2>{t('outbound.board.title')}</h2>
        <span className="muted">
          {t(`outbound.modes.${board.mode}`)} · {t(`outbound.status.${board.status}`)}
        </span>
        <Button
          icon="pi pi-download"
          label={t('outbound.board.export')}
          outlined
          size="small"
          data-testid="outbound-export"
          onClick={onExport}
        />
      </header>
      {board.idle ? (
        <p className="outbound-board__idle" role="status" data-testid="board-idle" data-reason={board.idle.reason}>
          <i className="pi pi-info-circle" aria-hidden="true" /> {t(`outbound.board.idleReasons.${board.idle.reason}`)}
          {board.idle.until ? ` ${t('outbound.board.idleUntil', { when: formatDateTime(board.idle.until, t) })}` : ''}
        </p>
      ) : null}
      <div className="outbound-metrics">
        <Metric label={t('outbound.board.dialLevel')} value={board.dialLevel.toFixed(2)} testId="board-dial-level" />
        <Metric label={t('outbound.board.inProgress')} value={board.callsInProgress} testId="board-in-progress" />
        <Metric label={t('outbound.board.dialed')} value={board.dialed} testId="board-dialed" />
        <Metric label={t('outbound.board.answered')} value={board.answered} testId="board-answered" />
        <Metric
          label={t('outbound.board.abandonRate', { cap: board.abandonCapPercent })}
          value={rate === null ? t('format.notAvailable') : `${rate.toFixed(2)} %`}
          testId="board-abandon-rate"
          tone={tone}
        />
        <Metric label={t('outbound.board.remaining')} value={board.remainingRecords} testId="board-remaining" />
      </div>
      <ProgressBar
        value={rate === null ? 0 : Math.min(100, (rate / board.abandonCapPercent) * 100)}
        showValue={false}
        className={`outbound-cap outbound-cap--${tone}`}
        aria-label={t('outbound.board.capUsage')}
      />
      <div className="outbound-board__columns">
        <div>
          <h3>{t('outbound.board.agents')}</h3>
          {board.agents.length === 0 ? (
            <p className="muted" data-testid="board-no-agents">
              {t('outbound.board.noAgents')}
            </p>
          ) : (
            <ul className="outbound-agents" data-testid="board-agents">
              {board.agents.map((agent) => (
                <li key={agent.agentId} data-testid={`board-agent-${agent.agentId}`} data-status={agent.status}>
                  <span>{agent.name}</span>
                  <Tag value={t(`outbound.agentStatus.${agent.status}`, { defaultValue: agent.status })} />
                </li>
              ))}
            </ul>
          )}
          <p className="muted outbound-by-state">
            {Object.entries(board.agentsByState)
              .map(([state, count]) => `${t(`outbound.agentStatus.${state}`, { defaultValue: state })}: ${count}`)
              .join(' · ')}
          </p>
        </div>
        <div>
          <h3>{t('outbound.board.recentCalls')}</h3>
          <DataTable
            value={board.recentCalls}
            dataKey="id"
            size="small"
            emptyMessage={t('outbound.board.noCalls')}
            data-testid="board-calls"
          >
            <Column field="phone" header={t('outbound.fields.phone')} />
            <Column field="contactName" header={t('outbound.fields.contact')} body={(row) => row.contactName ?? t('format.notAvailable')} />
            <Column
              field="status"
              header={t('outbound.fields.status')}
              body={(row) => (
                <span data-testid={`board-call-${row.id}`}>{t(`outbound.callStatus.${row.status}`, { defaultValue: row.status })}</span>
              )}
            />
            <Column
              field="disposition"
              header={t('outbound.fields.disposition')}
              body={(row) => (row.disposition ? t(`outbound.dispositions.${row.disposition}`, { defaultValue: row.disposition }) : '—')}
            />
          </DataTable>
        </div>
      </div>
    </section>
  );
}
