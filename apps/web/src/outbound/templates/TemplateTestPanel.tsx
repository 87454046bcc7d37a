import { useEffect, useState } from 'react';
import { Button } from 'primereact/button';
import { InputText } from 'primereact/inputtext';
import { useTranslation } from 'react-i18next';
import type { OutboundTemplateView, PhoneListEntry, TemplateIssue, TemplateTestResult } from '@centralita/contracts';
import { isApiError } from '../../api/api-error';
import { describeError } from '../../api/error-text';
import { serverIssues } from '../../admin/admin-logic';
import { ScriptText } from './ScriptText';
import { issueText } from './template-form-logic';
import type { TemplatesApi } from './templates-api';

/**
 * "Test send": the saved template rendered by the server for a row of one of the tenant's phone
 * lists and/or sample values per parameter. Nothing is stored. The lists come with the outbound
 * form options; reading a list's rows needs the phone-lists permission, and without it the row
 * picker reports that and sample values remain.
 */
export function TemplateTestPanel({ api, template }: { api: TemplatesApi; template: OutboundTemplateView | null }) {
  const { t } = useTranslation();
  const [lists, setLists] = useState<{ id: string; name: string }[] | null>(null);
  const [listId, setListId] = useState('');
  const [entries, setEntries] = useState<PhoneListEntry[]>([]);
  const [contactId, setContactId] = useState('');
  const [samples, setSamples] = useState<Record<string, string>>({});
  const [busy, setBusy] = useState(false);
  const [result, setResult] = useState<TemplateTestResult | null>(null);
  const [failure, setFailure] = useState<string | null>(null);

  useEffect(() => {
    if (!template) return;
    void api
      .phoneLists()
      .then(setLists)
      .catch(() => setLists(null));
  }, [api, template]);

  useEffect(() => {
    setContactId('');
    setEntries([]);
    if (!listId) return;
    void api
      .entries(listId)
      .then((page) => setEntries(page.items))
      .catch((error: unknown) => setFailure(describeError(error, t)));
  }, [api, listId, t]);

  if (!template) {
    return (
      <section className="card tpl-test" data-testid="tpl-test">
        <h2 className="tpl-side__title">
          <i className="pi pi-send" aria-hidden="true" /> {t('outboundTemplates.test.title')}
        </h2>
        <p className="muted" data-testid="tpl-test-save-first">
          {t('outboundTemplates.test.saveFirst')}
        </p>
      </section>
    );
  }

  const send = async () => {
    setBusy(true);
    setFailure(null);
    setResult(null);
    try {
      const values = Object.fromEntries(Object.entries(samples).filter(([, value]) => value.trim() !== ''));
      setResult(await api.test(template.id, { ...(contactId ? { contactId } : {}), values }));
    } catch (error) {
      const issues = isApiError(error) ? (serverIssues(error.data) as TemplateIssue[]) : [];
      setFailure(issues.length ? issues.map((issue) => issueText(issue, t)).join(' ') : describeError(error, t));
    } finally {
      setBusy(false);
    }
  };

  return (
    <section className="card tpl-test" data-testid="tpl-test">
      <h2 className="tpl-side__title">
        <i className="pi pi-send" aria-hidden="true" /> {t('outboundTemplates.test.title')}
      </h2>
      <p className="muted">{t('outboundTemplates.test.hint')}</p>
      {lists && lists.length > 0 && (
        <div className="tpl-sample">
          <Picker
            label={t('outboundTemplates.test.phoneList')}
            placeholder={t('outboundTemplates.test.pickList')}
            testId="tpl-test-list"
            value={listId}
            onChange={setListId}
            options={lists.map((list) => ({ value: list.id, label: list.name }))}
          />
          {listId && (
            <Picker
              label={t('outboundTemplates.test.row')}
              placeholder={t('outboundTemplates.test.pickRow')}
              testId="tpl-test-contact"
              value={contactId}
              onChange={setContactId}
              options={entries.map((entry) => ({ value: entry.id, label: entry.name ? `${entry.name} · ${entry.phone}` : entry.phone }))}
            />
          )}
        </div>
      )}
      {template.parameters.length > 0 && (
        <fieldset className="tpl-test__values">
          <legend>{t('outboundTemplates.test.values')}</legend>
          {template.parameters.map((parameter) => (
            <label key={parameter.key}>
              <span>{parameter.label || parameter.key}</span>
              <InputText
                value={samples[parameter.key] ?? ''}
                placeholder={`{{${parameter.key}}}`}
                data-testid={`tpl-test-value-${parameter.key}`}
                onChange={(event) => setSamples((current) => ({ ...current, [parameter.key]: event.target.value }))}
              />
            </label>
          ))}
        </fieldset>
      )}
      <Button
        type="button"
        icon="pi pi-send"
        label={t('outboundTemplates.test.send')}
        loading={busy}
        disabled={busy}
        data-testid="tpl-test-send"
        onClick={() => void send()}
      />
      {failure && (
        <div className="form-error" role="alert" data-testid="tpl-test-error">
          <i className="pi pi-times-circle" aria-hidden="true" />
          <span>{failure}</span>
        </div>
      )}
      {result && (
        <div className="tpl-test__result" data-testid="tpl-test-result" role="status">
          <h3>{t('outboundTemplates.test.result')}</h3>
          <p className="muted">
            {result.contact
              ? t('outboundTemplates.test.contact', { name: result.contact.name ?? '—', phone: result.contact.phone ?? '—' })
              : t('outboundTemplates.test.noContact')}
          </p>
          <ScriptText text={result.text} missing={result.missing} testId="tpl-test-text" />
          <p className={result.missing.length ? 'tpl-missing' : 'tpl-complete'} data-testid="tpl-test-missing">
            {result.missing.length
              ? t('outboundTemplates.test.missing', { keys: result.missing.join(', ') })
              : t('outboundTemplates.test.complete')}
          </p>
        </div>
      )}
    </section>
  );
}

/** A labelled native select with an empty first choice (the list and row pickers of the test panel). */
function Picker(props: {
  label: string;
  placeholder: string;
  testId: string;
  value: string;
  onChange: (value: string) => void;
  options: { value: string; label: string }[];
}) {
  return (
    <label>
      <span>{props.label}</span>
      <select
        className="p-inputtext p-component tpl-select"
        value={props.value}
        data-testid={props.testId}
        onChange={(event) => props.onChange(event.target.value)}
      >
        <option value="">{props.placeholder}</option>
        {props.options.map((option) => (
          <option key={option.value} value={option.value}>
            {option.label}
          </option>
        ))}
      </select>
    </label>
  );
}
