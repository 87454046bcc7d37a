import { INVITATION_TTL_DAYS } from '@centralita/contracts';
import { IsNull, type DataSource } from 'typeorm';
import { randomToken, sha256 } from '../modules/auth/refresh-token.service';
import { UserInvitation } from '../modules/invitations/user-invitation.entity';
import { FIRST_ADMIN_ROLE } from '../modules/roles/built-in-roles';
import { ensurePlatform } from '../modules/tenancy/client-provisioning';
import { User } from '../modules/users/user.entity';

/**
 * Bootstraps a deployment without SQL: creates the platform operator's organisation if needed and an
 * invitation for a platform operator, and returns the link for the person running the command (it
 * is printed on their terminal, never mailed: no mail path may exist yet). Any earlier pending
 * invitation to that address is replaced.
 */
export async function invitePlatformOperator(
  dataSource: DataSource,
  input: { email: string; name: string; publicUrl: string },
): Promise<{ link: string; expiresAt: Date }> {
  const email = input.email.trim().toLowerCase();
  if (!/^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(email)) throw new Error(`not an email address: "${input.email}"`);
  const token = randomToken();
  const expiresAt = new Date(Date.now() + INVITATION_TTL_DAYS * 24 * 3600 * 1000);
  await dataSource.transaction(async (manager) => {
    if (await manager.exists(User, { where: { email } })) throw new Error(`${email} already has an account`);
    const { client, roles } = await ensurePlatform(manager);
    await manager.update(
      UserInvitation,
      { clientId: client.id, email, acceptedAt: IsNull(), revokedAt: IsNull() },
      { revokedAt: new Date() },
    );
    await manager.insert(UserInvitation, {
      clientId: client.id,
      email,
      name: input.name.trim() || email,
      roleId: roles.get(FIRST_ADMIN_ROLE.platform)!.id,
      tokenHash: sha256(token),
      expiresAt,
      invitedBy: null,
    });
  });
  return { link: `${input.publicUrl.replace(/\/+$/, '')}/session/invitation/${token}`, expiresAt };
}
