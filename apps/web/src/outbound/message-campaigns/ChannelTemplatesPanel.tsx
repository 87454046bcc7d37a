import { useCallback, useEffect, useMemo, useState } from 'react';
import { Button } from 'primereact/button';
import { Column } from 'primereact/column';
import { DataTable } from 'primereact/datatable';
import { Dropdown } from 'primereact/dropdown';
import { InputText } from 'primereact/inputtext';
import { InputTextarea } from 'primereact/inputtextarea';
import { Message } from 'primereact/message';
import { Tag } from 'primereact/tag';
import { useTranslation } from 'react-i18next';
import {
  CHANNEL_TEMPLATE_CATEGORIES,
  metaComponents,
  namedPlaceholders,
  positionalPlaceholders,
  TEMPLATE_MEDIA_FORMATS,
  TEMPLATE_MEDIA_LIMITS,
  type ParameterFormat,
  type TemplateMediaFormat,
  renderTemplate,
  templateProblem,
  type ChannelTemplateInput,
  type ChannelTemplateView,
} from '@centralita/contracts';
import { describeError } from '../../api/error-text';
import { useServices } from '../../app/ServicesContext';
import { createMessageCampaignsApi, type TemplateAccount } from './message-campaigns-api';
import { TemplateTestSend } from './TemplateTestSend';
import { EmailTemplateEditor } from './EmailTemplateEditor';
import './message-campaigns.css';

export const TEMPLATE_STATUS_SEVERITY: Record<string, 'success' | 'info' | 'warning' | 'danger' | undefined> = {
  APPROVED: 'success',
  PENDING: 'info',
  DRAFT: undefined,
  PAUSED: 'warning',
  REJECTED: 'danger',
  DISABLED: 'danger',
};

interface Draft {
  name: string;
  language: string;
  category: ChannelTemplateInput['category'];
  parameterFormat: ParameterFormat;
  /** NONE, TEXT, or a media header whose sample is uploaded to Meta first (its handle). */
  headerFormat: 'NONE' | 'TEXT' | TemplateMediaFormat;
  headerHandle: string;
  headerFileName: string;
  header: string;
  headerExample: string;
  body: string;
  examples: string[];
  footer: string;
  quickReply: string;
}

const EMPTY: Draft = {
  name: '',
  language: 'es',
  category: 'UTILITY',
  parameterFormat: 'POSITIONAL',
  headerFormat: 'NONE',
  headerHandle: '',
  headerFileName: '',
  header: '',
  headerExample: '',
  body: '',
  examples: [],
  footer: '',
  quickReply: '',
};

/** The parameters of a text as the editor labels their examples: names ({{first_name}}) or numbers. */
export function draftParameters(text: string, format: ParameterFormat): string[] {
  if (format === 'NAMED') return namedPlaceholders(text).names;
  return Array.from({ length: positionalPlaceholders(text).count }, (_, index) => String(index + 1));
}

function toInput(accountId: string, draft: Draft): ChannelTemplateInput {
  const headerCount = draftParameters(draft.header, draft.parameterFormat).length;
  const header: ChannelTemplateInput['header'] =
    draft.headerFormat === 'TEXT' && draft.header.trim()
      ? { format: 'TEXT', text: draft.header.trim(), ...(headerCount ? { example: draft.headerExample } : {}) }
      : draft.headerFormat !== 'NONE' && draft.headerFormat !== 'TEXT'
        ? { format: draft.headerFormat, handle: draft.headerHandle }
        : null;
  return {
    accountId,
    name: draft.name.trim(),
    language: draft.language.trim(),
    category: draft.category,
    parameterFormat: draft.parameterFormat,
    header,
    body: { text: draft.body, examples: draft.examples.slice(0, draftParameters(draft.body, draft.parameterFormat).length) },
    footer: draft.footer.trim() || null,
    buttons: draft.quickReply.trim() ? [{ type: 'QUICK_REPLY', text: draft.quickReply.trim() }] : [],
  };
}

/**
 * WhatsApp templates on /OutboundCampaign/CreateTemplates (issue 21): the account's templates with
 * Meta's review status and reason, "sync now", and the editor (Meta's checks as you type, live preview
 * through the shared renderer, submit to the WhatsApp Business account).
 */
export function ChannelTemplatesPanel() {
  const { t } = useTranslation();
  const { client } = useServices();
  const api = useMemo(() => createMessageCampaignsApi(client), [client]);
  const [accounts, setAccounts] = useState<TemplateAccount[] | null>(null);
  const [accountId, setAccountId] = useState<string | null>(null);
  const [templates, setTemplates] = useState<ChannelTemplateView[]>([]);
  const [loading, setLoading] = useState(false);
  const [failure, setFailure] = useState<string | null>(null);
  const [draft, setDraft] = useState<Draft>(EMPTY);
  const [busy, setBusy] = useState(false);

  useEffect(() => {
    api
      .accounts()
      .then((found) => {
        setAccounts(found);
        setAccountId((current) => current ?? found[0]?.id ?? null);
      })
      .catch((error: unknown) => setFailure(describeError(error, t)));
  }, [api, t]);

  const load = useCallback(async () => {
    if (!accountId) return;
    setLoading(true);
    try {
      setTemplates(await api.templates(accountId));
      setFailure(null);
    } catch (error) {
      setFailure(describeError(error, t));
    } finally {
      setLoading(false);
    }
  }, [api, accountId, t]);
  useEffect(() => void load(), [load]);

  const input = accountId ? toInput(accountId, draft) : null;
  const problem = input && (draft.name || draft.body) ? templateProblem(input) : null;
  const preview = input ? renderTemplate(metaComponents({ ...input, body: { ...input.body, examples: input.body.examples } }), {}) : null;
  const bodyParameters = draftParameters(draft.body, draft.parameterFormat);
  const headerCount = draft.headerFormat === 'TEXT' ? draftParameters(draft.header, draft.parameterFormat).length : 0;
  const [testing, setTesting] = useState<ChannelTemplateView | null>(null);
  const [uploading, setUploading] = useState(false);

  /** The chosen file goes to Meta at once (Resumable Upload API through the API); its handle is the header's sample. */
  const uploadSample = async (file: File | undefined) => {
    if (!file || !accountId || draft.headerFormat === 'NONE' || draft.headerFormat === 'TEXT') return;
    const limits = TEMPLATE_MEDIA_LIMITS[draft.headerFormat];
    if (!limits.mimeTypes.includes(file.type) || file.size > limits.maxBytes) {
      setFailure(
        t('messageCampaigns.templates.sampleRefused', {
          types: limits.extensions.join(', '),
          size: Math.round(limits.maxBytes / (1024 * 1024)),
        }),
      );
      return;
    }
    setUploading(true);
    try {
      const uploaded = await api.uploadSample(accountId, draft.headerFormat, file);
      setDraft((current) => ({ ...current, headerHandle: uploaded.handle, headerFileName: uploaded.fileName }));
      setFailure(null);
    } catch (error) {
      setFailure(describeError(error, t));
    } finally {
      setUploading(false);
    }
  };

  const run = async (work: () => Promise<unknown>) => {
    setBusy(true);
    try {
      await work();
      await load();
      setFailure(null);
    } catch (error) {
      setFailure(describeError(error, t));
    } finally {
      setBusy(false);
    }
  };

  const saveAndSubmit = () =>
    run(async () => {
      if (!input) return;
      const created = await api.createTemplate(input);
      await api.submitTemplate(created.id);
      setDraft(EMPTY);
    });

  if (accounts === null && !failure) return <p className="mc-muted">{t('messageCampaigns.loading')}</p>;
  return (
    <section className="mc-panel" data-testid="channel-templates">
      <header className="mc-panel__header">
        <h2>{t('messageCampaigns.templates.title')}</h2>
        <Dropdown
          value={accountId}
          options={accounts ?? []}
          optionLabel="name"
          optionValue="id"
          placeholder={t('messageCampaigns.account')}
          onChange={(event) => setAccountId(event.value as string)}
          aria-label={t('messageCampaigns.account')}
          data-testid="tpl-account"
        />
        <Button
          label={t('messageCampaigns.templates.sync')}
          icon="pi pi-sync"
          data-testid="tpl-sync"
          severity="secondary"
          disabled={!accountId || busy || accounts?.find((one) => one.id === accountId)?.kind === 'email'}
          onClick={() => void run(() => api.sync(accountId!))}
        />
      </header>
      {failure && <Message severity="error" text={failure} />}
      {accounts?.length === 0 && <p className="mc-muted">{t('messageCampaigns.noAccounts')}</p>}
      <DataTable value={templates} loading={loading} dataKey="id" size="small" emptyMessage={t('messageCampaigns.templates.empty')}>
        <Column field="name" header={t('messageCampaigns.templates.name')} body={(row: ChannelTemplateView) => <code>{row.name}</code>} />
        <Column field="language" header={t('messageCampaigns.templates.language')} />
        <Column
          field="category"
          header={t('messageCampaigns.templates.category')}
          body={(row: ChannelTemplateView) => t(`messageCampaigns.categories.${row.category}`, row.category)}
        />
        <Column
          field="status"
          header={t('messageCampaigns.templates.status')}
          body={(row: ChannelTemplateView) => (
            <span className="mc-status">
              <Tag value={t(`messageCampaigns.templateStatus.${row.status}`, row.status)} severity={TEMPLATE_STATUS_SEVERITY[row.status]} />
              {row.reason && <small className="mc-muted">{row.reason}</small>}
            </span>
          )}
        />
        <Column
          header=""
          body={(row: ChannelTemplateView) =>
            // Test send is WhatsApp's (an internal number); email templates have none.
            row.category === 'EMAIL' ? null : (
              <Button
                label={t('messageCampaigns.testSend.open')}
                icon="pi pi-mobile"
                size="small"
                text
                data-testid={`tpl-test-${row.name}`}
                onClick={() => setTesting(row)}
              />
            )
          }
        />
        <Column
          header=""
          body={(row: ChannelTemplateView) =>
            row.status === 'DRAFT' || row.status === 'REJECTED' ? (
              <Button
                label={t('messageCampaigns.templates.submit')}
                size="small"
                text
                disabled={busy}
                onClick={() => void run(() => api.submitTemplate(row.id))}
              />
            ) : null
          }
        />
      </DataTable>

      {testing && accountId && <TemplateTestSend api={api} accountId={accountId} template={testing} onClose={() => setTesting(null)} />}

      {/* An email account's templates: subject and body, no provider review (EmailTemplateEditor). */}
      {accounts?.find((one) => one.id === accountId)?.kind === 'email' && accountId && (
        <EmailTemplateEditor api={api} accountId={accountId} onSaved={() => void load()} />
      )}
      <div
        className="mc-editor"
        data-testid="channel-template-editor"
        style={accounts?.find((one) => one.id === accountId)?.kind === 'email' ? { display: 'none' } : undefined}
      >
        <div className="mc-editor__form">
          <h3>{t('messageCampaigns.templates.new')}</h3>
          <label>
            {t('messageCampaigns.templates.name')}
            <InputText
              data-testid="tpl-name"
              value={draft.name}
              onChange={(event) => setDraft({ ...draft, name: event.target.value })}
              placeholder="cita_recordatorio"
            />
          </label>
          <div className="mc-row">
            <label>
              {t('messageCampaigns.templates.language')}
              <InputText value={draft.language} onChange={(event) => setDraft({ ...draft, language: event.target.value })} />
            </label>
            <label>
              {t('messageCampaigns.templates.category')}
              <Dropdown
                value={draft.category}
                options={CHANNEL_TEMPLATE_CATEGORIES.map((value) => ({ value, label: t(`messageCampaigns.categories.${value}`) }))}
                onChange={(event) => setDraft({ ...draft, category: event.value as Draft['category'] })}
              />
            </label>
          </div>
          <label>
            {t('messageCampaigns.templates.parameterFormat')}
            <Dropdown
              data-testid="tpl-parameter-format"
              value={draft.parameterFormat}
              options={(['POSITIONAL', 'NAMED'] as const).map((value) => ({
                value,
                label: t(`messageCampaigns.parameterFormats.${value}`),
              }))}
              onChange={(event) => setDraft({ ...draft, parameterFormat: event.value as ParameterFormat, examples: [], headerExample: '' })}
            />
          </label>
          <label>
            {t('messageCampaigns.templates.headerFormat')}
            <Dropdown
              data-testid="tpl-header-format"
              value={draft.headerFormat}
              options={(['NONE', 'TEXT', ...TEMPLATE_MEDIA_FORMATS] as const).map((value) => ({
                value,
                label: t(`messageCampaigns.headerFormats.${value}`),
              }))}
              onChange={(event) =>
                setDraft({ ...draft, headerFormat: event.value as Draft['headerFormat'], headerHandle: '', headerFileName: '' })
              }
            />
          </label>
          {draft.headerFormat === 'TEXT' && (
            <label>
              {t('messageCampaigns.templates.header')}
              <InputText value={draft.header} onChange={(event) => setDraft({ ...draft, header: event.target.value })} />
            </label>
          )}
          {draft.headerFormat !== 'NONE' && draft.headerFormat !== 'TEXT' && (
            <label>
              {t('messageCampaigns.templates.sample', {
                types: TEMPLATE_MEDIA_LIMITS[draft.headerFormat].extensions.join(', '),
                size: Math.round(TEMPLATE_MEDIA_LIMITS[draft.headerFormat].maxBytes / (1024 * 1024)),
              })}
              <input
                type="file"
                data-testid="tpl-sample"
                accept={TEMPLATE_MEDIA_LIMITS[draft.headerFormat].mimeTypes.join(',')}
                disabled={uploading || !accountId}
                onChange={(event) => void uploadSample(event.target.files?.[0])}
              />
              {draft.headerHandle && (
                <small className="mc-muted" data-testid="tpl-sample-ok">
                  <i className="pi pi-check" /> {t('messageCampaigns.templates.sampleUploaded', { name: draft.headerFileName })}
                </small>
              )}
            </label>
          )}
          {headerCount > 0 && (
            <label>
              {t('messageCampaigns.templates.example', { n: 1 })}
              <InputText value={draft.headerExample} onChange={(event) => setDraft({ ...draft, headerExample: event.target.value })} />
            </label>
          )}
          <label>
            {t('messageCampaigns.templates.body')}
            <InputTextarea
              data-testid="tpl-body"
              rows={4}
              value={draft.body}
              onChange={(event) => setDraft({ ...draft, body: event.target.value })}
            />
          </label>
          {bodyParameters.map((parameter, index) => (
            <label key={parameter}>
              {t('messageCampaigns.templates.example', { n: parameter })}
              <InputText
                data-testid={`tpl-example-${parameter}`}
                value={draft.examples[index] ?? ''}
                onChange={(event) => {
                  const examples = [...draft.examples];
                  examples[index] = event.target.value;
                  setDraft({ ...draft, examples });
                }}
              />
            </label>
          ))}
          <label>
            {t('messageCampaigns.templates.footer')}
            <InputText value={draft.footer} onChange={(event) => setDraft({ ...draft, footer: event.target.value })} />
          </label>
          <label>
            {t('messageCampaigns.templates.quickReply')}
            <InputText value={draft.quickReply} onChange={(event) => setDraft({ ...draft, quickReply: event.target.value })} />
          </label>
          {problem && <Message severity="warn" text={problem} />}
          <Button
            label={t('messageCampaigns.templates.saveSubmit')}
            icon="pi pi-send"
            data-testid="tpl-submit"
            disabled={!input || !!problem || !draft.name || busy}
            onClick={() => void saveAndSubmit()}
          />
        </div>
        <div className="mc-preview" data-testid="channel-template-preview" aria-label={t('messageCampaigns.templates.preview')}>
          <h3>{t('messageCampaigns.templates.preview')}</h3>
          <div className="mc-bubble">
            {draft.headerFormat !== 'NONE' && draft.headerFormat !== 'TEXT' ? (
              <span className="mc-bubble__media" data-testid="tpl-preview-media">
                <i
                  className={
                    draft.headerFormat === 'IMAGE' ? 'pi pi-image' : draft.headerFormat === 'VIDEO' ? 'pi pi-video' : 'pi pi-file-pdf'
                  }
                />{' '}
                {t(`messageCampaigns.headerFormats.${draft.headerFormat}`)}
              </span>
            ) : (
              preview?.header && <strong>{preview.header}</strong>
            )}
            <p>{preview?.body || t('messageCampaigns.templates.previewEmpty')}</p>
            {preview?.footer && <small className="mc-muted">{preview.footer}</small>}
            {preview?.buttons.map((label) => (
              <span key={label} className="mc-bubble__button">
                {label}
              </span>
            ))}
          </div>
        </div>
      </div>
    </section>
  );
}
