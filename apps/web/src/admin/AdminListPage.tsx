import { useCallback, useEffect, useRef, useState, type ReactNode } from 'react';
import { useNavigate } from 'react-router-dom';
import { Button } from 'primereact/button';
import { Column } from 'primereact/column';
import { DataTable, type DataTableSortEvent } from 'primereact/datatable';
import { IconField } from 'primereact/iconfield';
import { InputIcon } from 'primereact/inputicon';
import { InputText } from 'primereact/inputtext';
import { useTranslation } from 'react-i18next';
import { PERMISSIONS, type AppRoute } from '@centralita/contracts';
import { describeError } from '../api/error-text';
import { ConfirmActionDialog } from '../components/DialogFooter';
import { useApi, useAuth } from '../app/ServicesContext';
import { hasPermission } from '../auth/permissions';
import { PageHeader } from '../layout/PageHeader';
import { useToast } from '../toast/ToastProvider';
import { toPagedQuery, type TableState } from './admin-logic';
import { AuditDialog } from './AuditDialog';
import { lazyPaging } from './lazy-paging';

export interface AdminColumn<T> {
  field: string;
  header: string;
  sortable?: boolean;
  body?: (row: T) => ReactNode;
  style?: React.CSSProperties;
}

interface AdminListPageProps<T extends { id: string }> {
  route: AppRoute;
  /** REST resource under /api (e.g. 'campaigns'). */
  resource: string;
  /** Entity type of its audit rows. */
  auditType: string;
  columns: AdminColumn<T>[];
  /** Form route; edit adds ?id=. Null hides the add button (the caller may not create). */
  addPath: string | null;
  editPath: string;
  /** Text naming a row in the delete confirmation. */
  describe(row: T): string;
  /** i18n key of the delete confirmation (default admin.list.confirmDelete). */
  deleteKey?: string;
  /** The row action opens a read-only view instead of a form. */
  viewOnly?: boolean;
  /** Rows cannot be deleted from this list (no delete button). */
  noDelete?: boolean;
  /** Rendered under the table (e.g. pending invitations under the users). */
  footer?: ReactNode;
  /** More buttons of a row, before its edit button (e.g. a service line's web-chat page). */
  rowActions?: (row: T) => ReactNode;
}

/**
 * The list screen of every admin area: server-side paging, sorting and search (a lazy DataTable),
 * add/edit links, delete with confirmation and the audit trail of each row.
 */
export function AdminListPage<T extends { id: string }>(props: AdminListPageProps<T>) {
  const { route, resource, auditType, columns, addPath, editPath } = props;
  const { t } = useTranslation();
  const api = useApi();
  const toast = useToast();
  const navigate = useNavigate();
  const { user } = useAuth();
  const canAudit = hasPermission(user, PERMISSIONS.auditView);
  const [state, setState] = useState<TableState>({ first: 0, rows: 25, sortField: null, sortOrder: null });
  const [search, setSearch] = useState('');
  const [appliedSearch, setAppliedSearch] = useState('');
  const [rows, setRows] = useState<T[]>([]);
  const [total, setTotal] = useState(0);
  const [loading, setLoading] = useState(true);
  const [error, setError] = useState<string | null>(null);
  const [pendingDelete, setPendingDelete] = useState<T | null>(null);
  const [auditId, setAuditId] = useState<string | null>(null);
  const request = useRef(0);

  const load = useCallback(async () => {
    const id = ++request.current;
    setLoading(true);
    try {
      const page = await api.admin.list<T>(resource, toPagedQuery(state, appliedSearch));
      if (id !== request.current) return;
      setRows(page.items);
      setTotal(page.total);
      setError(null);
    } catch (e) {
      if (id === request.current) setError(describeError(e, t));
    } finally {
      if (id === request.current) setLoading(false);
    }
  }, [api, resource, state, appliedSearch, t]);

  useEffect(() => {
    void load();
  }, [load]);

  // Search as the user types, once they pause.
  useEffect(() => {
    const timer = setTimeout(() => {
      setAppliedSearch(search);
      setState((s) => (s.first === 0 ? s : { ...s, first: 0 }));
    }, 300);
    return () => clearTimeout(timer);
  }, [search]);

  const confirmDelete = async () => {
    const row = pendingDelete;
    setPendingDelete(null);
    if (!row) return;
    try {
      await api.admin.remove(resource, row.id);
      toast.success(t('admin.list.deleted'));
      await load();
    } catch (e) {
      toast.error(t('admin.list.deleteFailed'), describeError(e, t));
    }
  };

  const actions = (row: T) => (
    <div className="admin-actions">
      {props.rowActions?.(row)}
      <Button
        icon={props.viewOnly ? 'pi pi-eye' : 'pi pi-pencil'}
        rounded
        text
        aria-label={t(props.viewOnly ? 'admin.list.view' : 'admin.list.edit')}
        tooltip={t(props.viewOnly ? 'admin.list.view' : 'admin.list.edit')}
        data-testid="admin-edit"
        data-id={row.id}
        onClick={() => navigate(`${editPath}?id=${encodeURIComponent(row.id)}`)}
      />
      {canAudit && (
        <Button
          icon="pi pi-history"
          rounded
          text
          severity="secondary"
          aria-label={t('admin.list.history')}
          tooltip={t('admin.list.history')}
          data-testid="admin-history"
          onClick={() => setAuditId(row.id)}
        />
      )}
      {!props.noDelete && (
        <Button
          icon="pi pi-trash"
          rounded
          text
          severity="danger"
          aria-label={t('admin.list.delete')}
          tooltip={t('admin.list.delete')}
          data-testid="admin-delete"
          data-id={row.id}
          onClick={() => setPendingDelete(row)}
        />
      )}
    </div>
  );

  return (
    <>
      <PageHeader
        title={t(`routes.${route.titleKey}`)}
        icon={route.icon}
        subtitle={t('admin.list.count', { count: total })}
        actions={
          addPath && <Button icon="pi pi-plus" label={t('admin.list.add')} data-testid="admin-add" onClick={() => navigate(addPath)} />
        }
      />
      <section className="card admin-list" data-testid="admin-list" data-resource={resource}>
        <div className="admin-list__toolbar">
          <IconField iconPosition="left">
            <InputIcon className="pi pi-search" />
            <InputText
              value={search}
              placeholder={t('admin.list.search')}
              aria-label={t('admin.list.search')}
              data-testid="admin-search"
              onChange={(event) => setSearch(event.target.value)}
            />
          </IconField>
        </div>
        {error && (
          <div className="form-error" role="alert" data-testid="admin-list-error">
            <i className="pi pi-times-circle" aria-hidden="true" />
            <span>{error}</span>
          </div>
        )}
        <DataTable
          value={rows}
          {...lazyPaging(state, (page) => setState((s) => ({ ...s, ...page })), total, loading)}
          onSort={(event: DataTableSortEvent) =>
            setState((s) => ({
              ...s,
              first: 0,
              sortField: event.sortField,
              sortOrder: (event.sortOrder ?? null) as TableState['sortOrder'],
            }))
          }
          sortField={state.sortField ?? undefined}
          sortOrder={state.sortOrder ?? undefined}
          emptyMessage={t('admin.list.empty')}
          data-testid="admin-table"
        >
          {columns.map((column) => (
            <Column
              key={column.field}
              field={column.field}
              header={column.header}
              sortable={column.sortable}
              body={column.body}
              style={column.style}
            />
          ))}
          <Column
            header={t('admin.list.actions')}
            body={actions}
            style={{ width: `${(canAudit ? 9 : 6.5) + (props.rowActions ? 2.75 : 0)}rem` }}
          />
        </DataTable>
      </section>
      {props.footer}
      <ConfirmActionDialog
        visible={pendingDelete !== null}
        onHide={() => setPendingDelete(null)}
        header={t('admin.list.confirmTitle')}
        message={pendingDelete ? t(props.deleteKey ?? 'admin.list.confirmDelete', { name: props.describe(pendingDelete) }) : ''}
        keep={{ label: t('admin.form.cancel'), testId: 'admin-cancel-delete' }}
        action={{ label: t('admin.list.delete'), icon: 'pi pi-trash', onClick: () => void confirmDelete(), testId: 'admin-confirm-delete' }}
      />
      {canAudit && <AuditDialog entityType={auditType} entityId={auditId} onHide={() => setAuditId(null)} />}
    </>
  );
}
