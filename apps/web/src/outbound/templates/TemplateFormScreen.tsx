import { useEffect, useMemo, useRef, useState, type FormEvent } from 'react';
import { useNavigate } from 'react-router-dom';
import { Button } from 'primereact/button';
import { InputText } from 'primereact/inputtext';
import { InputTextarea } from 'primereact/inputtextarea';
import { useTranslation } from 'react-i18next';
import {
  normaliseOutboundTemplate,
  OUTBOUND_TEMPLATE_LIMITS,
  renderOutboundTemplate,
  TEMPLATE_KEY_PATTERN,
  TEMPLATE_PARAMETER_SOURCES,
  validateOutboundTemplate,
  type AppRoute,
  type OutboundTemplateInput,
  type OutboundTemplateView,
  type TemplateIssue,
  type TemplateParameter,
  type TemplateParameterSource,
} from '@centralita/contracts';
import { isApiError } from '../../api/api-error';
import { describeError } from '../../api/error-text';
import { useServices } from '../../app/ServicesContext';
import { useEditId } from '../../admin/AdminFormPage';
import { serverIssues } from '../../admin/admin-logic';
import { FieldShell, TextInput } from '../../admin/fields';
import { PageHeader } from '../../layout/PageHeader';
import { useToast } from '../../toast/ToastProvider';
import { ScriptText } from './ScriptText';
import { TemplateTestPanel } from './TemplateTestPanel';
import { EMPTY_TEMPLATE, fieldErrors, insertPlaceholder, issueText, newParameter, undeclaredPlaceholders } from './template-form-logic';
import { createTemplatesApi, TEMPLATE_LIST_PATH } from './templates-api';
import './templates.css';

const toInput = (view: OutboundTemplateView): OutboundTemplateInput => ({
  name: view.name,
  description: view.description,
  script: view.script,
  parameters: view.parameters,
});

/**
 * /OutboundCampaign/SubmitTemplates: create or edit an outbound template (?id= edits). The script
 * with placeholder insertion, the parameter rows, a live preview for a sample contact (same render
 * as the server) and, once saved, the server's test send.
 */
export function TemplateFormScreen({ route }: { route: AppRoute }) {
  const { t } = useTranslation();
  const { client } = useServices();
  const api = useMemo(() => createTemplatesApi(client), [client]);
  const toast = useToast();
  const navigate = useNavigate();
  const id = useEditId();
  const [values, setValues] = useState<OutboundTemplateInput>(EMPTY_TEMPLATE);
  const [saved, setSaved] = useState<OutboundTemplateView | null>(null);
  const [loading, setLoading] = useState(id !== null);
  const [saving, setSaving] = useState(false);
  const [failure, setFailure] = useState<string | null>(null);
  const [submitted, setSubmitted] = useState(false);
  const [touched, setTouched] = useState<Record<string, boolean>>({});
  const [answered, setAnswered] = useState<TemplateIssue[]>([]);
  const [sample, setSample] = useState({ name: 'Lucía Fernández', phone: '+34600100101' });
  const scriptRef = useRef<HTMLTextAreaElement>(null);

  useEffect(() => {
    if (!id) return;
    let live = true;
    setLoading(true);
    api
      .get(id)
      .then((view) => {
        if (!live) return;
        setSaved(view);
        setValues(toInput(view));
      })
      .catch((error: unknown) => live && setFailure(describeError(error, t)))
      .finally(() => live && setLoading(false));
    return () => {
      live = false;
    };
    // The row only changes with the id; t is stable for the screen's life.
  }, [id, api]);

  const issues = useMemo(() => validateOutboundTemplate(values), [values]);
  const shown = useMemo(() => {
    if (answered.length) return fieldErrors(answered, t);
    const visible = issues.filter((issue) => submitted || touched[issue.field.split('.')[0]]);
    return fieldErrors(visible, t);
  }, [answered, issues, submitted, touched, t]);
  const preview = useMemo(() => renderOutboundTemplate(values, sample), [values, sample]);

  const change = (patch: Partial<OutboundTemplateInput>) => {
    setValues((current) => ({ ...current, ...patch }));
    setAnswered([]);
  };
  const touch = (field: string) => () => setTouched((current) => ({ ...current, [field]: true }));
  const setParameter = (index: number, patch: Partial<TemplateParameter>) =>
    change({ parameters: values.parameters.map((parameter, i) => (i === index ? { ...parameter, ...patch } : parameter)) });

  const insert = (key: string) => {
    const area = scriptRef.current;
    const start = area?.selectionStart ?? values.script.length;
    const end = area?.selectionEnd ?? start;
    const next = insertPlaceholder(values.script, key, start, end);
    change({ script: next.script });
    // Back to the script with the caret after the new placeholder, once React has rendered it.
    requestAnimationFrame(() => {
      scriptRef.current?.focus();
      scriptRef.current?.setSelectionRange(next.caret, next.caret);
    });
  };

  const toDeclare = undeclaredPlaceholders(values.script, values.parameters);

  const onSubmit = async (event: FormEvent) => {
    event.preventDefault();
    setSubmitted(true);
    if (issues.length > 0 || saving) return;
    setSaving(true);
    setFailure(null);
    try {
      const body = normaliseOutboundTemplate(values);
      if (id) await api.update(id, body);
      else await api.create(body);
      toast.success(t('outboundTemplates.form.saved'));
      navigate(TEMPLATE_LIST_PATH);
    } catch (error) {
      const list = isApiError(error) ? (serverIssues(error.data) as TemplateIssue[]) : [];
      setAnswered(list);
      setFailure(list.length ? list.map((issue) => issueText(issue, t)).join(' ') : describeError(error, t));
    } finally {
      setSaving(false);
    }
  };

  const errorFor = (field: string) => shown[field] ?? null;

  return (
    <div className="page outbound-templates">
      <PageHeader
        title={t(`routes.${route.titleKey}`)}
        icon={id ? 'pi pi-pencil' : 'pi pi-plus'}
        subtitle={id ? t('outboundTemplates.form.editing') : t('outboundTemplates.form.adding')}
      />
      <div className="tpl-layout">
        <form className="card tpl-form" noValidate onSubmit={(e) => void onSubmit(e)} aria-busy={loading || saving} data-testid="tpl-form">
          {loading ? (
            <p className="muted" role="status">
              <i className="pi pi-spin pi-spinner" aria-hidden="true" /> {t('outboundTemplates.form.loading')}
            </p>
          ) : (
            <>
              <div className="admin-form__grid">
                <TextInput
                  id="tpl-name"
                  label={t('outboundTemplates.form.name')}
                  value={values.name}
                  maxLength={OUTBOUND_TEMPLATE_LIMITS.nameMax}
                  onChange={(name) => change({ name })}
                  onBlur={touch('name')}
                  error={errorFor('name')}
                />
                <TextInput
                  id="tpl-description"
                  label={t('outboundTemplates.form.description')}
                  value={values.description}
                  maxLength={OUTBOUND_TEMPLATE_LIMITS.descriptionMax}
                  onChange={(description) => change({ description })}
                  onBlur={touch('description')}
                  error={errorFor('description')}
                />
                <FieldShell
                  id="tpl-script"
                  label={t('outboundTemplates.form.script')}
                  hint={t('outboundTemplates.form.scriptHint', { example: '{{customerName}}' })}
                  error={errorFor('script')}
                  wide
                >
                  <div className="tpl-insert" role="group" aria-label={t('outboundTemplates.form.insert')}>
                    <span className="tpl-insert__label">{t('outboundTemplates.form.insert')}:</span>
                    {values.parameters.filter((parameter) => TEMPLATE_KEY_PATTERN.test(parameter.key)).length === 0 ? (
                      <span className="muted">{t('outboundTemplates.form.insertNone')}</span>
                    ) : (
                      values.parameters
                        .filter((parameter) => TEMPLATE_KEY_PATTERN.test(parameter.key))
                        .map((parameter) => (
                          <Button
                            key={parameter.key}
                            type="button"
                            size="small"
                            outlined
                            label={`{{${parameter.key}}}`}
                            className="tpl-insert__chip"
                            data-testid={`tpl-insert-${parameter.key}`}
                            onClick={() => insert(parameter.key)}
                          />
                        ))
                    )}
                  </div>
                  <InputTextarea
                    id="tpl-script"
                    ref={scriptRef}
                    data-testid="tpl-script"
                    value={values.script}
                    rows={6}
                    maxLength={OUTBOUND_TEMPLATE_LIMITS.scriptMax}
                    invalid={!!errorFor('script')}
                    aria-invalid={!!errorFor('script')}
                    onChange={(event) => change({ script: event.target.value })}
                    onBlur={touch('script')}
                  />
                  <small className="tpl-counter muted">
                    {values.script.length} / {OUTBOUND_TEMPLATE_LIMITS.scriptMax}
                  </small>
                </FieldShell>
              </div>
              <fieldset className="tpl-params" data-testid="tpl-params">
                <legend>{t('outboundTemplates.form.parameters')}</legend>
                <p className="muted tpl-params__hint">{t('outboundTemplates.form.parametersHint')}</p>
                {errorFor('parameters') && (
                  <small className="field__error" role="alert">
                    {errorFor('parameters')}
                  </small>
                )}
                {values.parameters.length === 0 ? (
                  <p className="muted" data-testid="tpl-params-empty">
                    {t('outboundTemplates.form.noParameters')}
                  </p>
                ) : (
                  <div className="tpl-params__rows">
                    <div className="tpl-param tpl-param--head" aria-hidden="true">
                      <span>{t('outboundTemplates.form.key')}</span>
                      <span>{t('outboundTemplates.form.label')}</span>
                      <span>{t('outboundTemplates.form.source')}</span>
                      <span>{t('outboundTemplates.form.value')}</span>
                      <span>{t('outboundTemplates.form.defaultValue')}</span>
                      <span />
                    </div>
                    {values.parameters.map((parameter, index) => (
                      <ParameterRow
                        key={index}
                        index={index}
                        parameter={parameter}
                        errorFor={errorFor}
                        onChange={(patch) => setParameter(index, patch)}
                        onBlur={touch('parameters')}
                        onRemove={() => change({ parameters: values.parameters.filter((_, i) => i !== index) })}
                      />
                    ))}
                  </div>
                )}
                <div className="tpl-params__actions">
                  <Button
                    type="button"
                    icon="pi pi-plus"
                    size="small"
                    outlined
                    label={t('outboundTemplates.form.addParameter')}
                    data-testid="tpl-add-param"
                    disabled={values.parameters.length >= OUTBOUND_TEMPLATE_LIMITS.parametersMax}
                    onClick={() => change({ parameters: [...values.parameters, newParameter()] })}
                  />
                  {toDeclare.length > 0 && (
                    <Button
                      type="button"
                      icon="pi pi-bolt"
                      size="small"
                      text
                      label={`${t('outboundTemplates.form.detect')} (${toDeclare.join(', ')})`}
                      data-testid="tpl-detect"
                      onClick={() => change({ parameters: [...values.parameters, ...toDeclare.map((key) => newParameter(key))] })}
                    />
                  )}
                </div>
              </fieldset>
            </>
          )}
          {failure && (
            <div className="form-error" role="alert" data-testid="tpl-form-error">
              <i className="pi pi-times-circle" aria-hidden="true" />
              <span>{failure}</span>
            </div>
          )}
          <div className="admin-form__actions">
            <Button
              type="button"
              label={t('outboundTemplates.form.cancel')}
              text
              onClick={() => navigate(TEMPLATE_LIST_PATH)}
              data-testid="tpl-cancel"
            />
            <Button
              type="submit"
              icon="pi pi-check"
              label={t('outboundTemplates.form.save')}
              loading={saving}
              disabled={loading || saving}
              data-testid="tpl-save"
            />
          </div>
        </form>
        <aside className="tpl-side">
          <section className="card tpl-preview" data-testid="tpl-preview" aria-live="polite">
            <h2 className="tpl-side__title">
              <i className="pi pi-eye" aria-hidden="true" /> {t('outboundTemplates.preview.title')}
            </h2>
            <p className="muted">{t('outboundTemplates.preview.hint')}</p>
            <div className="tpl-sample">
              <label>
                <span>{t('outboundTemplates.preview.sampleName')}</span>
                <InputText
                  value={sample.name}
                  data-testid="tpl-sample-name"
                  onChange={(event) => setSample((current) => ({ ...current, name: event.target.value }))}
                />
              </label>
              <label>
                <span>{t('outboundTemplates.preview.samplePhone')}</span>
                <InputText
                  value={sample.phone}
                  data-testid="tpl-sample-phone"
                  onChange={(event) => setSample((current) => ({ ...current, phone: event.target.value }))}
                />
              </label>
            </div>
            {values.script.trim() ? (
              <>
                <ScriptText text={preview.text} missing={preview.missing} testId="tpl-preview-text" />
                <p className={preview.missing.length ? 'tpl-missing' : 'tpl-complete'} data-testid="tpl-preview-missing">
                  {preview.missing.length
                    ? t('outboundTemplates.preview.missing', { keys: preview.missing.join(', ') })
                    : t('outboundTemplates.preview.complete')}
                </p>
              </>
            ) : (
              <p className="muted">{t('outboundTemplates.preview.empty')}</p>
            )}
          </section>
          <TemplateTestPanel api={api} template={saved} />
        </aside>
      </div>
    </div>
  );
}

function ParameterRow(props: {
  index: number;
  parameter: TemplateParameter;
  errorFor(field: string): string | null;
  onChange(patch: Partial<TemplateParameter>): void;
  onBlur(): void;
  onRemove(): void;
}) {
  const { t } = useTranslation();
  const { index, parameter, errorFor } = props;
  const at = (field: keyof TemplateParameter) => `parameters.${index}.${field}`;
  const errors = (['key', 'label', 'source', 'value', 'defaultValue'] as const)
    .map((field) => errorFor(at(field)))
    .filter((text): text is string => !!text);
  const cell = (field: 'key' | 'label' | 'value' | 'defaultValue', disabled = false) => (
    <InputText
      value={disabled ? '' : parameter[field]}
      disabled={disabled}
      aria-label={t(`outboundTemplates.form.${field}`)}
      data-testid={`tpl-param-${field}-${index}`}
      invalid={!!errorFor(at(field))}
      maxLength={
        field === 'key'
          ? OUTBOUND_TEMPLATE_LIMITS.keyMax
          : field === 'label'
            ? OUTBOUND_TEMPLATE_LIMITS.labelMax
            : OUTBOUND_TEMPLATE_LIMITS.valueMax
      }
      onChange={(event) => props.onChange({ [field]: event.target.value })}
      onBlur={props.onBlur}
    />
  );
  return (
    <div className="tpl-param-block" data-testid={`tpl-param-${index}`}>
      <div className="tpl-param">
        {cell('key')}
        {cell('label')}
        <select
          className="p-inputtext p-component tpl-select"
          aria-label={t('outboundTemplates.form.source')}
          data-testid={`tpl-param-source-${index}`}
          value={parameter.source}
          onChange={(event) => props.onChange({ source: event.target.value as TemplateParameterSource })}
          onBlur={props.onBlur}
        >
          {TEMPLATE_PARAMETER_SOURCES.map((source) => (
            <option key={source} value={source}>
              {t(`outboundTemplates.sources.${source}`)}
            </option>
          ))}
        </select>
        {cell('value', parameter.source !== 'fixed')}
        {cell('defaultValue')}
        <Button
          type="button"
          icon="pi pi-trash"
          rounded
          text
          severity="danger"
          aria-label={t('outboundTemplates.form.remove')}
          tooltip={t('outboundTemplates.form.remove')}
          data-testid={`tpl-param-remove-${index}`}
          onClick={props.onRemove}
        />
      </div>
      {errors.length > 0 && (
        <small className="field__error" data-testid={`tpl-param-error-${index}`}>
          {errors.join(' ')}
        </small>
      )}
    </div>
  );
}
