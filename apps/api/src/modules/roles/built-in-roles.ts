import { LEVEL_PERMISSIONS, PERMISSIONS, type OrganisationLevel, type Permission, type RoleCode } from '@centralita/contracts';

export interface BuiltInRole {
  code: RoleCode;
  name: string;
  permissions: Permission[];
}

const P = PERMISSIONS;
/** Copied into every new tenant (see provisionClient); each tenant may then adjust its copies. */
export const BUILT_IN_ROLES: BuiltInRole[] = [
  // Everything a tenant can hold: its own users, roles, lines, settings and its own branding (clients.manage), never another tenant.
  { code: 'ADMIN', name: 'Administrator', permissions: [...LEVEL_PERMISSIONS.tenant] },
  {
    code: 'SUPER',
    name: 'Supervisor',
    permissions: [
      P.dashboardView,
      P.dashboardSupervise,
      P.conversationsSupervise,
      P.conversationsHandle,
      P.reportsView,
      // Supervisors run the outbound campaigns they watch: schedule, start, pause, resume, cancel.
      P.outboundManage,
      P.softphoneUse,
      P.crmUse,
    ],
  },
  { code: 'AGENT', name: 'Agent', permissions: [P.dashboardView, P.conversationsHandle, P.softphoneUse, P.crmUse, P.emailsSend] },
];

/** The one built-in role of a reseller's staff organisation: its tenants, its own name, its staff. */
export const RESELLER_ROLES: BuiltInRole[] = [
  { code: 'RESELLER_ADMIN', name: 'Reseller administrator', permissions: [...LEVEL_PERMISSIONS.reseller] },
];

/** The one built-in role of the platform operator's organisation: every reseller and tenant. */
export const PLATFORM_ROLES: BuiltInRole[] = [
  { code: 'PLATFORM_ADMIN', name: 'Platform operator', permissions: [...LEVEL_PERMISSIONS.platform] },
];

export const BUILT_IN_ROLES_BY_LEVEL: Record<OrganisationLevel, BuiltInRole[]> = {
  tenant: BUILT_IN_ROLES,
  reseller: RESELLER_ROLES,
  platform: PLATFORM_ROLES,
};

/** The role a new organisation's first administrator is invited with. */
export const FIRST_ADMIN_ROLE: Record<OrganisationLevel, RoleCode> = {
  tenant: 'ADMIN',
  reseller: 'RESELLER_ADMIN',
  platform: 'PLATFORM_ADMIN',
};
