import { useCallback, useEffect, useMemo, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Button } from 'primereact/button';
import { Dialog } from 'primereact/dialog';
import type { AppRoute, ConversationView, OptionItem } from '@centralita/contracts';
import type { Actor } from '@centralita/domain';
import { describeError } from '../api/error-text';
import { PageHeader } from '../layout/PageHeader';
import { useToast } from '../toast/ToastProvider';
import { formatDateTime } from '../format/format';
import { AgentStatusBadge, ChannelBadge, ConversationStatusBadge } from './components/Badges';
import { ChatInput, type PredefinedOption } from './components/ChatInput';
import { MessageList } from './components/MessageList';
import { askNotificationPermission, beep, desktopNotify } from './components/notify';
import { newClientMessageId } from './desk-api';
import { canAgent, canBecomeAvailable, canConversation } from './logic/machines';
import { transferTargets } from './logic/transfer';
import { elapsedSince, formatDuration } from './logic/time';
import { useServerClock } from './realtime/useServerClock';
import { useAgentDesk } from './useAgentDesk';
import { useDeskApi } from './useDeskApi';
import './desk.css';
import { ListState } from './components/ListState';
import { SoftphoneDock } from '../softphone/SoftphoneDock';
import { OutboundDeskPanel } from '../outbound/OutboundDeskPanel';

export const DISPOSITIONS = ['resolved', 'sale', 'followUp', 'information', 'complaint', 'noAnswer', 'spam'] as const;

export function AgentDeskPage({ route }: { route: AppRoute }) {
  const { t } = useTranslation();
  const toast = useToast();
  const api = useDeskApi();
  const { offset, now } = useServerClock(api);
  const onAssigned = useCallback(
    (view: ConversationView) => {
      beep();
      desktopNotify(t('desk.notify.title'), t('desk.notify.body', { name: view.customerName }));
      toast.info(t('desk.notify.title'), t('desk.notify.body', { name: view.customerName }));
    },
    [t, toast],
  );
  const desk = useAgentDesk(api, onAssigned);
  const { state } = desk;
  const actor: Actor = { kind: 'agent', id: state.me.id };
  const reasons = state.pauseReasons.map((reason) => reason.code);
  const [reason, setReason] = useState('');
  const [busy, setBusy] = useState(false);
  const [predefined, setPredefined] = useState<PredefinedOption[] | null>(null);
  const [emoticons, setEmoticons] = useState<string[] | null>(null);
  const [lines, setLines] = useState<OptionItem[] | null>(null);
  const [agents, setAgents] = useState<{ id: string; name: string }[]>([]);
  const [dialog, setDialog] = useState<'transfer' | 'close' | null>(null);

  // Campaigns the agent may start a shift in; with more than one, they choose before starting.
  const [campaigns, setCampaigns] = useState<{ id: string; name: string }[]>([]);
  const [campaign, setCampaign] = useState('');
  useEffect(() => {
    api
      .campaigns()
      .then((list) => {
        setCampaigns(list);
        setCampaign((held) => held || list[0]?.id || '');
      })
      .catch(() => undefined);
  }, [api]);
  useEffect(askNotificationPermission, []);
  useEffect(() => {
    api
      .predefinedMessages()
      .then((items) => setPredefined(items.map((item) => ({ id: item.id, shortcut: item.shortcut, message: item.message }))))
      .catch(() => setPredefined([]));
    // The tenant's emoticons (platform settings); none or a failure leaves the built-in list.
    api
      .emoticons()
      .then(setEmoticons)
      .catch(() => setEmoticons(null));
    api
      .transferTargets()
      .then((targets) => {
        setLines(targets.lines);
        setAgents(targets.agents.map((agent) => ({ id: agent.id, name: agent.name })));
      })
      .catch(() => {
        setLines([]);
        setAgents([]);
      });
  }, [api]);
  useEffect(() => {
    if (!reason && state.pauseReasons[0]) setReason(state.pauseReasons[0].code);
  }, [reason, state.pauseReasons]);

  const run = async (action: () => Promise<unknown>) => {
    setBusy(true);
    try {
      await action();
    } catch (error) {
      toast.error(t('desk.errors.actionFailed'), describeError(error, t));
    } finally {
      setBusy(false);
    }
  };

  const presence = state.presence;
  const selected = state.conversations.find((view) => view.id === state.selectedId) ?? null;
  const lineName = (id: string | null) => (id ? (lines?.find((line) => line.id === id)?.name ?? id.slice(0, 8)) : t('format.notAvailable'));

  return (
    <section className="desk-page" data-testid="agent-desk">
      <PageHeader title={t(`routes.${route.titleKey}`)} icon={route.icon} />
      <div className="desk-card desk-presence" data-testid="presence-panel">
        <div className="desk-presence__state">
          {presence ? (
            <AgentStatusBadge status={presence.status} reason={presence.pauseReasonId} />
          ) : (
            <span className="muted">{t('common.loading')}</span>
          )}
          <span className="desk-presence__timer" data-testid="presence-time" title={t('desk.presence.timeInState')}>
            <i className="pi pi-clock" aria-hidden="true" />{' '}
            {presence && presence.version > 0 ? formatDuration(elapsedSince(presence.stateSince, now, offset)) : '--:--:--'}
          </span>
          {presence ? (
            <span className="muted" data-testid="presence-load">
              {t('desk.presence.load', { active: presence.activeCount, capacity: presence.capacity })}
            </span>
          ) : null}
          <span
            className={`desk-connection desk-connection--${state.connection}`}
            data-testid="connection-status"
            data-status={state.connection}
          >
            {t(`desk.connection.${state.connection}`)}
          </span>
        </div>
        <div className="desk-presence__actions">
          {presence?.status === 'loggedOut' && campaigns.length > 1 ? (
            <select
              className="p-inputtext p-component desk-select"
              value={campaign}
              onChange={(event) => setCampaign(event.target.value)}
              aria-label={t('desk.presence.campaign')}
              title={t('desk.presence.campaign')}
              data-testid="presence-campaign"
            >
              {campaigns.map((option) => (
                <option key={option.id} value={option.id}>
                  {option.name}
                </option>
              ))}
            </select>
          ) : null}
          <Button
            label={presence?.status === 'loggedOut' ? t('desk.presence.login') : t('desk.presence.available')}
            icon="pi pi-check-circle"
            severity="success"
            size="small"
            disabled={busy || !canBecomeAvailable(presence, reasons, actor)}
            onClick={() =>
              void run(async () =>
                desk.acceptPresence(presence?.status === 'loggedOut' ? await api.login(campaign || undefined) : await api.available()),
              )
            }
            data-testid="presence-available"
          />
          <select
            className="p-inputtext p-component desk-select"
            value={reason}
            onChange={(event) => setReason(event.target.value)}
            aria-label={t('desk.presence.pauseReason')}
            data-testid="pause-reason"
          >
            {state.pauseReasons.map((option) => (
              <option key={option.code} value={option.code}>
                {t(`desk.pauseReasons.${option.code}`, { defaultValue: option.label })}
              </option>
            ))}
          </select>
          <Button
            label={t('desk.presence.pause')}
            icon="pi pi-pause"
            severity="warning"
            size="small"
            disabled={busy || !reason || !canAgent(presence, reasons, actor, { type: 'agent.paused', reasonId: reason })}
            onClick={() => void run(async () => desk.acceptPresence(await api.pause(reason)))}
            data-testid="presence-pause"
          />
          <Button
            label={t('desk.presence.logout')}
            icon="pi pi-sign-out"
            severity="secondary"
            size="small"
            outlined
            disabled={busy || !canAgent(presence, reasons, actor, { type: 'agent.loggedOut' })}
            onClick={() => void run(async () => desk.acceptPresence(await api.logout()))}
            data-testid="presence-logout"
          />
        </div>
      </div>

      <OutboundDeskPanel />
      <div className="desk-grid">
        <aside className="desk-card desk-list" data-testid="my-conversations" aria-label={t('desk.list.title')}>
          <h2 className="desk-card__title">{t('desk.list.title')}</h2>
          <ListState
            loading={state.loading}
            empty={state.conversations.length === 0}
            emptyText={t('desk.list.empty')}
            emptyTestId="my-conversations-empty"
          >
            <ul className="desk-list__items">
              {state.conversations.map((view) => (
                <li key={view.id}>
                  <button
                    type="button"
                    className={`desk-list__item ${view.id === state.selectedId ? 'desk-list__item--active' : ''}`}
                    onClick={() => desk.select(view.id)}
                    data-testid="conversation-item"
                    data-conversation-id={view.id}
                    data-status={view.status}
                  >
                    <ChannelBadge channel={view.channel} compact />
                    <span className="desk-list__name">{view.customerName}</span>
                    <span className="desk-list__wait" title={t('desk.list.waiting')}>
                      {formatDuration(elapsedSince(view.createdAt, now, offset))}
                    </span>
                    {state.unread[view.id] ? (
                      <span
                        className="desk-unread"
                        data-testid="unread-count"
                        aria-label={t('desk.list.unread', { n: state.unread[view.id] })}
                      >
                        {state.unread[view.id]}
                      </span>
                    ) : null}
                    {view.status !== 'Active' ? <ConversationStatusBadge status={view.status} /> : null}
                  </button>
                </li>
              ))}
            </ul>
          </ListState>
        </aside>

        <div className="desk-card desk-chat" data-testid="chat-window">
          {selected ? (
            <>
              <header className="desk-chat__header">
                <div>
                  <strong data-testid="chat-customer-name">{selected.customerName}</strong>
                  <div className="desk-chat__sub">
                    <ChannelBadge channel={selected.channel} />
                    <ConversationStatusBadge status={selected.status} />
                  </div>
                </div>
                <div className="desk-chat__actions">
                  <Button
                    label={t('desk.chat.transfer')}
                    icon="pi pi-arrow-right-arrow-left"
                    size="small"
                    outlined
                    disabled={
                      busy ||
                      !canConversation(selected, actor, { type: 'conversation.transferred', to: { kind: 'agent', agentId: '__any__' } })
                    }
                    onClick={() => setDialog('transfer')}
                    data-testid="chat-transfer"
                  />
                  <Button
                    label={t('desk.chat.close')}
                    icon="pi pi-check"
                    size="small"
                    severity="danger"
                    disabled={busy || !canConversation(selected, actor, { type: 'conversation.closed', reason: 'resolved' })}
                    onClick={() => setDialog('close')}
                    data-testid="chat-close"
                  />
                </div>
              </header>
              <MessageList
                messages={state.messages[selected.id] ?? []}
                notes={state.notes[selected.id] ?? []}
                perspective="staff"
                typing={state.typing[selected.id]}
              />
              <ChatInput
                disabled={selected.status !== 'Active' || selected.agentId !== state.me.id}
                predefined={predefined}
                emoticons={emoticons}
                onTyping={(typing) => void api.typing(selected.id, typing).catch(() => undefined)}
                onSend={async (text) => {
                  try {
                    desk.acceptMessage(await api.send(selected.id, text, newClientMessageId()));
                  } catch (error) {
                    toast.error(t('desk.errors.sendFailed'), describeError(error, t));
                    throw error;
                  }
                }}
              />
            </>
          ) : (
            <p className="muted desk-empty" data-testid="chat-empty">
              {state.loading ? t('common.loading') : t('desk.chat.selectConversation')}
            </p>
          )}
        </div>

        <aside className="desk-card desk-customer" data-testid="customer-panel" aria-label={t('desk.customer.title')}>
          <h2 className="desk-card__title">{t('desk.customer.title')}</h2>
          {selected ? (
            <dl className="desk-facts">
              <dt>{t('desk.customer.name')}</dt>
              <dd data-testid="customer-name">{selected.customerName}</dd>
              <dt>{t('desk.customer.email')}</dt>
              <dd>{selected.customerEmail ?? t('format.notAvailable')}</dd>
              <dt>{t('desk.customer.channel')}</dt>
              <dd>
                <ChannelBadge channel={selected.channel} />
              </dd>
              <dt>{t('desk.customer.line')}</dt>
              <dd>{lineName(selected.attentionLineId)}</dd>
              <dt>{t('desk.customer.started')}</dt>
              <dd>{formatDateTime(selected.createdAt)}</dd>
              <dt>{t('desk.customer.duration')}</dt>
              <dd>{formatDuration(elapsedSince(selected.createdAt, now, offset))}</dd>
            </dl>
          ) : (
            <p className="muted desk-empty">{t('desk.customer.none')}</p>
          )}
        </aside>
      </div>

      {selected ? (
        <>
          <TransferDialog
            open={dialog === 'transfer'}
            onHide={() => setDialog(null)}
            conversation={selected}
            actor={actor}
            lines={lines ?? []}
            agents={agents}
            onTransfer={(target) =>
              run(async () => {
                desk.acceptConversation(await api.transfer(selected.id, target));
                setDialog(null);
                toast.success(t('desk.chat.transferred'));
              })
            }
          />
          <CloseDialog
            open={dialog === 'close'}
            onHide={() => setDialog(null)}
            onClose={(disposition) =>
              run(async () => {
                desk.acceptConversation(await api.close(selected.id, disposition));
                setDialog(null);
              })
            }
          />
        </>
      ) : null}
      <SoftphoneDock />
    </section>
  );
}

export function TransferDialog({
  open,
  onHide,
  conversation,
  actor,
  lines,
  agents = [],
  onTransfer,
}: {
  open: boolean;
  onHide: () => void;
  conversation: ConversationView;
  actor: Actor;
  lines: OptionItem[];
  agents?: { id: string; name: string }[];
  onTransfer: (target: { attentionLineId?: string; agentId?: string }) => Promise<unknown>;
}) {
  const { t } = useTranslation();
  const [target, setTarget] = useState('');
  const options = useMemo(() => {
    const targets = transferTargets(conversation, actor, lines, agents);
    return [
      ...targets.lines.map((line) => ({ value: `line:${line.id}`, label: `${t('desk.transfer.line')}: ${line.name}` })),
      ...targets.agents.map((agent) => ({ value: `agent:${agent.id}`, label: `${t('desk.transfer.agent')}: ${agent.name}` })),
    ];
  }, [lines, agents, conversation, actor, t]);
  const [kind, id] = target.split(':');
  return (
    <Dialog header={t('desk.transfer.title')} visible={open} onHide={onHide} style={{ width: '28rem' }} data-testid="transfer-dialog">
      {options.length === 0 ? (
        <p className="muted" data-testid="transfer-none">
          {t('desk.transfer.none')}
        </p>
      ) : (
        <label className="desk-field">
          <span>{t('desk.transfer.target')}</span>
          <select
            className="p-inputtext p-component"
            value={target}
            onChange={(event) => setTarget(event.target.value)}
            data-testid="transfer-target"
          >
            <option value="">{t('desk.transfer.choose')}</option>
            {options.map((option) => (
              <option key={option.value} value={option.value}>
                {option.label}
              </option>
            ))}
          </select>
        </label>
      )}
      <div className="desk-dialog__actions">
        <Button label={t('desk.common.cancel')} text onClick={onHide} />
        <Button
          label={t('desk.transfer.confirm')}
          disabled={!target}
          onClick={() => void onTransfer(kind === 'line' ? { attentionLineId: id } : { agentId: id })}
          data-testid="transfer-confirm"
        />
      </div>
    </Dialog>
  );
}

function CloseDialog({ open, onHide, onClose }: { open: boolean; onHide: () => void; onClose: (disposition: string) => Promise<unknown> }) {
  const { t } = useTranslation();
  const [disposition, setDisposition] = useState<string>('');
  return (
    <Dialog header={t('desk.close.title')} visible={open} onHide={onHide} style={{ width: '26rem' }} data-testid="close-dialog">
      <label className="desk-field">
        <span>{t('desk.close.disposition')}</span>
        <select
          className="p-inputtext p-component"
          value={disposition}
          onChange={(event) => setDisposition(event.target.value)}
          data-testid="close-disposition"
        >
          <option value="">{t('desk.transfer.choose')}</option>
          {DISPOSITIONS.map((code) => (
            <option key={code} value={code}>
              {t(`desk.dispositions.${code}`)}
            </option>
          ))}
        </select>
      </label>
      <div className="desk-dialog__actions">
        <Button label={t('desk.common.cancel')} text onClick={onHide} />
        <Button
          label={t('desk.close.confirm')}
          severity="danger"
          disabled={!disposition}
          onClick={() => void onClose(disposition)}
          data-testid="close-confirm"
        />
      </div>
    </Dialog>
  );
}
