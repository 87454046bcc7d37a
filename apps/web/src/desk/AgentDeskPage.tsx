import { useCallback, useEffect, useLayoutEffect, useMemo, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useSearchParams } from 'react-router-dom';
import { Button } from 'primereact/button';
import { Dialog } from 'primereact/dialog';
import {
  PHONE_CHANNEL,
  type AppRoute,
  type AttachmentView,
  type ChannelKindView,
  type ConversationContext,
  type ConversationView,
  type TransferTargets,
} from '@centralita/contracts';
import { isReadyAgentStatus, type Actor } from '@centralita/domain';
import { describeError } from '../api/error-text';
import { isApiError } from '../api/api-error';
import { PageHeader } from '../layout/PageHeader';
import { useToast } from '../toast/ToastProvider';
import { formatDateTime } from '../format/format';
import { AgentStatusBadge, ChannelBadge, ConversationStatusBadge } from './components/Badges';
import { useChannelLabel } from './useChannelLabel';
import { ChatInput, type AttachOptions, type PredefinedOption } from './components/ChatInput';
import { ReplyWindowBanner, TemplatePicker } from './components/ReplyWindow';
import { attachmentRulesFor } from './logic/attachments';
import { allowsFreeText } from './logic/reply-window';
import { useReplyWindow } from './useReplyWindow';
import { uploadFile } from './upload';
import { useServices } from '../app/ServicesContext';
import { MessageList } from './components/MessageList';
import { askNotificationPermission, beep, desktopNotify } from './components/notify';
import { canAgent, canBecomeAvailable, canConversation } from './logic/machines';
import { agentRefusal, transferFailure, transferTargets } from './logic/transfer';
import { elapsedSince, formatDuration } from './logic/time';
import { useServerClock } from './realtime/useServerClock';
import { useAgentDesk } from './useAgentDesk';
import { useDeskApi } from './useDeskApi';
import './desk.css';
import { ListState } from './components/ListState';
import { SoftphoneDock } from '../softphone/SoftphoneDock';
import { CallConsultBar } from './components/CallConsultBar';
import { OutboundDeskPanel } from '../outbound/OutboundDeskPanel';
import { DeskVideoAction } from './components/video/DeskVideoAction';
import { BotSummaryCard } from './components/BotSummaryCard';
import { ContactPersonPanel } from './components/ContactPersonPanel';
import { DeskCaseAction } from '../crm/DeskCaseAction';
import { EmailConversation } from './components/email/EmailConversation';
import { createEmailApi } from './components/email/email-api';

/**
 * The query type the API's inbound processor gives a messaging conversation (WhatsApp, Messenger…),
 * with the channel kind as submenu: the customer never saw a menu, so the desk names the channel
 * they wrote from instead of showing the two internal codes.
 */
const MESSAGING_QUERY_TYPE = 'messaging';
/** The query type the bot queues a conversation under when it hands off (its reason is the submenu). */
const BOT_QUERY_TYPE = 'bot';

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
  const [targets, setTargets] = useState<TransferTargets>({ lines: [], agents: [] });
  const [dialog, setDialog] = useState<'transfer' | 'consult' | 'close' | null>(null);
  /** Bumped after a consultation starts: the call's consult bar re-reads it at once. */
  const [consultVersion, setConsultVersion] = useState(0);
  // The video panel docks here, under the conversation's header, never over the desk's controls.
  const [videoDock, setVideoDock] = useState<HTMLDivElement | null>(null);

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
  }, [api]);
  // Targets are read when the dialog opens and every few seconds while it stays open: colleagues
  // pause and fill up, queues grow, and the dialog must not offer what the server would refuse.
  const loadTargets = useCallback(() => {
    api
      .transferTargets()
      .then(setTargets)
      .catch(() => undefined);
  }, [api]);
  useEffect(() => {
    if (dialog !== 'transfer' && dialog !== 'consult') return;
    loadTargets();
    const timer = window.setInterval(loadTargets, TARGETS_REFRESH_MS);
    return () => window.clearInterval(timer);
  }, [dialog, loadTargets]);
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

  // ?conversation=<id> (/emails/SendEmail opens the conversation it started): selected once the desk lists it.
  const [params, setParams] = useSearchParams();
  const wanted = params.get('conversation');
  useEffect(() => {
    if (!wanted || !state.conversations.some((view) => view.id === wanted)) return;
    desk.select(wanted);
    setParams(
      (current) => {
        const next = new URLSearchParams(current);
        next.delete('conversation');
        return next;
      },
      { replace: true },
    );
  }, [wanted, state.conversations, desk, setParams]);

  const presence = state.presence;
  const selected = state.conversations.find((view) => view.id === state.selectedId) ?? null;
  const context = useConversationContext(api, selected);
  const selectedMessages = useMemo(() => (selected ? (state.messages[selected.id] ?? []) : []), [selected, state.messages]);
  const replyWindow = useReplyWindow(api, selected, selectedMessages, now + offset);

  // What each messaging channel accepts (GET /api/channel-kinds); web chat uses the platform's own rules.
  const [channelKinds, setChannelKinds] = useState<ChannelKindView[] | null>(null);
  useEffect(() => {
    api
      .channelKinds()
      .then(setChannelKinds)
      .catch(() => setChannelKinds(null));
  }, [api]);
  const { client, session } = useServices();
  const emailApi = useMemo(() => createEmailApi(client), [client]);
  const loadAttachment = useCallback((attachment: AttachmentView) => api.attachment(attachment.url), [api]);
  const attachFor = (conversation: ConversationView): AttachOptions => ({
    rules: attachmentRulesFor(conversation.channel, channelKinds),
    upload: async (file, mimeType, clientMessageId, onProgress, signal) => {
      const attempt = (token: string | null) =>
        uploadFile({ path: api.attachmentUploadPath(conversation.id), file, mimeType, clientMessageId, token, onProgress, signal });
      try {
        desk.acceptMessage(await attempt(session.getAccessToken()));
      } catch (error) {
        // An access token that expired during a long upload: refreshed once, as every other call does.
        if (!isApiError(error) || error.status !== 401) throw error;
        const refreshed = await client.refreshSession();
        if (!refreshed) throw error;
        desk.acceptMessage(await attempt(refreshed.accessToken));
      }
    },
  });
  const grid = useFitToWindow();

  return (
    <section className="desk-page" data-testid="agent-desk">
      <PageHeader title={t(`routes.${route.titleKey}`)} icon={route.icon} />
      <div className="desk-card desk-presence" data-testid="presence-panel">
        <div className="desk-presence__state">
          {presence ? (
            // Offline, the shift state is only the last one heard: marked so, never shown as current next to "offline".
            <span
              className={state.connection === 'offline' ? 'desk-presence__stale' : undefined}
              data-testid="presence-state"
              data-stale={state.connection === 'offline' ? 'true' : 'false'}
              title={state.connection === 'offline' ? t('desk.presence.lastKnown') : undefined}
            >
              <AgentStatusBadge status={presence.status} reason={presence.pauseReasonId} />
            </span>
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
            title={t('desk.connection.hint')}
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

      <div className="desk-grid" ref={grid}>
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
                  <DeskVideoAction key={selected.id} conversation={selected} meId={state.me.id} socket={desk.socket} dock={videoDock} />
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
              <div className="desk-video-dock" ref={setVideoDock} data-testid="video-dock" />
              {selected.channel === PHONE_CHANNEL && selected.status === 'Active' && selected.agentId === state.me.id ? (
                <CallConsultBar
                  key={`${selected.id}:${consultVersion}`}
                  api={api}
                  conversationId={selected.id}
                  onPick={() => setDialog('consult')}
                />
              ) : null}
              {selected.channel === 'email' ? (
                <EmailConversation
                  api={emailApi}
                  conversationId={selected.id}
                  messages={selectedMessages}
                  canReply={selected.status === 'Active' && selected.agentId === state.me.id}
                  disabledReason={t('email.composer.disabled')}
                  predefined={predefined}
                  loadAttachment={loadAttachment}
                  onSent={(message) => desk.acceptMessage(message)}
                  onError={(error) => toast.error(t('desk.errors.sendFailed'), describeError(error, t))}
                />
              ) : (
                <>
                  <MessageList
                    messages={selectedMessages}
                    notes={state.notes[selected.id] ?? []}
                    perspective="staff"
                    typing={state.typing[selected.id]}
                    loadAttachment={loadAttachment}
                  />
                  <ReplyWindowBanner state={replyWindow.state} now={now + offset} error={replyWindow.error} onRetry={replyWindow.reload} />
                  {replyWindow.state?.kind === 'closed' && replyWindow.state.templates ? (
                    <TemplatePicker
                      templates={replyWindow.templates}
                      error={replyWindow.templatesError}
                      onRetry={replyWindow.reload}
                      onSend={async (template, parameters, clientMessageId, file) => {
                        try {
                          const input = { name: template.name, language: template.language, ...parameters, clientMessageId };
                          desk.acceptMessage(
                            await (file ? api.sendTemplateWithFile(selected.id, input, file) : api.sendTemplate(selected.id, input)),
                          );
                        } catch (error) {
                          toast.error(t('desk.errors.sendFailed'), describeError(error, t));
                          replyWindow.reload();
                          throw error;
                        }
                      }}
                    />
                  ) : (
                    <ChatInput
                      disabled={
                        selected.status !== 'Active' ||
                        selected.agentId !== state.me.id ||
                        // A caller reads no text: the call bar above is how the agent reaches them.
                        selected.channel === PHONE_CHANNEL ||
                        (replyWindow.state !== null && replyWindow.state.kind !== 'loading' && !allowsFreeText(replyWindow.state))
                      }
                      disabledReason={
                        selected.channel === PHONE_CHANNEL
                          ? t('desk.chat.phoneNoText')
                          : replyWindow.state?.kind === 'optedOut'
                            ? t('desk.window.optedOut')
                            : replyWindow.state?.kind === 'closed'
                              ? t('desk.window.closedNoTemplates')
                              : undefined
                      }
                      predefined={predefined}
                      emoticons={emoticons}
                      attach={attachFor(selected)}
                      onTyping={(typing) => void api.typing(selected.id, typing).catch(() => undefined)}
                      onSend={async (text, clientMessageId) => {
                        try {
                          desk.acceptMessage(await api.send(selected.id, text, clientMessageId));
                        } catch (error) {
                          toast.error(t('desk.errors.sendFailed'), describeError(error, t));
                          // Refused because the window closed or the customer opted out meanwhile: show why.
                          if (isApiError(error) && (error.code === 'reply_window_closed' || error.code === 'contact_opted_out'))
                            replyWindow.reload();
                          throw error;
                        }
                      }}
                    />
                  )}
                </>
              )}
            </>
          ) : (
            <p className="muted desk-empty" data-testid="chat-empty">
              {state.loading ? t('common.loading') : t('desk.chat.selectConversation')}
            </p>
          )}
        </div>

        <div className="desk-side" data-testid="desk-side">
          <CustomerPanel selected={selected} context={context} now={now} offset={offset} />
          <SoftphoneDock />
          <OutboundDeskPanel />
        </div>
      </div>

      {selected ? (
        <>
          <TransferDialog
            open={dialog === 'transfer'}
            onHide={() => setDialog(null)}
            conversation={selected}
            actor={actor}
            lines={targets.lines}
            agents={targets.agents}
            onTransfer={async (target) => {
              desk.acceptConversation(await api.transfer(selected.id, target));
              setDialog(null);
              toast.success(t('desk.chat.transferred'));
            }}
          />
          <TransferDialog
            open={dialog === 'consult'}
            onHide={() => setDialog(null)}
            header={t('desk.callConsult.pickTitle')}
            confirmLabel={t('desk.callConsult.call')}
            conversation={selected}
            actor={actor}
            lines={targets.lines}
            agents={targets.agents}
            onTransfer={async (target) => {
              await api.startConsult(selected.id, target);
              setDialog(null);
              setConsultVersion((version) => version + 1);
            }}
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
    </section>
  );
}

/** Below this the desk row stops shrinking and the page scrolls instead. */
const MIN_DESK_ROW_PX = 360;

/**
 * Sizes the desk row (list, chat, side column) to what the window leaves below the header and the
 * presence bar, measured rather than guessed: the bar wraps differently per language and width,
 * and a guessed offset pushed the message box below the fold at 1366×768.
 */
function useFitToWindow() {
  const ref = useRef<HTMLDivElement>(null);
  useLayoutEffect(() => {
    const grid = ref.current;
    if (!grid) return;
    const fit = () => {
      const top = grid.getBoundingClientRect().top + window.scrollY;
      grid.style.setProperty('--desk-row', `${Math.max(MIN_DESK_ROW_PX, Math.floor(window.innerHeight - top - 16))}px`);
    };
    fit();
    const observer = new ResizeObserver(fit);
    if (grid.parentElement) observer.observe(grid.parentElement);
    window.addEventListener('resize', fit);
    return () => {
      observer.disconnect();
      window.removeEventListener('resize', fit);
    };
  }, []);
  return ref;
}

/** How often the open transfer dialog re-reads its targets. */
const TARGETS_REFRESH_MS = 3000;

type LineTarget = { id: string; name: string; agentsAvailable?: number; waiting?: number };
type AgentTarget = { id: string; name: string; status?: string; activeCount?: number; capacity?: number };

/**
 * Where a conversation can go: lines with how many agents have room and how many customers wait,
 * colleagues by state and load. A colleague who cannot take it now is shown disabled with the
 * reason; a refusal the server still answers (something changed meanwhile) is said in words here.
 */
export function TransferDialog({
  open,
  onHide,
  conversation,
  actor,
  lines,
  agents = [],
  onTransfer,
  header,
  confirmLabel,
}: {
  open: boolean;
  onHide: () => void;
  /** The attended transfer's picker reuses the dialog with its own title and button. */
  header?: string;
  confirmLabel?: string;
  conversation: ConversationView;
  actor: Actor;
  lines: LineTarget[];
  agents?: AgentTarget[];
  onTransfer: (target: { attentionLineId?: string; agentId?: string }) => Promise<unknown>;
}) {
  const { t } = useTranslation();
  const [target, setTarget] = useState('');
  const [sending, setSending] = useState(false);
  const [refusal, setRefusal] = useState<string | null>(null);
  const offered = useMemo(() => transferTargets(conversation, actor, lines, agents), [lines, agents, conversation, actor]);
  const refusalOf = (agent: AgentTarget) => {
    const why = agentRefusal(agent);
    if (!why) return null;
    return why.kind === 'full'
      ? t('desk.transfer.why.full')
      : t('desk.transfer.why.state', { state: t(`desk.agentStatus.${why.status}`, { defaultValue: why.status }) });
  };
  // A choice that became unavailable while the dialog was open is dropped, not sent.
  const [kind, id] = target.split(':');
  const chosenAgent = kind === 'agent' ? offered.agents.find((agent) => agent.id === id) : undefined;
  const stillOffered =
    (kind === 'line' && offered.lines.some((line) => line.id === id)) || (chosenAgent !== undefined && refusalOf(chosenAgent) === null);
  useEffect(() => {
    if (target && !stillOffered) setTarget('');
  }, [target, stillOffered]);
  useEffect(() => {
    if (!open) {
      setTarget('');
      setRefusal(null);
    }
  }, [open]);

  const send = async () => {
    setSending(true);
    setRefusal(null);
    try {
      await onTransfer(kind === 'line' ? { attentionLineId: id } : { agentId: id });
    } catch (error) {
      const failure = isApiError(error) ? transferFailure(error) : null;
      const name = chosenAgent?.name ?? offered.lines.find((line) => line.id === id)?.name ?? '';
      setRefusal(
        failure?.kind === 'agentState'
          ? isReadyAgentStatus(failure.status)
            ? t('desk.transfer.refused.full', { name })
            : t('desk.transfer.refused.state', { name, state: t(`desk.agentStatus.${failure.status}`, { defaultValue: failure.status }) })
          : failure?.kind === 'gone'
            ? t('desk.transfer.refused.gone')
            : describeError(error, t),
      );
      setTarget('');
    } finally {
      setSending(false);
    }
  };

  const empty = offered.lines.length === 0 && offered.agents.length === 0;
  return (
    <Dialog
      header={header ?? t('desk.transfer.title')}
      visible={open}
      onHide={onHide}
      style={{ width: '34rem' }}
      data-testid="transfer-dialog"
    >
      {empty ? (
        <p className="muted" data-testid="transfer-none">
          {t('desk.transfer.none')}
        </p>
      ) : (
        <div className="desk-transfer" role="radiogroup" aria-label={t('desk.transfer.target')}>
          {offered.lines.length > 0 ? <h3 className="desk-transfer__group">{t('desk.transfer.lines')}</h3> : null}
          {offered.lines.map((line) => (
            <TransferOption
              key={line.id}
              value={`line:${line.id}`}
              chosen={target}
              onChoose={setTarget}
              name={line.name}
              detail={
                line.agentsAvailable === undefined
                  ? null
                  : `${t('desk.transfer.agentsAvailable', { count: line.agentsAvailable })} · ${t('desk.transfer.waiting', { count: line.waiting ?? 0 })}`
              }
              warning={line.agentsAvailable === 0 ? t('desk.transfer.why.nobodyFree') : null}
              refusal={null}
              testId="transfer-line"
            />
          ))}
          {offered.agents.length > 0 ? <h3 className="desk-transfer__group">{t('desk.transfer.agents')}</h3> : null}
          {offered.agents.map((agent) => (
            <TransferOption
              key={agent.id}
              value={`agent:${agent.id}`}
              chosen={target}
              onChoose={setTarget}
              name={agent.name}
              detail={
                agent.status === undefined
                  ? null
                  : `${t(`desk.agentStatus.${agent.status}`, { defaultValue: agent.status })}${
                      agent.capacity === undefined
                        ? ''
                        : ` · ${t('desk.transfer.load', { active: agent.activeCount ?? 0, capacity: agent.capacity })}`
                    }`
              }
              warning={null}
              refusal={refusalOf(agent)}
              testId="transfer-agent"
            />
          ))}
        </div>
      )}
      {refusal ? (
        <p className="desk-transfer__refusal" role="alert" data-testid="transfer-refusal">
          {refusal}
        </p>
      ) : null}
      <div className="desk-dialog__actions">
        <Button label={t('desk.common.cancel')} text onClick={onHide} />
        <Button
          label={confirmLabel ?? t('desk.transfer.confirm')}
          disabled={!target || !stillOffered || sending}
          onClick={() => void send()}
          data-testid="transfer-confirm"
        />
      </div>
    </Dialog>
  );
}

function TransferOption({
  value,
  chosen,
  onChoose,
  name,
  detail,
  warning,
  refusal,
  testId,
}: {
  value: string;
  chosen: string;
  onChoose: (value: string) => void;
  name: string;
  detail: string | null;
  warning: string | null;
  refusal: string | null;
  testId: string;
}) {
  const [, id] = value.split(':');
  return (
    <label
      className={`desk-transfer__option${refusal ? ' desk-transfer__option--refused' : ''}${chosen === value ? ' desk-transfer__option--chosen' : ''}`}
      data-testid={testId}
      data-target-id={id}
      data-disabled={refusal ? 'true' : 'false'}
    >
      <input
        type="radio"
        name="transfer-target"
        value={value}
        checked={chosen === value}
        disabled={refusal !== null}
        onChange={() => onChoose(value)}
      />
      <span className="desk-transfer__text">
        <strong className="desk-transfer__name">{name}</strong>
        {detail ? <span className="desk-transfer__detail">{detail}</span> : null}
        {refusal ? (
          <span className="desk-transfer__why" data-testid="transfer-why">
            {refusal}
          </span>
        ) : null}
        {warning ? <span className="desk-transfer__warning">{warning}</span> : null}
      </span>
    </label>
  );
}

/** The selected chat's context (line name, menu choice, earlier conversations), re-read when it moves line. */
function useConversationContext(api: ReturnType<typeof useDeskApi>, selected: ConversationView | null): ConversationContext | null {
  const [context, setContext] = useState<ConversationContext | null>(null);
  const id = selected?.id ?? null;
  const line = selected?.attentionLineId ?? null;
  useEffect(() => {
    if (!id) return setContext(null);
    let current = true;
    api
      .context(id)
      .then((found) => {
        if (current) setContext(found);
      })
      .catch(() => {
        if (current) setContext(null);
      });
    return () => {
      current = false;
    };
  }, [api, id, line]);
  return context && context.conversationId === id ? context : null;
}

function CustomerPanel({
  selected,
  context,
  now,
  offset,
}: {
  selected: ConversationView | null;
  context: ConversationContext | null;
  now: number;
  offset: number;
}) {
  const { t } = useTranslation();
  const channelLabel = useChannelLabel();
  const none = t('format.notAvailable');
  return (
    <aside className="desk-card desk-customer" data-testid="customer-panel" aria-label={t('desk.customer.title')}>
      <h2 className="desk-card__title">{t('desk.customer.title')}</h2>
      {selected ? (
        <>
          <dl className="desk-facts">
            <dt>{t('desk.customer.name')}</dt>
            <dd data-testid="customer-name">{selected.customerName}</dd>
            <dt>{t('desk.customer.line')}</dt>
            <dd data-testid="customer-line">{context ? (context.lineName ?? none) : t('common.loading')}</dd>
            <dt>{t('desk.customer.menuChoice')}</dt>
            <dd data-testid="customer-menu">
              {context?.queryTypeId === MESSAGING_QUERY_TYPE
                ? channelLabel(context.submenuId)
                : context?.queryTypeId === BOT_QUERY_TYPE
                  ? `${t('bot.sender')} › ${t(`bot.summary.reasons.${context.submenuId}`, { defaultValue: context.submenuId ?? '' })}`
                  : context?.queryTypeId
                    ? `${t(`desk.widget.queryTypes.${context.queryTypeId}`, { defaultValue: context.queryTypeId })}${
                        context.submenuId ? ` › ${t(`desk.widget.submenus.${context.submenuId}`, { defaultValue: context.submenuId })}` : ''
                      }`
                    : none}
            </dd>
            <dt>{t('desk.customer.email')}</dt>
            <dd data-testid="customer-email">{selected.customerEmail ?? none}</dd>
            <dt>{t('desk.customer.channel')}</dt>
            <dd>
              <ChannelBadge channel={selected.channel} />
            </dd>
            <dt>{t('desk.customer.started')}</dt>
            <dd>
              {formatDateTime(selected.createdAt)} · {formatDuration(elapsedSince(selected.createdAt, now, offset))}
            </dd>
          </dl>
          <h3 className="desk-customer__subtitle">{t('desk.customer.earlier')}</h3>
          {context && context.earlier.length > 0 ? (
            <ul className="desk-earlier" data-testid="customer-earlier">
              {context.earlier.map((entry) => (
                <li key={entry.id} data-testid="customer-earlier-item">
                  <span>{formatDateTime(entry.createdAt)}</span>
                  <span className="muted">
                    {entry.lineName ?? none} · {t(`desk.conversationStatus.${entry.status}`, { defaultValue: entry.status })}
                    {entry.disposition ? ` · ${t(`desk.dispositions.${entry.disposition}`, { defaultValue: entry.disposition })}` : ''}
                  </span>
                </li>
              ))}
            </ul>
          ) : (
            <p className="muted" data-testid="customer-earlier-none">
              {context ? t('desk.customer.noEarlier') : t('common.loading')}
            </p>
          )}
          <BotSummaryCard conversationId={selected.id} />
          <ContactPersonPanel conversationId={selected.id} />
          <DeskCaseAction conversation={selected} />
        </>
      ) : (
        <p className="muted desk-empty">{t('desk.customer.none')}</p>
      )}
    </aside>
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
