import { useEffect, useMemo, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Button } from 'primereact/button';
import { InputText } from 'primereact/inputtext';
import { ADMIN_MAX_PAGE_SIZE, PERMISSIONS, SECRET_MASK, type Page, type UserSummary } from '@centralita/contracts';
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
  const [saving, setSaving] = useState(false);

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

  const save = async () => {
    setSaving(true);
    try {
      const iceServers = ice
        .split(/[\s,]+/)
        .map((url) => url.trim())
        .filter(Boolean);
      await api.saveConfig({ wsUrl: wsUrl.trim(), domain: domain.trim(), iceServers });
      toast.success(t('softphone.admin.saved'));
    } catch (error) {
      toast.error(t('softphone.admin.saveFailed'), describeError(error, t));
    } finally {
      setSaving(false);
    }
  };

  return (
    <form
      className="softphone-admin__form"
      onSubmit={(event) => {
        event.preventDefault();
        void save();
      }}
      data-testid="softphone-server-form"
    >
      <h3 className="softphone-admin__heading">{t('softphone.admin.server')}</h3>
      <label className="softphone__field">
        <span>{t('softphone.admin.wsUrl')}</span>
        <InputText
          value={wsUrl}
          onChange={(e) => setWsUrl(e.target.value)}
          placeholder="wss://sip.example.com:8443"
          disabled={!loaded}
          data-testid="softphone-ws-url"
        />
      </label>
      <label className="softphone__field">
        <span>{t('softphone.admin.domain')}</span>
        <InputText
          value={domain}
          onChange={(e) => setDomain(e.target.value)}
          placeholder="sip.example.com"
          disabled={!loaded}
          data-testid="softphone-domain"
        />
      </label>
      <label className="softphone__field">
        <span>{t('softphone.admin.iceServers')}</span>
        <InputText
          value={ice}
          onChange={(e) => setIce(e.target.value)}
          placeholder="stun:stun.example.com:3478"
          disabled={!loaded}
          data-testid="softphone-ice"
        />
      </label>
      <div className="softphone__actions">
        <Button
          type="submit"
          label={t('softphone.admin.save')}
          icon="pi pi-save"
          loading={saving}
          disabled={!loaded}
          data-testid="softphone-server-save"
        />
      </div>
    </form>
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
  const [saving, setSaving] = useState(false);

  useEffect(() => {
    client
      .get<Page<UserSummary>>('/api/users', { query: { pageSize: ADMIN_MAX_PAGE_SIZE, sortField: 'name', sortOrder: 'asc' } })
      .then((page) => setUsers(page.items))
      .catch((error: unknown) => {
        setUsers([]);
        toast.error(t('softphone.admin.loadFailed'), describeError(error, t));
      });
  }, [client, t, toast]);

  useEffect(() => {
    setExtension('');
    setAuthUser('');
    setPassword('');
    if (!userId) return;
    let live = true;
    api
      .account(userId)
      .then((account) => {
        if (!live) return;
        setExtension(account.extension);
        setAuthUser(account.authUser === account.extension ? '' : account.authUser);
        setPassword(account.password);
      })
      .catch((error: unknown) => live && toast.error(t('softphone.admin.loadFailed'), describeError(error, t)));
    return () => {
      live = false;
    };
  }, [api, userId, t, toast]);

  const save = async () => {
    setSaving(true);
    try {
      const saved = await api.saveAccount(userId, { extension: extension.trim(), authUser: authUser.trim() || undefined, password });
      setPassword(saved.password);
      toast.success(t('softphone.admin.saved'));
    } catch (error) {
      toast.error(t('softphone.admin.saveFailed'), describeError(error, t));
    } finally {
      setSaving(false);
    }
  };

  return (
    <form
      className="softphone-admin__form"
      onSubmit={(event) => {
        event.preventDefault();
        void save();
      }}
      data-testid="softphone-account-form"
    >
      <h3 className="softphone-admin__heading">{t('softphone.admin.accounts')}</h3>
      <label className="softphone__field">
        <span>{t('softphone.admin.user')}</span>
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
      </label>
      {userId && (
        <>
          <label className="softphone__field">
            <span>{t('softphone.admin.extension')}</span>
            <InputText
              value={extension}
              onChange={(e) => setExtension(e.target.value)}
              placeholder="1001"
              data-testid="softphone-account-extension"
            />
          </label>
          <label className="softphone__field">
            <span>{t('softphone.admin.authUser')}</span>
            <InputText
              value={authUser}
              onChange={(e) => setAuthUser(e.target.value)}
              placeholder={extension || '1001'}
              data-testid="softphone-account-auth-user"
            />
          </label>
          <label className="softphone__field">
            <span>{t('softphone.admin.password')}</span>
            <InputText
              type="password"
              value={password}
              onChange={(e) => setPassword(e.target.value)}
              onFocus={() => password === SECRET_MASK && setPassword('')}
              autoComplete="new-password"
              data-testid="softphone-account-password"
            />
          </label>
          <div className="softphone__actions">
            <Button
              type="submit"
              label={t('softphone.admin.save')}
              icon="pi pi-save"
              loading={saving}
              disabled={!extension.trim()}
              data-testid="softphone-account-save"
            />
          </div>
        </>
      )}
    </form>
  );
}
