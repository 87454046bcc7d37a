import { useCallback, useEffect, useMemo, useRef, useState, type FormEvent } from 'react';
import { useSearchParams } from 'react-router-dom';
import { I18nextProvider, useTranslation } from 'react-i18next';
import i18next from 'i18next';
import { Button } from 'primereact/button';
import {
  DEFAULT_LANGUAGE,
  LANGUAGES,
  SURVEY_MULTIPLE_SEPARATOR,
  SURVEY_SCALE,
  SURVEY_YES_NO,
  WIDGET_WIDTH_PX,
  type AttachmentView,
  type ConversationView,
  type MessageView,
  type QueuePositionView,
  newerView,
  type SurveyQuestionView,
  type SurveyView,
  type WebchatLineView,
} from '@centralita/contracts';
import { describeError } from '../api/error-text';
import { isApiError } from '../api/api-error';
import { DICTIONARIES } from '../i18n/resources';
import { ChatInput } from '../desk/components/ChatInput';
import { MessageList } from '../desk/components/MessageList';
import { createVisitorApi } from '../desk/desk-api';
import { BotChat } from './BotChat';
import { canConversation } from '../desk/logic/machines';
import { roundedWait } from '../desk/logic/time';
import { applyReadMark } from '../desk/logic/version-store';
import { applyMessageUpdate, mergeDelivered as mergeMessages } from '../desk/logic/delivery';
import { WEBCHAT_ATTACHMENT_RULES } from '../desk/logic/attachments';
import { uploadFile } from '../desk/upload';
import { connectVisitor } from '../desk/realtime/socket-client';
import {
  differentClock,
  pickLanguage,
  prechatScreen,
  reopening,
  scheduleRows,
  clockTime,
  weekdayName,
  QUERY_TYPES,
  readVisitor,
  submenusOf,
  surveyAnswers,
  toggleChoice,
  typingIndicator,
  validatePrechat,
  visitorStorageKey,
  widgetTitle,
  type PrechatErrors,
} from './widget-logic';
import '../desk/desk.css';
import './widget.css';

/**
 * The public web-chat page (/WindowChat/windowChat/?tenant=&line=&lang=), shown full page or in
 * the widget's iframe. Its own i18n instance: the customer's language never changes the console's.
 */
export function WebChatPage() {
  const [params] = useSearchParams();
  const i18n = useMemo(() => {
    const instance = i18next.createInstance();
    void instance.init({
      resources: Object.fromEntries(LANGUAGES.map((lng) => [lng, { translation: DICTIONARIES[lng] }])),
      lng: pickLanguage(window.location.search, navigator.languages ?? [navigator.language]),
      fallbackLng: DEFAULT_LANGUAGE,
      interpolation: { escapeValue: false },
      initAsync: false,
    });
    return instance;
  }, []);
  useEffect(() => {
    document.documentElement.lang = i18n.language;
  }, [i18n]);
  return (
    <I18nextProvider i18n={i18n}>
      <WebChat tenant={params.get('tenant') ?? ''} line={params.get('line') ?? ''} embedded={params.get('embed') === '1'} />
    </I18nextProvider>
  );
}

type Branding = { logoUrl: string; completeLogoUrl: string; mainColor?: string | null };

function WebChat({ tenant, line, embedded }: { tenant: string; line: string; embedded: boolean }) {
  const { t } = useTranslation();
  const storage = window.localStorage;
  const [stored, setStored] = useState(() => (line ? readVisitor(storage, line) : null));
  const tokenRef = useRef<string | null>(stored?.token ?? null);
  tokenRef.current = stored?.token ?? null;
  const api = useMemo(() => createVisitorApi(() => tokenRef.current), []);
  const [branding, setBranding] = useState<Branding | null>(null);
  const [conversation, setConversation] = useState<ConversationView | null>(null);
  const [messages, setMessages] = useState<MessageView[]>([]);
  const [queue, setQueue] = useState<QueuePositionView | null>(null);
  const [typing, setTyping] = useState(false);
  const [restoring, setRestoring] = useState(Boolean(stored));
  const [error, setError] = useState<string | null>(null);
  const [online, setOnline] = useState(true);
  const [lineInfo, setLineInfo] = useState<WebchatLineView | null>(null);
  const [lineProblem, setLineProblem] = useState<string | null>(null);
  // Who answers: the agent's display name, read again whenever another agent takes the chat.
  const [agentName, setAgentName] = useState<string | null>(null);
  const agentRef = useRef<string | null>(null);

  // The line's welcome/off-hours messages, the widget title and whether it is open now.
  const loadLine = useCallback(() => {
    if (!line) return;
    api
      .line(line)
      .then((info) => {
        setLineInfo(info);
        setLineProblem(null);
      })
      .catch((failure: unknown) => {
        // An unknown or deleted line: say so (in the customer's language) instead of a form that cannot work.
        if (isApiError(failure) && failure.status === 404) setLineProblem(t('catalogue.noAttentionLine'));
        else
          setLineInfo({
            attentionLineId: line,
            open: true,
            welcomeMessage: '',
            offHoursMessage: '',
            widgetTitle: '',
            timeZone: 'UTC',
            businessHours: [],
            nextOpening: null,
            estimatedWaitSeconds: null,
            nobodyServing: false,
          });
      });
  }, [api, line, t]);
  useEffect(loadLine, [loadLine]);

  useEffect(() => {
    if (!tenant) return;
    api
      .branding(tenant)
      .then(setBranding)
      .catch(() => setBranding(null));
  }, [api, tenant]);

  const accept = useCallback((view: ConversationView) => {
    setConversation((held) => (held && held.id === view.id && held.version >= view.version ? held : view));
  }, []);

  const forget = useCallback(() => {
    storage.removeItem(visitorStorageKey(line));
    setStored(null);
    setConversation(null);
    setMessages([]);
    setQueue(null);
  }, [line, storage]);

  const restore = useCallback(async () => {
    try {
      const answer = await api.get();
      accept(answer.conversation);
      agentRef.current = answer.conversation.agentId;
      setAgentName(answer.agentName);
      setMessages((held) => mergeMessages(held, answer.messages));
      setQueue(answer.queue);
    } catch (failure) {
      // An expired or foreign token: start over rather than show a broken chat.
      if (isApiError(failure) && (failure.status === 401 || failure.status === 404)) forget();
    } finally {
      setRestoring(false);
    }
  }, [api, accept, forget]);

  useEffect(() => {
    if (!stored) return;
    const connection = connectVisitor(() => tokenRef.current, {
      onResync: () => void restore(),
      onStatus: (status) => setOnline(status !== 'offline'),
    });
    const { socket } = connection;
    // A lost "stopped typing" must not leave the indicator on for ever (8 s, as in the agent desk).
    const agentTyping = typingIndicator(setTyping);
    socket.on('conversation.updated', (view) => {
      accept(view);
      if (view.agentId === agentRef.current) return;
      agentRef.current = view.agentId;
      setAgentName(null);
      if (view.agentId)
        void api
          .get()
          .then((answer) => {
            if (answer.conversation.agentId === agentRef.current) setAgentName(answer.agentName);
          })
          .catch(() => undefined);
    });
    socket.on('message.created', (message) => {
      setMessages((held) => mergeMessages(held, [message]));
      if (message.senderKind !== 'customer') {
        agentTyping.set(false);
        if (document.visibilityState === 'visible') void api.read(message.sequence).catch(() => undefined);
      }
    });
    socket.on('message.updated', (message) =>
      setMessages((held) => {
        const next = applyMessageUpdate(held, message);
        return next === held ? held : [...next];
      }),
    );
    // Pushes from different API processes may cross: the highest version is the newest (VIEW_VERSIONS).
    socket.on('queue.position', (view) => setQueue((held) => (newerView(held, view) ? view : held)));
    socket.on('typing', (view) => {
      if (view.senderKind === 'agent') agentTyping.set(view.typing);
    });
    socket.on('message.read', (view) => {
      if (view.readerKind === 'agent') setMessages((held) => applyReadMark(held, 'agent', view.upToSequence, new Date().toISOString()));
    });
    return () => {
      agentTyping.dispose();
      connection.close();
    };
  }, [stored, api, accept, restore]);

  // Messages already on screen when the page is opened or restored are read now.
  useEffect(() => {
    const last = messages.filter((message) => message.senderKind !== 'customer' && !message.readAt).at(-1);
    if (last && conversation?.status === 'Active') void api.read(last.sequence).catch(() => undefined);
  }, [messages, conversation?.status, api]);

  const started = (token: string, view: ConversationView) => {
    storage.setItem(visitorStorageKey(line), JSON.stringify({ token, conversationId: view.id }));
    tokenRef.current = token;
    setStored({ token, conversationId: view.id, line });
    setConversation(view);
  };

  const reread = useCallback(() => void restore(), [restore]);
  const loadAttachment = useCallback((attachment: AttachmentView) => api.attachment(attachment.id), [api]);
  const color = branding?.mainColor && /^#[0-9a-f]{3,8}$/i.test(branding.mainColor) ? branding.mainColor : undefined;
  const customer = { kind: 'customer' as const };
  const status = conversation?.status ?? null;
  const transferred = conversation?.lastEvent === 'conversation.transferred';
  // The line's bot has the conversation (issue 23): it answers first instead of the menu.
  const withBot = status === 'Transitory' && Boolean(lineInfo?.bot || messages.some((message) => message.senderKind === 'bot'));

  let body;
  if (!line)
    body = (
      <p className="desk-empty" data-testid="webchat-missing-line">
        {t('desk.widget.missingLine')}
      </p>
    );
  else if (restoring)
    body = (
      <p className="muted desk-empty" role="status">
        {t('common.loading')}
      </p>
    );
  else if ((!stored || !conversation) && lineProblem)
    body = (
      <p className="desk-empty" role="alert" data-testid="webchat-unknown-line">
        {lineProblem}
      </p>
    );
  else if (!stored || !conversation) {
    const screen = prechatScreen(lineInfo);
    if (screen.kind === 'loading')
      body = (
        <p className="muted desk-empty" role="status" data-testid="webchat-line-loading">
          {t('common.loading')}
        </p>
      );
    else if (screen.kind === 'closed') body = <OffHours message={screen.message ?? t('desk.widget.offHours')} info={lineInfo} />;
    else
      body = (
        <PrechatForm
          line={line}
          api={api}
          welcome={screen.welcome}
          expectedWaitSeconds={lineInfo?.estimatedWaitSeconds ?? null}
          nobodyServing={lineInfo?.nobodyServing ?? false}
          onStarted={started}
          onError={setError}
          onClosed={() => {
            setError(t('desk.widget.closedError'));
            loadLine();
          }}
        />
      );
  } else if (withBot)
    // The line's bot answers first (issue 23): the chat with it instead of the menu form.
    body = <BotChat api={api} messages={messages} setMessages={setMessages} onDone={accept} onError={setError} onOpen={reread} />;
  else if (status === 'Transitory') body = <MenuForm api={api} onDone={accept} onError={setError} />;
  else if (status === 'Inquest') body = <SurveyForm api={api} onDone={accept} onError={setError} />;
  else if (status === 'Closed') {
    body = (
      <div className="webchat-end" data-testid="webchat-closed">
        <i className="pi pi-check-circle" aria-hidden="true" />
        <p>{t('desk.widget.thanks')}</p>
        <MessageList messages={messages} perspective="customer" loadAttachment={loadAttachment} />
        <Button label={t('desk.widget.newChat')} onClick={forget} data-testid="webchat-new" />
      </div>
    );
  } else {
    const wait = roundedWait(queue?.estimatedWaitSeconds ?? null);
    body = (
      <>
        {status === 'LiningUp' ? (
          <div className="webchat-queue" data-testid="webchat-queue">
            {transferred ? (
              <p className="webchat-notice" role="status" data-testid="webchat-transferring">
                {t('desk.widget.transferring')}
              </p>
            ) : null}
            <strong>{t('desk.widget.waiting')}</strong>
            {queue ? (
              <span>
                {t('desk.widget.position', { position: queue.position })}
                {' · '}
                <span data-testid="webchat-estimate" data-nobody-serving={queue.nobodyServing ? 'true' : 'false'}>
                  {queue.nobodyServing
                    ? t('desk.widget.estimateNobodyServing')
                    : wait
                      ? t(`desk.widget.estimate_${wait.unit}`, { value: wait.value })
                      : t('desk.widget.estimateUnknown')}
                </span>
              </span>
            ) : null}
            <Button
              label={t('desk.widget.leave')}
              size="small"
              text
              disabled={!canConversation(conversation, customer, { type: 'conversation.abandoned' })}
              onClick={() =>
                void api
                  .leave()
                  .then(accept)
                  .catch((failure: unknown) => setError(describeError(failure, t)))
              }
              data-testid="webchat-leave"
            />
          </div>
        ) : null}
        {status === 'Active' && transferred ? (
          <p className="webchat-notice" role="status" data-testid="webchat-transferred">
            {agentName ? t('desk.widget.transferredTo', { name: agentName }) : t('desk.widget.transferring')}
          </p>
        ) : null}
        <MessageList messages={messages} perspective="customer" typing={typing} loadAttachment={loadAttachment} />
        <ChatInput
          testIdPrefix="webchat"
          attach={{
            rules: WEBCHAT_ATTACHMENT_RULES,
            upload: async (file, mimeType, clientMessageId, onProgress, signal) => {
              const message = await uploadFile({
                path: api.attachmentUploadPath,
                file,
                mimeType,
                clientMessageId,
                token: tokenRef.current,
                onProgress,
                signal,
              });
              setMessages((held) => mergeMessages(held, [message]));
            },
          }}
          onTyping={(on) => void api.typing(on).catch(() => undefined)}
          onSend={async (text, clientMessageId) => {
            try {
              const message = await api.send(text, clientMessageId);
              setMessages((held) => mergeMessages(held, [message]));
            } catch (failure) {
              setError(describeError(failure, t));
              throw failure;
            }
          }}
        />
      </>
    );
  }

  return (
    <div
      className={`webchat ${embedded ? 'webchat--embedded' : ''}`}
      style={{
        ...(color ? ({ '--primary': color, '--primary-hover': color } as object) : {}),
        maxWidth: embedded ? undefined : WIDGET_WIDTH_PX,
      }}
      data-testid="webchat"
      data-status={status ?? 'none'}
    >
      <header className="webchat__header">
        {branding?.logoUrl ? (
          <img className="webchat__logo" src={branding.logoUrl} alt="" data-testid="webchat-logo" />
        ) : (
          <i className="pi pi-comments" aria-hidden="true" />
        )}
        <div>
          <strong data-testid="webchat-title">{widgetTitle(lineInfo, t('desk.widget.title'))}</strong>
          <div className="webchat__sub">
            {status === 'Active' ? (
              <span data-testid="webchat-agent">
                {agentName ? t('desk.widget.withAgentNamed', { name: agentName }) : t('desk.widget.withAgent')}
              </span>
            ) : withBot ? (
              <span data-testid="webchat-with-bot">{t('bot.widget.subtitle')}</span>
            ) : (
              t('desk.widget.subtitle')
            )}
            {!online ? (
              <span className="webchat__offline" data-testid="webchat-offline">
                {' '}
                · {t('desk.connection.offline')}
              </span>
            ) : null}
          </div>
        </div>
      </header>
      {error ? (
        <div className="webchat__error" role="alert" data-testid="webchat-error">
          {error}
          <button type="button" aria-label={t('desk.common.closePanel')} onClick={() => setError(null)}>
            ×
          </button>
        </div>
      ) : null}
      <div className="webchat__body">{body}</div>
    </div>
  );
}

type VisitorApi = ReturnType<typeof createVisitorApi>;

/**
 * A closed line: the tenant's off-hours message (or the widget's own), then when the line opens
 * again and the week's opening hours, in the line's zone (named when the visitor's clock differs).
 */
function OffHours({ message, info }: { message: string; info: WebchatLineView | null }) {
  const { t, i18n } = useTranslation();
  const language = i18n.language;
  const next = info?.nextOpening ? reopening(info.nextOpening, language) : null;
  const rows = scheduleRows(info?.businessHours ?? []);
  const visitorZone = Intl.DateTimeFormat().resolvedOptions().timeZone;
  const zoneNote = info?.nextOpening && differentClock(info.nextOpening.at, info.timeZone, visitorZone);
  return (
    <div className="webchat-end webchat-off-hours" data-testid="webchat-off-hours">
      <i className="pi pi-clock" aria-hidden="true" />
      <p>{message}</p>
      {next ? (
        <p className="webchat-reopens" data-testid="webchat-reopens" data-at={info?.nextOpening?.at}>
          <strong>{t(`desk.widget.${next.key}`, { day: next.day, time: next.time })}</strong>
        </p>
      ) : null}
      {rows.length ? (
        <div className="webchat-hours" data-testid="webchat-hours">
          <span className="webchat-hours__title">{t('desk.widget.hoursTitle')}</span>
          <dl>
            {rows.map((row) => (
              <div key={row.firstDay} className="webchat-hours__row">
                <dt>
                  {weekdayName(row.firstDay, language)}
                  {row.lastDay !== row.firstDay ? ` – ${weekdayName(row.lastDay, language)}` : ''}
                </dt>
                <dd>{row.windows.map((window) => `${clockTime(window.from, language)}–${clockTime(window.to, language)}`).join(', ')}</dd>
              </div>
            ))}
          </dl>
          {zoneNote ? (
            <span className="muted webchat-hours__zone" data-testid="webchat-hours-zone">
              {t('desk.widget.hoursZone', { zone: info.timeZone })}
            </span>
          ) : null}
        </div>
      ) : null}
    </div>
  );
}

/**
 * Before starting: how long the line expects a new chat to wait, or that no agent is attending right
 * now (all paused or away); nothing when it cannot tell.
 */
function ExpectedWait({ seconds, nobodyServing }: { seconds: number | null; nobodyServing: boolean }) {
  const { t } = useTranslation();
  if (nobodyServing)
    return (
      <p className="webchat-expected-wait" data-testid="webchat-expected-wait" data-nobody-serving="true">
        <i className="pi pi-clock" aria-hidden="true" /> {t('desk.widget.expectedNobodyServing')}
      </p>
    );
  if (seconds === null) return null;
  const wait = roundedWait(seconds);
  return (
    <p className="webchat-expected-wait" data-testid="webchat-expected-wait">
      <i className="pi pi-clock" aria-hidden="true" />{' '}
      {seconds < EXPECTED_NOW_SECONDS || !wait
        ? t('desk.widget.expectedNow')
        : t(`desk.widget.expectedWait_${wait.unit}`, { value: wait.value })}
    </p>
  );
}

/** Below this the newcomer is, in practice, answered at once. */
const EXPECTED_NOW_SECONDS = 5;

function PrechatForm({
  line,
  api,
  welcome,
  expectedWaitSeconds,
  nobodyServing,
  onStarted,
  onError,
  onClosed,
}: {
  line: string;
  api: VisitorApi;
  /** The tenant's welcome message; null shows the widget's own introduction. */
  welcome: string | null;
  /** What the line expects a chat started now to wait (GET /api/webchat/lines/:id); null: nothing shown. */
  expectedWaitSeconds: number | null;
  /** The line is open but no agent is available or busy: said instead of an estimate. */
  nobodyServing: boolean;
  onStarted: (token: string, view: ConversationView) => void;
  onError: (message: string | null) => void;
  /** The server refused because the line closed meanwhile. */
  onClosed: () => void;
}) {
  const { t } = useTranslation();
  const [name, setName] = useState('');
  const [email, setEmail] = useState('');
  const [errors, setErrors] = useState<PrechatErrors>({});
  const [busy, setBusy] = useState(false);
  const submit = async (event: FormEvent) => {
    event.preventDefault();
    const found = validatePrechat(name, email);
    setErrors(found);
    if (found.name || found.email) return;
    setBusy(true);
    onError(null);
    try {
      const result = await api.start(line, name.trim(), email.trim() || undefined);
      onStarted(result.visitorToken, result.conversation);
    } catch (failure) {
      if (isApiError(failure) && failure.status === 409) onClosed();
      else onError(describeError(failure, t));
    } finally {
      setBusy(false);
    }
  };
  return (
    <form className="webchat-form" onSubmit={(event) => void submit(event)} noValidate data-testid="webchat-prechat">
      {welcome ? (
        <p className="webchat-welcome" data-testid="webchat-welcome">
          {welcome}
        </p>
      ) : null}
      <p className="muted">{t('desk.widget.intro')}</p>
      <ExpectedWait seconds={expectedWaitSeconds} nobodyServing={nobodyServing} />
      <label className="desk-field">
        <span>{t('desk.widget.name')}</span>
        <input
          className={`p-inputtext p-component ${errors.name ? 'p-invalid' : ''}`}
          value={name}
          maxLength={120}
          onChange={(event) => setName(event.target.value)}
          autoComplete="name"
          data-testid="webchat-name"
        />
        {errors.name ? (
          <small className="desk-field__error" data-testid="webchat-name-error">
            {t(`desk.widget.errors.name_${errors.name}`)}
          </small>
        ) : null}
      </label>
      <label className="desk-field">
        <span>{t('desk.widget.email')}</span>
        <input
          className={`p-inputtext p-component ${errors.email ? 'p-invalid' : ''}`}
          type="email"
          value={email}
          maxLength={254}
          onChange={(event) => setEmail(event.target.value)}
          autoComplete="email"
          data-testid="webchat-email"
        />
        {errors.email ? (
          <small className="desk-field__error" data-testid="webchat-email-error">
            {t('desk.widget.errors.email')}
          </small>
        ) : null}
      </label>
      <Button type="submit" label={t('desk.widget.start')} loading={busy} data-testid="webchat-start" />
    </form>
  );
}

function MenuForm({
  api,
  onDone,
  onError,
}: {
  api: VisitorApi;
  onDone: (view: ConversationView) => void;
  onError: (message: string | null) => void;
}) {
  const { t } = useTranslation();
  const [queryType, setQueryType] = useState('');
  const [submenu, setSubmenu] = useState('');
  const [touched, setTouched] = useState(false);
  const [busy, setBusy] = useState(false);
  const submit = async (event: FormEvent) => {
    event.preventDefault();
    setTouched(true);
    if (!queryType || !submenu) return;
    setBusy(true);
    onError(null);
    try {
      onDone(await api.menu(queryType, submenu));
    } catch (failure) {
      onError(describeError(failure, t));
    } finally {
      setBusy(false);
    }
  };
  return (
    <form className="webchat-form" onSubmit={(event) => void submit(event)} noValidate data-testid="webchat-menu">
      <p className="muted">{t('desk.widget.menuIntro')}</p>
      <label className="desk-field">
        <span>{t('desk.widget.queryType')}</span>
        <select
          className={`p-inputtext p-component ${touched && !queryType ? 'p-invalid' : ''}`}
          value={queryType}
          onChange={(event) => {
            setQueryType(event.target.value);
            setSubmenu('');
          }}
          data-testid="webchat-query-type"
        >
          <option value="">{t('desk.transfer.choose')}</option>
          {QUERY_TYPES.map((type) => (
            <option key={type.id} value={type.id}>
              {t(`desk.widget.queryTypes.${type.id}`)}
            </option>
          ))}
        </select>
        {touched && !queryType ? <small className="desk-field__error">{t('desk.widget.errors.queryType')}</small> : null}
      </label>
      <label className="desk-field">
        <span>{t('desk.widget.submenu')}</span>
        <select
          className={`p-inputtext p-component ${touched && !submenu ? 'p-invalid' : ''}`}
          value={submenu}
          disabled={!queryType}
          onChange={(event) => setSubmenu(event.target.value)}
          data-testid="webchat-submenu"
        >
          <option value="">{t('desk.transfer.choose')}</option>
          {submenusOf(queryType).map((id) => (
            <option key={id} value={id}>
              {t(`desk.widget.submenus.${id}`)}
            </option>
          ))}
        </select>
        {touched && !submenu ? (
          <small className="desk-field__error" data-testid="webchat-submenu-error">
            {t('desk.widget.errors.submenu')}
          </small>
        ) : null}
      </label>
      <Button type="submit" label={t('desk.widget.continue')} loading={busy} data-testid="webchat-menu-submit" />
    </form>
  );
}

function SurveyForm({
  api,
  onDone,
  onError,
}: {
  api: VisitorApi;
  onDone: (view: ConversationView) => void;
  onError: (message: string | null) => void;
}) {
  const { t } = useTranslation();
  const [survey, setSurvey] = useState<SurveyView | null>(null);
  const [values, setValues] = useState<Record<string, string>>({});
  const [busy, setBusy] = useState(false);
  useEffect(() => {
    api
      .surveyQuestions()
      .then(setSurvey)
      .catch((failure: unknown) => onError(describeError(failure, t)));
  }, [api, onError, t]);
  const answers = survey ? surveyAnswers(survey.questions, values) : null;
  const set = (questionId: string, value: string) => setValues((held) => ({ ...held, [questionId]: value }));
  const submit = async (event: FormEvent) => {
    event.preventDefault();
    if (!answers) return;
    setBusy(true);
    onError(null);
    try {
      let last: ConversationView | null = null;
      for (const answer of answers) last = await api.survey(answer.questionId, answer.answer, answer.last);
      if (last) onDone(last);
    } catch (failure) {
      onError(describeError(failure, t));
    } finally {
      setBusy(false);
    }
  };
  if (!survey) {
    return (
      <p className="muted" role="status" data-testid="webchat-survey-loading">
        {t('common.loading')}
      </p>
    );
  }
  return (
    <form className="webchat-form" onSubmit={(event) => void submit(event)} data-testid="webchat-survey">
      <p>
        <strong>{t('desk.widget.surveyTitle')}</strong>
      </p>
      {survey.questions.map((question) => (
        <fieldset key={question.id} className="webchat-question" data-testid={`survey-question-${question.position}`}>
          <legend>{question.text}</legend>
          <SurveyQuestionInput question={question} value={values[question.id] ?? ''} onChange={(value) => set(question.id, value)} />
        </fieldset>
      ))}
      <Button type="submit" label={t('desk.widget.surveySend')} disabled={!answers} loading={busy} data-testid="webchat-survey-submit" />
    </form>
  );
}

/** One poll question, by response type: choices as toggle buttons, a 0-10 scale, or free text. */
function SurveyQuestionInput({
  question,
  value,
  onChange,
}: {
  question: SurveyQuestionView;
  value: string;
  onChange: (value: string) => void;
}) {
  const { t } = useTranslation();
  if (question.responseType === 'text') {
    return (
      <textarea
        className="p-inputtext p-component"
        rows={3}
        maxLength={500}
        aria-label={question.text}
        placeholder={t('desk.widget.surveyComment')}
        value={value}
        onChange={(event) => onChange(event.target.value)}
        data-testid="webchat-survey-text"
      />
    );
  }
  const choices: { value: string; label: string }[] =
    question.responseType === 'scale'
      ? Array.from({ length: SURVEY_SCALE.max - SURVEY_SCALE.min + 1 }, (_, i) => String(SURVEY_SCALE.min + i)).map((n) => ({
          value: n,
          label: n,
        }))
      : question.responseType === 'yesno'
        ? SURVEY_YES_NO.map((answer) => ({ value: answer, label: t(`desk.widget.survey${answer}`) }))
        : question.options.map((option) => ({ value: option, label: option }));
  const multiple = question.responseType === 'multiple';
  const chosen = multiple ? value.split(SURVEY_MULTIPLE_SEPARATOR) : [value];
  return (
    <div
      className={`webchat-choices ${question.responseType === 'scale' ? 'webchat-choices--scale' : ''}`}
      role={multiple ? 'group' : 'radiogroup'}
      aria-label={question.text}
    >
      {choices.map((choice) => {
        const on = chosen.includes(choice.value);
        return (
          <button
            key={choice.value}
            type="button"
            role={multiple ? 'checkbox' : 'radio'}
            aria-checked={on}
            className={`webchat-choice ${on ? 'webchat-choice--on' : ''}`}
            onClick={() => onChange(multiple ? toggleChoice(value, choice.value) : choice.value)}
            data-testid={`survey-choice-${question.position}-${choice.value}`}
          >
            {choice.label}
          </button>
        );
      })}
    </div>
  );
}
