import { useEffect, useMemo, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Button } from 'primereact/button';
import { TEMPLATE_MEDIA_LIMITS, type TemplateView } from '@centralita/contracts';
import { describeError } from '../../api/error-text';
import { newClientMessageId } from '../desk-api';
import { windowTime, type ReplyWindowState } from '../logic/reply-window';
import {
  templateCategoryKey,
  templateFileProblem,
  templateKey,
  templateMediaFormat,
  templateParameters,
  templateReady,
  templateSegments,
  type TemplateValues,
} from '../logic/templates';

/** Above the composer of a WhatsApp/Messenger/Instagram chat: whether free text can still go, and until when. */
export function ReplyWindowBanner({
  state,
  now,
  error,
  onRetry,
}: {
  state: ReplyWindowState | null;
  now: number;
  error: unknown;
  onRetry: () => void;
}) {
  const { t } = useTranslation();
  if (error && !state)
    return (
      <div className="desk-window desk-window--error" role="alert" data-testid="reply-window" data-window="error">
        <i className="pi pi-exclamation-circle" aria-hidden="true" />
        <span>{t('desk.window.error', { reason: describeError(error, t) })}</span>
        <Button label={t('desk.window.retry')} size="small" text onClick={onRetry} />
      </div>
    );
  if (!state || state.kind === 'free') return null;
  const text =
    state.kind === 'loading'
      ? t('common.loading')
      : state.kind === 'open'
        ? t('desk.window.openUntil', { time: windowTime(state.until, now) })
        : state.kind === 'humanAgent'
          ? t('desk.window.humanAgentUntil', { time: windowTime(state.until, now) })
          : state.kind === 'optedOut'
            ? t('desk.window.optedOut')
            : state.templates
              ? t('desk.window.closedTemplates')
              : t('desk.window.closedNoTemplates');
  const icon =
    state.kind === 'open' || state.kind === 'humanAgent'
      ? 'pi pi-clock'
      : state.kind === 'loading'
        ? 'pi pi-spin pi-spinner'
        : 'pi pi-lock';
  return (
    <div className={`desk-window desk-window--${state.kind}`} role="status" data-testid="reply-window" data-window={state.kind}>
      <i className={icon} aria-hidden="true" />
      <span>{text}</span>
    </div>
  );
}

/**
 * Outside the reply window the composer offers the account's approved templates instead of free
 * text: pick one, fill its parameters, read the message as the customer will, send.
 */
export function TemplatePicker({
  templates,
  error,
  onRetry,
  onSend,
}: {
  templates: TemplateView[] | null;
  error: unknown;
  onRetry: () => void;
  onSend: (
    template: TemplateView,
    parameters: { bodyParameters: string[]; headerParameters?: string[]; headerMedia?: { link: string } },
    clientMessageId: string,
    /** A media header's file the agent picked (sent instead of a link). */
    file?: File,
  ) => Promise<unknown>;
}) {
  const { t } = useTranslation();
  const [chosen, setChosen] = useState('');
  const [values, setValues] = useState<TemplateValues>(NO_VALUES);
  const [file, setFile] = useState<File | null>(null);
  // A new file input (cleared) for each template and after each send.
  const [fileInput, setFileInput] = useState(0);
  const [sending, setSending] = useState(false);
  const template = useMemo(() => templates?.find((item) => templateKey(item) === chosen) ?? null, [templates, chosen]);
  useEffect(() => {
    if (!chosen && templates?.length) setChosen(templateKey(templates[0]));
  }, [templates, chosen]);
  useEffect(() => {
    setValues(NO_VALUES);
    setFile(null);
    setFileInput((count) => count + 1);
  }, [chosen]);

  if (error)
    return (
      <div className="desk-templates" data-testid="template-picker" data-state="error">
        <p className="desk-templates__error" role="alert">
          {t('desk.templates.error', { reason: describeError(error, t) })}
        </p>
        <Button label={t('desk.window.retry')} size="small" text onClick={onRetry} />
      </div>
    );
  if (!templates)
    return (
      <div className="desk-templates muted" role="status" data-testid="template-picker" data-state="loading">
        {t('common.loading')}
      </div>
    );
  if (templates.length === 0)
    return (
      <div className="desk-templates muted" data-testid="template-picker" data-state="empty">
        {t('desk.templates.none')}
      </div>
    );

  const mediaFormat = template ? templateMediaFormat(template) : null;
  const named = template?.parameterFormat === 'NAMED';
  const headerNames = named ? template?.headerParameterNames : undefined;
  const bodyNames = named ? template?.bodyParameterNames : undefined;
  const send = async () => {
    if (!template || !templateReady(template, values)) return;
    setSending(true);
    try {
      const link = values.mediaLink?.trim();
      const media = templateMediaFormat(template) && !file && link ? { headerMedia: { link } } : {};
      await onSend(template, { ...templateParameters(template, values), ...media }, newClientMessageId(), file ?? undefined);
      setValues(NO_VALUES);
      setFile(null);
      setFileInput((count) => count + 1);
    } finally {
      setSending(false);
    }
  };
  return (
    <div className="desk-templates" data-testid="template-picker" data-state="ready">
      {/* The choice and its parameters side by side: the picker must leave the conversation in view. */}
      <div className="desk-templates__fields">
        <label className="desk-field">
          <span>{t('desk.templates.choose')}</span>
          <select
            className="p-inputtext p-component"
            value={chosen}
            onChange={(event) => setChosen(event.target.value)}
            data-testid="template-select"
          >
            {templates.map((item) => (
              <option key={templateKey(item)} value={templateKey(item)}>
                {item.name} · {item.language}
              </option>
            ))}
          </select>
        </label>
        {template ? (
          <>
            {mediaFormat ? (
              <MediaFields
                key={fileInput}
                format={mediaFormat}
                link={values.mediaLink ?? ''}
                file={file}
                onLink={(mediaLink) => setValues((held) => ({ ...held, mediaLink }))}
                onFile={(picked) => {
                  setFile(picked);
                  setValues((held) => ({
                    ...held,
                    mediaFile: picked ? { name: picked.name, type: picked.type, size: picked.size } : null,
                  }));
                }}
              />
            ) : null}
            <ParameterFields
              count={template.headerParameterCount}
              values={values.header}
              names={headerNames}
              examples={template.parameterExamples}
              label={(n) => t('desk.templates.headerParameter', { n })}
              maxLength={60}
              testId="template-header-parameter"
              onChange={(header) => setValues((held) => ({ ...held, header }))}
            />
            <ParameterFields
              count={template.parameterCount}
              values={values.body}
              names={bodyNames}
              examples={template.parameterExamples}
              label={(n) => t('desk.templates.parameter', { n })}
              maxLength={1000}
              testId="template-parameter"
              onChange={(body) => setValues((held) => ({ ...held, body }))}
            />
          </>
        ) : null}
      </div>
      {template ? (
        <>
          <div className="desk-templates__preview" aria-label={t('desk.templates.preview')} data-testid="template-preview">
            {mediaFormat ? (
              <span className="desk-templates__media muted" data-testid="template-preview-media">
                <i className={MEDIA_ICONS[mediaFormat]} aria-hidden="true" />{' '}
                {file?.name ?? (values.mediaLink?.trim() || t(`desk.templates.media.${mediaFormat}`))}
              </span>
            ) : null}
            {template.headerText ? (
              <strong className="desk-templates__header" data-testid="template-preview-header">
                <Segments text={template.headerText} values={values.header} names={headerNames} />
              </strong>
            ) : null}
            <Segments text={template.body} values={values.body} names={bodyNames} />
          </div>
          <div className="desk-templates__actions">
            <span className="muted" data-testid="template-category">
              {templateCategoryKey(template.category) ? t(templateCategoryKey(template.category)!) : template.category}
            </span>
            <Button
              label={t('desk.templates.send')}
              icon="pi pi-send"
              size="small"
              disabled={sending || !templateReady(template, values)}
              loading={sending}
              onClick={() => void send()}
              data-testid="template-send"
            />
          </div>
        </>
      ) : null}
    </div>
  );
}

const NO_VALUES: TemplateValues = { header: [], body: [] };

const MEDIA_ICONS = { IMAGE: 'pi pi-image', VIDEO: 'pi pi-video', DOCUMENT: 'pi pi-file-pdf' } as const;

/** A template text (header or body) with its placeholders filled by what the agent typed, gaps marked. */
function Segments({ text, values, names }: { text: string; values: readonly string[]; names?: readonly string[] }) {
  return (
    <>
      {templateSegments(text, values, names).map((segment, index) =>
        'text' in segment ? (
          <span key={index}>{segment.text}</span>
        ) : (
          <mark key={index} className={segment.value ? 'desk-templates__value' : 'desk-templates__gap'}>
            {segment.value ?? `{{${segment.key}}}`}
          </mark>
        ),
      )}
    </>
  );
}

/** A media header (image, video, document): a public https link, or a file from the agent's computer checked before it goes. */
function MediaFields({
  format,
  link,
  file,
  onLink,
  onFile,
}: {
  format: keyof typeof TEMPLATE_MEDIA_LIMITS;
  link: string;
  file: File | null;
  onLink: (link: string) => void;
  onFile: (file: File | null) => void;
}) {
  const { t } = useTranslation();
  const limits = TEMPLATE_MEDIA_LIMITS[format];
  const problem = file ? templateFileProblem(format, file) : null;
  return (
    <div className="desk-templates__media-fields" data-testid="template-media" data-format={format}>
      <label className="desk-field desk-templates__param">
        <span>{t('desk.templates.mediaLink', { kind: t(`desk.templates.media.${format}`) })}</span>
        <input
          className="p-inputtext p-component"
          type="url"
          value={link}
          disabled={Boolean(file)}
          placeholder={`https://…/file.${limits.extensions[0]}`}
          onChange={(event) => onLink(event.target.value)}
          data-testid="template-media-link"
        />
      </label>
      <label className="desk-field desk-templates__param">
        <span>{t('desk.templates.mediaFile', { types: limits.extensions.join(', '), megabytes: limits.maxBytes / 1024 / 1024 })}</span>
        {/* The native file button speaks the browser's language: ours is shown, the input stays hidden behind it. */}
        <span className="desk-templates__file">
          <span className="p-button p-button-outlined p-button-sm" aria-hidden="true">
            {t('desk.templates.mediaChoose')}
          </span>
          <span className="muted desk-templates__file-name">{file?.name ?? t('desk.templates.mediaNone')}</span>
          <input
            type="file"
            className="desk-templates__file-input"
            accept={limits.mimeTypes.join(',')}
            onChange={(event) => onFile(event.target.files?.[0] ?? null)}
            data-testid="template-media-file"
          />
        </span>
      </label>
      {problem ? (
        <p className="desk-templates__error" role="alert" data-testid="template-media-problem">
          {t(problem.key, { types: problem.types, megabytes: problem.megabytes })}
        </p>
      ) : null}
    </div>
  );
}

/** One input per parameter of a header or a body: {{n}} by number, a NAMED template's by name, Meta's example as the placeholder. */
function ParameterFields({
  count,
  values,
  names,
  examples,
  label,
  maxLength,
  testId,
  onChange,
}: {
  count: number;
  values: readonly string[];
  names?: readonly string[];
  examples?: Record<string, string>;
  label: (n: number) => string;
  maxLength: number;
  testId: string;
  onChange: (values: string[]) => void;
}) {
  return (
    <>
      {Array.from({ length: count }, (_, index) => (
        <label key={index} className="desk-field desk-templates__param">
          <span>{names?.[index] ?? label(index + 1)}</span>
          <input
            className="p-inputtext p-component"
            value={values[index] ?? ''}
            placeholder={examples?.[names?.[index] ?? String(index + 1)] ?? undefined}
            data-name={names?.[index]}
            maxLength={maxLength}
            onChange={(event) => {
              const next = [...values];
              next[index] = event.target.value;
              onChange(next);
            }}
            data-testid={testId}
          />
        </label>
      ))}
    </>
  );
}
