import type { SessionUser } from '@centralita/contracts';

/** A route with no permission is open to any signed-in user. */
export function hasPermission(user: Pick<SessionUser, 'permissions'> | null, permission: string | null): boolean {
  if (!user) return false;
  if (permission === null) return true;
  return Array.isArray(user.permissions) && user.permissions.includes(permission);
}
