import type { EntityManager } from 'typeorm';
import { BUILT_IN_ROLES } from '../roles/built-in-roles';
import { Role } from '../roles/role.entity';
import { Client } from './client.entity';
import { Reseller } from './reseller.entity';

export interface ProvisionClientInput {
  id?: string;
  resellerId: string;
  name: string;
  branding?: Partial<Pick<Client, 'bannerUrl' | 'loginImageUrl' | 'mainColor' | 'menuLogoUrl' | 'completeMenuLogoUrl'>>;
  subscriptionPlan?: string | null;
}

/**
 * Creates a tenant with its copies of the built-in roles, or completes one that exists: safe to run
 * again and from concurrent processes (inserts ignore conflicts, then rows are read back).
 */
export async function provisionClient(
  manager: EntityManager,
  input: ProvisionClientInput,
): Promise<{ client: Client; roles: Map<string, Role> }> {
  await manager
    .createQueryBuilder()
    .insert()
    .into(Client)
    .values({
      ...(input.id ? { id: input.id } : {}),
      resellerId: input.resellerId,
      name: input.name,
      subscriptionPlan: input.subscriptionPlan ?? null,
      ...input.branding,
    })
    .orIgnore()
    .execute();
  const client = await manager.findOneOrFail(Client, {
    where: input.id ? { id: input.id } : { resellerId: input.resellerId, name: input.name },
  });
  await manager
    .createQueryBuilder()
    .insert()
    .into(Role)
    .values(
      BUILT_IN_ROLES.map((role) => ({
        clientId: client.id,
        code: role.code,
        name: role.name,
        permissions: role.permissions,
        builtIn: true,
      })),
    )
    .orIgnore()
    .execute();
  const roles = await manager.find(Role, { where: { clientId: client.id } });
  return { client, roles: new Map(roles.map((role) => [role.code, role])) };
}

export async function ensureReseller(manager: EntityManager, name: string, id?: string): Promise<Reseller> {
  await manager
    .createQueryBuilder()
    .insert()
    .into(Reseller)
    .values({ ...(id ? { id } : {}), name })
    .orIgnore()
    .execute();
  return manager.findOneOrFail(Reseller, { where: id ? { id } : { name } });
}
