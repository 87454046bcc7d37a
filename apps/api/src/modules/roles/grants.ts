import { AppException } from '../../common/app.exception';
import type { Principal } from '../auth/principal';

/**
 * Grants never exceed the granter (issue 17 item 2). The one place that decides whether a caller
 * may hand out, reshape or act on a set of permissions: assigning a role to a user, managing a user
 * (a user can only be managed by someone holding every permission of that user's role), setting
 * someone's password, and creating, editing or deleting a role. Pure: callers load the role first.
 */

/** Who is granting: only the permissions resolved for this request matter. */
export type Granter = Pick<Principal, 'permissions'>;

/** What is granted: a role (its permissions) or a bare permission list. */
export interface GrantedRole {
  code?: string;
  permissions: readonly string[];
}

/** What the caller is attempting, which picks the refusal message. */
export type GrantAction = 'assign' | 'manage-user' | 'set-password' | 'edit-role' | 'delete-role';

/** The permissions in `permissions` that `granterPermissions` lacks, in the order given, without repeats. */
export function missingPermissions(granterPermissions: readonly string[], permissions: readonly string[]): string[] {
  const held = new Set(granterPermissions);
  return [...new Set(permissions)].filter((permission) => !held.has(permission));
}

/** True when the granter holds every one of `permissions` (so may grant them). */
export function canGrant(granterPermissions: readonly string[], permissions: readonly string[]): boolean {
  return missingPermissions(granterPermissions, permissions).length === 0;
}

/** The error the API returns when a grant would exceed the granter: 403, naming what is lacking. */
export function grantRefusal(missing: readonly string[], action: GrantAction | 'grant', roleCode?: string): AppException {
  const list = missing.join(', ');
  const role = roleCode ? `the role ${roleCode}` : 'that role';
  const messages: Record<GrantAction | 'grant', string> = {
    grant: `You cannot grant permissions you do not hold: ${list}.`,
    assign: `You cannot give ${role}: it has permissions you do not hold: ${list}.`,
    'manage-user': `You cannot change a user whose role (${roleCode ?? '?'}) has permissions you do not hold: ${list}.`,
    'set-password': `You cannot set the password of a user whose role (${roleCode ?? '?'}) has permissions you do not hold: ${list}. Send a password reset instead.`,
    'edit-role': `You cannot change ${role}: it has permissions you do not hold: ${list}.`,
    'delete-role': `You cannot delete ${role}: it has permissions you do not hold: ${list}.`,
  };
  return new AppException('forbidden', {
    message: messages[action],
    data: { reason: 'grant_exceeds_granter', action, ...(roleCode ? { roleCode } : {}), missingPermissions: [...missing] },
  });
}

/** Refuses (403) unless the caller holds every one of `permissions` (role create/edit bodies). */
export function assertCanGrantPermissions(principal: Granter, permissions: readonly string[]): void {
  const missing = missingPermissions(principal.permissions, permissions);
  if (missing.length) throw grantRefusal(missing, 'grant');
}

/**
 * Refuses (403) unless the caller holds every permission of `role`. `action` says what the caller
 * attempts with it: give it to a user (default), manage a user who has it, set such a user's
 * password, or edit/delete the role itself.
 */
export function assertCanGrantRole(principal: Granter, role: GrantedRole, action: GrantAction = 'assign'): void {
  const missing = missingPermissions(principal.permissions, role.permissions);
  if (missing.length) throw grantRefusal(missing, action, role.code);
}
