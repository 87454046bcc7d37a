import { LEVEL_PERMISSIONS, type OrganisationLevel, type RoleCode } from '@centralita/contracts';
import type { DataSource, EntityManager } from 'typeorm';
import { AttentionLine } from '../modules/attention-lines/attention-line.entity';
import { hashPassword } from '../modules/auth/password-hasher';
import { Campaign } from '../modules/campaigns/campaign.entity';
import { Role } from '../modules/roles/role.entity';
import { ensurePlatform, ensureReseller, ensureResellerStaff, provisionClient } from '../modules/tenancy/client-provisioning';
import { User } from '../modules/users/user.entity';
import { DEMO_CLIENT_ID, DEMO_RESELLER_ID } from './seed-ids';
import { seedAdminDemo } from './seed-admin';
import { seedOutboundDemo } from './seed-outbound';
import { seedTelephonyDemo } from './seed-telephony';

export { DEMO_CLIENT_ID, DEMO_RESELLER_ID };

/** The demo tenant's documented password (printed by `npm start`); it guards demo data only, never a secret. */
export const DEMO_PASSWORD = 'centralita-demo';
export const DEMO_RESELLER_NAME = 'Centralita Demo';
export const DEMO_CLIENT_NAME = 'Demo Contact Centre';

export interface DemoAccount {
  email: string;
  password: string;
  role: RoleCode;
  name: string;
  /** Where the account lives: the demo tenant, the demo reseller's staff, or the platform operator. */
  level: OrganisationLevel;
}
export const DEMO_ACCOUNTS: DemoAccount[] = [
  { email: 'admin@demo.centralita.io', password: DEMO_PASSWORD, role: 'ADMIN', name: 'Demo Admin', level: 'tenant' },
  { email: 'supervisor@demo.centralita.io', password: DEMO_PASSWORD, role: 'SUPER', name: 'Demo Supervisor', level: 'tenant' },
  { email: 'agent1@demo.centralita.io', password: DEMO_PASSWORD, role: 'AGENT', name: 'Demo Agent 1', level: 'tenant' },
  { email: 'agent2@demo.centralita.io', password: DEMO_PASSWORD, role: 'AGENT', name: 'Demo Agent 2', level: 'tenant' },
  { email: 'agent3@demo.centralita.io', password: DEMO_PASSWORD, role: 'AGENT', name: 'Demo Agent 3', level: 'tenant' },
  { email: 'reseller@demo.centralita.io', password: DEMO_PASSWORD, role: 'RESELLER_ADMIN', name: 'Demo Reseller Admin', level: 'reseller' },
  {
    email: 'platform@demo.centralita.io',
    password: DEMO_PASSWORD,
    role: 'PLATFORM_ADMIN',
    name: 'Demo Platform Operator',
    level: 'platform',
  },
];

export interface SeedSummary {
  resellerId: string;
  clientId: string;
  usersCreated: number;
}

/**
 * Seeds the demo tenant. Idempotent and safe under concurrency: rows that exist are left as they
 * are (a changed demo password stays changed), except that the demo ADMIN role always gains any
 * permission added to the product since the last run.
 */
export async function seed(dataSource: DataSource): Promise<SeedSummary> {
  const existing = await dataSource
    .getRepository(User)
    .find({ where: DEMO_ACCOUNTS.map(({ email }) => ({ email })), select: { email: true } });
  const missing = DEMO_ACCOUNTS.filter((account) => !existing.some((user) => user.email === account.email));
  // Hash outside the transaction: argon2 is deliberately slow.
  const hashes = new Map(await Promise.all(missing.map(async (account) => [account.email, await hashPassword(account.password)] as const)));

  return dataSource.transaction(async (manager) => {
    const reseller = await ensureReseller(manager, DEMO_RESELLER_NAME, DEMO_RESELLER_ID);
    const { client, roles } = await provisionClient(manager, {
      id: DEMO_CLIENT_ID,
      resellerId: reseller.id,
      name: DEMO_CLIENT_NAME,
      subscriptionPlan: 'demo',
    });

    const admin = roles.get('ADMIN');
    const tenantPermissions = LEVEL_PERMISSIONS.tenant;
    if (admin && tenantPermissions.some((permission) => !admin.permissions.includes(permission))) {
      await manager.update(Role, { id: admin.id }, { permissions: [...new Set([...admin.permissions, ...tenantPermissions])] });
    }
    const organisations = {
      tenant: { client, roles },
      reseller: await ensureResellerStaff(manager, reseller),
      platform: await ensurePlatform(manager),
    };

    let usersCreated = 0;
    for (const account of missing) {
      const organisation = organisations[account.level];
      const role = organisation.roles.get(account.role);
      if (!role) throw new Error(`built-in role ${account.role} is missing from the demo ${account.level} organisation`);
      const result = await manager
        .createQueryBuilder()
        .insert()
        .into(User)
        .values({
          clientId: organisation.client.id,
          roleId: role.id,
          email: account.email,
          name: account.name,
          passwordHash: hashes.get(account.email)!,
        })
        .orIgnore()
        .execute();
      usersCreated += result.identifiers.filter(Boolean).length;
    }

    await manager
      .createQueryBuilder()
      .insert()
      .into(AttentionLine)
      .values([
        { clientId: client.id, name: 'Customer service', type: 'inbound', channel: 'WebChat', internal: false },
        { clientId: client.id, name: 'Internal help desk', type: 'inbound', channel: 'WhatsApp', internal: true },
      ])
      .orIgnore()
      .execute();
    await manager
      .createQueryBuilder()
      .insert()
      .into(Campaign)
      .values({
        clientId: client.id,
        name: 'Welcome campaign',
        description: 'Inbound web chat and WhatsApp for new customers',
        fromDate: '2025-01-01',
        toDate: '2030-12-31',
        identifier: 'WELCOME',
        allowedChatsPerAgent: 3,
      })
      .orIgnore()
      .execute();

    await seedRealtimeDemo(manager, client.id);
    await seedAdminDemo(manager, client.id);
    await seedTelephonyDemo(manager, client.id);
    await seedOutboundDemo(manager, client.id);

    return { resellerId: reseller.id, clientId: client.id, usersCreated };
  });
}

/** Demo pause reasons, agents serving both demo lines, and their routing settings. */
async function seedRealtimeDemo(manager: EntityManager, clientId: string): Promise<void> {
  await manager.query(
    `INSERT INTO pause_reasons (tenant_id, code, label, position)
     VALUES ($1, 'break', 'Break', 1), ($1, 'lunch', 'Lunch', 2), ($1, 'training', 'Training', 3), ($1, 'meeting', 'Meeting', 4)
     ON CONFLICT DO NOTHING`,
    [clientId],
  );
  await manager.query(
    `INSERT INTO agent_attention_lines (user_id, attention_line_id, tenant_id)
     SELECT u.id, l.id, $1 FROM users u CROSS JOIN attention_lines l
     WHERE u.client_id = $1 AND l.client_id = $1 AND u.email = ANY($2::text[])
     ON CONFLICT DO NOTHING`,
    [clientId, DEMO_ACCOUNTS.filter((account) => account.role === 'AGENT').map((account) => account.email)],
  );
  await manager.query(
    `INSERT INTO attention_line_routing (attention_line_id, tenant_id)
     SELECT l.id, $1 FROM attention_lines l WHERE l.client_id = $1
     ON CONFLICT DO NOTHING`,
    [clientId],
  );
}
