import { useCallback, useEffect, useMemo, useState } from 'react';
import { useSearchParams } from 'react-router-dom';
import { Button } from 'primereact/button';
import { Calendar } from 'primereact/calendar';
import { Column } from 'primereact/column';
import { DataTable, type DataTableSortEvent } from 'primereact/datatable';
import { Dropdown } from 'primereact/dropdown';
import { InputText } from 'primereact/inputtext';
import { Tag } from 'primereact/tag';
import { useTranslation } from 'react-i18next';
import { CASE_STATUSES, type AppRoute, type CaseOptions, type CaseStatus, type CaseSummary } from '@centralita/contracts';
import { describeError } from '../api/error-text';
import { useServices } from '../app/ServicesContext';
import { lazyPaging } from '../admin/lazy-paging';
import { formatDateTime } from '../format/format';
import { PageHeader } from '../layout/PageHeader';
import { useToast } from '../toast/ToastProvider';
import { caseQuery, EMPTY_FILTERS, statusSeverity, type CaseFilterState } from './case-logic';
import { CaseDetailDialog } from './CaseDetailDialog';
import { CaseFormDialog } from './CaseFormDialog';
import { createCrmApi } from './crm-api';
import './crm.css';

const NO_OPTIONS: CaseOptions = { types: [], identificationTypes: [], provinces: [], users: [] };

/** /crm/crmlist: the case registry, paged, filtered and searched on the server; a case opens with ?case=<id>. */
export default function CasesPage({ route }: { route: AppRoute }) {
  const { t } = useTranslation();
  const { client } = useServices();
  const toast = useToast();
  const api = useMemo(() => createCrmApi(client), [client]);
  const [params, setParams] = useSearchParams();
  const [options, setOptions] = useState<CaseOptions | null>(null);
  const [filters, setFilters] = useState<CaseFilterState>(EMPTY_FILTERS);
  const [search, setSearch] = useState('');
  const [page, setPage] = useState({ first: 0, rows: 25 });
  const [sort, setSort] = useState<{ field?: string; order?: 1 | -1 }>({});
  const [rows, setRows] = useState<CaseSummary[]>([]);
  const [total, setTotal] = useState(0);
  const [loading, setLoading] = useState(true);
  const [error, setError] = useState<string | null>(null);
  const [creating, setCreating] = useState(false);
  const [exporting, setExporting] = useState(false);
  const [reload, setReload] = useState(0);
  const openId = params.get('case');

  useEffect(() => {
    api
      .options()
      .then(setOptions)
      .catch((e: unknown) => {
        setOptions(NO_OPTIONS);
        setError(describeError(e, t));
      });
  }, [api, t]);

  // The search box filters once typing pauses.
  useEffect(() => {
    const timer = setTimeout(() => {
      setFilters((current) => (current.q === search ? current : { ...current, q: search }));
      setPage((current) => ({ ...current, first: 0 }));
    }, 300);
    return () => clearTimeout(timer);
  }, [search]);

  const query = useMemo(() => caseQuery(filters), [filters]);
  useEffect(() => {
    let live = true;
    setLoading(true);
    api
      .list({
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
  }, [api, query, page, sort, reload, t]);

  const change = (next: Partial<CaseFilterState>) => {
    setFilters((current) => ({ ...current, ...next }));
    setPage((current) => ({ ...current, first: 0 }));
  };
  const open = useCallback((id: string | null) => setParams(id ? { case: id } : {}, { replace: false }), [setParams]);

  const exportFile = async (format: 'csv' | 'xlsx') => {
    setExporting(true);
    try {
      const response = await api.exportFile({ ...query, format });
      const url = URL.createObjectURL(await response.blob());
      const link = document.createElement('a');
      link.href = url;
      link.download = `cases-${new Date().toISOString().slice(0, 10)}.${format}`;
      link.click();
      setTimeout(() => URL.revokeObjectURL(url), 1000);
    } catch (e) {
      toast.error(t('crm.exportFailed'), describeError(e, t));
    } finally {
      setExporting(false);
    }
  };

  const picker = (key: 'status' | 'typeId' | 'ownerId' | 'assigneeId', label: string, items: { value: string; label: string }[]) => (
    <label className="crm-filter">
      <span>{label}</span>
      <Dropdown
        inputId={`crm-filter-${key}`}
        data-testid={`crm-filter-${key}`}
        value={filters[key] ?? null}
        options={items}
        placeholder={t('crm.filters.all')}
        showClear
        filter={items.length > 8}
        emptyMessage={t('crm.form.noOptions')}
        onChange={(event) => change({ [key]: (event.value as string | null) ?? null })}
      />
    </label>
  );
  const users = (options?.users ?? []).map((user) => ({ value: user.id, label: user.name }));
  const typeCode = (id: string | null) => options?.types.find((type) => type.id === id)?.code;

  return (
    <>
      <PageHeader
        title={t(`routes.${route.titleKey}`)}
        icon={route.icon}
        subtitle={t('crm.subtitle')}
        actions={
          <>
            <Button
              icon="pi pi-plus"
              label={t('crm.newCase')}
              onClick={() => setCreating(true)}
              disabled={!options}
              data-testid="crm-new"
            />
            <Button
              icon="pi pi-file"
              label={t('crm.exportCsv')}
              outlined
              loading={exporting}
              onClick={() => void exportFile('csv')}
              data-testid="crm-export-csv"
            />
            <Button
              icon="pi pi-file-excel"
              label={t('crm.exportXlsx')}
              outlined
              loading={exporting}
              onClick={() => void exportFile('xlsx')}
              data-testid="crm-export-xlsx"
            />
          </>
        }
      />
      <section className="card crm-filters" aria-label={t('crm.filters.title')}>
        <label className="crm-filter crm-filter--search">
          <span>{t('crm.search')}</span>
          <span className="p-input-icon-left">
            <InputText
              value={search}
              onChange={(event) => setSearch(event.target.value)}
              placeholder={t('crm.searchPlaceholder')}
              data-testid="crm-search"
              maxLength={100}
            />
          </span>
        </label>
        {picker(
          'status',
          t('crm.filters.status'),
          CASE_STATUSES.map((status) => ({ value: status, label: t(`crm.status.${status}`) })),
        )}
        {picker(
          'typeId',
          t('crm.filters.type'),
          (options?.types ?? []).map((type) => ({ value: type.id, label: t(`crm.types.${type.code}`, { defaultValue: type.name }) })),
        )}
        {picker('ownerId', t('crm.filters.owner'), users)}
        {picker('assigneeId', t('crm.filters.assignee'), users)}
        <label className="crm-filter">
          <span>{t('crm.filters.from')}</span>
          <Calendar
            inputId="crm-filter-from"
            value={filters.from}
            dateFormat="dd-mm-yy"
            showIcon
            showButtonBar
            onChange={(event) => change({ from: (event.value as Date | null) ?? null })}
          />
        </label>
        <label className="crm-filter">
          <span>{t('crm.filters.to')}</span>
          <Calendar
            inputId="crm-filter-to"
            value={filters.to}
            dateFormat="dd-mm-yy"
            showIcon
            showButtonBar
            onChange={(event) => change({ to: (event.value as Date | null) ?? null })}
          />
        </label>
        <Button
          icon="pi pi-filter-slash"
          label={t('crm.filters.clear')}
          text
          className="crm-filters__clear"
          onClick={() => {
            setSearch('');
            change(EMPTY_FILTERS);
          }}
        />
      </section>
      {error && (
        <div className="form-error" role="alert" data-testid="crm-error">
          <i className="pi pi-times-circle" aria-hidden="true" />
          <span>{error}</span>
        </div>
      )}
      <div className="card">
        <DataTable
          value={rows}
          {...lazyPaging(page, setPage, total, loading)}
          sortField={sort.field}
          sortOrder={sort.order ?? 0}
          onSort={(event: DataTableSortEvent) => setSort({ field: event.sortField, order: (event.sortOrder ?? 1) as 1 | -1 })}
          emptyMessage={loading ? t('crm.loading') : t('crm.empty')}
          selectionMode="single"
          onRowClick={(event) => open((event.data as CaseSummary).id)}
          rowClassName={() => 'crm-row'}
          data-testid="crm-table"
          pt={{ bodyRow: { 'data-testid': 'crm-row' } } as never}
        >
          <Column
            field="code"
            header={t('crm.columns.code')}
            sortable
            body={(row: CaseSummary) => <strong data-column="code">{row.code}</strong>}
          />
          <Column
            field="subject"
            header={t('crm.columns.subject')}
            sortable
            body={(row: CaseSummary) => <span data-column="subject">{row.subject}</span>}
          />
          <Column
            field="status"
            header={t('crm.columns.status')}
            sortable
            body={(row: CaseSummary) => (
              <Tag value={t(`crm.status.${row.status}`)} severity={statusSeverity(row.status as CaseStatus)} data-column="status" />
            )}
          />
          <Column
            field="typeName"
            header={t('crm.columns.type')}
            body={(row: CaseSummary) => (row.typeName ? t(`crm.types.${typeCode(row.typeId) ?? ''}`, { defaultValue: row.typeName }) : '')}
          />
          <Column
            field="contactName"
            header={t('crm.columns.contact')}
            sortable
            body={(row: CaseSummary) => [row.contactName, row.contactEmail ?? row.contactPhone].filter(Boolean).join(' · ')}
          />
          <Column field="ownerName" header={t('crm.columns.owner')} />
          <Column
            field="createdAt"
            header={t('crm.columns.createdAt')}
            sortable
            body={(row: CaseSummary) => formatDateTime(row.createdAt, t)}
          />
          <Column
            field="updatedAt"
            header={t('crm.columns.updatedAt')}
            sortable
            body={(row: CaseSummary) => formatDateTime(row.updatedAt, t)}
          />
        </DataTable>
      </div>
      {creating && options && (
        <CaseFormDialog
          api={api}
          options={options}
          editing={null}
          onHide={() => setCreating(false)}
          onSaved={(saved) => {
            setCreating(false);
            toast.success(t('crm.form.created', { code: saved.code }));
            setReload((n) => n + 1);
            open(saved.id);
          }}
        />
      )}
      {openId && options && (
        <CaseDetailDialog api={api} options={options} id={openId} onHide={() => open(null)} onChanged={() => setReload((n) => n + 1)} />
      )}
    </>
  );
}
