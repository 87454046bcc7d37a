import { useCallback, useEffect, useMemo, useRef, useState } from 'react';
import { Button } from 'primereact/button';
import { Column } from 'primereact/column';
import { DataTable } from 'primereact/datatable';
import { Dialog } from 'primereact/dialog';
import { Dropdown } from 'primereact/dropdown';
import { IconField } from 'primereact/iconfield';
import { InputIcon } from 'primereact/inputicon';
import { InputText } from 'primereact/inputtext';
import { Tag } from 'primereact/tag';
import { useTranslation } from 'react-i18next';
import type { DialerCampaignView, DoNotCallEntry } from '@centralita/contracts';
import { isE164 } from '@centralita/domain';
import { isApiError } from '../api/api-error';
import { describeError } from '../api/error-text';
import { ConfirmActionDialog, DialogFooter } from '../components/DialogFooter';
import { FieldShell } from '../admin/fields';
import { lazyPaging, type PageWindow } from '../admin/lazy-paging';
import { formatDateTime } from '../format/format';
import { useToast } from '../toast/ToastProvider';
import type { DncQuery, OutboundApi } from './outbound-api';

/** Filter values of the scope dropdown besides a campaign id. */
const ALL = '';
const TENANT_WIDE = 'tenant';

/** The number as the API stores it: spaces, dots, dashes and brackets dropped. */
export const compactPhone = (value: string) => value.replace(/[\s().-]/g, '');

/**
 * The tenant's do-not-call list (a tab of /OutboundCampaign/CampaignList): search by number, filter
 * by scope or campaign, server paging, add a number for every campaign or one, remove with confirmation.
 */
export function DoNotCallTab({ api, campaigns }: { api: OutboundApi; campaigns: DialerCampaignView[] }) {
  const { t } = useTranslation();
  const toast = useToast();
  const [pageWindow, setPageWindow] = useState<PageWindow>({ first: 0, rows: 25 });
  const [search, setSearch] = useState('');
  const [appliedSearch, setAppliedSearch] = useState('');
  const [scope, setScope] = useState(ALL);
  const [rows, setRows] = useState<DoNotCallEntry[]>([]);
  const [total, setTotal] = useState(0);
  const [loading, setLoading] = useState(true);
  const [failure, setFailure] = useState<string | null>(null);
  const [adding, setAdding] = useState(false);
  const [pendingRemove, setPendingRemove] = useState<DoNotCallEntry | null>(null);
  const request = useRef(0);

  const load = useCallback(async () => {
    const id = ++request.current;
    setLoading(true);
    const query: DncQuery = { page: Math.floor(pageWindow.first / pageWindow.rows) + 1, pageSize: pageWindow.rows };
    if (appliedSearch) query.q = appliedSearch;
    if (scope === TENANT_WIDE) query.scope = 'tenant';
    else if (scope) query.campaignId = scope;
    try {
      const page = await api.dnc(query);
      if (id !== request.current) return;
      setRows(page.items);
      setTotal(page.total);
      setFailure(null);
    } catch (error) {
      if (id === request.current) setFailure(describeError(error, t));
    } finally {
      if (id === request.current) setLoading(false);
    }
  }, [api, pageWindow, appliedSearch, scope, t]);

  useEffect(() => void load(), [load]);

  // Search as the user types, once they pause; a new search starts at the first page.
  useEffect(() => {
    const timer = setTimeout(() => {
      setAppliedSearch(compactPhone(search));
      setPageWindow((held) => (held.first === 0 ? held : { ...held, first: 0 }));
    }, 300);
    return () => clearTimeout(timer);
  }, [search]);

  const scopeOptions = useMemo(
    () => [
      { value: ALL, label: t('outbound.dnc.filterAll') },
      { value: TENANT_WIDE, label: t('outbound.dnc.filterTenant') },
      ...campaigns.map((campaign) => ({ value: campaign.id, label: campaign.name })),
    ],
    [campaigns, t],
  );

  const remove = async () => {
    const entry = pendingRemove;
    setPendingRemove(null);
    if (!entry) return;
    try {
      await api.removeDnc(entry.id);
      toast.success(t('outbound.dnc.removed', { phone: entry.phone }));
      await load();
    } catch (error) {
      toast.error(t('outbound.dnc.removeFailed'), describeError(error, t));
    }
  };

  const filtered = !!appliedSearch || scope !== ALL;

  return (
    <section className="card outbound-list-tab" data-testid="dnc-tab">
      <div className="outbound-toolbar">
        <IconField iconPosition="left">
          <InputIcon className="pi pi-search" />
          <InputText
            value={search}
            placeholder={t('outbound.dnc.search')}
            aria-label={t('outbound.dnc.search')}
            inputMode="tel"
            data-testid="dnc-search"
            onChange={(event) => setSearch(event.target.value)}
          />
        </IconField>
        <Dropdown
          value={scope}
          options={scopeOptions}
          optionLabel="label"
          optionValue="value"
          aria-label={t('outbound.dnc.filterLabel')}
          data-testid="dnc-filter"
          filter={campaigns.length > 8}
          onChange={(event) => {
            setScope((event.value as string | null) ?? ALL);
            setPageWindow((held) => ({ ...held, first: 0 }));
          }}
          className="outbound-toolbar__filter"
        />
        <Button
          icon="pi pi-plus"
          label={t('outbound.dnc.add')}
          className="outbound-toolbar__end"
          data-testid="dnc-add"
          onClick={() => setAdding(true)}
        />
      </div>
      {failure && (
        <p className="form-error" role="alert" data-testid="dnc-error">
          {failure}
        </p>
      )}
      <DataTable
        value={rows}
        {...lazyPaging(pageWindow, setPageWindow, total, loading)}
        emptyMessage={filtered ? t('outbound.dnc.noMatches') : t('outbound.dnc.empty')}
        data-testid="dnc-table"
      >
        <Column
          field="phone"
          header={t('outbound.fields.phone')}
          body={(row: DoNotCallEntry) => (
            <strong className="outbound-phone" data-testid="dnc-phone">
              {row.phone}
            </strong>
          )}
        />
        <Column
          field="campaignId"
          header={t('outbound.dnc.scope')}
          body={(row: DoNotCallEntry) =>
            row.campaignId ? (
              <span>{row.campaignName ?? t('format.notAvailable')}</span>
            ) : (
              <Tag value={t('outbound.dnc.allCampaigns')} severity="danger" />
            )
          }
        />
        <Column
          field="reason"
          header={t('outbound.dnc.reason')}
          body={(row: DoNotCallEntry) =>
            row.reason === 'disposition' ? t('outbound.dnc.fromDisposition') : (row.reason ?? <span className="muted">—</span>)
          }
        />
        <Column
          field="createdByName"
          header={t('outbound.dnc.addedBy')}
          body={(row: DoNotCallEntry) => row.createdByName ?? t('format.notAvailable')}
        />
        <Column field="createdAt" header={t('outbound.dnc.addedAt')} body={(row: DoNotCallEntry) => formatDateTime(row.createdAt, t)} />
        <Column
          header={t('admin.list.actions')}
          style={{ width: '6rem' }}
          body={(row: DoNotCallEntry) => (
            <Button
              icon="pi pi-trash"
              rounded
              text
              severity="danger"
              aria-label={t('outbound.dnc.remove', { phone: row.phone })}
              tooltip={t('outbound.dnc.removeShort')}
              data-testid="dnc-remove"
              data-phone={row.phone}
              onClick={() => setPendingRemove(row)}
            />
          )}
        />
      </DataTable>
      <ConfirmActionDialog
        visible={pendingRemove !== null}
        onHide={() => setPendingRemove(null)}
        header={t('outbound.dnc.confirmTitle')}
        message={
          pendingRemove
            ? t(pendingRemove.campaignId ? 'outbound.dnc.confirmRemoveCampaign' : 'outbound.dnc.confirmRemoveAll', {
                phone: pendingRemove.phone,
                campaign: pendingRemove.campaignName ?? '',
              })
            : ''
        }
        keep={{ label: t('admin.form.cancel'), testId: 'dnc-cancel-remove' }}
        action={{ label: t('outbound.dnc.removeShort'), icon: 'pi pi-trash', onClick: () => void remove(), testId: 'dnc-confirm-remove' }}
      />
      {adding && (
        <AddNumberDialog
          api={api}
          campaigns={campaigns}
          defaultCampaignId={scope && scope !== TENANT_WIDE ? scope : null}
          onClose={() => setAdding(false)}
          onAdded={(entry) => {
            setAdding(false);
            toast.success(t('outbound.dnc.added', { phone: entry.phone }));
            void load();
          }}
        />
      )}
    </section>
  );
}

function AddNumberDialog(props: {
  api: OutboundApi;
  campaigns: DialerCampaignView[];
  defaultCampaignId: string | null;
  onClose(): void;
  onAdded(entry: DoNotCallEntry): void;
}) {
  const { t } = useTranslation();
  const [phone, setPhone] = useState('');
  const [campaignId, setCampaignId] = useState(props.defaultCampaignId ?? TENANT_WIDE);
  const [reason, setReason] = useState('');
  const [touched, setTouched] = useState(false);
  const [saving, setSaving] = useState(false);
  const [failure, setFailure] = useState<string | null>(null);

  const compact = compactPhone(phone);
  const phoneError = !compact ? t('outbound.dnc.phoneRequired') : !isE164(compact) ? t('outbound.dnc.phoneInvalid') : null;

  const save = async () => {
    setTouched(true);
    if (phoneError) return;
    setSaving(true);
    setFailure(null);
    try {
      const entry = await props.api.addDnc({
        phone: compact,
        campaignId: campaignId === TENANT_WIDE ? null : campaignId,
        reason: reason.trim() || null,
      });
      props.onAdded(entry);
    } catch (error) {
      if (isApiError(error) && error.status === 409) setFailure(t('outbound.dnc.duplicate', { phone: compact }));
      else if (isApiError(error) && error.status === 400) setFailure(t('outbound.dnc.phoneInvalid'));
      else setFailure(describeError(error, t));
    } finally {
      setSaving(false);
    }
  };

  return (
    <Dialog
      visible
      header={t('outbound.dnc.addTitle')}
      onHide={props.onClose}
      style={{ width: 'min(32rem, 95vw)' }}
      data-testid="dnc-dialog"
      footer={
        <DialogFooter
          cancel={{ label: t('admin.form.cancel'), onClick: props.onClose, testId: 'dnc-dialog-cancel' }}
          action={{
            label: t('outbound.dnc.addShort'),
            icon: 'pi pi-check',
            loading: saving,
            onClick: () => void save(),
            testId: 'dnc-dialog-save',
          }}
        />
      }
    >
      <form
        className="outbound-dialog-form"
        onSubmit={(event) => {
          event.preventDefault();
          void save();
        }}
      >
        <FieldShell
          id="dnc-phone"
          label={t('outbound.fields.phone')}
          hint={t('outbound.dnc.phoneHint')}
          error={touched ? phoneError : null}
        >
          <InputText
            id="dnc-phone"
            data-testid="dnc-phone-input"
            value={phone}
            autoFocus
            inputMode="tel"
            placeholder="+34 600 000 000"
            invalid={touched && !!phoneError}
            aria-invalid={touched && !!phoneError}
            onChange={(event) => setPhone(event.target.value)}
            onBlur={() => setTouched(true)}
          />
        </FieldShell>
        <FieldShell id="dnc-scope" label={t('outbound.dnc.scope')} hint={t('outbound.dnc.scopeHint')}>
          <Dropdown
            inputId="dnc-scope"
            data-testid="dnc-scope"
            value={campaignId}
            options={[
              { value: TENANT_WIDE, label: t('outbound.dnc.allCampaigns') },
              ...props.campaigns.map((campaign) => ({ value: campaign.id, label: campaign.name })),
            ]}
            optionLabel="label"
            optionValue="value"
            onChange={(event) => setCampaignId((event.value as string | null) ?? TENANT_WIDE)}
            className="admin-select"
          />
        </FieldShell>
        <FieldShell id="dnc-reason" label={t('outbound.dnc.reason')} hint={t('outbound.dnc.reasonHint')}>
          <InputText id="dnc-reason" data-testid="dnc-reason" value={reason} maxLength={200} onChange={(e) => setReason(e.target.value)} />
        </FieldShell>
        {failure && (
          <p className="form-error" role="alert" data-testid="dnc-dialog-error">
            {failure}
          </p>
        )}
        {/* Enter in a field submits. */}
        <button type="submit" hidden />
      </form>
    </Dialog>
  );
}
