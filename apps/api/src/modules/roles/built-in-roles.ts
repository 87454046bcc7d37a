import { ALL_PERMISSIONS, PERMISSIONS, type Permission, type RoleCode } from '@centralita/contracts';

export interface BuiltInRole {
  code: RoleCode;
  name: string;
  permissions: Permission[];
}

const P = PERMISSIONS;
/** Copied into every new tenant (see provisionClient); each tenant may then adjust its copies. */
export const BUILT_IN_ROLES: BuiltInRole[] = [
  { code: 'ADMIN', name: 'Administrator', permissions: [...ALL_PERMISSIONS] },
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
