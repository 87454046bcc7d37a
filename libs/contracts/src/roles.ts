/** Built-in role codes. Tenants may add roles of their own; these drive the root redirect (spec §2). */
export const ROLE_CODES = ['ADMIN', 'SUPER', 'AGENT'] as const;
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
  clientsManage: 'clients.manage',
  resellersManage: 'resellers.manage',
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
