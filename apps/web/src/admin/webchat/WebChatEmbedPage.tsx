import { useCallback, useEffect, useMemo, useState } from 'react';
import { useNavigate, useSearchParams } from 'react-router-dom';
import { Button } from 'primereact/button';
import { Dropdown } from 'primereact/dropdown';
import { useTranslation } from 'react-i18next';
import {
  ADMIN_MAX_PAGE_SIZE,
  LANGUAGES,
  WIDGET_WIDTH_PX,
  type AppRoute,
  type AttentionLineSummary,
  type WebchatLineView,
} from '@centralita/contracts';
import { isApiError } from '../../api/api-error';
import { describeError } from '../../api/error-text';
import { useApi, useAuth, useServices } from '../../app/ServicesContext';
import { LANGUAGE_NAMES } from '../../i18n/languages';
import { PageHeader } from '../../layout/PageHeader';
import { useToast } from '../../toast/ToastProvider';
import { LAUNCHER } from '../../widget/launcher-config';
import { clockTime, reopening, scheduleRows, weekdayName } from '../../widget/widget-logic';
import { directLink, embedSnippet, previewSource, snippetLanguage, type EmbedTarget } from './webchat-embed-logic';
import './webchat-embed.css';

const LINE_FORM = '/attentionList/attentionEdit';
const WEB_CHAT = 'WebChat';

/**
 * Issue 24 item 7: an administrator's page per web-chat line (/attentionList/webChat?id=<line>):
 * the launcher snippet and the direct link to copy, the line's state and hours, and a live preview
 * of the chat the launcher opens. Permission: attention-lines.manage (as the lines themselves).
 */
export function WebChatEmbedPage({ route }: { route: AppRoute }) {
  const { t } = useTranslation();
  const api = useApi();
  const navigate = useNavigate();
  const [params, setParams] = useSearchParams();
  const lineId = params.get('id') ?? '';
  const lang = snippetLanguage(params.get('lang'));
  const [lines, setLines] = useState<AttentionLineSummary[] | null>(null);
  const [linesError, setLinesError] = useState<string | null>(null);

  useEffect(() => {
    api.admin
      .list<AttentionLineSummary>('attention-lines', { page: 1, pageSize: ADMIN_MAX_PAGE_SIZE, sortField: 'name', sortOrder: 'asc' })
      .then((page) => setLines(page.items))
      .catch((failure: unknown) => setLinesError(describeError(failure, t)));
  }, [api, t]);

  const webChatLines = useMemo(() => (lines ?? []).filter((line) => line.channel === WEB_CHAT), [lines]);
  // One web-chat line and none chosen: open it, there is nothing to pick.
  useEffect(() => {
    if (!lineId && webChatLines.length === 1) setParams({ id: webChatLines[0].id }, { replace: true });
  }, [lineId, webChatLines, setParams]);

  const choose = (next: { id?: string; lang?: string }) => {
    const query: Record<string, string> = { id: next.id ?? lineId };
    const language = next.lang ?? lang;
    if (language) query.lang = language;
    setParams(query, { replace: true });
  };

  const options = webChatLines.map((line) => ({ value: line.id, label: line.name }));
  return (
    <>
      <PageHeader
        title={t(`routes.${route.titleKey}`)}
        icon={route.icon}
        subtitle={t('admin.webchat.subtitle')}
        actions={
          <Dropdown
            inputId="webchat-line"
            data-testid="webchat-line-picker"
            value={lineId || null}
            options={options}
            optionLabel="label"
            optionValue="value"
            placeholder={lines === null ? t('common.loading') : t('admin.webchat.chooseLine')}
            aria-label={t('admin.webchat.line')}
            filter={options.length > 8}
            emptyMessage={t('admin.webchat.noLines')}
            onChange={(event) => choose({ id: (event.value as string | null) ?? '' })}
            className="webchat-embed__picker"
          />
        }
      />
      {linesError ? (
        <div className="form-error" role="alert" data-testid="webchat-embed-error">
          <i className="pi pi-times-circle" aria-hidden="true" />
          <span>{linesError}</span>
        </div>
      ) : lines === null ? (
        <p className="muted" role="status" data-testid="webchat-embed-loading">
          {t('common.loading')}
        </p>
      ) : !lineId ? (
        <section className="card webchat-embed__empty" data-testid="webchat-embed-empty">
          <i className="pi pi-comment" aria-hidden="true" />
          <p>{webChatLines.length ? t('admin.webchat.pickLine') : t('admin.webchat.noLines')}</p>
          {webChatLines.length === 0 ? (
            <Button icon="pi pi-plus" label={t('admin.webchat.createLine')} onClick={() => navigate(LINE_FORM)} />
          ) : null}
        </section>
      ) : (
        <LineEmbed key={lineId} lineId={lineId} lang={lang} onLanguage={(next) => choose({ lang: next })} />
      )}
    </>
  );
}

type Loaded = { line: AttentionLineSummary; view: WebchatLineView | null };

function LineEmbed({ lineId, lang, onLanguage }: { lineId: string; lang: EmbedTarget['lang']; onLanguage: (lang: string) => void }) {
  const { t, i18n } = useTranslation();
  const api = useApi();
  const { client } = useServices();
  const { user } = useAuth();
  const toast = useToast();
  const navigate = useNavigate();
  const [loaded, setLoaded] = useState<Loaded | null>(null);
  const [problem, setProblem] = useState<string | null>(null);
  const [previewKey, setPreviewKey] = useState(0);

  const load = useCallback(async () => {
    try {
      // The tenant-scoped read first: another tenant's line answers 404 here, before the public view is asked.
      const line = await api.admin.get<AttentionLineSummary>('attention-lines', lineId);
      const view = await client.get<WebchatLineView>(`/api/webchat/lines/${encodeURIComponent(lineId)}`, { auth: false }).catch(() => null);
      setLoaded({ line, view });
      setProblem(null);
    } catch (failure) {
      setProblem(
        isApiError(failure) && (failure.status === 404 || failure.status === 400)
          ? t('admin.webchat.lineNotFound')
          : describeError(failure, t),
      );
    }
  }, [api, client, lineId, t]);
  useEffect(() => {
    void load();
  }, [load]);

  if (problem)
    return (
      <div className="form-error" role="alert" data-testid="webchat-embed-error">
        <i className="pi pi-times-circle" aria-hidden="true" />
        <span>{problem}</span>
      </div>
    );
  if (!loaded)
    return (
      <p className="muted" role="status" data-testid="webchat-embed-loading">
        {t('common.loading')}
      </p>
    );

  const target: EmbedTarget = { origin: window.location.origin, tenant: user?.clientId ?? '', line: lineId, lang };
  const snippet = embedSnippet(target);
  const link = directLink(target);
  const copy = async (text: string, what: 'snippet' | 'link') => {
    try {
      await navigator.clipboard.writeText(text);
      toast.success(t(what === 'snippet' ? 'admin.webchat.copiedSnippet' : 'admin.webchat.copiedLink'));
    } catch {
      toast.error(t('admin.webchat.copyFailed'));
    }
  };

  return (
    <div className="webchat-embed" data-testid="webchat-embed" data-line={lineId}>
      <div className="webchat-embed__main">
        <LineState line={loaded.line} view={loaded.view} onEditHours={() => navigate(`${LINE_FORM}?id=${encodeURIComponent(lineId)}`)} />

        <section className="card webchat-embed__card">
          <div className="webchat-embed__card-head">
            <h2>{t('admin.webchat.snippetTitle')}</h2>
            <label className="webchat-embed__lang">
              <span>{t('admin.webchat.language')}</span>
              <Dropdown
                inputId="webchat-embed-lang"
                data-testid="webchat-embed-lang"
                value={lang}
                options={[
                  { value: '', label: t('admin.webchat.browserLanguage') },
                  ...LANGUAGES.map((code) => ({ value: code, label: `${LANGUAGE_NAMES[code]} (${code})` })),
                ]}
                optionLabel="label"
                optionValue="value"
                onChange={(event) => onLanguage((event.value as string | null) ?? '')}
              />
            </label>
          </div>
          <p className="muted">{t('admin.webchat.snippetHint')}</p>
          <pre className="webchat-embed__code" data-testid="webchat-embed-snippet">
            <code>{snippet}</code>
          </pre>
          <div className="webchat-embed__buttons">
            <Button
              icon="pi pi-copy"
              label={t('admin.webchat.copySnippet')}
              onClick={() => void copy(snippet, 'snippet')}
              data-testid="webchat-embed-copy-snippet"
            />
          </div>
          <p className="muted webchat-embed__note">
            <i className="pi pi-shield" aria-hidden="true" /> {t('admin.webchat.originsHint')}
          </p>
        </section>

        <section className="card webchat-embed__card">
          <h2>{t('admin.webchat.linkTitle')}</h2>
          <p className="muted">{t('admin.webchat.linkHint')}</p>
          <input
            className="p-inputtext p-component webchat-embed__link"
            readOnly
            value={link}
            aria-label={t('admin.webchat.linkTitle')}
            data-testid="webchat-embed-link"
            onFocus={(event) => event.currentTarget.select()}
          />
          <div className="webchat-embed__buttons">
            <Button
              icon="pi pi-copy"
              label={t('admin.webchat.copyLink')}
              onClick={() => void copy(link, 'link')}
              data-testid="webchat-embed-copy-link"
            />
            <a
              className="p-button p-button-outlined p-component webchat-embed__open"
              href={link}
              target="_blank"
              rel="noopener noreferrer"
              data-testid="webchat-embed-open"
            >
              <i className="pi pi-external-link" aria-hidden="true" />
              <span>{t('admin.webchat.openLink')}</span>
            </a>
          </div>
        </section>
      </div>

      <section className="card webchat-embed__preview" aria-label={t('admin.webchat.previewTitle')}>
        <div className="webchat-embed__card-head">
          <h2>{t('admin.webchat.previewTitle')}</h2>
          <Button
            icon="pi pi-refresh"
            rounded
            text
            aria-label={t('admin.webchat.reloadPreview')}
            tooltip={t('admin.webchat.reloadPreview')}
            onClick={() => {
              setPreviewKey((key) => key + 1);
              void load();
            }}
            data-testid="webchat-embed-reload"
          />
        </div>
        <p className="muted">{t('admin.webchat.previewHint')}</p>
        <iframe
          key={`${previewKey}-${lang}-${i18n.language}`}
          className="webchat-embed__frame"
          title={t('admin.webchat.previewTitle')}
          // With no language picked the visitor's browser decides; the administrator previews in the console's.
          src={previewSource({ ...target, lang: lang || snippetLanguage(i18n.language) })}
          style={{ width: WIDGET_WIDTH_PX, height: LAUNCHER.panelHeight }}
          data-testid="webchat-embed-preview"
        />
      </section>
    </div>
  );
}

/** Open or closed now, when it opens again, and the week's hours in the line's zone. */
function LineState({ line, view, onEditHours }: { line: AttentionLineSummary; view: WebchatLineView | null; onEditHours: () => void }) {
  const { t, i18n } = useTranslation();
  const language = i18n.language;
  const rows = scheduleRows(line.businessHours);
  const next = view?.nextOpening ? reopening(view.nextOpening, language) : null;
  return (
    <section className="card webchat-embed__card" data-testid="webchat-embed-state">
      <div className="webchat-embed__card-head">
        <h2>{line.name}</h2>
        {view ? (
          <span
            className={`webchat-embed__status webchat-embed__status--${view.open ? 'open' : 'closed'}`}
            data-testid="webchat-embed-status"
            data-open={String(view.open)}
          >
            <i className={`pi ${view.open ? 'pi-check-circle' : 'pi-moon'}`} aria-hidden="true" />
            {t(view.open ? 'admin.webchat.openNow' : 'admin.webchat.closedNow')}
          </span>
        ) : null}
      </div>
      {line.channel !== WEB_CHAT ? (
        <p className="webchat-embed__warning" role="note" data-testid="webchat-embed-not-webchat">
          <i className="pi pi-exclamation-triangle" aria-hidden="true" /> {t('admin.webchat.notWebChat', { channel: line.channel })}
        </p>
      ) : null}
      {next ? <p data-testid="webchat-embed-reopens">{t(`desk.widget.${next.key}`, { day: next.day, time: next.time })}</p> : null}
      <div className="webchat-embed__hours">
        <span className="webchat-embed__label">{t('admin.webchat.hours')}</span>
        {rows.length ? (
          <dl data-testid="webchat-embed-hours">
            {rows.map((row) => (
              <div key={row.firstDay}>
                <dt>
                  {weekdayName(row.firstDay, language)}
                  {row.lastDay !== row.firstDay ? ` – ${weekdayName(row.lastDay, language)}` : ''}
                </dt>
                <dd>{row.windows.map((window) => `${clockTime(window.from, language)}–${clockTime(window.to, language)}`).join(', ')}</dd>
              </div>
            ))}
          </dl>
        ) : (
          <span data-testid="webchat-embed-hours">{t('admin.webchat.alwaysOpen')}</span>
        )}
        {view ? <span className="muted">{t('admin.webchat.timeZone', { zone: view.timeZone })}</span> : null}
        <Button
          icon="pi pi-clock"
          label={t('admin.webchat.editHours')}
          text
          size="small"
          onClick={onEditHours}
          data-testid="webchat-embed-edit-hours"
        />
      </div>
    </section>
  );
}
