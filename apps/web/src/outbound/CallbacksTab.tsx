import { useCallback, useEffect, useMemo, useRef, useState } from 'react';
import { Button } from 'primereact/button';
import { Column } from 'primereact/column';
import { DataTable } from 'primereact/datatable';
import { Dropdown } from 'primereact/dropdown';
import { Tag } from 'primereact/tag';
import { useTranslation } from 'react-i18next';
import { ADMIN_PAGE_SIZES, type DialerCampaignView, type OutboundCallback } from '@centralita/contracts';
import { PAGINATOR_TEMPLATE } from '../admin/lazy-paging';
import { describeError } from '../api/error-text';
import { ConfirmActionDialog } from '../components/DialogFooter';
import { formatDateTime } from '../format/format';
import { useToast } from '../toast/ToastProvider';
import { isOverdue, type CallbackQuery, type OutboundApi } from './outbound-api';

/** What the "show" filter offers; each maps to the API's status / due filters. */
const SHOW = ['pending', 'overdue', 'upcoming', 'dialed', 'cancelled', 'all'] as const;
type Show = (typeof SHOW)[number];

const QUERY_OF: Record<Show, CallbackQuery> = {
  pending: { status: 'pending' },
  overdue: { due: 'overdue' },
  upcoming: { due: 'upcoming' },
  dialed: { status: 'dialed' },
  cancelled: { status: 'cancelled' },
  all: {},
};

const STATUS_SEVERITY: Record<string, 'success' | 'info' | 'warning' | 'danger' | undefined> = {
  pending: 'info',
  dialed: 'success',
  cancelled: undefined,
};

/**
 * Callbacks agents booked (a tab of /OutboundCampaign/CampaignList): contact, campaign, the agent who
 * booked it, when it is due and its state; filters by campaign and due/overdue; cancel with confirmation.
 */
export function CallbacksTab({ api, campaigns }: { api: OutboundApi; campaigns: DialerCampaignView[] }) {
  const { t } = useTranslation();
  const toast = useToast();
  const [campaignId, setCampaignId] = useState('');
  const [show, setShow] = useState<Show>('pending');
  const [rows, setRows] = useState<OutboundCallback[]>([]);
  const [loading, setLoading] = useState(true);
  const [failure, setFailure] = useState<string | null>(null);
  const [pendingCancel, setPendingCancel] = useState<OutboundCallback | null>(null);
  const [now, setNow] = useState(() => Date.now());
  const request = useRef(0);

  const load = useCallback(async () => {
    const id = ++request.current;
    setLoading(true);
    try {
      const items = await api.callbacks({ ...QUERY_OF[show], ...(campaignId ? { campaignId } : {}) });
      if (id !== request.current) return;
      setRows(items);
      setNow(Date.now());
      setFailure(null);
    } catch (error) {
      if (id === request.current) setFailure(describeError(error, t));
    } finally {
      if (id === request.current) setLoading(false);
    }
  }, [api, show, campaignId, t]);

  useEffect(() => void load(), [load]);

  // A callback turns overdue while the list is open: re-evaluate once a minute.
  useEffect(() => {
    const timer = setInterval(() => setNow(Date.now()), 60_000);
    return () => clearInterval(timer);
  }, []);

  const campaignOptions = useMemo(
    () => [
      { value: '', label: t('outbound.callbacks.allCampaigns') },
      ...campaigns.map((campaign) => ({ value: campaign.id, label: campaign.name })),
    ],
    [campaigns, t],
  );

  const cancel = async () => {
    const callback = pendingCancel;
    setPendingCancel(null);
    if (!callback) return;
    try {
      await api.cancelCallback(callback.id);
      toast.success(t('outbound.callbacks.cancelled', { phone: callback.phone }));
      await load();
    } catch (error) {
      toast.error(t('outbound.callbacks.cancelFailed'), describeError(error, t));
      await load();
    }
  };

  return (
    <section className="card outbound-list-tab" data-testid="callbacks-tab">
      <div className="outbound-toolbar">
        <Dropdown
          value={campaignId}
          options={campaignOptions}
          optionLabel="label"
          optionValue="value"
          aria-label={t('outbound.callbacks.filterCampaign')}
          data-testid="callbacks-campaign"
          filter={campaigns.length > 8}
          onChange={(event) => setCampaignId((event.value as string | null) ?? '')}
          className="outbound-toolbar__filter"
        />
        <Dropdown
          value={show}
          options={SHOW.map((value) => ({ value, label: t(`outbound.callbacks.show.${value}`) }))}
          optionLabel="label"
          optionValue="value"
          aria-label={t('outbound.callbacks.filterShow')}
          data-testid="callbacks-show"
          onChange={(event) => setShow((event.value as Show | null) ?? 'pending')}
          className="outbound-toolbar__filter"
        />
        <Button
          icon="pi pi-refresh"
          text
          rounded
          className="outbound-toolbar__end"
          aria-label={t('outbound.callbacks.refresh')}
          tooltip={t('outbound.callbacks.refresh')}
          data-testid="callbacks-refresh"
          onClick={() => void load()}
        />
      </div>
      {failure && (
        <p className="form-error" role="alert" data-testid="callbacks-error">
          {failure}
        </p>
      )}
      <DataTable
        value={rows}
        dataKey="id"
        loading={loading}
        paginator={rows.length > 25}
        rows={25}
        rowsPerPageOptions={[...ADMIN_PAGE_SIZES]}
        paginatorTemplate={PAGINATOR_TEMPLATE}
        size="small"
        stripedRows
        emptyMessage={campaignId || show !== 'pending' ? t('outbound.callbacks.noMatches') : t('outbound.callbacks.empty')}
        data-testid="callbacks-table"
        rowClassName={(row: OutboundCallback) => (isOverdue(row, now) ? 'outbound-row--overdue' : '')}
      >
        <Column
          header={t('outbound.fields.contact')}
          body={(row: OutboundCallback) => (
            <div className="outbound-contact" data-testid="callback-contact">
              <strong>{row.contactName ?? t('format.notAvailable')}</strong>
              <span className="muted">{row.phone}</span>
            </div>
          )}
        />
        <Column field="campaignName" header={t('outbound.fields.campaign')} />
        <Column
          field="agentName"
          header={t('outbound.callbacks.bookedBy')}
          body={(row: OutboundCallback) => row.agentName ?? t('format.notAvailable')}
        />
        <Column
          field="dueAt"
          header={t('outbound.callbacks.due')}
          body={(row: OutboundCallback) => (
            <span className="outbound-due">
              {formatDateTime(row.dueAt, t)}
              {isOverdue(row, now) && <Tag value={t('outbound.callbacks.overdue')} severity="warning" data-testid="callback-overdue" />}
            </span>
          )}
        />
        <Column
          field="status"
          header={t('outbound.fields.status')}
          body={(row: OutboundCallback) => (
            <Tag
              value={t(`outbound.callbacks.status.${row.status}`)}
              severity={STATUS_SEVERITY[row.status]}
              data-testid="callback-status"
              data-status={row.status}
            />
          )}
        />
        <Column
          header={t('admin.list.actions')}
          style={{ width: '6rem' }}
          body={(row: OutboundCallback) =>
            row.status === 'pending' ? (
              <Button
                icon="pi pi-times"
                rounded
                text
                severity="danger"
                aria-label={t('outbound.callbacks.cancel')}
                tooltip={t('outbound.callbacks.cancel')}
                data-testid="callback-cancel"
                data-phone={row.phone}
                onClick={() => setPendingCancel(row)}
              />
            ) : null
          }
        />
      </DataTable>
      <ConfirmActionDialog
        visible={pendingCancel !== null}
        onHide={() => setPendingCancel(null)}
        header={t('outbound.callbacks.confirmTitle')}
        message={
          pendingCancel
            ? t('outbound.callbacks.confirmCancel', {
                name: pendingCancel.contactName ?? pendingCancel.phone,
                when: formatDateTime(pendingCancel.dueAt, t),
              })
            : ''
        }
        keep={{ label: t('outbound.callbacks.keep'), testId: 'callback-keep' }}
        action={{
          label: t('outbound.callbacks.cancel'),
          icon: 'pi pi-times',
          onClick: () => void cancel(),
          testId: 'callback-confirm-cancel',
        }}
      />
    </section>
  );
}
