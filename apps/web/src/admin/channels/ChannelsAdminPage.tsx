import { useCallback, useEffect, useMemo, useState, type ReactNode } from 'react';
import { Button } from 'primereact/button';
import { Column } from 'primereact/column';
import { DataTable } from 'primereact/datatable';
import { InputSwitch } from 'primereact/inputswitch';
import { Tag } from 'primereact/tag';
import { useTranslation } from 'react-i18next';
import type { AppRoute, ChannelAccountView, ChannelConfigView, ChannelKindView, MessagingKind, OptionItem } from '@centralita/contracts';
import { describeError } from '../../api/error-text';
import { useServices } from '../../app/ServicesContext';
import { ConfirmActionDialog } from '../../components/DialogFooter';
import { formatDateTime } from '../../format/format';
import { PageHeader } from '../../layout/PageHeader';
import { useToast } from '../../toast/ToastProvider';
import { AccountDialog } from './AccountDialog';
import { accountPresence, accountsShown, countByKind, offeredKinds, checkOutcome } from './channel-accounts-logic';
import { ChannelBadge, useKindLabel } from './ChannelBadge';
import { ChannelCard } from './ChannelConfigCard';
import { createChannelsApi } from './channels-api';
import './channels-admin.css';

type Editor = { mode: 'create' } | { mode: 'edit'; account: ChannelAccountView };

/**
 * /ChannelsAdmin/ChannelsAdmin: the tenant's messaging accounts (WhatsApp, Facebook, Instagram,
 * Telegram, X) grouped by channel, each with its online indicator and last provider check; connect,
 * test, enable/disable, edit and delete. Web chat keeps its widget settings card below.
 */
export function ChannelsAdminPage({ route }: { route: AppRoute }) {
  const { t } = useTranslation();
  const kindLabel = useKindLabel();
  const { client, api: consoleApi } = useServices();
  const api = useMemo(() => createChannelsApi(client), [client]);
  const toast = useToast();
  const [kinds, setKinds] = useState<ChannelKindView[]>([]);
  const [accounts, setAccounts] = useState<ChannelAccountView[]>([]);
  const [lines, setLines] = useState<OptionItem[]>([]);
  const [webChat, setWebChat] = useState<ChannelConfigView | null>(null);
  const [loading, setLoading] = useState(true);
  const [failure, setFailure] = useState<string | null>(null);
  const [filter, setFilter] = useState<MessagingKind | 'all'>('all');
  const [editor, setEditor] = useState<Editor | null>(null);
  const [pendingDelete, setPendingDelete] = useState<ChannelAccountView | null>(null);
  const [busy, setBusy] = useState<string | null>(null);

  const load = useCallback(async () => {
    setLoading(true);
    try {
      const [kindList, accountList, lineList] = await Promise.all([api.kinds(), api.accounts(), api.lines()]);
      setKinds(kindList);
      setAccounts(accountList);
      setLines(lineList);
      setFailure(null);
    } catch (error) {
      setFailure(describeError(error, t));
    } finally {
      setLoading(false);
    }
  }, [api, t]);

  useEffect(() => void load(), [load]);
  useEffect(() => {
    consoleApi.admin
      .channels()
      .then((channels) => setWebChat(channels.find((channel) => channel.channel === 'WebChat') ?? null))
      .catch((error: unknown) => toast.error(t('channels.webChat.loadFailed'), describeError(error, t)));
  }, [consoleApi, toast, t]);

  const lineName = useMemo(() => new Map(lines.map((line) => [line.id, line.name])), [lines]);
  const counts = useMemo(() => countByKind(accounts), [accounts]);
  const shown = useMemo(() => accountsShown(accounts, filter), [accounts, filter]);
  // The filter offers every kind the API knows plus any kind an account still has (X turned off later).
  const filterKinds = useMemo(
    () => [...new Set([...offeredKinds(kinds).map((kind) => kind.kind), ...(Object.keys(counts) as MessagingKind[])])],
    [kinds, counts],
  );

  const replace = (next: ChannelAccountView) =>
    setAccounts((held) =>
      held.some((account) => account.id === next.id) ? held.map((a) => (a.id === next.id ? next : a)) : [...held, next],
    );

  const refreshAccounts = async () => {
    try {
      setAccounts(await api.accounts());
    } catch (error) {
      setFailure(describeError(error, t));
    }
  };

  const setEnabled = async (account: ChannelAccountView, enabled: boolean) => {
    setBusy(account.id);
    try {
      replace(await api.update(account.id, { enabled }));
      toast.success(t(enabled ? 'channels.list.enabledToast' : 'channels.list.disabledToast', { name: account.name }));
    } catch (error) {
      toast.error(t('admin.form.saveFailed'), describeError(error, t));
    } finally {
      setBusy(null);
    }
  };

  const test = async (account: ChannelAccountView) => {
    setBusy(account.id);
    try {
      const outcome = checkOutcome(await api.test(account.id));
      if (outcome.ok) toast.success(t('channels.check.ok', { name: outcome.text ?? account.name }));
      else toast.error(t('channels.check.failed'), outcome.text ?? t('channels.check.noReason'));
      await refreshAccounts();
    } catch (error) {
      toast.error(t('channels.check.failed'), describeError(error, t));
    } finally {
      setBusy(null);
    }
  };

  // Telegram has no page to paste a webhook URL into: the platform calls setWebhook for the admin.
  const register = async (account: ChannelAccountView) => {
    setBusy(account.id);
    try {
      const answer = await api.registerWebhook(account.id);
      if (answer.ok) toast.success(t('channels.register.ok', { name: account.name }));
      else toast.error(t('channels.register.failed'), answer.message?.trim() || t('channels.check.noReason'));
    } catch (error) {
      toast.error(t('channels.register.failed'), describeError(error, t));
    } finally {
      setBusy(null);
    }
  };
  const registers = (account: ChannelAccountView) => kinds.some((kind) => kind.kind === account.kind && kind.registersWebhook);

  const remove = async () => {
    const account = pendingDelete;
    setPendingDelete(null);
    if (!account) return;
    setBusy(account.id);
    try {
      await api.remove(account.id);
      setAccounts((held) => held.filter((a) => a.id !== account.id));
      toast.success(t('channels.list.deleted', { name: account.name }));
    } catch (error) {
      toast.error(t('channels.list.deleteFailed'), describeError(error, t));
    } finally {
      setBusy(null);
    }
  };

  return (
    <div className="channels-admin">
      <PageHeader
        title={t(`routes.${route.titleKey}`)}
        icon={route.icon}
        subtitle={t('channels.list.subtitle')}
        actions={
          <Button
            icon="pi pi-plus"
            label={t('channels.list.connect')}
            onClick={() => setEditor({ mode: 'create' })}
            disabled={loading && kinds.length === 0}
            data-testid="channels-connect"
          />
        }
      />
      <section className="card channels-admin__accounts" data-testid="channel-accounts">
        <div className="channels-admin__filter" role="group" aria-label={t('channels.list.filterLabel')}>
          <FilterChip active={filter === 'all'} onClick={() => setFilter('all')} testId="channels-filter-all">
            <i className="pi pi-th-large" aria-hidden="true" /> {t('channels.list.all')}{' '}
            <span className="channels-admin__count">{accounts.length}</span>
          </FilterChip>
          {filterKinds.map((kind) => (
            <FilterChip key={kind} active={filter === kind} onClick={() => setFilter(kind)} testId={`channels-filter-${kind}`}>
              <ChannelBadge kind={kind} /> <span className="channels-admin__count">{counts[kind] ?? 0}</span>
            </FilterChip>
          ))}
        </div>
        {failure && (
          <div className="form-error channels-admin__failure" role="alert" data-testid="channels-error">
            <i className="pi pi-times-circle" aria-hidden="true" />
            <span>{failure}</span>
            <Button label={t('channels.list.retry')} icon="pi pi-refresh" text size="small" onClick={() => void load()} />
          </div>
        )}
        <DataTable
          value={shown}
          dataKey="id"
          loading={loading}
          rowGroupMode="subheader"
          groupRowsBy="kind"
          sortMode="single"
          rowGroupHeaderTemplate={(row: ChannelAccountView) => (
            <span className="channels-admin__group">
              <ChannelBadge kind={row.kind} /> <span className="muted">({counts[row.kind] ?? 0})</span>
            </span>
          )}
          emptyMessage={
            <div className="channels-admin__empty" data-testid="channels-empty">
              <i className="pi pi-link" aria-hidden="true" />
              <p>{filter === 'all' ? t('channels.list.empty') : t('channels.list.emptyKind', { channel: kindLabel(filter) })}</p>
              <Button
                label={t('channels.list.connect')}
                icon="pi pi-plus"
                outlined
                size="small"
                onClick={() => setEditor({ mode: 'create' })}
              />
            </div>
          }
          data-testid="channel-accounts-table"
        >
          <Column header={t('channels.fields.name')} body={(row: ChannelAccountView) => <AccountName account={row} />} />
          <Column
            header={t('channels.fields.externalAccountId')}
            body={(row: ChannelAccountView) => <code className="channels-admin__id">{row.externalAccountId}</code>}
          />
          <Column
            header={t('channels.fields.attentionLine')}
            body={(row: ChannelAccountView) => lineName.get(row.attentionLineId) ?? t('format.notAvailable')}
          />
          <Column header={t('channels.fields.lastCheck')} body={(row: ChannelAccountView) => <LastCheck account={row} />} />
          <Column
            header={t('channels.fields.enabled')}
            style={{ width: '7rem' }}
            body={(row: ChannelAccountView) => (
              <InputSwitch
                checked={row.enabled}
                disabled={busy === row.id}
                onChange={(event) => void setEnabled(row, !!event.value)}
                aria-label={t('channels.list.toggle', { name: row.name })}
                data-testid="channel-account-toggle"
              />
            )}
          />
          <Column
            header={t('admin.list.actions')}
            style={{ width: '12rem' }}
            body={(row: ChannelAccountView) => (
              <span className="channels-admin__actions">
                <Button
                  icon="pi pi-bolt"
                  rounded
                  text
                  loading={busy === row.id}
                  tooltip={t('channels.check.run')}
                  aria-label={t('channels.check.runFor', { name: row.name })}
                  onClick={() => void test(row)}
                  data-testid="channel-account-test"
                />
                {registers(row) ? (
                  <Button
                    icon="pi pi-link"
                    rounded
                    text
                    loading={busy === row.id}
                    tooltip={t('channels.register.run')}
                    aria-label={t('channels.register.runFor', { name: row.name })}
                    onClick={() => void register(row)}
                    data-testid="channel-account-register"
                  />
                ) : null}
                <Button
                  icon="pi pi-pencil"
                  rounded
                  text
                  tooltip={t('channels.list.edit')}
                  aria-label={t('channels.list.editFor', { name: row.name })}
                  onClick={() => setEditor({ mode: 'edit', account: row })}
                  data-testid="channel-account-edit"
                />
                <Button
                  icon="pi pi-trash"
                  rounded
                  text
                  severity="danger"
                  tooltip={t('channels.list.delete')}
                  aria-label={t('channels.list.deleteFor', { name: row.name })}
                  onClick={() => setPendingDelete(row)}
                  data-testid="channel-account-delete"
                />
              </span>
            )}
          />
        </DataTable>
      </section>

      {webChat && (
        <section className="channels-admin__webchat" data-testid="channels-webchat">
          <h2 className="channels-admin__section-title">
            <ChannelBadge kind="webchat" />
          </h2>
          <p className="muted">{t('channels.webChat.subtitle')}</p>
          <div className="channel-grid">
            <ChannelCard initial={webChat} />
          </div>
        </section>
      )}

      {editor && (
        <AccountDialog
          api={api}
          kinds={kinds}
          lines={lines}
          account={editor.mode === 'edit' ? editor.account : null}
          onSaved={(account, created) => {
            replace(account);
            toast.success(t(created ? 'channels.list.connected' : 'admin.form.saved', { name: account.name }));
          }}
          onChecked={() => void refreshAccounts()}
          onClose={() => setEditor(null)}
        />
      )}
      <ConfirmActionDialog
        visible={pendingDelete !== null}
        onHide={() => setPendingDelete(null)}
        header={t('channels.list.deleteTitle')}
        message={
          pendingDelete ? t('channels.list.deleteConfirm', { name: pendingDelete.name, channel: kindLabel(pendingDelete.kind) }) : ''
        }
        keep={{ label: t('admin.form.cancel'), testId: 'channel-delete-cancel' }}
        action={{ label: t('channels.list.delete'), icon: 'pi pi-trash', onClick: () => void remove(), testId: 'channel-delete-confirm' }}
      />
    </div>
  );
}

function FilterChip(props: { active: boolean; onClick(): void; testId: string; children: ReactNode }) {
  return (
    <button
      type="button"
      className={`channels-admin__chip${props.active ? ' channels-admin__chip--active' : ''}`}
      aria-pressed={props.active}
      onClick={props.onClick}
      data-testid={props.testId}
    >
      {props.children}
    </button>
  );
}

/** The name with spec §4's indicator: a green dot when online, grey otherwise, and why in words. */
function AccountName({ account }: { account: ChannelAccountView }) {
  const { t } = useTranslation();
  const { presence, reason } = accountPresence(account);
  const explanation = t(`channels.presence.reasons.${reason}`, {
    at: account.lastEventAt ? formatDateTime(account.lastEventAt, t) : t('format.notAvailable'),
  });
  return (
    <span className="channels-admin__name">
      <span
        className={`channels-admin__dot channels-admin__dot--${presence}`}
        role="img"
        aria-label={t(`channels.presence.${presence}`)}
        title={explanation}
        data-testid="channel-account-presence"
        data-presence={presence}
      />
      <span>
        <strong>{account.name}</strong>
        <small className="muted channels-admin__presence">
          {t(`channels.presence.${presence}`)} · {explanation}
        </small>
      </span>
    </span>
  );
}

function LastCheck({ account }: { account: ChannelAccountView }) {
  const { t } = useTranslation();
  const check = account.lastCheck;
  if (!check) return <span className="muted">{t('channels.check.never')}</span>;
  return (
    <span className="channels-admin__check" data-testid="channel-account-check">
      <Tag severity={check.ok ? 'success' : 'danger'} value={t(check.ok ? 'channels.check.okShort' : 'channels.check.failedShort')} />
      <small className="muted">{formatDateTime(check.at, t)}</small>
      {check.message && <small className={check.ok ? 'muted' : 'channels-admin__reason'}>{check.message}</small>}
    </span>
  );
}
