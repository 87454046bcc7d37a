import { useCallback, useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { LIMITS, validateUser, type AppRoute, type InvitationSummary, type UserFormOptions, type UserSummary } from '@centralita/contracts';
import { Button } from 'primereact/button';
import { Column } from 'primereact/column';
import { DataTable } from 'primereact/datatable';
import { describeError } from '../../api/error-text';
import { useApi } from '../../app/ServicesContext';
import { useToast } from '../../toast/ToastProvider';
import { formatActive, formatDateTime } from '../../format/format';
import { AdminFormPage, useEditId } from '../AdminFormPage';
import { AdminListPage } from '../AdminListPage';
import { CheckInput, DateInput, MultiSelectInput, PasswordInput, SelectInput, TextInput } from '../fields';
import { useAdminForm } from '../useAdminForm';

const LIST = '/users/Users';

export function UserListPage({ route }: { route: AppRoute }) {
  const { t } = useTranslation();
  return (
    <AdminListPage<UserSummary>
      route={route}
      resource="users"
      auditType="user"
      addPath="/users/add"
      editPath="/users/edit"
      describe={(row) => row.name}
      deleteKey="admin.users.confirmDeactivate"
      footer={<PendingInvitations />}
      columns={[
        { field: 'name', header: t('admin.users.name'), sortable: true },
        { field: 'email', header: t('admin.users.email'), sortable: true },
        {
          field: 'roleCode',
          header: t('admin.users.role'),
          sortable: true,
          body: (row) => <span className="chip">{t(`roles.${row.roleCode}`, { defaultValue: row.roleCode })}</span>,
        },
        {
          field: 'active',
          header: t('admin.users.active'),
          sortable: true,
          body: (row) => <span className={row.active ? 'chip chip--success' : 'chip chip--muted'}>{formatActive(row.active, t)}</span>,
        },
        { field: 'lastLoginAt', header: t('admin.users.lastLogin'), sortable: true, body: (row) => formatDateTime(row.lastLoginAt, t) },
      ]}
    />
  );
}

type UserValues = {
  name: string;
  email: string;
  roleId: string;
  password: string;
  passwordExpiresAt: string;
  active: boolean;
  attentionLineIds: string[];
  campaignIds: string[];
  pauseReasonCodes: string[];
};
const EMPTY: UserValues = {
  name: '',
  email: '',
  roleId: '',
  password: '',
  passwordExpiresAt: '',
  active: true,
  attentionLineIds: [],
  campaignIds: [],
  pauseReasonCodes: [],
};

/** /users/add and /users/edit?id= */
export function UserFormPage({ route }: { route: AppRoute }) {
  const { t } = useTranslation();
  const api = useApi();
  const id = useEditId();
  const mode = id ? 'update' : 'create';
  const [options, setOptions] = useState<UserFormOptions>({ roles: [], attentionLines: [], campaigns: [], pauseReasons: [] });
  const form = useAdminForm<UserValues>(
    EMPTY,
    useCallback((v: UserValues) => validateUser(v, mode), [mode]),
  );
  const { values, set, blur, errorFor } = form;

  useEffect(() => {
    api.admin
      .userFormOptions()
      .then(setOptions)
      .catch(() => undefined);
  }, [api]);

  const toOptions = (items: { id: string; name: string }[]) => items.map((item) => ({ value: item.id, label: item.name }));
  // The server says which roles the caller may give (grants never exceed the granter); the others stay visible but locked.
  const currentRole = options.roles.find((role) => role.id === values.roleId);
  const beyondYou = Boolean(id && currentRole && !currentRole.grantable);
  const roleHint = beyondYou
    ? t('admin.users.roleBeyondYou')
    : options.roles.some((role) => !role.grantable)
      ? t('admin.users.roleNotGrantableHint')
      : undefined;
  return (
    <AdminFormPage
      route={route}
      resource="users"
      listPath={LIST}
      form={form}
      id={id}
      load={async (rowId) => {
        const row = await api.admin.userDetail(rowId);
        return {
          name: row.name,
          email: row.email,
          roleId: row.roleId,
          password: '',
          passwordExpiresAt: row.passwordExpiresAt?.slice(0, 10) ?? '',
          active: row.active,
          attentionLineIds: row.attentionLineIds,
          campaignIds: row.campaignIds,
          pauseReasonCodes: row.pauseReasonCodes,
        };
      }}
      toBody={(v) => ({
        ...v,
        // A new user chooses their own password from the invitation mail.
        password: (id && v.password) || undefined,
        passwordExpiresAt: v.passwordExpiresAt || null,
      })}
      createdMessage={(v) => t('admin.users.invitationSent', { email: v.email.trim() })}
    >
      <TextInput
        id="user-name"
        label={t('admin.users.name')}
        value={values.name}
        onChange={set('name')}
        onBlur={blur('name')}
        error={errorFor('name')}
      />
      <TextInput
        id="user-email"
        type="email"
        label={t('admin.users.email')}
        value={values.email}
        onChange={set('email')}
        onBlur={blur('email')}
        error={errorFor('email')}
      />
      <SelectInput
        id="user-role"
        label={t('admin.users.role')}
        value={values.roleId}
        options={options.roles.map((role) => ({
          value: role.id,
          label: role.grantable ? role.name : t('admin.users.roleNotGrantable', { name: role.name }),
          disabled: !role.grantable,
        }))}
        hint={beyondYou ? <span data-testid="user-role-beyond-you">{roleHint}</span> : roleHint}
        placeholder={t('admin.form.choose')}
        onChange={set('roleId')}
        onBlur={blur('roleId')}
        error={errorFor('roleId')}
      />
      {id ? (
        <PasswordInput
          id="user-password"
          label={t('admin.users.password')}
          hint={
            id
              ? t('admin.users.passwordKeep', { count: LIMITS.minPasswordLength })
              : t('auth.signup.passwordHint', { count: LIMITS.minPasswordLength })
          }
          value={values.password}
          onChange={set('password')}
          onBlur={blur('password')}
          error={errorFor('password')}
        />
      ) : (
        <p className="admin-field admin-field--wide muted" data-testid="user-invite-hint">
          {t('admin.users.inviteHint')}
        </p>
      )}
      <DateInput
        id="user-expires"
        label={t('admin.users.passwordExpiresAt')}
        value={values.passwordExpiresAt}
        onChange={set('passwordExpiresAt')}
        onBlur={blur('passwordExpiresAt')}
        error={errorFor('passwordExpiresAt')}
      />
      <div className="admin-field admin-field--check">
        <CheckInput id="user-active" label={t('admin.users.active')} checked={values.active} onChange={set('active')} />
      </div>
      <MultiSelectInput
        id="user-lines"
        wide
        label={t('admin.users.attentionLines')}
        value={values.attentionLineIds}
        options={toOptions(options.attentionLines)}
        placeholder={t('admin.form.none')}
        onChange={set('attentionLineIds')}
      />
      <MultiSelectInput
        id="user-campaigns"
        wide
        label={t('admin.users.campaigns')}
        value={values.campaignIds}
        options={toOptions(options.campaigns)}
        placeholder={t('admin.form.none')}
        onChange={set('campaignIds')}
      />
      <MultiSelectInput
        id="user-pauses"
        wide
        label={t('admin.users.pauseReasons')}
        hint={t('admin.users.pauseReasonsHint')}
        value={values.pauseReasonCodes}
        options={options.pauseReasons.map((reason) => ({ value: reason.code, label: reason.label }))}
        placeholder={t('admin.users.allPauseReasons')}
        onChange={set('pauseReasonCodes')}
      />
    </AdminFormPage>
  );
}

/** Invitations not yet accepted (users/add sends them): re-send (a new link) or revoke. */
function PendingInvitations() {
  const { t } = useTranslation();
  const api = useApi();
  const toast = useToast();
  const [items, setItems] = useState<InvitationSummary[]>([]);
  const load = useCallback(() => {
    api.admin
      .invitations()
      .then(setItems)
      .catch(() => undefined);
  }, [api]);
  useEffect(load, [load]);
  const act = async (invitation: InvitationSummary, action: 'resend' | 'revoke') => {
    try {
      if (action === 'resend') await api.admin.resendInvitation(invitation.id);
      else await api.admin.revokeInvitation(invitation.id);
      toast.success(t(action === 'resend' ? 'admin.users.resent' : 'admin.users.revoked', { email: invitation.email }));
      load();
    } catch (e) {
      toast.error(t('admin.form.saveFailed'), describeError(e, t));
    }
  };
  return (
    <section className="card admin-list" data-testid="pending-invitations">
      <h2>{t('admin.users.pending')}</h2>
      <DataTable value={items} emptyMessage={t('admin.users.noPending')} dataKey="id">
        <Column field="name" header={t('admin.users.name')} />
        <Column field="email" header={t('admin.users.email')} />
        <Column field="roleName" header={t('admin.users.role')} />
        <Column field="expiresAt" header={t('admin.users.expires')} body={(row: InvitationSummary) => formatDateTime(row.expiresAt, t)} />
        <Column
          header={t('admin.list.actions')}
          body={(row: InvitationSummary) => (
            <div className="admin-actions">
              <Button
                icon="pi pi-send"
                rounded
                text
                aria-label={t('admin.users.resend')}
                tooltip={t('admin.users.resend')}
                data-testid="invitation-resend"
                onClick={() => void act(row, 'resend')}
              />
              <Button
                icon="pi pi-times"
                rounded
                text
                severity="danger"
                aria-label={t('admin.users.revoke')}
                tooltip={t('admin.users.revoke')}
                data-testid="invitation-revoke"
                onClick={() => void act(row, 'revoke')}
              />
            </div>
          )}
        />
      </DataTable>
    </section>
  );
}
