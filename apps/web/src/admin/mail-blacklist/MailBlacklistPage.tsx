import { useCallback, useEffect, useMemo, useRef, useState } from 'react';
import { Button } from 'primereact/button';
import { Column } from 'primereact/column';
import { DataTable, type DataTableSortEvent } from 'primereact/datatable';
import { Dialog } from 'primereact/dialog';
import { IconField } from 'primereact/iconfield';
import { InputIcon } from 'primereact/inputicon';
import { InputText } from 'primereact/inputtext';
import { InputTextarea } from 'primereact/inputtextarea';
import { useTranslation } from 'react-i18next';
import {
  MAIL_BLACKLIST_LIMITS,
  MAIL_BLACKLIST_REASONS,
  isValidMailAddress,
  type AppRoute,
  type MailBlacklistEntry,
  type MailBlacklistReason,
} from '@centralita/contracts';
import { describeError } from '../../api/error-text';
import { useServices } from '../../app/ServicesContext';
import { ConfirmActionDialog, DialogFooter } from '../../components/DialogFooter';
import { formatDateTime } from '../../format/format';
import { PageHeader } from '../../layout/PageHeader';
import { useToast } from '../../toast/ToastProvider';
import { toPagedQuery, type TableState } from '../admin-logic';
import { lazyPaging } from '../lazy-paging';
import { createMailBlacklistApi } from './mail-blacklist-api';
import './mail-blacklist.css';

/**
 * /settings/BlackListMail, the spec's BlackListMail: addresses the organisation never mails again.
 * Recipients land here through the unsubscribe link, mail servers through hard bounces, and
 * administrators add, import (CSV) and remove addresses. Senders check it before every send.
 */
export function MailBlacklistPage({ route }: { route: AppRoute }) {
  const { t } = useTranslation();
  const { client } = useServices();
  const api = useMemo(() => createMailBlacklistApi(client), [client]);
  const toast = useToast();
  const [state, setState] = useState<TableState>({ first: 0, rows: 25, sortField: null, sortOrder: null });
  const [search, setSearch] = useState('');
  const [appliedSearch, setAppliedSearch] = useState('');
  const [reason, setReason] = useState<MailBlacklistReason | ''>('');
  const [rows, setRows] = useState<MailBlacklistEntry[]>([]);
  const [total, setTotal] = useState(0);
  const [loading, setLoading] = useState(true);
  const [error, setError] = useState<string | null>(null);
  const [adding, setAdding] = useState(false);
  const [pendingRemove, setPendingRemove] = useState<MailBlacklistEntry | null>(null);
  const [importing, setImporting] = useState(false);
  const fileInput = useRef<HTMLInputElement>(null);
  const request = useRef(0);

  const load = useCallback(async () => {
    const id = ++request.current;
    setLoading(true);
    try {
      const page = await api.list({ ...toPagedQuery(state, appliedSearch), ...(reason ? { reason } : {}) });
      if (id !== request.current) return;
      setRows(page.items);
      setTotal(page.total);
      setError(null);
    } catch (e) {
      if (id === request.current) setError(`${t('mailBlacklist.loadFailed')} ${describeError(e, t)}`);
    } finally {
      if (id === request.current) setLoading(false);
    }
  }, [api, state, appliedSearch, reason, t]);

  useEffect(() => {
    void load();
  }, [load]);

  useEffect(() => {
    const timer = setTimeout(() => {
      setAppliedSearch(search);
      setState((s) => (s.first === 0 ? s : { ...s, first: 0 }));
    }, 300);
    return () => clearTimeout(timer);
  }, [search]);

  const remove = async () => {
    const row = pendingRemove;
    setPendingRemove(null);
    if (!row) return;
    try {
      await api.remove(row.id);
      toast.success(t('mailBlacklist.removed'));
      await load();
    } catch (e) {
      toast.error(t('mailBlacklist.removeFailed'), describeError(e, t));
    }
  };

  const importFile = async (file: File | undefined) => {
    if (!file) return;
    setImporting(true);
    try {
      const result = await api.importCsv(file);
      toast.success(
        t('mailBlacklist.importDone', { added: result.added, already: result.alreadyListed, invalid: result.invalid.length }),
        result.invalid.length ? result.invalid.map((row) => `#${row.line}: ${row.value}`).join(', ') : undefined,
      );
      await load();
    } catch (e) {
      toast.error(t('mailBlacklist.importFailed'), describeError(e, t));
    } finally {
      setImporting(false);
      if (fileInput.current) fileInput.current.value = '';
    }
  };

  const source = (row: MailBlacklistEntry) => t(`mailBlacklist.sources.${row.source}`, { defaultValue: row.source });
  const addedBy = (row: MailBlacklistEntry) =>
    row.createdByName ?? (row.reason === 'unsubscribe' ? t('mailBlacklist.recipient') : t('mailBlacklist.system'));

  return (
    <>
      <PageHeader
        title={t(`routes.${route.titleKey}`)}
        icon={route.icon}
        subtitle={t('mailBlacklist.total', { count: total })}
        actions={
          <div className="blacklist-actions">
            <Button
              icon="pi pi-upload"
              label={t(importing ? 'mailBlacklist.importing' : 'mailBlacklist.import')}
              outlined
              loading={importing}
              onClick={() => fileInput.current?.click()}
              data-testid="blacklist-import"
            />
            <Button icon="pi pi-plus" label={t('mailBlacklist.add')} onClick={() => setAdding(true)} data-testid="blacklist-add" />
          </div>
        }
      />
      <input
        ref={fileInput}
        type="file"
        accept=".csv,.txt,text/csv,text/plain"
        hidden
        data-testid="blacklist-import-file"
        onChange={(event) => void importFile(event.target.files?.[0])}
      />
      <section className="card admin-list" data-testid="blacklist">
        <p className="muted blacklist-intro">{t('mailBlacklist.intro')}</p>
        <div className="admin-list__toolbar">
          <IconField iconPosition="left">
            <InputIcon className="pi pi-search" />
            <InputText
              value={search}
              placeholder={t('mailBlacklist.search')}
              aria-label={t('mailBlacklist.search')}
              data-testid="blacklist-search"
              onChange={(event) => setSearch(event.target.value)}
            />
          </IconField>
          <select
            className="p-inputtext p-component"
            value={reason}
            aria-label={t('mailBlacklist.columns.reason')}
            data-testid="blacklist-reason-filter"
            onChange={(event) => {
              setReason(event.target.value as MailBlacklistReason | '');
              setState((s) => ({ ...s, first: 0 }));
            }}
          >
            <option value="">{t('mailBlacklist.allReasons')}</option>
            {MAIL_BLACKLIST_REASONS.map((code) => (
              <option key={code} value={code}>
                {t(`mailBlacklist.reasons.${code}`)}
              </option>
            ))}
          </select>
        </div>
        {error && (
          <div className="form-error" role="alert" data-testid="blacklist-error">
            <i className="pi pi-times-circle" aria-hidden="true" />
            <span>{error}</span>
            <Button label={t('common.retry')} text size="small" onClick={() => void load()} />
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
          emptyMessage={t('mailBlacklist.empty')}
          data-testid="blacklist-table"
        >
          <Column
            field="address"
            header={t('mailBlacklist.columns.address')}
            sortable
            body={(row: MailBlacklistEntry) => <strong data-testid="blacklist-address">{row.address}</strong>}
          />
          <Column
            field="reason"
            header={t('mailBlacklist.columns.reason')}
            sortable
            style={{ width: '13rem' }}
            body={(row: MailBlacklistEntry) => (
              <span className={`chip blacklist-chip--${row.reason}`} data-testid="blacklist-reason" data-reason={row.reason}>
                {t(`mailBlacklist.reasons.${row.reason}`)}
              </span>
            )}
          />
          <Column field="source" header={t('mailBlacklist.columns.source')} sortable style={{ width: '12rem' }} body={source} />
          <Column
            field="note"
            header={t('mailBlacklist.columns.note')}
            body={(row: MailBlacklistEntry) => <span className="admin-clamp">{row.note ?? ''}</span>}
          />
          <Column header={t('mailBlacklist.columns.addedBy')} style={{ width: '11rem' }} body={addedBy} />
          <Column
            field="createdAt"
            header={t('mailBlacklist.columns.addedAt')}
            sortable
            style={{ width: '11rem' }}
            body={(row: MailBlacklistEntry) => formatDateTime(row.createdAt)}
          />
          <Column
            header={t('mailBlacklist.columns.actions')}
            style={{ width: '5rem' }}
            body={(row: MailBlacklistEntry) => (
              <Button
                icon="pi pi-trash"
                rounded
                text
                severity="danger"
                aria-label={t('mailBlacklist.remove')}
                tooltip={t('mailBlacklist.remove')}
                data-testid="blacklist-remove"
                onClick={() => setPendingRemove(row)}
              />
            )}
          />
        </DataTable>
      </section>
      <AddDialog
        visible={adding}
        onHide={() => setAdding(false)}
        onAdded={(entry) => {
          setAdding(false);
          toast.success(t('mailBlacklist.added', { address: entry.address }));
          void load();
        }}
        add={api.add}
      />
      <ConfirmActionDialog
        visible={pendingRemove !== null}
        onHide={() => setPendingRemove(null)}
        header={t('mailBlacklist.removeTitle')}
        message={pendingRemove ? t('mailBlacklist.removeMessage', { address: pendingRemove.address }) : ''}
        keep={{ label: t('mailBlacklist.dialog.cancel'), testId: 'blacklist-cancel-remove' }}
        action={{ label: t('mailBlacklist.remove'), icon: 'pi pi-trash', onClick: () => void remove(), testId: 'blacklist-confirm-remove' }}
      />
    </>
  );
}

function AddDialog({
  visible,
  onHide,
  onAdded,
  add,
}: {
  visible: boolean;
  onHide(): void;
  onAdded(entry: MailBlacklistEntry): void;
  add: ReturnType<typeof createMailBlacklistApi>['add'];
}) {
  const { t } = useTranslation();
  const [address, setAddress] = useState('');
  const [reason, setReason] = useState<MailBlacklistReason>('manual');
  const [note, setNote] = useState('');
  const [touched, setTouched] = useState(false);
  const [saving, setSaving] = useState(false);
  const [failure, setFailure] = useState<string | null>(null);
  useEffect(() => {
    if (!visible) return;
    setAddress('');
    setReason('manual');
    setNote('');
    setTouched(false);
    setFailure(null);
  }, [visible]);
  const invalid = !isValidMailAddress(address);
  const save = async () => {
    setTouched(true);
    if (invalid || saving) return;
    setSaving(true);
    try {
      onAdded(await add({ address, reason, note: note.trim() || null }));
    } catch (e) {
      setFailure(`${t('mailBlacklist.addFailed')} ${describeError(e, t)}`);
    } finally {
      setSaving(false);
    }
  };
  return (
    <Dialog
      header={t('mailBlacklist.dialog.title')}
      visible={visible}
      onHide={onHide}
      style={{ width: '30rem' }}
      data-testid="blacklist-dialog"
      footer={
        <DialogFooter
          cancel={{ label: t('mailBlacklist.dialog.cancel'), onClick: onHide }}
          action={{
            label: t('mailBlacklist.dialog.save'),
            icon: 'pi pi-ban',
            loading: saving,
            onClick: () => void save(),
            testId: 'blacklist-save',
          }}
        />
      }
    >
      <form
        className="admin-form__grid"
        onSubmit={(event) => {
          event.preventDefault();
          void save();
        }}
      >
        <label className="admin-field admin-field--wide" htmlFor="blacklist-address">
          <span>{t('mailBlacklist.dialog.address')}</span>
          <InputText
            id="blacklist-address"
            type="email"
            value={address}
            maxLength={MAIL_BLACKLIST_LIMITS.addressMax}
            invalid={touched && invalid}
            onChange={(event) => setAddress(event.target.value)}
            onBlur={() => setTouched(true)}
            data-testid="blacklist-address-input"
          />
          {touched && invalid && (
            <small className="p-error" data-testid="blacklist-address-error">
              {t('mailBlacklist.dialog.invalidAddress')}
            </small>
          )}
        </label>
        <label className="admin-field admin-field--wide" htmlFor="blacklist-reason">
          <span>{t('mailBlacklist.dialog.reason')}</span>
          <select
            id="blacklist-reason"
            className="p-inputtext p-component"
            value={reason}
            onChange={(event) => setReason(event.target.value as MailBlacklistReason)}
            data-testid="blacklist-reason-input"
          >
            {MAIL_BLACKLIST_REASONS.map((code) => (
              <option key={code} value={code}>
                {t(`mailBlacklist.reasons.${code}`)}
              </option>
            ))}
          </select>
        </label>
        <label className="admin-field admin-field--wide" htmlFor="blacklist-note">
          <span>{t('mailBlacklist.dialog.note')}</span>
          <InputTextarea
            id="blacklist-note"
            rows={3}
            value={note}
            maxLength={MAIL_BLACKLIST_LIMITS.noteMax}
            onChange={(event) => setNote(event.target.value)}
            data-testid="blacklist-note-input"
          />
        </label>
        {failure && (
          <div className="form-error admin-field--wide" role="alert" data-testid="blacklist-add-error">
            <i className="pi pi-times-circle" aria-hidden="true" />
            <span>{failure}</span>
          </div>
        )}
      </form>
    </Dialog>
  );
}
