import type { SessionUser } from '@centralita/contracts';
import type { User } from './user.entity';

/** The console's view of a user (spec §3 "Logged-in user"); needs role and client loaded. */
export function toSessionUser(user: User): SessionUser {
  if (!user.role || !user.client) throw new Error('toSessionUser needs the role and client relations');
  return {
    id: user.id,
    avatar: user.avatarUrl,
    email: user.email,
    name: user.name,
    role: user.role.code,
    clientId: user.clientId,
    clientName: user.client.name,
    sessionTime: user.sessionTimeMinutes,
    permissions: [...user.role.permissions],
  };
}
