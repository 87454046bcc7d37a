import { useCallback, useEffect, useState, type FormEvent } from 'react';
import { Button } from 'primereact/button';
import { useTranslation } from 'react-i18next';
import {
  PERMISSIONS,
  validateClient,
  validateInvitee,
  type AppRoute,
  type ClientSummary,
  type FirstAdminState,
  type InvitationSummary,
  type ResellerSummary,
} from '@centralita/contracts';
import { describeError } from '../../api/error-text';
import { useApi, useAuth } from '../../app/ServicesContext';
import { hasPermission } from '../../auth/permissions';
import { useBranding } from '../../branding/BrandingProvider';
import { formatDateTime, formatNullable } from '../../format/format';
import { PageHeader } from '../../layout/PageHeader';
import { useToast } from '../../toast/ToastProvider';
import { AdminFormPage, useEditId } from '../AdminFormPage';
import { AdminListPage } from '../AdminListPage';
import type { FirstAdminOwner } from '../admin-api';
import { SelectInput, TextInput, TextArea } from '../fields';
import { useAdminForm } from '../useAdminForm';

const LIST = '/clients/ClientList';

/**
 * /clients/ClientList: the customers in the caller's scope (the server decides): every tenant for
 * the platform operator (with its reseller), the reseller's tenants for its staff, the own tenant
 * for a tenant administrator. Only reseller staff and the platform may add tenants.
 */
export function ClientListPage({ route }: { route: AppRoute }) {
  const { t } = useTranslation();
  const { user } = useAuth();
  const platform = user?.level === 'platform';
  return (
    <AdminListPage<ClientSummary>
      route={route}
      resource="clients"
      auditType="client"
      addPath={hasPermission(user, PERMISSIONS.tenantsManage) ? '/clients/Add' : null}
      editPath="/clients/Update"
      noDelete
      describe={(row) => row.name}
      columns={[
        ...(platform ? [{ field: 'resellerName', header: t('admin.clients.reseller'), sortable: true }] : []),
        {
          field: 'name',
          header: t('admin.clients.name'),
          sortable: true,
          body: (row) => (
            <span className="client-name">
              {row.menuLogoUrl && <img src={row.menuLogoUrl} alt="" className="client-name__logo" />}
              <strong>{row.name}</strong>
            </span>
          ),
        },
        {
          field: 'mainColor',
          header: t('admin.clients.mainColor'),
          body: (row) =>
            row.mainColor ? (
              <span className="client-colour">
                <span className="swatch" style={{ background: row.mainColor }} aria-hidden="true" /> <code>{row.mainColor}</code>
              </span>
            ) : (
              formatNullable(null, t)
            ),
        },
        {
          field: 'subscriptionPlan',
          header: t('admin.clients.subscriptionPlan'),
          sortable: true,
          body: (row) => formatNullable(row.subscriptionPlan, t),
        },
      ]}
    />
  );
}

type ClientValues = {
  name: string;
  bannerUrl: string;
  loginImageUrl: string;
  mainColor: string;
  menuLogoUrl: string;
  completeMenuLogoUrl: string;
  subscriptionPlan: string;
  /** One origin per line in the form; an array on the wire. */
  allowedOrigins: string;
  /** Add screen only: the first administrator, invited by mail; the reseller (platform operator only). */
  adminName: string;
  adminEmail: string;
  resellerId: string;
};
const originLines = (text: string): string[] =>
  text
    .split('\n')
    .map((line) => line.trim())
    .filter(Boolean);
const EMPTY: ClientValues = {
  name: '',
  bannerUrl: '',
  loginImageUrl: '',
  mainColor: '',
  menuLogoUrl: '',
  completeMenuLogoUrl: '',
  subscriptionPlan: '',
  allowedOrigins: '',
  adminName: '',
  adminEmail: '',
  resellerId: '',
};
const FIELDS = ['bannerUrl', 'loginImageUrl', 'menuLogoUrl', 'completeMenuLogoUrl'] as const;

/** /clients/Add and /clients/Update?id= ; saving the caller's own tenant refreshes the console branding at once. */
export function ClientFormPage({ route }: { route: AppRoute }) {
  const { t } = useTranslation();
  const api = useApi();
  const id = useEditId();
  const { user } = useAuth();
  const { refresh } = useBranding();
  const adding = id === null;
  const platform = user?.level === 'platform';
  // A tenant administrator edits its own branding; name and plan are its reseller's to set.
  const ownTenantOnly = user?.level === 'tenant';
  const [resellers, setResellers] = useState<ResellerSummary[]>([]);
  const form = useAdminForm<ClientValues>(
    EMPTY,
    useCallback(
      (v: ClientValues) => [
        ...validateClient({ ...v, allowedOrigins: originLines(v.allowedOrigins) }),
        ...(adding ? validateInvitee(v) : []),
        ...(adding && platform && !v.resellerId ? [{ field: 'resellerId', key: 'required' as const }] : []),
      ],
      [adding, platform],
    ),
  );
  const { values, set, blur, errorFor } = form;
  useEffect(() => {
    if (!adding || !platform) return;
    api.admin
      .resellers({ pageSize: 200 })
      .then((page) => setResellers(page.items))
      .catch(() => undefined);
  }, [api, adding, platform]);
  useEffect(() => {
    // AdminFormPage navigates back after a save; the branding of the own tenant is fetched again then.
    return () => {
      if (id && id === user?.clientId) refresh?.();
    };
  }, [id, user?.clientId, refresh]);
  return (
    <>
      <AdminFormPage
        route={route}
        resource="clients"
        listPath={LIST}
        form={form}
        id={id}
        load={async (rowId) => {
          const row = await api.admin.get<ClientSummary>('clients', rowId);
          return {
            name: row.name,
            bannerUrl: row.bannerUrl ?? '',
            loginImageUrl: row.loginImageUrl ?? '',
            mainColor: row.mainColor ?? '',
            menuLogoUrl: row.menuLogoUrl ?? '',
            completeMenuLogoUrl: row.completeMenuLogoUrl ?? '',
            subscriptionPlan: row.subscriptionPlan ?? '',
            allowedOrigins: row.allowedOrigins.join('\n'),
            adminName: '',
            adminEmail: '',
            resellerId: row.resellerId,
          };
        }}
        toBody={({ allowedOrigins, adminName, adminEmail, resellerId, ...v }) => ({
          ...Object.fromEntries(Object.entries(v).map(([k, value]) => [k, value.trim() || null])),
          allowedOrigins: originLines(allowedOrigins),
          ...(adding ? { adminName: adminName.trim(), adminEmail: adminEmail.trim(), ...(platform ? { resellerId } : {}) } : {}),
        })}
        createdMessage={(v) => t('admin.clients.invitationSent', { email: v.adminEmail.trim() })}
      >
        {adding && platform && (
          <SelectInput
            id="client-reseller"
            label={t('admin.clients.reseller')}
            value={values.resellerId}
            options={resellers.map((reseller) => ({ value: reseller.id, label: reseller.name }))}
            placeholder={t('admin.clients.chooseReseller')}
            onChange={set('resellerId')}
            onBlur={blur('resellerId')}
            error={errorFor('resellerId')}
          />
        )}
        <TextInput
          id="client-name"
          label={t('admin.clients.name')}
          value={values.name}
          disabled={ownTenantOnly}
          hint={ownTenantOnly ? t('admin.clients.managedByReseller') : undefined}
          onChange={set('name')}
          onBlur={blur('name')}
          error={errorFor('name')}
        />
        <TextInput
          id="client-plan"
          label={t('admin.clients.subscriptionPlan')}
          value={values.subscriptionPlan}
          disabled={ownTenantOnly}
          hint={ownTenantOnly ? t('admin.clients.managedByReseller') : undefined}
          onChange={set('subscriptionPlan')}
          error={errorFor('subscriptionPlan')}
        />
        {adding && <InviteeFields prefix="client-admin" form={form} />}
        <TextInput
          id="client-colour"
          label={t('admin.clients.mainColor')}
          hint="#2563eb"
          value={values.mainColor}
          onChange={set('mainColor')}
          onBlur={blur('mainColor')}
          error={errorFor('mainColor')}
        />
        <div className="admin-field client-preview">
          {values.mainColor && /^#[0-9a-fA-F]{6}$/.test(values.mainColor) && (
            <span className="swatch swatch--lg" style={{ background: values.mainColor }} aria-hidden="true" />
          )}
          {values.menuLogoUrl && <img src={values.menuLogoUrl} alt="" className="client-preview__logo" />}
        </div>
        {FIELDS.map((field) => (
          <TextInput
            key={field}
            id={`client-${field}`}
            type="url"
            wide
            label={t(`admin.clients.${field}`)}
            value={values[field]}
            onChange={set(field)}
            onBlur={blur(field)}
            error={errorFor(field)}
          />
        ))}
        <TextArea
          id="client-allowedOrigins"
          wide
          rows={3}
          label={t('admin.clients.allowedOrigins')}
          hint={t('admin.clients.allowedOriginsHint')}
          value={values.allowedOrigins}
          onChange={set('allowedOrigins')}
          onBlur={blur('allowedOrigins')}
          error={errorFor('allowedOrigins')}
        />
      </AdminFormPage>
      {id && !ownTenantOnly && hasPermission(user, PERMISSIONS.tenantsManage) && <FirstAdminPanel owner={{ kind: 'clients', id }} />}
    </>
  );
}

type Invitee = { adminName: string; adminEmail: string };
const NO_INVITEE: Invitee = { adminName: '', adminEmail: '' };

/** The parts of a `useAdminForm` result the invitee fields need; any form with these two values fits. */
interface InviteeForm {
  values: Invitee;
  set(field: keyof Invitee): (value: string) => void;
  blur(field: keyof Invitee): () => void;
  errorFor(field: keyof Invitee): string | null;
}

/**
 * The first administrator to invite by mail: a name and an address, with the ids (and test ids)
 * `<prefix>-name` and `<prefix>-email`; a reseller's administrator has the resellers' labels.
 */
function InviteeFields({ prefix, form }: { prefix: 'client-admin' | 'first-admin' | 'reseller-admin'; form: InviteeForm }) {
  const { t } = useTranslation();
  const { values, set, blur, errorFor } = form;
  const reseller = prefix === 'reseller-admin';
  return (
    <>
      <TextInput
        id={`${prefix}-name`}
        label={reseller ? t('admin.resellers.adminName') : t('admin.clients.adminName')}
        value={values.adminName}
        onChange={set('adminName')}
        onBlur={blur('adminName')}
        error={errorFor('adminName')}
      />
      <TextInput
        id={`${prefix}-email`}
        type="email"
        label={reseller ? t('admin.resellers.adminEmail') : t('admin.clients.adminEmail')}
        hint={t('admin.clients.adminHint')}
        value={values.adminEmail}
        onChange={set('adminEmail')}
        onBlur={blur('adminEmail')}
        error={errorFor('adminEmail')}
      />
    </>
  );
}

/** What went wrong with the last load or save, when something did. */
function FormFailure({ failure }: { failure: string | null }) {
  return failure ? (
    <div className="form-error" role="alert">
      {failure}
    </div>
  ) : null;
}

/**
 * A tenant's (or, for the platform, a reseller's) administrator access as the level above sees it:
 * active administrators, the pending first-admin invitations (an expired one is re-sent from here,
 * so it never strands the organisation), and an invitation for another address when none is pending.
 */
function FirstAdminPanel({ owner }: { owner: FirstAdminOwner }) {
  const { kind, id: ownerId } = owner;
  const { t } = useTranslation();
  const api = useApi();
  const toast = useToast();
  const [state, setState] = useState<FirstAdminState | null>(null);
  const [failure, setFailure] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const form = useAdminForm<Invitee>(
    NO_INVITEE,
    useCallback((v: Invitee) => validateInvitee(v), []),
  );
  const { values, setValues } = form;
  const load = useCallback(() => {
    api.admin
      .firstAdmin({ kind, id: ownerId })
      .then((next) => {
        setState(next);
        setFailure(null);
      })
      .catch((e: unknown) => setFailure(describeError(e, t)));
  }, [api, kind, ownerId, t]);
  useEffect(load, [load]);
  const run = async (action: () => Promise<unknown>, done: string) => {
    if (busy) return;
    setBusy(true);
    try {
      await action();
      toast.success(done);
      load();
    } catch (e) {
      toast.error(t('admin.form.saveFailed'), describeError(e, t));
    } finally {
      setBusy(false);
    }
  };
  const act = (invitation: InvitationSummary, action: 'resend' | 'revoke') =>
    run(
      () => (action === 'resend' ? api.admin.resendFirstAdmin(owner, invitation.id) : api.admin.revokeFirstAdmin(owner, invitation.id)),
      t(action === 'resend' ? 'admin.users.resent' : 'admin.users.revoked', { email: invitation.email }),
    );
  const onInvite = (event: FormEvent) => {
    event.preventDefault();
    if (!form.submit()) return;
    const invitee = { adminName: values.adminName.trim(), adminEmail: values.adminEmail.trim() };
    void run(
      async () => {
        await api.admin.inviteFirstAdmin(owner, invitee);
        setValues(NO_INVITEE);
      },
      t('admin.clients.adminInvited', { email: invitee.adminEmail }),
    );
  };
  const now = Date.now();
  return (
    <section className="card admin-list" data-testid="first-admin">
      <h2>{t('admin.clients.firstAdminTitle')}</h2>
      <FormFailure failure={failure} />
      {state && state.activeAdmins > 0 && (
        <p data-testid="first-admin-active">{t('admin.clients.firstAdminActive', { total: state.activeAdmins })}</p>
      )}
      {state && state.activeAdmins === 0 && state.invitations.length === 0 && <p className="muted">{t('admin.clients.firstAdminNone')}</p>}
      {state && state.invitations.length > 0 && (
        <ul className="plain-list" data-testid="first-admin-invitations">
          {state.invitations.map((invitation) => {
            const expired = new Date(invitation.expiresAt).getTime() <= now;
            const date = formatDateTime(invitation.expiresAt, t);
            return (
              <li key={invitation.id} data-testid="first-admin-invitation" data-expired={expired ? 'true' : 'false'}>
                <strong>{invitation.name}</strong> &lt;{invitation.email}&gt; ·{' '}
                <span style={expired ? { color: 'var(--danger)' } : undefined}>
                  {expired ? t('admin.clients.invitationExpired', { date }) : t('admin.clients.invitationPending', { date })}
                </span>{' '}
                <Button
                  type="button"
                  icon="pi pi-send"
                  text
                  label={t('admin.users.resend')}
                  disabled={busy}
                  data-testid="first-admin-resend"
                  onClick={() => void act(invitation, 'resend')}
                />
                <Button
                  type="button"
                  icon="pi pi-times"
                  text
                  severity="danger"
                  label={t('admin.users.revoke')}
                  disabled={busy}
                  data-testid="first-admin-revoke"
                  onClick={() => void act(invitation, 'revoke')}
                />
              </li>
            );
          })}
        </ul>
      )}
      {state && state.invitations.length === 0 && (
        <form className="admin-form" noValidate onSubmit={onInvite} data-testid="first-admin-invite">
          <div className="admin-form__grid">
            <InviteeFields prefix="first-admin" form={form} />
          </div>
          <div className="admin-form__actions">
            <Button type="submit" icon="pi pi-send" label={t('admin.clients.inviteAdmin')} loading={busy} data-testid="first-admin-send" />
          </div>
        </form>
      )}
    </section>
  );
}

/** /reseller/resellerSubmit: reseller staff rename their brand; the platform operator lists and creates resellers. */
export function ResellerPage({ route }: { route: AppRoute }) {
  const { user } = useAuth();
  return user?.level === 'platform' ? <PlatformResellersPage route={route} /> : <OwnResellerPage route={route} />;
}

function OwnResellerPage({ route }: { route: AppRoute }) {
  const { t } = useTranslation();
  const api = useApi();
  const toast = useToast();
  const [name, setName] = useState('');
  const [failure, setFailure] = useState<string | null>(null);
  const [submitted, setSubmitted] = useState(false);
  useEffect(() => {
    api.admin
      .reseller()
      .then((r) => setName(r.name))
      .catch((e: unknown) => setFailure(describeError(e, t)));
  }, [api, t]);
  const onSubmit = async (event: FormEvent) => {
    event.preventDefault();
    setSubmitted(true);
    if (!name.trim()) return;
    try {
      await api.admin.saveReseller(name.trim());
      toast.success(t('admin.form.saved'));
      setFailure(null);
    } catch (e) {
      setFailure(describeError(e, t));
    }
  };
  return (
    <>
      <PageHeader title={t(`routes.${route.titleKey}`)} icon={route.icon} />
      <form className="card admin-form" noValidate onSubmit={(e) => void onSubmit(e)} data-testid="admin-form">
        <div className="admin-form__grid">
          <TextInput
            id="reseller-name"
            label={t('admin.clients.resellerName')}
            value={name}
            onChange={setName}
            error={submitted && !name.trim() ? t('validation.required') : null}
          />
        </div>
        <FormFailure failure={failure} />
        <div className="admin-form__actions">
          <Button type="submit" icon="pi pi-check" label={t('admin.form.save')} data-testid="admin-save" />
        </div>
      </form>
    </>
  );
}

/** One reseller on the platform's Brands page, renamed in place (PUT /api/resellers/:id). */
function ResellerRow({ reseller, onRenamed }: { reseller: ResellerSummary; onRenamed(): void }) {
  const { t } = useTranslation();
  const api = useApi();
  const toast = useToast();
  const [name, setName] = useState<string | null>(null);
  const [access, setAccess] = useState(false);
  const [failure, setFailure] = useState<string | null>(null);
  const [saving, setSaving] = useState(false);
  const onSubmit = async (event: FormEvent) => {
    event.preventDefault();
    if (name === null || !name.trim() || saving) return;
    setSaving(true);
    try {
      await api.admin.renameReseller(reseller.id, name.trim());
      toast.success(t('admin.form.saved'));
      setName(null);
      setFailure(null);
      onRenamed();
    } catch (e) {
      setFailure(describeError(e, t));
    } finally {
      setSaving(false);
    }
  };
  if (name === null)
    return (
      <li data-testid="reseller-row">
        <strong>{reseller.name}</strong> · {t('admin.resellers.tenants')}: {reseller.tenantCount}{' '}
        <Button
          type="button"
          icon="pi pi-pencil"
          text
          label={t('admin.resellers.rename')}
          data-testid="reseller-rename"
          onClick={() => setName(reseller.name)}
        />
        <Button
          type="button"
          icon="pi pi-user"
          text
          label={t('admin.clients.firstAdminTitle')}
          aria-expanded={access}
          data-testid="reseller-access"
          onClick={() => setAccess((open) => !open)}
        />
        {access && <FirstAdminPanel owner={{ kind: 'resellers', id: reseller.id }} />}
      </li>
    );
  return (
    <li data-testid="reseller-row">
      <form className="admin-form" noValidate onSubmit={(e) => void onSubmit(e)} data-testid="reseller-rename-form">
        <div className="admin-form__grid">
          <TextInput
            id={`reseller-name-${reseller.id}`}
            label={t('admin.resellers.name')}
            value={name}
            onChange={setName}
            error={!name.trim() ? t('validation.required') : null}
          />
        </div>
        <FormFailure failure={failure} />
        <div className="admin-form__actions">
          <Button type="button" label={t('admin.form.cancel')} text onClick={() => setName(null)} />
          <Button type="submit" icon="pi pi-check" label={t('admin.form.save')} loading={saving} data-testid="reseller-rename-save" />
        </div>
      </form>
    </li>
  );
}

type NewReseller = { name: string; adminName: string; adminEmail: string };
const NO_RESELLER: NewReseller = { name: '', adminName: '', adminEmail: '' };

function PlatformResellersPage({ route }: { route: AppRoute }) {
  const { t } = useTranslation();
  const api = useApi();
  const toast = useToast();
  const [resellers, setResellers] = useState<ResellerSummary[]>([]);
  const [failure, setFailure] = useState<string | null>(null);
  const [saving, setSaving] = useState(false);
  const form = useAdminForm<NewReseller>(
    NO_RESELLER,
    useCallback((v: NewReseller) => [...(v.name.trim() ? [] : [{ field: 'name', key: 'required' as const }]), ...validateInvitee(v)], []),
  );
  const { values, set, blur, errorFor, setValues } = form;
  const load = useCallback(() => {
    api.admin
      .resellers({ pageSize: 200 })
      .then((page) => setResellers(page.items))
      .catch((e: unknown) => setFailure(describeError(e, t)));
  }, [api, t]);
  useEffect(load, [load]);
  const onSubmit = async (event: FormEvent) => {
    event.preventDefault();
    if (!form.submit() || saving) return;
    setSaving(true);
    try {
      await api.admin.createReseller({
        name: values.name.trim(),
        adminName: values.adminName.trim(),
        adminEmail: values.adminEmail.trim(),
      });
      toast.success(t('admin.resellers.created', { email: values.adminEmail.trim() }));
      setFailure(null);
      setValues(NO_RESELLER);
      load();
    } catch (e) {
      setFailure(describeError(e, t));
    } finally {
      setSaving(false);
    }
  };
  return (
    <>
      <PageHeader title={t(`routes.${route.titleKey}`)} icon={route.icon} />
      <section className="card admin-list" data-testid="reseller-list">
        <h2>{t('admin.resellers.list')}</h2>
        <ul className="plain-list">
          {resellers.map((reseller) => (
            <ResellerRow key={reseller.id} reseller={reseller} onRenamed={load} />
          ))}
        </ul>
      </section>
      <form className="card admin-form" noValidate onSubmit={(e) => void onSubmit(e)} data-testid="admin-form">
        <h2>{t('admin.resellers.createTitle')}</h2>
        <div className="admin-form__grid">
          <TextInput
            id="reseller-new-name"
            label={t('admin.resellers.name')}
            value={values.name}
            onChange={set('name')}
            onBlur={blur('name')}
            error={errorFor('name')}
          />
          <InviteeFields prefix="reseller-admin" form={form} />
        </div>
        <FormFailure failure={failure} />
        <div className="admin-form__actions">
          <Button type="submit" icon="pi pi-plus" label={t('admin.resellers.create')} loading={saving} data-testid="admin-save" />
        </div>
      </form>
    </>
  );
}
