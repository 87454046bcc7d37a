import type { Language, OrganisationLevel } from '@centralita/contracts';
import { IsNull, type EntityManager } from 'typeorm';
import { BUILT_IN_ROLES_BY_LEVEL } from '../roles/built-in-roles';
import { Role } from '../roles/role.entity';
import { Client } from './client.entity';
import { Reseller } from './reseller.entity';

export interface ProvisionClientInput {
  id?: string;
  resellerId: string;
  name: string;
  branding?: Partial<Pick<Client, 'bannerUrl' | 'loginImageUrl' | 'mainColor' | 'menuLogoUrl' | 'completeMenuLogoUrl'>>;
  subscriptionPlan?: string | null;
  /** The tenant's language when it is created (default Spanish); an existing tenant keeps its own. */
  language?: Language;
}

export interface ProvisionedOrganisation {
  client: Client;
  roles: Map<string, Role>;
}

/**
 * Creates a customer tenant with its copies of the built-in roles, or completes one that exists:
 * safe to run again and from concurrent processes (inserts ignore conflicts, then rows are read back).
 */
export async function provisionClient(manager: EntityManager, input: ProvisionClientInput): Promise<ProvisionedOrganisation> {
  await manager
    .createQueryBuilder()
    .insert()
    .into(Client)
    .values({
      ...(input.id ? { id: input.id } : {}),
      kind: 'tenant',
      resellerId: input.resellerId,
      name: input.name,
      subscriptionPlan: input.subscriptionPlan ?? null,
      ...(input.language ? { language: input.language } : {}),
      ...input.branding,
    })
    .orIgnore()
    .execute();
  const client = await manager.findOneOrFail(Client, {
    where: input.id ? { id: input.id } : { resellerId: input.resellerId, name: input.name, kind: 'tenant' },
  });
  if (client.kind !== 'tenant') throw new Error(`organisation ${client.id} is not a customer tenant`);
  return { client, roles: await ensureBuiltInRoles(manager, client.id, 'tenant') };
}

/**
 * The staff organisation of a reseller (kind 'reseller', named after it): holds the reseller's
 * administrators and their roles, never customer data. Idempotent.
 */
export async function ensureResellerStaff(manager: EntityManager, reseller: Reseller): Promise<ProvisionedOrganisation> {
  await manager
    .createQueryBuilder()
    .insert()
    .into(Client)
    .values({ kind: 'reseller', resellerId: reseller.id, name: reseller.name })
    .orIgnore()
    .execute();
  const client = await manager.findOneByOrFail(Client, { resellerId: reseller.id, kind: 'reseller' });
  return { client, roles: await ensureBuiltInRoles(manager, client.id, 'reseller') };
}

/** The platform operator's organisation (kind 'platform', no reseller): exactly one. Idempotent. */
export async function ensurePlatform(manager: EntityManager, name = 'Centralita platform'): Promise<ProvisionedOrganisation> {
  await manager.createQueryBuilder().insert().into(Client).values({ kind: 'platform', resellerId: null, name }).orIgnore().execute();
  const client = await manager.findOneByOrFail(Client, { kind: 'platform', resellerId: IsNull() });
  return { client, roles: await ensureBuiltInRoles(manager, client.id, 'platform') };
}

async function ensureBuiltInRoles(manager: EntityManager, clientId: string, level: OrganisationLevel): Promise<Map<string, Role>> {
  await manager
    .createQueryBuilder()
    .insert()
    .into(Role)
    .values(
      BUILT_IN_ROLES_BY_LEVEL[level].map((role) => ({
        clientId,
        code: role.code,
        name: role.name,
        permissions: role.permissions,
        builtIn: true,
      })),
    )
    .orIgnore()
    .execute();
  const roles = await manager.find(Role, { where: { clientId } });
  return new Map(roles.map((role) => [role.code, role]));
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
