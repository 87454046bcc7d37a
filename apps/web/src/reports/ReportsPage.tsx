import { useCallback, useEffect, useMemo, useRef, useState } from 'react';
import { Button } from 'primereact/button';
import { Calendar } from 'primereact/calendar';
import { Checkbox } from 'primereact/checkbox';
import { Column } from 'primereact/column';
import { DataTable, type DataTableSortEvent } from 'primereact/datatable';
import { Dropdown } from 'primereact/dropdown';
import { ProgressBar } from 'primereact/progressbar';
import { useTranslation } from 'react-i18next';
import {
  REPORT_COLUMNS,
  REPORT_TYPES,
  type AppRoute,
  type ReportColumn,
  type ReportExportFormat,
  type ReportExportState,
  type ReportOptions,
  type ReportRow,
  type ReportType,
  valueLabel,
} from '@centralita/contracts';
import { describeError } from '../api/error-text';
import { useServices } from '../app/ServicesContext';
import { lazyPaging } from '../admin/lazy-paging';
import { normaliseLanguage } from '../i18n/languages';
import { PageHeader } from '../layout/PageHeader';
import { ConversationDetailDialog } from './ConversationDetailDialog';
import { createReportsApi } from './reports-api';
import { defaultWindow, formatReportCell, reportQuery, type ReportFilterState } from './report-format';
import './reports.css';

const FINISHED = new Set(['done', 'failed', 'expired']);

/** /reports/reports: one report at a time, paged and sorted on the server, exported by the worker. */
export default function ReportsPage({ route }: { route: AppRoute }) {
  const { t, i18n } = useTranslation();
  const language = normaliseLanguage(i18n.resolvedLanguage ?? i18n.language);
  const { client } = useServices();
  const api = useMemo(() => createReportsApi(client), [client]);
  const [type, setType] = useState<ReportType>('conversations');
  const [filters, setFilters] = useState<ReportFilterState>(() => ({ ...defaultWindow(new Date()) }));
  const [options, setOptions] = useState<ReportOptions | null>(null);
  const [page, setPage] = useState({ first: 0, rows: 25 });
  const [sort, setSort] = useState<{ field?: string; order?: 1 | -1 }>({});
  const [rows, setRows] = useState<ReportRow[]>([]);
  const [total, setTotal] = useState(0);
  const [loading, setLoading] = useState(true);
  const [error, setError] = useState<string | null>(null);
  const [exporting, setExporting] = useState<ReportExportState | null>(null);
  const [exportError, setExportError] = useState<string | null>(null);
  const [detailId, setDetailId] = useState<string | null>(null);
  const timer = useRef<ReturnType<typeof setTimeout> | null>(null);

  useEffect(() => () => void (timer.current && clearTimeout(timer.current)), []);
  useEffect(() => {
    api
      .options()
      .then(setOptions)
      .catch(() => setOptions({ lines: [], campaigns: [], dialerCampaigns: [], agents: [], channels: [] }));
  }, [api]);

  const rangeInvalid = !filters.from || !filters.to || filters.from >= filters.to;
  const query = useMemo(() => (rangeInvalid ? null : reportQuery(filters)), [filters, rangeInvalid]);

  useEffect(() => {
    if (!query) {
      setLoading(false);
      return;
    }
    let live = true;
    setLoading(true);
    api
      .page(type, {
        ...query,
        page: page.first / page.rows + 1,
        pageSize: page.rows,
        ...(sort.field ? { sortField: sort.field, sortOrder: sort.order === -1 ? 'desc' : 'asc' } : {}),
      })
      .then((result) => {
        if (!live) return;
        setRows(result.items);
        setTotal(result.total);
        setError(null);
      })
      .catch((e: unknown) => live && (setRows([]), setTotal(0), setError(describeError(e, t))))
      .finally(() => live && setLoading(false));
    return () => {
      live = false;
    };
  }, [api, type, query, page, sort, t]);

  const change = (next: Partial<ReportFilterState>) => {
    setFilters((current) => ({ ...current, ...next }));
    setPage((current) => ({ ...current, first: 0 }));
  };

  const download = useCallback(
    async (state: ReportExportState) => {
      const response = await api.download(state.id);
      const url = URL.createObjectURL(await response.blob());
      const link = document.createElement('a');
      link.href = url;
      link.download = state.fileName;
      link.click();
      setTimeout(() => URL.revokeObjectURL(url), 1000);
    },
    [api],
  );

  const follow = (id: string) => {
    timer.current = setTimeout(async () => {
      try {
        const next = await api.exportState(id);
        setExporting(next);
        if (!FINISHED.has(next.status)) return follow(id);
        if (next.status === 'done') await download(next);
        else setExportError(next.failure ?? t('reports.exportFailed'));
      } catch (e) {
        setExportError(describeError(e, t));
      }
    }, 500);
  };

  const startExport = async (format: ReportExportFormat) => {
    if (!query) return;
    setExportError(null);
    try {
      const started = await api.startExport(type, { ...query, format });
      setExporting(started);
      follow(started.id);
    } catch (e) {
      setExportError(describeError(e, t));
    }
  };

  const busy = exporting !== null && !FINISHED.has(exporting.status);
  const columns = REPORT_COLUMNS[type];
  const campaignOptions = type === 'outbound-results' ? options?.dialerCampaigns : options?.campaigns;
  const picker = (key: 'attentionLineId' | 'campaignId' | 'agentId', items: { id: string; name: string }[] | undefined, label: string) => (
    <label className="reports-filter">
      <span>{label}</span>
      <Dropdown
        inputId={`report-${key}`}
        data-testid={`report-${key}`}
        value={filters[key] ?? null}
        options={items ?? []}
        optionLabel="name"
        optionValue="id"
        placeholder={t('reports.all')}
        showClear
        filter
        emptyMessage={t('reports.noOptions')}
        onChange={(event) => change({ [key]: (event.value as string | null) ?? undefined })}
      />
    </label>
  );

  return (
    <>
      <PageHeader
        title={t(`routes.${route.titleKey}`)}
        icon={route.icon}
        subtitle={t('reports.subtitle')}
        actions={
          <>
            <Button
              icon="pi pi-file"
              label={t('reports.exportCsv')}
              outlined
              disabled={busy || !query}
              onClick={() => void startExport('csv')}
              data-testid="export-csv"
            />
            <Button
              icon="pi pi-file-excel"
              label={t('reports.exportXlsx')}
              outlined
              disabled={busy || !query}
              onClick={() => void startExport('xlsx')}
              data-testid="export-xlsx"
            />
          </>
        }
      />
      <section className="card reports-filters" aria-label={t('reports.filters')}>
        <label className="reports-filter">
          <span>{t('reports.type')}</span>
          <Dropdown
            inputId="report-type"
            data-testid="report-type"
            value={type}
            options={REPORT_TYPES.map((value) => ({ value, label: t(`reports.types.${value}`) }))}
            onChange={(event) => {
              setType(event.value as ReportType);
              setSort({});
              setPage((current) => ({ ...current, first: 0 }));
            }}
          />
        </label>
        <label className="reports-filter">
          <span>{t('reports.from')}</span>
          <Calendar
            inputId="report-from"
            value={filters.from}
            dateFormat="dd-mm-yy"
            showTime
            hourFormat="24"
            showIcon
            invalid={rangeInvalid}
            onChange={(event) => change({ from: (event.value as Date | null) ?? null })}
          />
        </label>
        <label className="reports-filter">
          <span>{t('reports.to')}</span>
          <Calendar
            inputId="report-to"
            value={filters.to}
            dateFormat="dd-mm-yy"
            showTime
            hourFormat="24"
            showIcon
            invalid={rangeInvalid}
            onChange={(event) => change({ to: (event.value as Date | null) ?? null })}
          />
        </label>
        {picker('attentionLineId', options?.lines, t('reports.line'))}
        {picker('campaignId', campaignOptions, t('reports.campaign'))}
        <label className="reports-filter">
          <span>{t('reports.channel')}</span>
          <Dropdown
            inputId="report-channel"
            value={filters.channel ?? null}
            options={(options?.channels ?? []).map((channel) => ({ value: channel, label: valueLabel('channel', channel, language) }))}
            placeholder={t('reports.all')}
            showClear
            emptyMessage={t('reports.noOptions')}
            onChange={(event) => change({ channel: (event.value as string | null) ?? undefined })}
          />
        </label>
        {picker('agentId', options?.agents, t('reports.agent'))}
        {type === 'conversations' && (
          <label className="reports-filter reports-filter--check">
            <Checkbox
              inputId="report-voicemail"
              data-testid="report-voicemail"
              checked={filters.voicemail === true}
              onChange={(event) => change({ voicemail: event.checked ? true : undefined })}
            />
            <span>{t('reports.voicemailOnly')}</span>
          </label>
        )}
      </section>
      {rangeInvalid && (
        <div className="form-error" role="alert" data-testid="report-range-error">
          <i className="pi pi-exclamation-triangle" aria-hidden="true" />
          <span>{t('reports.invalidRange')}</span>
        </div>
      )}
      {(exporting || exportError) && (
        <section className="card reports-export" data-testid="export-status" data-status={exporting?.status ?? 'failed'}>
          {exporting && !exportError && (
            <>
              <ProgressBar value={exporting.progress} showValue />
              <p>
                {exporting.status === 'done'
                  ? t('reports.exportReady', { count: exporting.rowCount, file: exporting.fileName })
                  : t('reports.exporting', { count: exporting.rowCount, total: exporting.totalRows ?? '…' })}
              </p>
              {exporting.status === 'done' && (
                <Button
                  type="button"
                  icon="pi pi-download"
                  label={t('reports.downloadAgain')}
                  text
                  onClick={() => void download(exporting).catch((e: unknown) => setExportError(describeError(e, t)))}
                />
              )}
            </>
          )}
          {exportError && (
            <div className="form-error" role="alert">
              <i className="pi pi-times-circle" aria-hidden="true" />
              <span>{exportError}</span>
            </div>
          )}
        </section>
      )}
      {error && (
        <div className="form-error" role="alert" data-testid="report-error">
          <i className="pi pi-times-circle" aria-hidden="true" />
          <span>{error}</span>
        </div>
      )}
      <div className="card">
        <DataTable
          value={rows}
          {...lazyPaging(page, setPage, total, loading)}
          dataKey={columns[0]!.key === 'id' ? 'id' : undefined}
          sortField={sort.field}
          sortOrder={sort.order ?? 0}
          onSort={(event: DataTableSortEvent) => setSort({ field: event.sortField, order: (event.sortOrder ?? 1) as 1 | -1 })}
          emptyMessage={t('reports.empty')}
          selectionMode={type === 'conversations' ? 'single' : undefined}
          onRowClick={type === 'conversations' ? (event) => setDetailId(String((event.data as ReportRow).id)) : undefined}
          rowClassName={() => (type === 'conversations' ? 'reports-row--link' : '')}
          data-testid="report-table"
          pt={{ bodyRow: { 'data-testid': 'report-row' } } as never}
        >
          {columns.map((column: ReportColumn) => (
            <Column
              key={`${type}-${column.key}`}
              field={column.key}
              header={t(`reports.columns.${column.key}`)}
              sortable={!!column.sortable}
              body={(row: ReportRow) => (
                <span data-column={column.key} title={column.key === 'id' ? String(row.id) : undefined}>
                  {formatReportCell(column, row[column.key] ?? null, t, language)}
                </span>
              )}
            />
          ))}
        </DataTable>
      </div>
      {detailId && <ConversationDetailDialog api={api} id={detailId} onHide={() => setDetailId(null)} />}
    </>
  );
}
