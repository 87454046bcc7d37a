import { effectivePermissions, type SessionUser } from '@centralita/contracts';
import type { User } from './user.entity';

/**
 * The console's view of a user (spec §3 "Logged-in user"); needs role and client loaded, and the
 * tenant's idle sign-out from its platform settings.
 */
export function toSessionUser(user: User, idleLogoutMinutes: number): SessionUser {
  if (!user.role || !user.client) throw new Error('toSessionUser needs the role and client relations');
  return {
    id: user.id,
    avatar: user.avatarUrl,
    email: user.email,
    name: user.name,
    role: user.role.code,
    clientId: user.clientId,
    clientName: user.client.name,
    level: user.client.kind,
    sessionTime: user.sessionTimeMinutes,
    idleLogoutMinutes,
    permissions: effectivePermissions(user.client.kind, user.role.permissions),
  };
}
