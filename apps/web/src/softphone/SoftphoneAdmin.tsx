import { useEffect, useMemo, useState, type ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { Button } from 'primereact/button';
import { InputText, type InputTextProps } from 'primereact/inputtext';
import { ADMIN_MAX_PAGE_SIZE, PERMISSIONS, SECRET_MASK, type Page, type UserSummary } from '@centralita/contracts';
import { serverIssues } from '../admin/admin-logic';
import { isApiError } from '../api/api-error';
import { describeError } from '../api/error-text';
import { useAuth, useServices } from '../app/ServicesContext';
import { hasPermission } from '../auth/permissions';
import { useToast } from '../toast/ToastProvider';
import { createSoftphoneApi } from './softphone-api';

/**
 * SIP set-up for administrators, under the phone: the tenant's SIP server (settings.manage) and
 * each agent's extension and SIP password (users.manage; the password is only shown masked).
 */
export function SoftphoneAdmin() {
  const { t } = useTranslation();
  const { user } = useAuth();
  const canServer = hasPermission(user, PERMISSIONS.settingsManage);
  const canAccounts = hasPermission(user, PERMISSIONS.usersManage);
  if (!canServer && !canAccounts) return null;
  return (
    <section className="softphone-page__card softphone-admin" data-testid="softphone-admin" aria-label={t('softphone.admin.title')}>
      <h2 className="softphone__subtitle">{t('softphone.admin.title')}</h2>
      {canServer && <ServerForm />}
      {canAccounts && <AccountForm />}
    </section>
  );
}

function ServerForm() {
  const { t } = useTranslation();
  const toast = useToast();
  const { client } = useServices();
  const api = useMemo(() => createSoftphoneApi(client), [client]);
  const [wsUrl, setWsUrl] = useState('');
  const [domain, setDomain] = useState('');
  const [ice, setIce] = useState('');
  const [loaded, setLoaded] = useState(false);

  useEffect(() => {
    api
      .config()
      .then((config) => {
        setWsUrl(config.wsUrl);
        setDomain(config.domain);
        setIce(config.iceServers.join(', '));
      })
      .catch((error: unknown) => toast.error(t('softphone.admin.loadFailed'), describeError(error, t)))
      .finally(() => setLoaded(true));
  }, [api, t, toast]);

  const { saving, save } = useSave(async () => {
    const iceServers = ice
      .split(/[\s,]+/)
      .map((url) => url.trim())
      .filter(Boolean);
    await api.saveConfig({ wsUrl: wsUrl.trim(), domain: domain.trim(), iceServers });
  });

  return (
    <AdminForm heading={t('softphone.admin.server')} onSave={save} testId="softphone-server-form">
      <TextField
        label={t('softphone.admin.wsUrl')}
        value={wsUrl}
        onValue={setWsUrl}
        placeholder="wss://sip.example.com:8443"
        disabled={!loaded}
        data-testid="softphone-ws-url"
      />
      <TextField
        label={t('softphone.admin.domain')}
        value={domain}
        onValue={setDomain}
        placeholder="sip.example.com"
        disabled={!loaded}
        data-testid="softphone-domain"
      />
      <TextField
        label={t('softphone.admin.iceServers')}
        value={ice}
        onValue={setIce}
        placeholder="stun:stun.example.com:3478"
        disabled={!loaded}
        data-testid="softphone-ice"
      />
      <SaveButton saving={saving} disabled={!loaded} testId="softphone-server-save" />
    </AdminForm>
  );
}

function AccountForm() {
  const { t } = useTranslation();
  const toast = useToast();
  const { client } = useServices();
  const api = useMemo(() => createSoftphoneApi(client), [client]);
  const [users, setUsers] = useState<UserSummary[] | null>(null);
  const [userId, setUserId] = useState('');
  const [extension, setExtension] = useState('');
  const [authUser, setAuthUser] = useState('');
  const [password, setPassword] = useState('');

  useEffect(() => {
    client
      .get<Page<UserSummary>>('/api/users', { query: { pageSize: ADMIN_MAX_PAGE_SIZE, sortField: 'name', sortOrder: 'asc' } })
      .then((page) => setUsers(page.items))
      .catch((error: unknown) => {
        setUsers([]);
        toast.error(t('softphone.admin.loadFailed'), describeError(error, t));
      });
  }, [client, t, toast]);

  // The user whose account the fields show: until it has loaded they are hidden, so nothing typed
  // meanwhile is overwritten by the answer.
  const [loadedFor, setLoadedFor] = useState<string | null>(null);
  useEffect(() => {
    setExtension('');
    setAuthUser('');
    setPassword('');
    setLoadedFor(null);
    if (!userId) return;
    let live = true;
    api
      .account(userId)
      .then((account) => {
        if (!live) return;
        setExtension(account.extension);
        setAuthUser(account.authUser === account.extension ? '' : account.authUser);
        setPassword(account.password);
        setLoadedFor(userId);
      })
      .catch((error: unknown) => {
        if (!live) return;
        toast.error(t('softphone.admin.loadFailed'), describeError(error, t));
        setLoadedFor(userId);
      });
    return () => {
      live = false;
    };
  }, [api, userId, t, toast]);

  const { saving, save } = useSave(async () => {
    const saved = await api.saveAccount(userId, { extension: extension.trim(), authUser: authUser.trim() || undefined, password });
    setPassword(saved.password);
  });

  return (
    <AdminForm heading={t('softphone.admin.accounts')} onSave={save} testId="softphone-account-form">
      <Field label={t('softphone.admin.user')}>
        <select
          className="p-inputtext p-component"
          value={userId}
          onChange={(event) => setUserId(event.target.value)}
          disabled={!users}
          data-testid="softphone-account-user"
        >
          <option value="">{users ? t('softphone.admin.pickUser') : t('common.loading')}</option>
          {(users ?? []).map((option) => (
            <option key={option.id} value={option.id}>
              {option.name} ({option.email})
            </option>
          ))}
        </select>
      </Field>
      {userId && loadedFor !== userId && (
        <p className="muted" role="status" data-testid="softphone-account-loading">
          {t('common.loading')}
        </p>
      )}
      {userId && loadedFor === userId && (
        <>
          <TextField
            label={t('softphone.admin.extension')}
            value={extension}
            onValue={setExtension}
            placeholder="1001"
            data-testid="softphone-account-extension"
          />
          <TextField
            label={t('softphone.admin.authUser')}
            value={authUser}
            onValue={setAuthUser}
            placeholder={extension || '1001'}
            data-testid="softphone-account-auth-user"
          />
          <TextField
            label={t('softphone.admin.password')}
            type="password"
            value={password}
            onValue={setPassword}
            onFocus={() => password === SECRET_MASK && setPassword('')}
            autoComplete="new-password"
            data-testid="softphone-account-password"
          />
          <SaveButton saving={saving} disabled={!extension.trim()} testId="softphone-account-save" />
        </>
      )}
    </AdminForm>
  );
}

/** Runs a form's save with the button spinning, then shows the shared "saved" or "save failed" toast. */
function useSave(persist: () => Promise<void>) {
  const { t } = useTranslation();
  const toast = useToast();
  const [saving, setSaving] = useState(false);
  const save = async () => {
    setSaving(true);
    try {
      await persist();
      toast.success(t('softphone.admin.saved'));
    } catch (error) {
      toast.error(t('softphone.admin.saveFailed'), saveFailure(error, t));
    } finally {
      setSaving(false);
    }
  };
  return { saving, save };
}

const SERVER_FIELD_LABELS: Record<string, string> = {
  wsUrl: 'softphone.admin.wsUrl',
  domain: 'softphone.admin.domain',
  iceServers: 'softphone.admin.iceServers',
};

/** A server the platform refuses to connect to is explained in the user's language (the API's sentence is English). */
function saveFailure(error: unknown, t: (key: string) => string): string {
  const refused = isApiError(error) ? serverIssues(error.data).find((issue) => issue.key === 'blockedAddress') : undefined;
  if (!refused) return describeError(error, t);
  const label = SERVER_FIELD_LABELS[refused.field.split('.')[0]];
  return `${label ? t(label) : refused.field}: ${t('validation.blockedAddress')}`;
}

function AdminForm({
  heading,
  onSave,
  testId,
  children,
}: {
  heading: string;
  onSave: () => Promise<void>;
  testId: string;
  children: ReactNode;
}) {
  return (
    <form
      className="softphone-admin__form"
      onSubmit={(event) => {
        event.preventDefault();
        void onSave();
      }}
      data-testid={testId}
    >
      <h3 className="softphone-admin__heading">{heading}</h3>
      {children}
    </form>
  );
}

function Field({ label, children }: { label: string; children: ReactNode }) {
  return (
    <label className="softphone__field">
      <span>{label}</span>
      {children}
    </label>
  );
}

/** A labelled text input; the remaining props (placeholder, test id, …) go to the input as given. */
function TextField({ label, onValue, ...input }: { label: string; onValue: (value: string) => void } & Omit<InputTextProps, 'onChange'>) {
  return (
    <Field label={label}>
      <InputText {...input} onChange={(e) => onValue(e.target.value)} />
    </Field>
  );
}

function SaveButton({ saving, disabled, testId }: { saving: boolean; disabled: boolean; testId: string }) {
  const { t } = useTranslation();
  return (
    <div className="softphone__actions">
      <Button type="submit" label={t('softphone.admin.save')} icon="pi pi-save" loading={saving} disabled={disabled} data-testid={testId} />
    </div>
  );
}
