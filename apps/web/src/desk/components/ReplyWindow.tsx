import { useEffect, useMemo, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Button } from 'primereact/button';
import type { TemplateView } from '@centralita/contracts';
import { describeError } from '../../api/error-text';
import { newClientMessageId } from '../desk-api';
import { windowTime, type ReplyWindowState } from '../logic/reply-window';
import {
  templateCategoryKey,
  templateKey,
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
    parameters: { bodyParameters: string[]; headerParameters?: string[] },
    clientMessageId: string,
  ) => Promise<unknown>;
}) {
  const { t } = useTranslation();
  const [chosen, setChosen] = useState('');
  const [values, setValues] = useState<TemplateValues>(NO_VALUES);
  const [sending, setSending] = useState(false);
  const template = useMemo(() => templates?.find((item) => templateKey(item) === chosen) ?? null, [templates, chosen]);
  useEffect(() => {
    if (!chosen && templates?.length) setChosen(templateKey(templates[0]));
  }, [templates, chosen]);
  useEffect(() => setValues(NO_VALUES), [chosen]);

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

  const send = async () => {
    if (!template || !templateReady(template, values)) return;
    setSending(true);
    try {
      await onSend(template, templateParameters(template, values), newClientMessageId());
      setValues(NO_VALUES);
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
            <ParameterFields
              count={template.headerParameterCount}
              values={values.header}
              label={(n) => t('desk.templates.headerParameter', { n })}
              maxLength={60}
              testId="template-header-parameter"
              onChange={(header) => setValues((held) => ({ ...held, header }))}
            />
            <ParameterFields
              count={template.parameterCount}
              values={values.body}
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
            {template.headerText ? (
              <strong className="desk-templates__header" data-testid="template-preview-header">
                <Segments text={template.headerText} values={values.header} />
              </strong>
            ) : null}
            <Segments text={template.body} values={values.body} />
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

/** A template text (header or body) with its {{n}} placeholders filled by what the agent typed, gaps marked. */
function Segments({ text, values }: { text: string; values: readonly string[] }) {
  return (
    <>
      {templateSegments(text, values).map((segment, index) =>
        'text' in segment ? (
          <span key={index}>{segment.text}</span>
        ) : (
          <mark key={index} className={segment.value ? 'desk-templates__value' : 'desk-templates__gap'}>
            {segment.value ?? `{{${segment.parameter}}}`}
          </mark>
        ),
      )}
    </>
  );
}

/** One input per {{n}} of a header or a body. */
function ParameterFields({
  count,
  values,
  label,
  maxLength,
  testId,
  onChange,
}: {
  count: number;
  values: readonly string[];
  label: (n: number) => string;
  maxLength: number;
  testId: string;
  onChange: (values: string[]) => void;
}) {
  return (
    <>
      {Array.from({ length: count }, (_, index) => (
        <label key={index} className="desk-field desk-templates__param">
          <span>{label(index + 1)}</span>
          <input
            className="p-inputtext p-component"
            value={values[index] ?? ''}
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
