import { useCallback, useEffect, useMemo, useState } from 'react';
import { Button } from 'primereact/button';
import { Column } from 'primereact/column';
import { DataTable } from 'primereact/datatable';
import { Dialog } from 'primereact/dialog';
import { InputText } from 'primereact/inputtext';
import { InputTextarea } from 'primereact/inputtextarea';
import { useTranslation } from 'react-i18next';
import { INTEGRATION_KEY_LIMITS, type AppRoute, type CreatedIntegrationKey, type IntegrationKeySummary } from '@centralita/contracts';
import { describeError } from '../../api/error-text';
import { useServices } from '../../app/ServicesContext';
import { ConfirmActionDialog, DialogFooter } from '../../components/DialogFooter';
import { formatDateTime } from '../../format/format';
import { PageHeader } from '../../layout/PageHeader';
import { useToast } from '../../toast/ToastProvider';
import { createIntegrationKeysApi } from './integration-keys-api';

/**
 * /settings/integrationKeys (issue 22 item 5): keys an external dialer uses to ask for single-use
 * sign-in links for this organisation's agents (POST /api/ExternLoginVicidial). A new key is shown
 * once, in the dialog that follows its creation; the list only ever shows its first characters.
 */
export function IntegrationKeysPage({ route }: { route: AppRoute }) {
  const { t } = useTranslation();
  const { client } = useServices();
  const api = useMemo(() => createIntegrationKeysApi(client), [client]);
  const toast = useToast();
  const [rows, setRows] = useState<IntegrationKeySummary[]>([]);
  const [loading, setLoading] = useState(true);
  const [error, setError] = useState<string | null>(null);
  const [adding, setAdding] = useState(false);
  const [created, setCreated] = useState<CreatedIntegrationKey | null>(null);
  const [pendingRevoke, setPendingRevoke] = useState<IntegrationKeySummary | null>(null);

  const load = useCallback(async () => {
    setLoading(true);
    try {
      setRows(await api.list());
      setError(null);
    } catch (e) {
      setError(`${t('integrationKeys.loadFailed')} ${describeError(e, t)}`);
    } finally {
      setLoading(false);
    }
  }, [api, t]);

  useEffect(() => {
    void load();
  }, [load]);

  const revoke = async () => {
    const row = pendingRevoke;
    setPendingRevoke(null);
    if (!row) return;
    try {
      await api.revoke(row.id);
      toast.success(t('integrationKeys.revokedToast'));
      await load();
    } catch (e) {
      toast.error(t('integrationKeys.revokeFailed'), describeError(e, t));
    }
  };

  return (
    <>
      <PageHeader
        title={t(`routes.${route.titleKey}`)}
        icon={route.icon}
        actions={<Button icon="pi pi-plus" label={t('integrationKeys.add')} onClick={() => setAdding(true)} data-testid="keys-add" />}
      />
      <section className="card admin-list" data-testid="integration-keys">
        <p className="muted">{t('integrationKeys.intro')}</p>
        {error && (
          <div className="form-error" role="alert" data-testid="keys-error">
            <i className="pi pi-times-circle" aria-hidden="true" />
            <span>{error}</span>
            <Button label={t('common.retry')} text size="small" onClick={() => void load()} />
          </div>
        )}
        <DataTable
          value={rows}
          loading={loading}
          dataKey="id"
          emptyMessage={loading ? t('integrationKeys.loading') : t('integrationKeys.empty')}
          data-testid="keys-table"
          rowClassName={(row: IntegrationKeySummary) => (row.revokedAt ? 'admin-row--muted' : '')}
        >
          <Column
            field="name"
            header={t('integrationKeys.columns.name')}
            body={(row: IntegrationKeySummary) => <strong data-testid="key-name">{row.name}</strong>}
          />
          <Column
            header={t('integrationKeys.columns.hint')}
            style={{ width: '10rem' }}
            body={(row: IntegrationKeySummary) => <code>{row.hint}…</code>}
          />
          <Column
            header={t('integrationKeys.columns.origins')}
            body={(row: IntegrationKeySummary) =>
              row.callbackOrigins.length ? row.callbackOrigins.join(', ') : <span className="muted">{t('integrationKeys.anyOrigin')}</span>
            }
          />
          <Column
            header={t('integrationKeys.columns.created')}
            style={{ width: '12rem' }}
            body={(row: IntegrationKeySummary) => `${formatDateTime(row.createdAt)}${row.createdByName ? ` · ${row.createdByName}` : ''}`}
          />
          <Column
            header={t('integrationKeys.columns.lastUsed')}
            style={{ width: '11rem' }}
            body={(row: IntegrationKeySummary) => (row.lastUsedAt ? formatDateTime(row.lastUsedAt) : t('integrationKeys.never'))}
          />
          <Column
            header={t('integrationKeys.columns.status')}
            style={{ width: '8rem' }}
            body={(row: IntegrationKeySummary) => (
              <span className="chip" data-testid="key-status" data-revoked={row.revokedAt ? 'true' : 'false'}>
                {row.revokedAt ? t('integrationKeys.revoked') : t('integrationKeys.active')}
              </span>
            )}
          />
          <Column
            header={t('integrationKeys.columns.actions')}
            style={{ width: '5rem' }}
            body={(row: IntegrationKeySummary) =>
              row.revokedAt ? null : (
                <Button
                  icon="pi pi-ban"
                  rounded
                  text
                  severity="danger"
                  aria-label={t('integrationKeys.revoke')}
                  tooltip={t('integrationKeys.revoke')}
                  data-testid="key-revoke"
                  onClick={() => setPendingRevoke(row)}
                />
              )
            }
          />
        </DataTable>
      </section>
      <CreateDialog
        visible={adding}
        onHide={() => setAdding(false)}
        create={api.create}
        onCreated={(key) => {
          setAdding(false);
          setCreated(key);
          void load();
        }}
      />
      <CreatedDialog created={created} onHide={() => setCreated(null)} />
      <ConfirmActionDialog
        visible={pendingRevoke !== null}
        onHide={() => setPendingRevoke(null)}
        header={t('integrationKeys.revokeTitle')}
        message={pendingRevoke ? t('integrationKeys.revokeMessage', { name: pendingRevoke.name }) : ''}
        keep={{ label: t('integrationKeys.dialog.cancel'), testId: 'key-cancel-revoke' }}
        action={{ label: t('integrationKeys.revoke'), icon: 'pi pi-ban', onClick: () => void revoke(), testId: 'key-confirm-revoke' }}
      />
    </>
  );
}

function CreateDialog({
  visible,
  onHide,
  onCreated,
  create,
}: {
  visible: boolean;
  onHide(): void;
  onCreated(key: CreatedIntegrationKey): void;
  create: ReturnType<typeof createIntegrationKeysApi>['create'];
}) {
  const { t } = useTranslation();
  const [name, setName] = useState('');
  const [origins, setOrigins] = useState('');
  const [touched, setTouched] = useState(false);
  const [saving, setSaving] = useState(false);
  const [failure, setFailure] = useState<string | null>(null);
  useEffect(() => {
    if (!visible) return;
    setName('');
    setOrigins('');
    setTouched(false);
    setFailure(null);
  }, [visible]);
  const invalid = name.trim() === '';
  const save = async () => {
    setTouched(true);
    if (invalid || saving) return;
    setSaving(true);
    try {
      const callbackOrigins = origins
        .split(/\s+/)
        .map((origin) => origin.trim())
        .filter(Boolean);
      onCreated(await create({ name: name.trim(), callbackOrigins }));
    } catch (e) {
      setFailure(`${t('integrationKeys.dialog.failed')} ${describeError(e, t)}`);
    } finally {
      setSaving(false);
    }
  };
  return (
    <Dialog
      header={t('integrationKeys.dialog.title')}
      visible={visible}
      onHide={onHide}
      style={{ width: '32rem' }}
      data-testid="key-dialog"
      footer={
        <DialogFooter
          cancel={{ label: t('integrationKeys.dialog.cancel'), onClick: onHide }}
          action={{
            label: t('integrationKeys.dialog.save'),
            icon: 'pi pi-key',
            loading: saving,
            onClick: () => void save(),
            testId: 'key-save',
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
        <label className="admin-field admin-field--wide" htmlFor="key-name">
          <span>{t('integrationKeys.dialog.name')}</span>
          <InputText
            id="key-name"
            value={name}
            maxLength={INTEGRATION_KEY_LIMITS.nameMax}
            invalid={touched && invalid}
            onChange={(event) => setName(event.target.value)}
            onBlur={() => setTouched(true)}
            data-testid="key-name-input"
          />
          {touched && invalid && <small className="p-error">{t('integrationKeys.dialog.nameRequired')}</small>}
        </label>
        <label className="admin-field admin-field--wide" htmlFor="key-origins">
          <span>{t('integrationKeys.dialog.origins')}</span>
          <InputTextarea
            id="key-origins"
            rows={3}
            value={origins}
            onChange={(event) => setOrigins(event.target.value)}
            data-testid="key-origins-input"
          />
          <small className="muted">{t('integrationKeys.dialog.originsHint')}</small>
        </label>
        {failure && (
          <div className="form-error admin-field--wide" role="alert" data-testid="key-create-error">
            <i className="pi pi-times-circle" aria-hidden="true" />
            <span>{failure}</span>
          </div>
        )}
      </form>
    </Dialog>
  );
}

function CreatedDialog({ created, onHide }: { created: CreatedIntegrationKey | null; onHide(): void }) {
  const { t } = useTranslation();
  const toast = useToast();
  const copy = async () => {
    if (!created) return;
    try {
      await navigator.clipboard.writeText(created.key);
      toast.success(t('integrationKeys.created.copied'));
    } catch {
      // Clipboard refused (insecure origin, permissions): the key stays selectable in the field.
    }
  };
  return (
    <Dialog
      header={t('integrationKeys.created.title')}
      visible={created !== null}
      onHide={onHide}
      style={{ width: '36rem' }}
      data-testid="key-created"
      footer={<Button label={t('integrationKeys.created.close')} onClick={onHide} data-testid="key-created-close" />}
    >
      <p>{t('integrationKeys.created.lead')}</p>
      <div className="p-inputgroup">
        <InputText readOnly value={created?.key ?? ''} onFocus={(event) => event.target.select()} data-testid="key-created-value" />
        <Button icon="pi pi-copy" label={t('integrationKeys.created.copy')} onClick={() => void copy()} />
      </div>
      <p className="muted">{t('integrationKeys.created.usage')}</p>
    </Dialog>
  );
}
