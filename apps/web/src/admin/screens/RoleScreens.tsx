import { useCallback } from 'react';
import { useTranslation } from 'react-i18next';
import { ALL_PERMISSIONS, APP_ROUTES, LEVEL_PERMISSIONS, validateRole, type AppRoute, type RoleSummary } from '@centralita/contracts';
import { useApi, useAuth } from '../../app/ServicesContext';
import { hasPermission } from '../../auth/permissions';
import { formatBoolean } from '../../format/format';
import { AdminFormPage, useEditId } from '../AdminFormPage';
import { AdminListPage } from '../AdminListPage';
import { CheckInput, FieldShell, MultiSelectInput, TextInput } from '../fields';
import { useAdminForm } from '../useAdminForm';

const LIST = '/role/roleMain';
const ROUTE_PATHS = APP_ROUTES.map((route) => route.path);

export function RoleListPage({ route }: { route: AppRoute }) {
  const { t } = useTranslation();
  return (
    <AdminListPage<RoleSummary>
      route={route}
      resource="roles"
      auditType="role"
      addPath="/role/add"
      editPath="/role/edit"
      describe={(row) => row.name}
      columns={[
        { field: 'code', header: t('admin.roles.code'), sortable: true, body: (row) => <code>{row.code}</code> },
        {
          field: 'name',
          header: t('admin.roles.name'),
          sortable: true,
          // Built-in roles are named in the user's language; a tenant's own role keeps the name it was given.
          body: (row) => (row.builtIn ? t(`roles.${row.code}`, { defaultValue: row.name }) : row.name),
        },
        {
          field: 'permissions',
          header: t('admin.roles.permissions'),
          body: (row) => t('admin.roles.permissionCount', { count: row.permissions.length }),
        },
        { field: 'builtIn', header: t('admin.roles.builtIn'), sortable: true, body: (row) => formatBoolean(row.builtIn, t) },
      ]}
    />
  );
}

type RoleValues = { code: string; name: string; permissions: string[]; menuPaths: string[] };
const EMPTY: RoleValues = { code: '', name: '', permissions: [], menuPaths: [] };

/** /role/add and /role/edit?id= : the permissions the server enforces, and the optional menu curation. */
export function RoleFormPage({ route }: { route: AppRoute }) {
  const { t } = useTranslation();
  const api = useApi();
  const id = useEditId();
  const { user } = useAuth();
  // Grants never exceed the granter: the server refuses permissions (and menu routes) the editor lacks.
  const holds = (permission: string | null) => permission === null || hasPermission(user, permission);
  // Only what can take effect in the editor's organisation is offered (a tenant role never gets
  // tenants.manage, resellers.manage or platform.manage); a stored one outside it stays visible.
  const offered = new Set<string>(LEVEL_PERMISSIONS[user?.level ?? 'tenant']);
  const form = useAdminForm<RoleValues>(
    EMPTY,
    useCallback((v: RoleValues) => validateRole(v, ALL_PERMISSIONS, ROUTE_PATHS), []),
  );
  const { values, set, blur, errorFor } = form;
  const toggle = (permission: string, on: boolean) =>
    set('permissions')(on ? [...values.permissions, permission] : values.permissions.filter((p) => p !== permission));
  const routeOptions = APP_ROUTES.map((r) => ({
    value: r.path,
    label: `${t(`routes.${r.titleKey}`)} (${r.path})`,
    disabled: !holds(r.permission) && !values.menuPaths.includes(r.path),
  }));
  const permissionName = (permission: string) => t(`permissionNames.${permission}`, { defaultValue: permission });
  const shown = ALL_PERMISSIONS.filter((permission) => offered.has(permission) || values.permissions.includes(permission));
  const lacking = values.permissions.filter((permission) => !holds(permission));
  const someLocked = shown.some((permission) => !holds(permission));
  const permissionsHint = lacking.length
    ? t('admin.roles.beyondYou', { permissions: lacking.map(permissionName).join(', ') })
    : someLocked
      ? `${t('admin.roles.permissionsHint')} ${t('admin.roles.notHeldHint')}`
      : t('admin.roles.permissionsHint');
  return (
    <AdminFormPage
      route={route}
      resource="roles"
      listPath={LIST}
      form={form}
      id={id}
      load={async (rowId) => {
        const [row, menuPaths] = await Promise.all([api.admin.get<RoleSummary>('roles', rowId), api.admin.roleMenuEntries(rowId)]);
        return { code: row.code, name: row.name, permissions: row.permissions, menuPaths };
      }}
      toBody={(v) => v}
    >
      <TextInput
        id="role-code"
        label={t('admin.roles.code')}
        hint={t('admin.roles.codeHint')}
        value={values.code}
        onChange={(v) => set('code')(v.toUpperCase())}
        onBlur={blur('code')}
        error={errorFor('code')}
      />
      <TextInput
        id="role-name"
        label={t('admin.roles.name')}
        value={values.name}
        onChange={set('name')}
        onBlur={blur('name')}
        error={errorFor('name')}
      />
      <FieldShell
        id="role-permissions"
        label={t('admin.roles.permissions')}
        error={errorFor('permissions')}
        hint={lacking.length ? <span data-testid="role-beyond-you">{permissionsHint}</span> : permissionsHint}
        wide
      >
        <div className="admin-check-grid" data-testid="role-permissions">
          {shown.map((permission) => (
            <CheckInput
              key={permission}
              id={`role-permission-${permission.replace(/\W/g, '-')}`}
              label={permissionName(permission)}
              checked={values.permissions.includes(permission)}
              disabled={!holds(permission)}
              title={holds(permission) ? undefined : t('admin.roles.notHeld')}
              onChange={(on) => toggle(permission, on)}
            />
          ))}
        </div>
      </FieldShell>
      <MultiSelectInput
        id="role-menu"
        wide
        label={t('admin.roles.menu')}
        hint={t('admin.roles.menuHint')}
        value={values.menuPaths}
        options={routeOptions}
        placeholder={t('admin.roles.menuAll')}
        onChange={set('menuPaths')}
        error={errorFor('menuPaths')}
      />
    </AdminFormPage>
  );
}
