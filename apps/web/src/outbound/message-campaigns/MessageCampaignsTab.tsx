import { useCallback, useEffect, useMemo, useState } from 'react';
import { Button } from 'primereact/button';
import { Column } from 'primereact/column';
import { DataTable } from 'primereact/datatable';
import { Dropdown } from 'primereact/dropdown';
import { InputNumber } from 'primereact/inputnumber';
import { InputText } from 'primereact/inputtext';
import { Message } from 'primereact/message';
import { Tag } from 'primereact/tag';
import { useTranslation } from 'react-i18next';
import {
  PARAMETER_SOURCES,
  TEMPLATE_MEDIA_LIMITS,
  type ChannelTemplateView,
  type MessageCampaignView,
  type ParameterSourceInput,
  type TemplateMediaFormat,
} from '@centralita/contracts';
import { describeError } from '../../api/error-text';
import { useServices } from '../../app/ServicesContext';
import { createMessageCampaignsApi, type TemplateAccount } from './message-campaigns-api';
import { CampaignScheduleFields, CampaignScheduleNotice, EMPTY_SCHEDULE, scheduleInput, type ScheduleForm } from './CampaignSchedule';
import { useLiveMessageCampaigns } from './useLiveMessageCampaigns';
import { EmailCampaignFields } from './EmailCampaignFields';
import './message-campaigns.css';

const STATUS_SEVERITY: Record<string, 'success' | 'info' | 'warning' | 'danger' | undefined> = {
  running: 'success',
  scheduled: 'info',
  paused: 'warning',
  stopped: 'danger',
  finished: 'info',
};
const BOARD_STATUSES = ['queued', 'sent', 'delivered', 'read', 'failed', 'skipped'] as const;

interface Form {
  name: string;
  accountId: string | null;
  templateId: string | null;
  phoneListId: string | null;
  ratePerSecond: number;
  header: ParameterSourceInput[];
  body: ParameterSourceInput[];
  /** A media header's public https link (image, video or document), or the id of a file uploaded to WhatsApp. */
  mediaLink: string;
  media: { id: string; fileName: string } | null;
}

/**
 * The "WhatsApp campaigns" tab of /OutboundCampaign/CampaignList (issue 21): message campaigns with
 * their live board (counts per status, skips per reason, replies; refreshed every 2 s while one is
 * open), start/pause/stop, the results export, and the form that maps list columns to the approved
 * template's parameters.
 */
export function MessageCampaignsTab() {
  const { t } = useTranslation();
  const { client } = useServices();
  const api = useMemo(() => createMessageCampaignsApi(client), [client]);
  const [campaigns, setCampaigns] = useState<MessageCampaignView[] | null>(null);
  const [selected, setSelected] = useState<string | null>(null);
  const [failure, setFailure] = useState<string | null>(null);
  const [accounts, setAccounts] = useState<TemplateAccount[]>([]);
  const [templates, setTemplates] = useState<ChannelTemplateView[]>([]);
  const [lists, setLists] = useState<{ id: string; name: string; entryCount: number }[]>([]);
  const [form, setForm] = useState<Form>({
    name: '',
    accountId: null,
    templateId: null,
    phoneListId: null,
    ratePerSecond: 20,
    header: [],
    body: [],
    mediaLink: '',
    media: null,
  });
  const [busy, setBusy] = useState(false);
  const [schedule, setSchedule] = useState<ScheduleForm>(EMPTY_SCHEDULE);
  // Email campaigns (issue 21): the list column with the addresses; the form's email part is EmailCampaignFields.
  const [addressColumn, setAddressColumn] = useState<string | null>(null);
  const emailAccount = accounts.find((one) => one.id === form.accountId)?.kind === 'email';

  const load = useCallback(async () => {
    try {
      setCampaigns(await api.campaigns());
      setFailure(null);
    } catch (error) {
      setFailure(describeError(error, t));
    }
  }, [api, t]);

  useEffect(() => {
    void load();
    api.accounts().then(setAccounts, (error: unknown) => setFailure(describeError(error, t)));
    api.phoneLists().then(setLists, (error: unknown) => setFailure(describeError(error, t)));
  }, [api, load, t]);

  useEffect(() => {
    if (!form.accountId) return;
    api.templates(form.accountId).then(
      (found) => setTemplates(found.filter((template) => template.status === 'APPROVED')),
      (error: unknown) => setFailure(describeError(error, t)),
    );
  }, [api, form.accountId, t]);

  // The boards are live: pushed by the API on every change (useLiveMessageCampaigns).
  const open = campaigns?.find((campaign) => campaign.id === selected) ?? null;
  useLiveMessageCampaigns(setCampaigns, load);

  const template = templates.find((one) => one.id === form.templateId) ?? null;
  const chooseTemplate = (id: string) => {
    const chosen = templates.find((one) => one.id === id);
    setForm({
      ...form,
      templateId: id,
      mediaLink: '',
      media: null,
      header: Array.from({ length: chosen?.headerParameterCount ?? 0 }, () => ({ source: 'name' as const })),
      body: Array.from({ length: chosen?.bodyParameterCount ?? 0 }, () => ({ source: 'name' as const })),
    });
  };

  const act = async (work: () => Promise<unknown>) => {
    setBusy(true);
    try {
      await work();
      await load();
    } catch (error) {
      setFailure(describeError(error, t));
    } finally {
      setBusy(false);
    }
  };

  const exportCsv = (id: string) =>
    act(async () => {
      const blob = await (await api.exportResults(id)).blob();
      const url = URL.createObjectURL(blob);
      const link = document.createElement('a');
      link.href = url;
      link.download = 'message-campaign-results.csv';
      link.click();
      URL.revokeObjectURL(url);
    });

  // Parameters are labelled by name for a NAMED template ({{first_name}}), by number otherwise.
  const mappingRow = (part: 'header' | 'body', index: number, source: ParameterSourceInput) => (
    <div className="mc-row" key={`${part}-${index}`}>
      <label>
        {t(`messageCampaigns.form.${part}Parameter`, {
          n: (part === 'header' ? template?.headerParameters : template?.bodyParameters)?.[index] ?? index + 1,
        })}
        <Dropdown
          value={source.source}
          options={PARAMETER_SOURCES.map((value) => ({ value, label: t(`messageCampaigns.sources.${value}`) }))}
          onChange={(event) => {
            const next = [...form[part]];
            next[index] = { source: event.value as ParameterSourceInput['source'] };
            setForm({ ...form, [part]: next });
          }}
        />
      </label>
      {source.source === 'fixed' && (
        <label>
          {t('messageCampaigns.form.fixedValue')}
          <InputText
            value={source.value ?? ''}
            onChange={(event) => {
              const next = [...form[part]];
              next[index] = { source: 'fixed', value: event.target.value };
              setForm({ ...form, [part]: next });
            }}
          />
        </label>
      )}
    </div>
  );

  if (campaigns === null && !failure) return <p className="mc-muted">{t('messageCampaigns.loading')}</p>;
  return (
    <div className="mc-panel" data-testid="message-campaigns">
      {failure && <Message severity="error" text={failure} />}
      <DataTable
        value={campaigns ?? []}
        dataKey="id"
        size="small"
        selectionMode="single"
        selection={open}
        onSelectionChange={(event) => setSelected((event.value as MessageCampaignView | null)?.id ?? null)}
        emptyMessage={t('messageCampaigns.campaigns.empty')}
      >
        <Column field="name" header={t('messageCampaigns.campaigns.name')} />
        <Column
          field="templateName"
          header={t('messageCampaigns.campaigns.template')}
          body={(row: MessageCampaignView) => <code>{row.templateName}</code>}
        />
        <Column
          field="status"
          header={t('messageCampaigns.campaigns.status')}
          body={(row: MessageCampaignView) => (
            <span className="mc-status">
              <Tag value={t(`messageCampaigns.campaignStatus.${row.status}`)} severity={STATUS_SEVERITY[row.status]} />
              {row.pausedReason && (
                <small className="mc-muted">{t(`messageCampaigns.pausedReasons.${row.pausedReason}`, row.pausedReason)}</small>
              )}
            </span>
          )}
        />
        <Column
          header={t('messageCampaigns.campaigns.progress')}
          body={(row: MessageCampaignView) => `${row.counts.total - row.counts.queued - row.counts.sending} / ${row.counts.total}`}
        />
        <Column
          header=""
          body={(row: MessageCampaignView) => (
            <span className="mc-row">
              {(row.status === 'draft' || row.status === 'paused') && (
                <Button
                  icon="pi pi-play"
                  rounded
                  text
                  aria-label={t('messageCampaigns.actions.start')}
                  title={t('messageCampaigns.actions.start')}
                  disabled={busy}
                  onClick={() => void act(() => api.command(row.id, 'start'))}
                />
              )}
              {row.status === 'running' && (
                <Button
                  icon="pi pi-pause"
                  rounded
                  text
                  aria-label={t('messageCampaigns.actions.pause')}
                  title={t('messageCampaigns.actions.pause')}
                  disabled={busy}
                  onClick={() => void act(() => api.command(row.id, 'pause'))}
                />
              )}
              {row.status !== 'stopped' && row.status !== 'finished' && (
                <Button
                  icon="pi pi-stop"
                  rounded
                  text
                  severity="danger"
                  aria-label={t('messageCampaigns.actions.stop')}
                  title={t('messageCampaigns.actions.stop')}
                  disabled={busy}
                  onClick={() => void act(() => api.command(row.id, 'stop'))}
                />
              )}
            </span>
          )}
        />
      </DataTable>

      {open && (
        <section data-testid="message-campaign-board" aria-label={t('messageCampaigns.board.title')}>
          <header className="mc-panel__header">
            <h2>
              {t('messageCampaigns.board.title')}: {open.name}
            </h2>
            <Button
              label={t('messageCampaigns.board.export')}
              icon="pi pi-download"
              severity="secondary"
              onClick={() => void exportCsv(open.id)}
            />
          </header>
          {open.pausedDetail && <Message severity="warn" text={open.pausedDetail} />}
          <CampaignScheduleNotice campaign={open} />
          <div className="mc-board">
            {BOARD_STATUSES.map((status) => (
              <div className="mc-board__count" key={status} data-testid={`board-${status}`}>
                <strong>{open.counts[status]}</strong>
                {t(`messageCampaigns.recipientStatus.${status}`)}
              </div>
            ))}
            <div className="mc-board__count" data-testid="board-replied">
              <strong>{open.counts.replied}</strong>
              {t('messageCampaigns.board.replied')}
            </div>
          </div>
          {Object.keys(open.skipped).length > 0 && (
            <p className="mc-muted">
              {Object.entries(open.skipped)
                .map(([reason, count]) => `${t(`messageCampaigns.skipReasons.${reason}`, reason)}: ${count}`)
                .join(' · ')}
            </p>
          )}
        </section>
      )}

      <section aria-label={t('messageCampaigns.form.title')}>
        <h2>{t('messageCampaigns.form.title')}</h2>
        <div className="mc-form">
          <label>
            {t('messageCampaigns.campaigns.name')}
            <InputText data-testid="campaign-name" value={form.name} onChange={(event) => setForm({ ...form, name: event.target.value })} />
          </label>
          <label>
            {t('messageCampaigns.account')}
            <Dropdown
              data-testid="campaign-account"
              value={form.accountId}
              options={accounts}
              optionLabel="name"
              optionValue="id"
              onChange={(event) => setForm({ ...form, accountId: event.value as string, templateId: null, header: [], body: [] })}
            />
          </label>
          <label>
            {t('messageCampaigns.campaigns.template')}
            <Dropdown
              data-testid="campaign-template"
              value={form.templateId}
              options={templates.map((one) => ({ value: one.id, label: `${one.name} (${one.language})` }))}
              emptyMessage={t('messageCampaigns.form.noApproved')}
              onChange={(event) => chooseTemplate(event.value as string)}
            />
          </label>
          <label>
            {t('messageCampaigns.form.phoneList')}
            <Dropdown
              data-testid="campaign-list"
              value={form.phoneListId}
              options={lists.map((list) => ({ value: list.id, label: `${list.name} (${list.entryCount})` }))}
              onChange={(event) => setForm({ ...form, phoneListId: event.value as string })}
            />
          </label>
          {/* An email campaign is paced by its account (setting campaignPerMinute), not by this field. */}
          {!emailAccount && (
            <label>
              {t('messageCampaigns.form.rate')}
              <InputNumber
                value={form.ratePerSecond}
                min={1}
                max={1000}
                onValueChange={(event) => setForm({ ...form, ratePerSecond: event.value ?? 20 })}
              />
            </label>
          )}
          <CampaignScheduleFields value={schedule} onChange={setSchedule} />
        </div>
        {template && (
          <div className="mc-editor__form">
            {template.headerFormat && template.headerFormat !== 'TEXT' && (
              <label>
                {t('messageCampaigns.form.mediaLink', { format: t(`messageCampaigns.headerFormats.${template.headerFormat}`) })}
                <InputText
                  data-testid="campaign-media-link"
                  value={form.mediaLink}
                  placeholder="https://…"
                  disabled={Boolean(form.media)}
                  onChange={(event) => setForm({ ...form, mediaLink: event.target.value })}
                />
              </label>
            )}
            {template.headerFormat && template.headerFormat !== 'TEXT' && (
              <label>
                {t('messageCampaigns.form.mediaFile', {
                  types: TEMPLATE_MEDIA_LIMITS[template.headerFormat].extensions.join(', '),
                  size: Math.round(TEMPLATE_MEDIA_LIMITS[template.headerFormat].maxBytes / (1024 * 1024)),
                })}
                <input
                  type="file"
                  data-testid="campaign-media-file"
                  accept={TEMPLATE_MEDIA_LIMITS[template.headerFormat].mimeTypes.join(',')}
                  disabled={busy || !form.accountId}
                  onChange={(event) => {
                    const file = event.target.files?.[0];
                    const format = template.headerFormat as TemplateMediaFormat;
                    if (!file || !form.accountId) return;
                    void act(async () => {
                      const uploaded = await api.uploadHeaderMedia(form.accountId!, format, file);
                      setForm((current) => ({ ...current, mediaLink: '', media: { id: uploaded.id, fileName: uploaded.fileName } }));
                    });
                  }}
                />
                {form.media && (
                  <small className="mc-muted" data-testid="campaign-media-ok">
                    <i className="pi pi-check" /> {t('messageCampaigns.form.mediaUploaded', { name: form.media.fileName })}
                  </small>
                )}
              </label>
            )}
            {form.header.map((source, index) => mappingRow('header', index, source))}
            {emailAccount ? (
              <EmailCampaignFields
                api={api}
                phoneListId={form.phoneListId}
                addressColumn={addressColumn}
                onAddressColumn={setAddressColumn}
                body={form.body}
                onBody={(body) => setForm({ ...form, body })}
              />
            ) : (
              form.body.map((source, index) => mappingRow('body', index, source))
            )}
          </div>
        )}
        <Button
          label={t('messageCampaigns.form.create')}
          data-testid="campaign-create"
          icon="pi pi-plus"
          disabled={busy || !form.name.trim() || !form.accountId || !form.templateId || !form.phoneListId}
          onClick={() =>
            void act(async () => {
              const created = await api.createCampaign({
                name: form.name,
                accountId: form.accountId!,
                templateId: form.templateId!,
                phoneListId: form.phoneListId!,
                ratePerSecond: form.ratePerSecond,
                parameterMapping: { header: form.header, body: form.body },
                ...(emailAccount ? { addressColumn: addressColumn ?? '' } : {}),
                ...scheduleInput(schedule),
                ...(template?.headerFormat && template.headerFormat !== 'TEXT'
                  ? { headerMedia: form.media ? { id: form.media.id, fileName: form.media.fileName } : { link: form.mediaLink.trim() } }
                  : {}),
              });
              setSelected(created.id);
            })
          }
        />
      </section>
    </div>
  );
}
