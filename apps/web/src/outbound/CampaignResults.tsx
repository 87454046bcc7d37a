import { useEffect, useMemo, useState } from 'react';
import { Column } from 'primereact/column';
import { DataTable } from 'primereact/datatable';
import { useTranslation } from 'react-i18next';
import type { OutboundCallView } from '@centralita/contracts';
import { describeError } from '../api/error-text';
import { useServices } from '../app/ServicesContext';
import { lazyPaging, type PageWindow } from '../admin/lazy-paging';
import { formatDateTime } from '../format/format';
import { createOutboundApi } from './outbound-api';

/** The results report of one campaign: every attempt, server-paged, refreshed when the board moves. */
export function CampaignResults({ campaignId, version }: { campaignId: string; version: string }) {
  const { t } = useTranslation();
  const { client } = useServices();
  const api = useMemo(() => createOutboundApi(client), [client]);
  const [page, setPage] = useState<PageWindow>({ first: 0, rows: 10 });
  const [rows, setRows] = useState<OutboundCallView[]>([]);
  const [total, setTotal] = useState(0);
  const [loading, setLoading] = useState(true);
  const [failure, setFailure] = useState<string | null>(null);

  useEffect(() => {
    let live = true;
    api
      .results(campaignId, { page: page.first / page.rows + 1, pageSize: page.rows })
      .then((result) => {
        if (!live) return;
        setRows(result.items);
        setTotal(result.total);
        setFailure(null);
      })
      .catch((error: unknown) => live && setFailure(describeError(error, t)))
      .finally(() => live && setLoading(false));
    return () => {
      live = false;
    };
  }, [api, campaignId, page, version, t]);

  const na = t('format.notAvailable');
  return (
    <section className="card outbound-results" data-testid="outbound-results">
      <h2>{t('outbound.results.title')}</h2>
      {failure && (
        <p className="form-error" role="alert">
          {failure}
        </p>
      )}
      <DataTable value={rows} emptyMessage={t('outbound.board.noCalls')} {...lazyPaging(page, setPage, total, loading)}>
        <Column field="phone" header={t('outbound.fields.phone')} />
        <Column field="contactName" header={t('outbound.fields.contact')} body={(row: OutboundCallView) => row.contactName ?? na} />
        <Column field="attempt" header={t('outbound.fields.attempt')} style={{ width: '6rem' }} />
        <Column
          field="status"
          header={t('outbound.fields.status')}
          body={(row: OutboundCallView) => t(`outbound.callStatus.${row.status}`, { defaultValue: row.status })}
        />
        <Column
          field="disposition"
          header={t('outbound.fields.disposition')}
          body={(row: OutboundCallView) =>
            row.disposition ? t(`outbound.dispositions.${row.disposition}`, { defaultValue: row.disposition }) : na
          }
        />
        <Column
          field="createdAt"
          header={t('outbound.results.dialedAt')}
          body={(row: OutboundCallView) => formatDateTime(row.createdAt, t)}
        />
        <Column
          field="finishedAt"
          header={t('outbound.results.finishedAt')}
          body={(row: OutboundCallView) => formatDateTime(row.finishedAt, t)}
        />
      </DataTable>
    </section>
  );
}
