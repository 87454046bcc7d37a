import { useCallback, useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { LIMITS, validateUser, type AppRoute, type UserFormOptions, type UserSummary } from '@centralita/contracts';
import { useApi } from '../../app/ServicesContext';
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
        password: v.password || undefined,
        passwordExpiresAt: v.passwordExpiresAt || null,
      })}
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
        options={options.roles.map((role) => ({ value: role.id, label: role.name }))}
        placeholder={t('admin.form.choose')}
        onChange={set('roleId')}
        onBlur={blur('roleId')}
        error={errorFor('roleId')}
      />
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
