import { useCallback, useEffect, useMemo, useState, type FormEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { Button } from 'primereact/button';
import { Column } from 'primereact/column';
import { DataTable } from 'primereact/datatable';
import { Dialog } from 'primereact/dialog';
import { InputNumber } from 'primereact/inputnumber';
import { InputSwitch } from 'primereact/inputswitch';
import { InputText } from 'primereact/inputtext';
import { InputTextarea } from 'primereact/inputtextarea';
import { TabPanel, TabView } from 'primereact/tabview';
import {
  BOT_LANGUAGES,
  BOT_LIMITS,
  type AppRoute,
  type BotAnswerView,
  type BotSettings,
  type BotUnansweredView,
} from '@centralita/contracts';
import { describeError } from '../../api/error-text';
import { useServices } from '../../app/ServicesContext';
import { DialogFooter } from '../../components/DialogFooter';
import { formatDateTime } from '../../format/format';
import { PageHeader } from '../../layout/PageHeader';
import { useToast } from '../../toast/ToastProvider';
import { createBotApi } from './bot-api';
import { keywordsFromText, synonymGroupsFromText, synonymGroupsToText } from './bot-logic';
import './bot-page.css';

type BotApi = ReturnType<typeof createBotApi>;

/**
 * /qna/bot (issue 23): the bot in front of a line's queue. Per line: its settings (on/off, words
 * that ask for a person, turns, minimum score, what it says in Spanish and English) and a test
 * panel to try it before enabling; for the organisation: the questions it could not answer
 * (resolve them, or create the QnA entry that answers them) and its synonyms.
 */
export function BotPage({ route }: { route: AppRoute }) {
  const { t } = useTranslation();
  const { client } = useServices();
  const api = useMemo(() => createBotApi(client), [client]);
  const [lines, setLines] = useState<{ id: string; name: string }[] | null>(null);
  const [lineId, setLineId] = useState('');
  const [error, setError] = useState<string | null>(null);

  useEffect(() => {
    api
      .lines()
      .then((page) => {
        setLines(page.items);
        // Opened from a line's form (?line=): that line, when it is one of the tenant's.
        const asked = new URLSearchParams(window.location.search).get('line');
        setLineId((held) => held || page.items.find((line) => line.id === asked)?.id || page.items[0]?.id || '');
      })
      .catch((failure: unknown) => setError(`${t('bot.loadFailed')} ${describeError(failure, t)}`));
  }, [api, t]);

  return (
    <>
      <PageHeader title={t(`routes.${route.titleKey}`)} icon={route.icon} subtitle={t('bot.intro')} />
      <section className="card bot-page" data-testid="bot-page">
        {error ? (
          <div className="form-error" role="alert">
            <i className="pi pi-times-circle" aria-hidden="true" />
            <span>{error}</span>
          </div>
        ) : null}
        {lines === null && !error ? (
          <p className="muted" role="status">
            {t('bot.loading')}
          </p>
        ) : null}
        {lines && lines.length === 0 ? <p className="muted">{t('bot.noLines')}</p> : null}
        {lines && lines.length > 0 ? (
          <>
            <label className="bot-field bot-field--line">
              <span>{t('bot.line')}</span>
              <select
                className="p-inputtext p-component"
                value={lineId}
                onChange={(event) => setLineId(event.target.value)}
                data-testid="bot-line"
                aria-label={t('bot.line')}
              >
                {lines.map((line) => (
                  <option key={line.id} value={line.id}>
                    {line.name}
                  </option>
                ))}
              </select>
            </label>
            <TabView>
              <TabPanel header={t('bot.tabs.settings')}>{lineId ? <SettingsForm key={lineId} api={api} lineId={lineId} /> : null}</TabPanel>
              <TabPanel header={t('bot.tabs.test')}>{lineId ? <TestPanel key={lineId} api={api} lineId={lineId} /> : null}</TabPanel>
              <TabPanel header={t('bot.tabs.unanswered')}>
                <UnansweredReport api={api} />
              </TabPanel>
              <TabPanel header={t('bot.tabs.synonyms')}>
                <SynonymsForm api={api} />
              </TabPanel>
            </TabView>
          </>
        ) : null}
      </section>
    </>
  );
}

function SettingsForm({ api, lineId }: { api: BotApi; lineId: string }) {
  const { t } = useTranslation();
  const toast = useToast();
  const [settings, setSettings] = useState<BotSettings | null>(null);
  const [keywords, setKeywords] = useState('');
  const [saving, setSaving] = useState(false);
  const [problem, setProblem] = useState<string | null>(null);

  useEffect(() => {
    let current = true;
    api
      .settings(lineId)
      .then((found) => {
        if (!current) return;
        setSettings(found);
        setKeywords(found.handoffKeywords.join(', '));
      })
      .catch((failure: unknown) => current && setProblem(`${t('bot.loadFailed')} ${describeError(failure, t)}`));
    return () => {
      current = false;
    };
  }, [api, lineId, t]);

  if (!settings)
    return problem ? (
      <p role="alert">{problem}</p>
    ) : (
      <p className="muted" role="status">
        {t('bot.loading')}
      </p>
    );

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    setSaving(true);
    setProblem(null);
    try {
      const saved = await api.save(lineId, {
        botEnabled: settings.botEnabled,
        handoffKeywords: keywordsFromText(keywords),
        maxTurns: settings.maxTurns,
        minScore: settings.minScore,
        texts: settings.texts,
      });
      setSettings(saved);
      setKeywords(saved.handoffKeywords.join(', '));
      toast.success(t('bot.settings.saved'));
    } catch (failure) {
      setProblem(describeError(failure, t));
      toast.error(t('bot.settings.saveFailed'), describeError(failure, t));
    } finally {
      setSaving(false);
    }
  };
  const setText = (language: (typeof BOT_LANGUAGES)[number], field: 'greeting' | 'unknown' | 'handoff', value: string) =>
    setSettings({ ...settings, texts: { ...settings.texts, [language]: { ...settings.texts[language], [field]: value } } });

  return (
    <form className="bot-form" onSubmit={(event) => void submit(event)} noValidate data-testid="bot-settings">
      <label className="bot-switch">
        <InputSwitch
          checked={settings.botEnabled}
          onChange={(event) => setSettings({ ...settings, botEnabled: Boolean(event.value) })}
          data-testid="bot-enabled"
        />
        <span>{t('bot.settings.enabled')}</span>
      </label>
      <small className="muted">{t('bot.settings.enabledHelp')}</small>
      <label className="bot-field">
        <span>{t('bot.settings.keywords')}</span>
        <InputText value={keywords} onChange={(event) => setKeywords(event.target.value)} data-testid="bot-keywords" />
        <small className="muted">{t('bot.settings.keywordsHelp')}</small>
      </label>
      <div className="bot-row">
        <label className="bot-field">
          <span>{t('bot.settings.maxTurns')}</span>
          <InputNumber
            value={settings.maxTurns}
            min={BOT_LIMITS.maxTurnsMin}
            max={BOT_LIMITS.maxTurnsMax}
            showButtons
            onValueChange={(event) => setSettings({ ...settings, maxTurns: event.value ?? settings.maxTurns })}
            data-testid="bot-max-turns"
          />
          <small className="muted">{t('bot.settings.maxTurnsHelp')}</small>
        </label>
        <label className="bot-field">
          <span>{t('bot.settings.minScore')}</span>
          <InputNumber
            value={settings.minScore}
            min={BOT_LIMITS.minScoreMin}
            max={BOT_LIMITS.minScoreMax}
            step={0.05}
            minFractionDigits={2}
            maxFractionDigits={2}
            showButtons
            onValueChange={(event) => setSettings({ ...settings, minScore: event.value ?? settings.minScore })}
            data-testid="bot-min-score"
          />
          <small className="muted">{t('bot.settings.minScoreHelp')}</small>
        </label>
      </div>
      <h3 className="bot-subtitle">{t('bot.settings.texts')}</h3>
      <div className="bot-row">
        {BOT_LANGUAGES.map((language) => (
          <fieldset key={language} className="bot-texts" data-testid={`bot-texts-${language}`}>
            <legend>{t(`bot.settings.languages.${language}`)}</legend>
            {(['greeting', 'unknown', 'handoff'] as const).map((field) => (
              <label key={field} className="bot-field">
                <span>{t(`bot.settings.${field}`)}</span>
                <InputTextarea
                  value={settings.texts[language][field]}
                  rows={2}
                  autoResize
                  maxLength={BOT_LIMITS.textMax}
                  onChange={(event) => setText(language, field, event.target.value)}
                  data-testid={`bot-text-${language}-${field}`}
                />
              </label>
            ))}
          </fieldset>
        ))}
      </div>
      {problem ? (
        <p className="form-error" role="alert" data-testid="bot-settings-error">
          {problem}
        </p>
      ) : null}
      <Button type="submit" icon="pi pi-save" label={t('bot.settings.save')} loading={saving} data-testid="bot-save" />
    </form>
  );
}

function TestPanel({ api, lineId }: { api: BotApi; lineId: string }) {
  const { t } = useTranslation();
  const [text, setText] = useState('');
  const [busy, setBusy] = useState(false);
  const [answer, setAnswer] = useState<BotAnswerView | null>(null);
  const [problem, setProblem] = useState<string | null>(null);

  const ask = async (event: FormEvent) => {
    event.preventDefault();
    if (!text.trim()) return;
    setBusy(true);
    setProblem(null);
    try {
      setAnswer(await api.test(lineId, text.trim()));
    } catch (failure) {
      setProblem(describeError(failure, t));
    } finally {
      setBusy(false);
    }
  };

  return (
    <div className="bot-test" data-testid="bot-test">
      <p className="muted">{t('bot.test.intro')}</p>
      <form className="bot-test__ask" onSubmit={(event) => void ask(event)}>
        <InputText
          value={text}
          maxLength={BOT_LIMITS.questionMax}
          placeholder={t('bot.test.placeholder')}
          aria-label={t('bot.test.placeholder')}
          onChange={(event) => setText(event.target.value)}
          data-testid="bot-test-text"
        />
        <Button
          type="submit"
          icon="pi pi-send"
          label={t('bot.test.ask')}
          loading={busy}
          disabled={!text.trim()}
          data-testid="bot-test-ask"
        />
      </form>
      {problem ? <p role="alert">{problem}</p> : null}
      {answer ? (
        <div className={`bot-test__result ${answer.confident ? 'bot-test__result--ok' : ''}`} data-testid="bot-test-result">
          {answer.handoff ? (
            <p className="bot-test__handoff" data-testid="bot-test-handoff">
              <i className="pi pi-user" aria-hidden="true" /> {t('bot.test.handoff')}
            </p>
          ) : null}
          <dl className="desk-facts">
            <dt>{t('bot.test.answer')}</dt>
            <dd data-testid="bot-test-reply">{answer.reply}</dd>
            <dt>{t('bot.test.score')}</dt>
            <dd data-testid="bot-test-score">{answer.score.toFixed(2)}</dd>
            <dt>{t('bot.test.matched')}</dt>
            <dd>{answer.question ?? t('bot.test.noMatch')}</dd>
            <dt>{t('bot.test.language')}</dt>
            <dd>{t(`bot.settings.languages.${answer.language}`)}</dd>
          </dl>
          <p className="muted" data-testid="bot-test-verdict">
            {answer.confident ? t('bot.test.confident') : t('bot.test.notConfident')}
          </p>
        </div>
      ) : (
        <p className="muted">{t('bot.test.empty')}</p>
      )}
    </div>
  );
}

function UnansweredReport({ api }: { api: BotApi }) {
  const { t } = useTranslation();
  const toast = useToast();
  const [showResolved, setShowResolved] = useState(false);
  const [rows, setRows] = useState<BotUnansweredView[] | null>(null);
  const [problem, setProblem] = useState<string | null>(null);
  const [creating, setCreating] = useState<BotUnansweredView | null>(null);

  const load = useCallback(() => {
    setRows(null);
    api
      .unanswered(showResolved)
      .then((found) => {
        setRows(found);
        setProblem(null);
      })
      .catch((failure: unknown) => setProblem(`${t('bot.loadFailed')} ${describeError(failure, t)}`));
  }, [api, showResolved, t]);
  useEffect(load, [load]);

  const resolve = async (row: BotUnansweredView, resolved: boolean) => {
    try {
      await api.resolve(row.id, resolved);
      toast.success(t(resolved ? 'bot.unanswered.resolved' : 'bot.unanswered.reopened'));
      load();
    } catch (failure) {
      toast.error(t('bot.unanswered.failed'), describeError(failure, t));
    }
  };

  return (
    <div data-testid="bot-unanswered">
      <p className="muted">{t('bot.unanswered.intro')}</p>
      <label className="bot-switch">
        <InputSwitch checked={showResolved} onChange={(event) => setShowResolved(Boolean(event.value))} data-testid="bot-show-resolved" />
        <span>{t('bot.unanswered.showResolved')}</span>
      </label>
      {problem ? <p role="alert">{problem}</p> : null}
      <DataTable
        value={rows ?? []}
        loading={rows === null && !problem}
        emptyMessage={t('bot.unanswered.empty')}
        data-testid="bot-unanswered-table"
        size="small"
      >
        <Column field="text" header={t('bot.unanswered.text')} body={(row: BotUnansweredView) => <span>{row.text}</span>} />
        <Column field="lineName" header={t('bot.unanswered.line')} body={(row: BotUnansweredView) => row.lineName ?? '—'} />
        <Column field="count" header={t('bot.unanswered.count')} />
        <Column
          field="language"
          header={t('bot.unanswered.language')}
          body={(row: BotUnansweredView) => t(`bot.settings.languages.${row.language}`)}
        />
        <Column field="lastAt" header={t('bot.unanswered.last')} body={(row: BotUnansweredView) => formatDateTime(row.lastAt)} />
        <Column
          body={(row: BotUnansweredView) =>
            row.resolvedAt ? (
              <Button label={t('bot.unanswered.reopen')} size="small" text onClick={() => void resolve(row, false)} />
            ) : (
              <span className="bot-actions">
                <Button
                  icon="pi pi-plus"
                  label={t('bot.unanswered.createQna')}
                  size="small"
                  outlined
                  onClick={() => setCreating(row)}
                  data-testid="bot-unanswered-create"
                />
                <Button
                  icon="pi pi-check"
                  label={t('bot.unanswered.resolve')}
                  size="small"
                  text
                  onClick={() => void resolve(row, true)}
                  data-testid="bot-unanswered-resolve"
                />
              </span>
            )
          }
        />
      </DataTable>
      {creating ? (
        <CreateQnaDialog
          api={api}
          row={creating}
          onHide={() => setCreating(null)}
          onCreated={() => {
            setCreating(null);
            load();
          }}
        />
      ) : null}
    </div>
  );
}

/** "Create QnA from this": the question prefilled; saved, the unanswered question is marked resolved. */
function CreateQnaDialog({
  api,
  row,
  onHide,
  onCreated,
}: {
  api: BotApi;
  row: BotUnansweredView;
  onHide: () => void;
  onCreated: () => void;
}) {
  const { t } = useTranslation();
  const toast = useToast();
  const [question, setQuestion] = useState(row.text.slice(0, 300));
  const [answer, setAnswer] = useState('');
  const [busy, setBusy] = useState(false);
  const [problem, setProblem] = useState<string | null>(null);
  const save = async () => {
    setBusy(true);
    setProblem(null);
    try {
      await api.createQna(question.trim(), answer.trim());
      await api.resolve(row.id, true);
      toast.success(t('bot.unanswered.qnaCreated'));
      onCreated();
    } catch (failure) {
      setProblem(describeError(failure, t));
    } finally {
      setBusy(false);
    }
  };
  return (
    <Dialog
      header={t('bot.unanswered.createQna')}
      visible
      onHide={onHide}
      style={{ width: '32rem' }}
      data-testid="bot-create-qna"
      footer={
        <DialogFooter
          cancel={{ label: t('admin.form.cancel'), onClick: onHide }}
          action={{ label: t('admin.form.save'), icon: 'pi pi-save', loading: busy, onClick: () => void save(), testId: 'bot-qna-save' }}
        />
      }
    >
      <label className="bot-field">
        <span>{t('bot.unanswered.qnaQuestion')}</span>
        <InputText value={question} maxLength={300} onChange={(event) => setQuestion(event.target.value)} data-testid="bot-qna-question" />
      </label>
      <label className="bot-field">
        <span>{t('bot.unanswered.qnaAnswer')}</span>
        <InputTextarea
          value={answer}
          rows={4}
          maxLength={4000}
          onChange={(event) => setAnswer(event.target.value)}
          data-testid="bot-qna-answer"
        />
      </label>
      {problem ? <p role="alert">{problem}</p> : null}
    </Dialog>
  );
}

function SynonymsForm({ api }: { api: BotApi }) {
  const { t } = useTranslation();
  const toast = useToast();
  const [text, setText] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const [problem, setProblem] = useState<string | null>(null);
  useEffect(() => {
    api
      .synonyms()
      .then((groups) => setText(synonymGroupsToText(groups)))
      .catch((failure: unknown) => setProblem(`${t('bot.loadFailed')} ${describeError(failure, t)}`));
  }, [api, t]);
  if (text === null)
    return problem ? (
      <p role="alert">{problem}</p>
    ) : (
      <p className="muted" role="status">
        {t('bot.loading')}
      </p>
    );
  const save = async (event: FormEvent) => {
    event.preventDefault();
    setBusy(true);
    setProblem(null);
    try {
      setText(synonymGroupsToText(await api.saveSynonyms(synonymGroupsFromText(text))));
      toast.success(t('bot.synonyms.saved'));
    } catch (failure) {
      setProblem(describeError(failure, t));
      toast.error(t('bot.synonyms.saveFailed'), describeError(failure, t));
    } finally {
      setBusy(false);
    }
  };
  return (
    <form className="bot-form" onSubmit={(event) => void save(event)} data-testid="bot-synonyms">
      <p className="muted">{t('bot.synonyms.intro')}</p>
      <InputTextarea
        value={text}
        rows={6}
        placeholder={t('bot.synonyms.placeholder')}
        aria-label={t('bot.tabs.synonyms')}
        onChange={(event) => setText(event.target.value)}
        data-testid="bot-synonyms-text"
      />
      {problem ? <p role="alert">{problem}</p> : null}
      <Button type="submit" icon="pi pi-save" label={t('bot.synonyms.save')} loading={busy} />
    </form>
  );
}
