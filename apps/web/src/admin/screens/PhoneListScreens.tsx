import { useEffect, useRef, useState, type FormEvent } from 'react';
import { useNavigate, useSearchParams } from 'react-router-dom';
import { Button } from 'primereact/button';
import { Column } from 'primereact/column';
import { DataTable } from 'primereact/datatable';
import { Dropdown } from 'primereact/dropdown';
import { ProgressBar } from 'primereact/progressbar';
import { useTranslation } from 'react-i18next';
import {
  PHONE_IMPORT_LIMITS,
  type AppRoute,
  type PhoneImportState,
  type PhoneListEntry,
  type PhoneListSummary,
} from '@centralita/contracts';
import { describeError } from '../../api/error-text';
import { useApi } from '../../app/ServicesContext';
import { formatDateTime, formatNullable } from '../../format/format';
import { PageHeader } from '../../layout/PageHeader';
import { AdminListPage } from '../AdminListPage';
import { FieldShell, TextInput } from '../fields';
import { lazyPaging } from '../lazy-paging';
import { importFailureText } from './phone-import-failure';

const LIST = '/list/PhoneListsExcel';

export function PhoneListsPage({ route }: { route: AppRoute }) {
  const { t } = useTranslation();
  return (
    <AdminListPage<PhoneListSummary>
      route={route}
      resource="phone-lists"
      auditType="phone-list"
      addPath="/list/SubmitList"
      editPath="/list/ListsExcel"
      viewOnly
      describe={(row) => row.name}
      columns={[
        { field: 'name', header: t('admin.phoneLists.name'), sortable: true, body: (row) => <strong>{row.name}</strong> },
        { field: 'entryCount', header: t('admin.phoneLists.entries'), sortable: true, style: { width: '10rem' } },
        {
          field: 'createdAt',
          header: t('admin.phoneLists.createdAt'),
          sortable: true,
          body: (row) => formatDateTime(row.createdAt, t),
          style: { width: '14rem' },
        },
      ]}
    />
  );
}

const FINISHED = new Set(['done', 'failed']);

/** /list/SubmitList: upload an xlsx/csv, then follow the worker's progress. */
export function SubmitListPage({ route }: { route: AppRoute }) {
  const { t } = useTranslation();
  const api = useApi();
  const navigate = useNavigate();
  const [name, setName] = useState('');
  const [country, setCountry] = useState('');
  const [file, setFile] = useState<File | null>(null);
  const [submitted, setSubmitted] = useState(false);
  const [state, setState] = useState<PhoneImportState | null>(null);
  const [failure, setFailure] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const timer = useRef<ReturnType<typeof setTimeout> | null>(null);

  useEffect(() => () => void (timer.current && clearTimeout(timer.current)), []);

  const follow = (id: string) => {
    timer.current = setTimeout(async () => {
      try {
        const next = await api.admin.phoneImport(id);
        setState(next);
        if (!FINISHED.has(next.status)) follow(id);
      } catch (e) {
        setFailure(describeError(e, t));
      }
    }, 700);
  };

  const nameError = submitted && !name.trim() ? t('validation.required') : null;
  const fileError = submitted
    ? !file
      ? t('validation.required')
      : file.size > PHONE_IMPORT_LIMITS.maxFileBytes
        ? t('admin.phoneLists.tooBig', { mb: PHONE_IMPORT_LIMITS.maxFileBytes / 1024 / 1024 })
        : null
    : null;
  const countryError = submitted && country && !/^[A-Za-z]{2}$/.test(country) ? t('validation.pattern') : null;

  const onSubmit = async (event: FormEvent) => {
    event.preventDefault();
    setSubmitted(true);
    if (!name.trim() || !file || file.size > PHONE_IMPORT_LIMITS.maxFileBytes || (country && !/^[A-Za-z]{2}$/.test(country))) return;
    setBusy(true);
    setFailure(null);
    try {
      const started = await api.admin.uploadPhoneList(file, { name: name.trim(), defaultCountry: country.toUpperCase() });
      setState(started);
      follow(started.id);
    } catch (e) {
      setFailure(describeError(e, t));
    } finally {
      setBusy(false);
    }
  };

  const downloadErrors = async () => {
    if (!state) return;
    try {
      const response = await api.admin.phoneImportErrors(state.id);
      const url = URL.createObjectURL(await response.blob());
      const link = document.createElement('a');
      link.href = url;
      link.download = `${state.listName}-errors.csv`;
      link.click();
      URL.revokeObjectURL(url);
    } catch (e) {
      setFailure(describeError(e, t));
    }
  };

  return (
    <>
      <PageHeader
        title={t(`routes.${route.titleKey}`)}
        icon="pi pi-upload"
        subtitle={t('admin.phoneLists.uploadHint', {
          mb: PHONE_IMPORT_LIMITS.maxFileBytes / 1024 / 1024,
          rows: PHONE_IMPORT_LIMITS.maxRows,
        })}
      />
      <form className="card admin-form" noValidate onSubmit={(e) => void onSubmit(e)} data-testid="phone-upload">
        <div className="admin-form__grid">
          <TextInput id="list-name" label={t('admin.phoneLists.name')} value={name} onChange={setName} error={nameError} />
          <TextInput
            id="list-country"
            label={t('admin.phoneLists.country')}
            hint={t('admin.phoneLists.countryHint')}
            value={country}
            onChange={(v) => setCountry(v.toUpperCase())}
            maxLength={2}
            error={countryError}
          />
          <FieldShell id="list-file" label={t('admin.phoneLists.file')} hint={t('admin.phoneLists.fileHint')} error={fileError} wide>
            <input
              id="list-file"
              data-testid="list-file"
              className="admin-file"
              type="file"
              accept=".xlsx,.csv,application/vnd.openxmlformats-officedocument.spreadsheetml.sheet,text/csv"
              onChange={(e) => setFile(e.target.files?.[0] ?? null)}
            />
          </FieldShell>
        </div>
        {state && (
          <div className="import-status" data-testid="import-status" data-status={state.status}>
            <ProgressBar value={state.progress} showValue />
            <p>
              <span className={`chip import-status__chip import-status__chip--${state.status}`}>
                {t(`admin.phoneLists.status.${state.status}`)}
              </span>{' '}
              {state.status === 'done' && t('admin.phoneLists.imported', { count: state.importedRows })}
              {state.status === 'failed' && <span data-testid="import-failure">{importFailureText(state, t)}</span>}
            </p>
            {state.status === 'failed' && (
              <Button
                type="button"
                icon="pi pi-download"
                label={t('admin.phoneLists.downloadErrors')}
                outlined
                severity="danger"
                onClick={() => void downloadErrors()}
                data-testid="download-errors"
              />
            )}
            {state.status === 'done' && state.phoneListId && (
              <Button
                type="button"
                icon="pi pi-eye"
                label={t('admin.phoneLists.open')}
                outlined
                onClick={() => navigate(`/list/ListsExcel?id=${state.phoneListId}`)}
              />
            )}
          </div>
        )}
        {failure && (
          <div className="form-error" role="alert">
            <i className="pi pi-times-circle" aria-hidden="true" />
            <span>{failure}</span>
          </div>
        )}
        <div className="admin-form__actions">
          <Button type="button" label={t('admin.form.cancel')} text onClick={() => navigate(LIST)} />
          <Button
            type="submit"
            icon="pi pi-upload"
            label={t('admin.phoneLists.upload')}
            loading={busy}
            disabled={busy || (state !== null && !FINISHED.has(state.status))}
            data-testid="upload-submit"
          />
        </div>
      </form>
    </>
  );
}

/** /list/ListsExcel?id= : the numbers of one list, paged on the server. */
export function ListEntriesPage({ route }: { route: AppRoute }) {
  const { t } = useTranslation();
  const api = useApi();
  const [params, setParams] = useSearchParams();
  const id = params.get('id') ?? '';
  const [lists, setLists] = useState<PhoneListSummary[]>([]);
  const [state, setState] = useState({ first: 0, rows: 25 });
  const [rows, setRows] = useState<PhoneListEntry[]>([]);
  const [total, setTotal] = useState(0);
  const [loading, setLoading] = useState(false);
  const [error, setError] = useState<string | null>(null);

  useEffect(() => {
    api.admin
      .list<PhoneListSummary>('phone-lists', { pageSize: 200 })
      .then((page) => setLists(page.items))
      .catch(() => setLists([]));
  }, [api]);
  useEffect(() => {
    if (!id) return;
    let live = true;
    setLoading(true);
    api.admin
      .phoneListEntries(id, { page: state.first / state.rows + 1, pageSize: state.rows })
      .then((page) => live && (setRows(page.items), setTotal(page.total), setError(null)))
      .catch((e: unknown) => live && setError(describeError(e, t)))
      .finally(() => live && setLoading(false));
    return () => {
      live = false;
    };
  }, [api, id, state, t]);

  return (
    <>
      <PageHeader title={t(`routes.${route.titleKey}`)} icon="pi pi-table" subtitle={t('admin.list.count', { count: total })} />
      <section className="card admin-list" data-testid="list-entries">
        <div className="admin-list__toolbar admin-pickers">
          <Dropdown
            value={id || null}
            options={lists.map((l) => ({ value: l.id, label: `${l.name} (${l.entryCount})` }))}
            optionLabel="label"
            optionValue="value"
            placeholder={t('admin.phoneLists.choose')}
            onChange={(e) => {
              setState((s) => ({ ...s, first: 0 }));
              setParams({ id: e.value as string });
            }}
          />
        </div>
        {error && (
          <div className="form-error" role="alert">
            {error}
          </div>
        )}
        <DataTable
          value={rows}
          {...lazyPaging(state, setState, total, loading)}
          emptyMessage={id ? t('admin.list.empty') : t('admin.phoneLists.choose')}
        >
          <Column field="line" header={t('admin.phoneLists.line')} style={{ width: '7rem' }} />
          <Column field="phone" header={t('admin.phoneLists.phone')} body={(row: PhoneListEntry) => <code>{row.phone}</code>} />
          <Column field="name" header={t('admin.phoneLists.contact')} body={(row: PhoneListEntry) => formatNullable(row.name, t)} />
        </DataTable>
      </section>
    </>
  );
}
