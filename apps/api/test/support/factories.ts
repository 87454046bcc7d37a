import { randomBytes } from 'node:crypto';
import type { DataSource } from 'typeorm';
import { hashPassword } from '../../src/modules/auth/password-hasher';
import type { Role } from '../../src/modules/roles/role.entity';
import type { Client } from '../../src/modules/tenancy/client.entity';
import { ensurePlatform, ensureReseller, ensureResellerStaff, provisionClient } from '../../src/modules/tenancy/client-provisioning';
import type { Reseller } from '../../src/modules/tenancy/reseller.entity';
import { User } from '../../src/modules/users/user.entity';
import { login, uniqueEmail, type TestApp } from './test-app';

export const TEST_PASSWORD = 'correct horse battery staple';

export interface TestTenant {
  client: Client;
  roles: Map<string, Role>;
}

/** A fresh tenant (own reseller) with its built-in role copies; tests never share tenants. */
export async function createTenant(dataSource: DataSource, name = `Tenant ${randomBytes(4).toString('hex')}`): Promise<TestTenant> {
  return dataSource.transaction(async (manager) => {
    const reseller = await ensureReseller(manager, `Reseller of ${name}`);
    return provisionClient(manager, { resellerId: reseller.id, name });
  });
}

/** A fresh reseller with its staff organisation (role RESELLER_ADMIN) and `tenants` customer tenants of its own. */
export async function createReseller(
  dataSource: DataSource,
  tenants = 0,
): Promise<{ reseller: Reseller; staff: TestTenant; tenants: TestTenant[] }> {
  return dataSource.transaction(async (manager) => {
    const reseller = await ensureReseller(manager, `Reseller ${randomBytes(4).toString('hex')}`);
    const staff = await ensureResellerStaff(manager, reseller);
    const owned: TestTenant[] = [];
    for (let i = 0; i < tenants; i++)
      owned.push(await provisionClient(manager, { resellerId: reseller.id, name: `Tenant ${randomBytes(4).toString('hex')}` }));
    return { reseller, staff, tenants: owned };
  });
}

/** The platform operator's organisation (one per database, shared by suites: give its users unique emails). */
export async function platformOrganisation(dataSource: DataSource): Promise<TestTenant> {
  return dataSource.transaction((manager) => ensurePlatform(manager));
}

export async function createUser(
  dataSource: DataSource,
  tenant: TestTenant,
  options: { role?: string; email?: string; password?: string; active?: boolean; name?: string; sessionTimeMinutes?: number } = {},
): Promise<{ user: User; email: string; password: string }> {
  const role = tenant.roles.get(options.role ?? 'AGENT');
  if (!role) throw new Error(`tenant has no role ${options.role}`);
  const email = options.email ?? uniqueEmail((options.role ?? 'agent').toLowerCase());
  const password = options.password ?? TEST_PASSWORD;
  const user = await dataSource.getRepository(User).save(
    dataSource.getRepository(User).create({
      clientId: tenant.client.id,
      roleId: role.id,
      email,
      name: options.name ?? `Test ${email.split('@')[0]}`,
      passwordHash: await hashPassword(password),
      active: options.active ?? true,
      ...(options.sessionTimeMinutes ? { sessionTimeMinutes: options.sessionTimeMinutes } : {}),
    }),
  );
  return { user, email, password };
}

export interface TwoTenants {
  tenantA: TestTenant;
  tenantB: TestTenant;
  /** Access tokens: an administrator of each tenant and an agent of tenant A. */
  adminA: string;
  adminB: string;
  agentA: string;
}

/** The isolation fixture of the administration suites: B's ids must answer 404 to A, A's agent 403. */
export async function twoTenants(t: TestApp): Promise<TwoTenants> {
  const tenantA = await createTenant(t.dataSource);
  const tenantB = await createTenant(t.dataSource);
  const a = await createUser(t.dataSource, tenantA, { role: 'ADMIN' });
  const b = await createUser(t.dataSource, tenantB, { role: 'ADMIN' });
  const agent = await createUser(t.dataSource, tenantA, { role: 'AGENT' });
  return {
    tenantA,
    tenantB,
    adminA: (await login(t, a.email, a.password)).accessToken,
    adminB: (await login(t, b.email, b.password)).accessToken,
    agentA: (await login(t, agent.email, agent.password)).accessToken,
  };
}
