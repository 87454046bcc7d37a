import { useEffect, useMemo, useState } from 'react';
import { useSearchParams } from 'react-router-dom';
import { useTranslation } from 'react-i18next';
import { Button } from 'primereact/button';
import type { AppRoute } from '@centralita/contracts';
import { CONVERSATION_STATUSES, isReadyAgentStatus, type Actor } from '@centralita/domain';
import { useAuth } from '../app/ServicesContext';
import { describeError } from '../api/error-text';
import { ConfirmActionDialog } from '../components/DialogFooter';
import { PageHeader } from '../layout/PageHeader';
import { useToast } from '../toast/ToastProvider';
import { TransferDialog } from './AgentDeskPage';
import { AgentStatusBadge, ChannelBadge, ConversationStatusBadge } from './components/Badges';
import { CallMonitorBar } from './components/CallMonitorBar';
import { ChatInput } from './components/ChatInput';
import { MessageList } from './components/MessageList';
import { CHANNELS } from './logic/channels';
import { useChannelLabel } from './useChannelLabel';
import { canAgent, canConversation } from './logic/machines';
import { elapsedSince, formatDuration } from './logic/time';
import { useServerClock } from './realtime/useServerClock';
import { useDeskApi } from './useDeskApi';
import { useSupervision } from './useSupervision';
import './desk.css';
import './supervision.css';
import { ListState } from './components/ListState';

/** A supervisor action on an agent waiting for its confirmation. */
type PendingAction = { kind: 'pause'; agentId: string; name: string; reasonId: string } | { kind: 'logout'; agentId: string; name: string };

interface Filters {
  status: string;
  line: string;
  agent: string;
  channel: string;
}

export function SupervisorPage({ route }: { route: AppRoute }) {
  const { t } = useTranslation();
  const channelLabel = useChannelLabel();
  const toast = useToast();
  const { user } = useAuth();
  const api = useDeskApi();
  const { offset, now } = useServerClock(api);
  const [showAll, setShowAll] = useState(false);
  const live = useSupervision(api, showAll);
  const [filters, setFilters] = useState<Filters>({ status: '', line: '', agent: '', channel: '' });
  const [forceReason, setForceReason] = useState<Record<string, string>>({});
  const [reassignOpen, setReassignOpen] = useState(false);
  const [pending, setPending] = useState<PendingAction | null>(null);
  const actor: Actor = { kind: 'supervisor', id: user?.id };
  // /livePersonConversations/LivePersonWindowChat?conversationId=… opens that conversation at once.
  const [params] = useSearchParams();
  const requested = params.get('conversationId');
  const { watch } = live;
  useEffect(() => {
    if (requested && /^[0-9a-f-]{36}$/i.test(requested)) watch(requested);
  }, [requested, watch]);
  const reasons = live.pauseReasons.map((reason) => reason.code);

  const lineNames = useMemo(() => new Map(live.queues.map((queue) => [queue.attentionLineId, queue.name])), [live.queues]);
  const agentNames = useMemo(() => new Map(live.agents.map((agent) => [agent.agentId, agent.name])), [live.agents]);
  const lineName = (id: string | null) => (id ? (lineNames.get(id) ?? id.slice(0, 8)) : t('format.notAvailable'));
  const agentName = (id: string | null) => (id ? (agentNames.get(id) ?? id.slice(0, 8)) : t('format.notAvailable'));

  const rows = live.conversations
    .filter((view) => showAll || view.status !== 'Closed')
    .filter((view) => !filters.status || view.status === filters.status)
    .filter((view) => !filters.line || view.attentionLineId === filters.line)
    .filter((view) => !filters.agent || view.agentId === filters.agent)
    .filter((view) => !filters.channel || view.channel.toLowerCase() === filters.channel)
    .sort((a, b) => b.createdAt.localeCompare(a.createdAt));
  const watched = live.conversations.find((view) => view.id === live.watched) ?? null;
  const agents = [...live.agents].sort((a, b) => a.name.localeCompare(b.name));

  const run = async (action: () => Promise<unknown>) => {
    try {
      await action();
    } catch (error) {
      toast.error(t('desk.errors.actionFailed'), describeError(error, t));
    }
  };
  const setFilter = (key: keyof Filters, value: string) => setFilters((held) => ({ ...held, [key]: value }));
  const reasonLabel = (code: string) =>
    t(`desk.pauseReasons.${code}`, { defaultValue: live.pauseReasons.find((reason) => reason.code === code)?.label ?? code });
  const confirmPending = () => {
    const action = pending;
    setPending(null);
    if (!action) return;
    void run(async () => {
      if (action.kind === 'pause') live.acceptAgent(await api.forcePause(action.agentId, action.reasonId));
      else live.acceptAgent(await api.forceLogout(action.agentId));
      toast.success(
        t(action.kind === 'pause' ? 'desk.supervision.forcePauseDone' : 'desk.supervision.forceLogoutDone', { name: action.name }),
      );
    });
  };

  return (
    <section className="desk-page" data-testid="supervisor-view">
      <PageHeader
        title={t(`routes.${route.titleKey}`)}
        icon={route.icon}
        actions={
          <span
            className={`desk-connection desk-connection--${live.connection}`}
            data-testid="connection-status"
            data-status={live.connection}
          >
            {t(`desk.connection.${live.connection}`)}
          </span>
        }
      />

      {live.alerts.length > 0 ? (
        <div className="desk-card desk-alerts" role="alert" data-testid="sentiment-alerts">
          <h2 className="desk-card__title">
            <i className="pi pi-exclamation-circle" aria-hidden="true" /> {t('desk.supervision.negativeAlerts')}
          </h2>
          <ul className="desk-alerts__list">
            {live.alerts.map((alert) => (
              <li key={alert.conversationId} data-testid="sentiment-alert" data-conversation-id={alert.conversationId}>
                <button type="button" className="desk-link" onClick={() => live.watch(alert.conversationId)}>
                  {alert.customerName}
                </button>{' '}
                <span className="muted">
                  {t('desk.supervision.negativeAlertDetail', {
                    line: lineName(alert.attentionLineId),
                    agent: agentName(alert.agentId),
                    score: alert.rolling.toFixed(2),
                  })}
                </span>{' '}
                <Button
                  type="button"
                  size="small"
                  text
                  label={t('desk.supervision.dismissAlert')}
                  onClick={() => live.dismissAlert(alert.conversationId)}
                  data-testid="sentiment-alert-dismiss"
                />
              </li>
            ))}
          </ul>
        </div>
      ) : null}

      <div className="desk-card" data-testid="live-queues">
        <h2 className="desk-card__title">{t('desk.supervision.queues')}</h2>
        <ListState loading={live.loading} empty={live.queues.length === 0} emptyText={t('desk.supervision.noQueues')}>
          <div className="desk-queues">
            {live.queues.map((queue) => (
              <div
                key={queue.attentionLineId}
                className={unserved(queue) ? 'desk-queue desk-queue--unserved' : 'desk-queue'}
                data-testid="queue-card"
                data-line-id={queue.attentionLineId}
                data-unserved={unserved(queue)}
              >
                <strong className="desk-queue__name">{queue.name}</strong>
                <QueueStats queue={queue} now={now} testIdPrefix="queue" />
              </div>
            ))}
          </div>
        </ListState>
        {live.campaignQueues.length > 0 ? (
          <>
            <h3 className="desk-card__subtitle">{t('desk.supervision.campaignQueues')}</h3>
            <div className="desk-queues" data-testid="campaign-queues">
              {live.campaignQueues.map((queue) => (
                <div
                  key={queue.campaignId}
                  className={unserved(queue) ? 'desk-queue desk-queue--unserved' : 'desk-queue'}
                  data-testid="campaign-queue-card"
                  data-campaign-id={queue.campaignId}
                  data-unserved={unserved(queue)}
                >
                  <strong className="desk-queue__name">{queue.name}</strong>
                  <span className="muted">{t('desk.supervision.campaignLines', { count: queue.lines })}</span>
                  <QueueStats queue={queue} now={now} testIdPrefix="campaign-queue" />
                </div>
              ))}
            </div>
          </>
        ) : null}
      </div>

      <div className="desk-card" data-testid="agent-board">
        <h2 className="desk-card__title">{t('desk.supervision.agents')}</h2>
        <ListState
          loading={live.loading}
          empty={agents.length === 0}
          emptyText={t('desk.supervision.noAgents')}
          emptyTestId="agent-board-empty"
        >
          <table className="desk-table">
            <thead>
              <tr>
                <th>{t('desk.supervision.agent')}</th>
                <th>{t('desk.supervision.state')}</th>
                <th>{t('desk.presence.timeInState')}</th>
                <th>{t('desk.supervision.loadColumn')}</th>
                <th>{t('desk.supervision.actions')}</th>
              </tr>
            </thead>
            <tbody>
              {agents.map((agent) => {
                const reason = forceReason[agent.agentId] ?? live.pauseReasons[0]?.code ?? '';
                return (
                  <tr key={agent.agentId} data-testid="agent-row" data-agent-id={agent.agentId} data-status={agent.status}>
                    <td>{agent.name}</td>
                    <td>
                      <AgentStatusBadge status={agent.status} reason={agent.pauseReasonId} />
                    </td>
                    <td data-testid="agent-time-in-state">{formatDuration(elapsedSince(agent.stateSince, now, offset))}</td>
                    <td data-testid="agent-load">
                      {agent.activeCount}/{agent.capacity}
                    </td>
                    <td className="desk-table__actions">
                      <select
                        className="p-inputtext p-component desk-select desk-select--small"
                        value={reason}
                        aria-label={t('desk.presence.pauseReason')}
                        onChange={(event) => setForceReason((held) => ({ ...held, [agent.agentId]: event.target.value }))}
                        data-testid="agent-force-reason"
                      >
                        {live.pauseReasons.map((option) => (
                          <option key={option.code} value={option.code}>
                            {t(`desk.pauseReasons.${option.code}`, { defaultValue: option.label })}
                          </option>
                        ))}
                      </select>
                      <Button
                        icon="pi pi-pause"
                        size="small"
                        severity="warning"
                        text
                        label={t('desk.supervision.forcePause')}
                        tooltip={t('desk.supervision.forcePauseHint')}
                        tooltipOptions={{ position: 'top' }}
                        disabled={!reason || !canAgent(agent, reasons, actor, { type: 'agent.forcePaused', reasonId: reason })}
                        onClick={() => setPending({ kind: 'pause', agentId: agent.agentId, name: agent.name, reasonId: reason })}
                        data-testid="agent-force-pause"
                      />
                      <Button
                        icon="pi pi-sign-out"
                        size="small"
                        severity="danger"
                        text
                        label={t('desk.supervision.forceLogout')}
                        tooltip={t('desk.supervision.forceLogoutHint')}
                        tooltipOptions={{ position: 'top' }}
                        disabled={!canAgent(agent, reasons, actor, { type: 'agent.forceLoggedOut' })}
                        onClick={() => setPending({ kind: 'logout', agentId: agent.agentId, name: agent.name })}
                        data-testid="agent-force-logout"
                      />
                    </td>
                  </tr>
                );
              })}
            </tbody>
          </table>
        </ListState>
        <ConfirmActionDialog
          visible={pending !== null}
          onHide={() => setPending(null)}
          header={t(pending?.kind === 'logout' ? 'desk.supervision.forceLogoutConfirmTitle' : 'desk.supervision.forcePauseConfirmTitle')}
          message={
            pending === null ? null : (
              <span data-testid="agent-force-confirm-message">
                {pending.kind === 'pause'
                  ? t('desk.supervision.forcePauseConfirm', { name: pending.name, reason: reasonLabel(pending.reasonId) })
                  : t('desk.supervision.forceLogoutConfirm', {
                      name: pending.name,
                      count: live.agents.find((agent) => agent.agentId === pending.agentId)?.activeCount ?? 0,
                    })}
              </span>
            )
          }
          keep={{ label: t('desk.supervision.keepAgent'), testId: 'agent-force-cancel' }}
          action={{
            label: t(pending?.kind === 'logout' ? 'desk.supervision.forceLogout' : 'desk.supervision.forcePause'),
            icon: pending?.kind === 'logout' ? 'pi pi-sign-out' : 'pi pi-pause',
            onClick: confirmPending,
            testId: 'agent-force-confirm',
          }}
        />
      </div>

      <div className="desk-supervision-grid">
        <div className="desk-card" data-testid="conversation-monitor">
          <h2 className="desk-card__title">{t('desk.supervision.conversations')}</h2>
          <div className="desk-filters">
            <FilterSelect
              name="status"
              value={filters.status}
              onChange={setFilter}
              label={t('desk.supervision.state')}
              all={t('desk.supervision.allStatuses')}
              options={CONVERSATION_STATUSES.map((status) => ({ value: status, label: t(`desk.conversationStatus.${status}`) }))}
            />
            <FilterSelect
              name="line"
              value={filters.line}
              onChange={setFilter}
              label={t('desk.customer.line')}
              all={t('desk.supervision.allLines')}
              options={live.queues.map((queue) => ({ value: queue.attentionLineId, label: queue.name }))}
            />
            <FilterSelect
              name="agent"
              value={filters.agent}
              onChange={setFilter}
              label={t('desk.supervision.agent')}
              all={t('desk.supervision.allAgents')}
              options={agents.map((agent) => ({ value: agent.agentId, label: agent.name }))}
            />
            <FilterSelect
              name="channel"
              value={filters.channel}
              onChange={setFilter}
              label={t('desk.customer.channel')}
              all={t('desk.supervision.allChannels')}
              options={CHANNELS.map((channel) => ({ value: channel.key, label: channelLabel(channel) }))}
            />
            <label className="desk-check">
              <input
                type="checkbox"
                checked={showAll}
                onChange={(event) => setShowAll(event.target.checked)}
                data-testid="show-all-conversations"
              />
              {t('desk.supervision.showAll')}
            </label>
          </div>
          <ListState
            loading={live.loading}
            empty={rows.length === 0}
            emptyText={t('desk.supervision.noConversations')}
            emptyTestId="conversation-monitor-empty"
          >
            <table className="desk-table">
              <thead>
                <tr>
                  <th>{t('desk.customer.channel')}</th>
                  <th>{t('desk.customer.name')}</th>
                  <th>{t('desk.supervision.state')}</th>
                  <th>{t('desk.customer.line')}</th>
                  <th>{t('desk.supervision.agent')}</th>
                  <th>{t('desk.customer.duration')}</th>
                </tr>
              </thead>
              <tbody>
                {rows.map((view) => (
                  <tr
                    key={view.id}
                    className={view.id === live.watched ? 'desk-table__row--active' : undefined}
                    data-testid="monitor-row"
                    data-conversation-id={view.id}
                    data-status={view.status}
                    onClick={() => live.watch(view.id)}
                  >
                    <td>
                      <ChannelBadge channel={view.channel} compact />
                    </td>
                    <td>
                      <button type="button" className="desk-link" onClick={() => live.watch(view.id)} data-testid="monitor-open">
                        {view.customerName}
                      </button>
                    </td>
                    <td>
                      <ConversationStatusBadge status={view.status} />
                    </td>
                    <td>{lineName(view.attentionLineId)}</td>
                    <td>{agentName(view.agentId)}</td>
                    <td>
                      {formatDuration(
                        elapsedSince(view.createdAt, view.status === 'Closed' ? Date.parse(view.updatedAt) - offset : now, offset),
                      )}
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </ListState>
        </div>

        <div className="desk-card desk-chat desk-watch" data-testid="watch-panel">
          {watched ? (
            <>
              <header className="desk-chat__header">
                <div>
                  <strong data-testid="watch-customer-name">{watched.customerName}</strong>
                  <div className="desk-chat__sub">
                    <ChannelBadge channel={watched.channel} />
                    <ConversationStatusBadge status={watched.status} />
                    <span className="muted">{t('desk.supervision.readOnly')}</span>
                  </div>
                </div>
                <div className="desk-chat__actions">
                  <Button
                    label={t('desk.supervision.reassign')}
                    icon="pi pi-arrow-right-arrow-left"
                    size="small"
                    outlined
                    disabled={
                      !live.queues.some((queue) =>
                        canConversation(watched, actor, {
                          type: 'conversation.transferred',
                          to: { kind: 'line', attentionLineId: queue.attentionLineId, pollId: null },
                        }),
                      ) && !canConversation(watched, actor, { type: 'conversation.transferred', to: { kind: 'agent', agentId: '__any__' } })
                    }
                    onClick={() => setReassignOpen(true)}
                    data-testid="watch-reassign"
                  />
                  <Button
                    icon="pi pi-times"
                    size="small"
                    text
                    aria-label={t('desk.common.closePanel')}
                    tooltip={t('desk.common.closePanel')}
                    tooltipOptions={{ position: 'left' }}
                    onClick={() => live.watch(null)}
                    data-testid="watch-close"
                  />
                </div>
              </header>
              {watched.channel.toLowerCase() === 'phone' && watched.status !== 'Closed' ? (
                <CallMonitorBar api={api} conversationId={watched.id} userId={user?.id} changed={live.callChange} />
              ) : null}
              <MessageList
                messages={live.messages}
                notes={live.notes}
                perspective="staff"
                typing={live.typing}
                loadAttachment={(attachment) => api.attachment(attachment.url)}
              />
              <div className="desk-whisper">
                <span className="desk-whisper__label">{t('desk.supervision.whisper')}</span>
                <ChatInput
                  testIdPrefix="whisper"
                  disabled={watched.status === 'Closed'}
                  onSend={async (text) => {
                    try {
                      live.acceptNote(await api.addNote(watched.id, text));
                    } catch (error) {
                      // Shown in the user's language, then rethrown so ChatInput keeps the text.
                      toast.error(t('desk.errors.noteFailed'), describeError(error, t));
                      throw error;
                    }
                  }}
                />
              </div>
              <TransferDialog
                open={reassignOpen}
                onHide={() => setReassignOpen(false)}
                conversation={watched}
                actor={actor}
                lines={live.queues.map((queue) => ({ id: queue.attentionLineId, name: queue.name }))}
                agents={agents
                  .filter((agent) => isReadyAgentStatus(agent.status))
                  .map((agent) => ({ id: agent.agentId, name: agent.name }))}
                onTransfer={(target) =>
                  run(async () => {
                    live.acceptConversation(await api.reassign(watched.id, target));
                    setReassignOpen(false);
                    toast.success(t('desk.chat.transferred'));
                  })
                }
              />
            </>
          ) : (
            <p className="muted desk-empty" data-testid="watch-empty">
              {t('desk.supervision.pickConversation')}
            </p>
          )}
        </div>
      </div>
    </section>
  );
}

/** Customers are waiting and no agent of the queue is available to take them: the board colours it. */
function unserved(queue: { waiting: number; agentsAvailable: number }): boolean {
  return queue.waiting > 0 && queue.agentsAvailable === 0;
}

/** One filter of the conversation monitor: "all" first, then the options (test id `filter-<name>`). */
function FilterSelect<K extends string>({
  name,
  value,
  onChange,
  label,
  all,
  options,
}: {
  name: K;
  value: string;
  onChange: (name: K, value: string) => void;
  label: string;
  all: string;
  options: { value: string; label: string }[];
}) {
  return (
    <select
      className="p-inputtext p-component desk-select"
      value={value}
      onChange={(event) => onChange(name, event.target.value)}
      aria-label={label}
      data-testid={`filter-${name}`}
    >
      <option value="">{all}</option>
      {options.map((option) => (
        <option key={option.value} value={option.value}>
          {option.label}
        </option>
      ))}
    </select>
  );
}

/**
 * Waiting, longest wait (advanced locally since the last push while anyone waits) and agents
 * available, for a line's queue and a campaign's alike.
 */
function QueueStats({
  queue,
  now,
  testIdPrefix,
}: {
  queue: { waiting: number; longestWaitMs: number; agentsAvailable: number; receivedAt: number };
  now: number;
  testIdPrefix: 'queue' | 'campaign-queue';
}) {
  const { t } = useTranslation();
  return (
    <div className="desk-queue__stats">
      <span>
        <b data-testid={`${testIdPrefix}-waiting`}>{queue.waiting}</b> {t('desk.supervision.waiting')}
      </span>
      <span>
        <b data-testid={`${testIdPrefix}-longest`}>
          {formatDuration(queue.longestWaitMs + (queue.waiting > 0 ? Math.max(0, now - queue.receivedAt) : 0))}
        </b>{' '}
        {t('desk.supervision.longestWait')}
      </span>
      <span>
        <b data-testid={`${testIdPrefix}-available`}>{queue.agentsAvailable}</b> {t('desk.supervision.agentsAvailable')}
      </span>
      {unserved(queue) ? (
        <span className="desk-queue__warning" data-testid={`${testIdPrefix}-unserved`}>
          <i className="pi pi-exclamation-triangle" aria-hidden="true" /> {t('desk.supervision.noAgentForWaiting')}
        </span>
      ) : null}
    </div>
  );
}
