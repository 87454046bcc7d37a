/**
 * Built-in role codes. Tenants may add roles of their own; these drive the root redirect (spec §2).
 * RESELLER_ADMIN and PLATFORM_ADMIN exist only in the staff organisations of a reseller and of the
 * platform operator (see ORGANISATION_LEVELS), never in a customer tenant.
 */
export const ROLE_CODES = ['ADMIN', 'SUPER', 'AGENT', 'RESELLER_ADMIN', 'PLATFORM_ADMIN'] as const;
export type RoleCode = (typeof ROLE_CODES)[number];

/**
 * Permission codes a role can grant. The server enforces them on every endpoint; the menu only
 * mirrors them. Renaming one needs a data migration (roles store these strings).
 */
export const PERMISSIONS = {
  dashboardView: 'dashboard.view',
  dashboardSupervise: 'dashboard.supervise',
  conversationsHandle: 'conversations.handle',
  conversationsSupervise: 'conversations.supervise',
  reportsView: 'reports.view',
  usersManage: 'users.manage',
  /** The customers screens, scoped by level: a tenant administrator sees and brands its own tenant only. */
  clientsManage: 'clients.manage',
  /** Reseller staff and the platform: create tenants (with their first administrator), rename them, set their plan. */
  tenantsManage: 'tenants.manage',
  /** Reseller staff: rename their own reseller; the platform: every reseller. */
  resellersManage: 'resellers.manage',
  /** The platform operator: create resellers (with their first reseller administrator). */
  platformManage: 'platform.manage',
  rolesManage: 'roles.manage',
  attentionLinesManage: 'attention-lines.manage',
  campaignsManage: 'campaigns.manage',
  predefinedMessagesManage: 'predefined-messages.manage',
  qnaManage: 'qna.manage',
  settingsManage: 'settings.manage',
  pollsManage: 'polls.manage',
  ivrsManage: 'ivrs.manage',
  listsManage: 'lists.manage',
  outboundManage: 'outbound.manage',
  softphoneUse: 'softphone.use',
  crmUse: 'crm.use',
  emailsSend: 'emails.send',
  auditView: 'audit.view',
} as const;
export type Permission = (typeof PERMISSIONS)[keyof typeof PERMISSIONS];
export const ALL_PERMISSIONS: Permission[] = Object.values(PERMISSIONS);

/**
 * Where a user's organisation sits (clients.kind): the platform operator above every reseller,
 * reseller staff above their reseller's customer tenants, and tenant users. Staff of a reseller or
 * of the platform belong to a non-customer organisation row of that kind, never to a customer tenant.
 */
export const ORGANISATION_LEVELS = ['tenant', 'reseller', 'platform'] as const;
export type OrganisationLevel = (typeof ORGANISATION_LEVELS)[number];

const STAFF_PERMISSIONS: Permission[] = [
  PERMISSIONS.clientsManage,
  PERMISSIONS.tenantsManage,
  PERMISSIONS.resellersManage,
  PERMISSIONS.usersManage,
  PERMISSIONS.rolesManage,
  PERMISSIONS.auditView,
];

/**
 * The permissions that can take effect at each level, whatever a role row stores: a tenant role can
 * never reach across tenants, and staff organisations (which hold no customer data) open only
 * the administration of tenants, resellers, their own users and roles.
 */
export const LEVEL_PERMISSIONS: Record<OrganisationLevel, readonly Permission[]> = {
  tenant: ALL_PERMISSIONS.filter(
    (permission) =>
      permission !== PERMISSIONS.tenantsManage && permission !== PERMISSIONS.resellersManage && permission !== PERMISSIONS.platformManage,
  ),
  reseller: STAFF_PERMISSIONS,
  platform: [...STAFF_PERMISSIONS, PERMISSIONS.platformManage],
};

/** A role's stored permissions narrowed to those its organisation's level allows. */
export function effectivePermissions(level: OrganisationLevel, permissions: readonly string[]): string[] {
  const allowed = new Set<string>(LEVEL_PERMISSIONS[level]);
  return [...new Set(permissions)].filter((permission) => allowed.has(permission));
}

export function isOrganisationLevel(value: unknown): value is OrganisationLevel {
  return typeof value === 'string' && (ORGANISATION_LEVELS as readonly string[]).includes(value);
}
