import { LEVEL_PERMISSIONS, type Language, type OrganisationLevel, type RoleCode } from '@centralita/contracts';
import type { DataSource, EntityManager } from 'typeorm';
import { hashPassword } from '../modules/auth/password-hasher';
import { Campaign } from '../modules/campaigns/campaign.entity';
import { Role } from '../modules/roles/role.entity';
import { ensurePlatform, ensureReseller, ensureResellerStaff, provisionClient } from '../modules/tenancy/client-provisioning';
import { User } from '../modules/users/user.entity';
import { DEMO_CLIENT_ID, DEMO_RESELLER_ID } from './seed-ids';
import { seedAdminDemo } from './seed-admin';
import { demoContent, type DemoContent } from './seed-content';
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
  /** The demo tenant's language, the one its content was written in. */
  language: Language;
}

export interface SeedOptions {
  /**
   * The language of a demo tenant created by this run (SEED_LANGUAGE; default Spanish). A tenant
   * that exists keeps its own language, so seeding again never mixes two languages' content.
   */
  language?: Language;
}

/**
 * Seeds the demo tenant, its content in the tenant's language (see seed-content). Idempotent and
 * safe under concurrency: rows that exist are left as they are (a changed demo password stays
 * changed), except that the demo ADMIN role always gains any permission added to the product since
 * the last run.
 */
export async function seed(dataSource: DataSource, options: SeedOptions = {}): Promise<SeedSummary> {
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
      language: options.language ?? 'es',
    });
    const content = demoContent(client.language);

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

    // Only into a tenant without lines: a demo database seeded in another language (or before the
    // content had languages) keeps its two lines instead of gaining two more under new names.
    await manager.query(
      `INSERT INTO attention_lines (client_id, name, type, channel, internal)
       SELECT $1, v.name, 'inbound', v.channel, v.internal FROM (VALUES ($2, 'WebChat', false), ($3, 'WhatsApp', true)) AS v(name, channel, internal)
       WHERE NOT EXISTS (SELECT 1 FROM attention_lines WHERE client_id = $1)
       ON CONFLICT DO NOTHING`,
      [client.id, content.lines.customerService, content.lines.helpDesk],
    );
    await manager
      .createQueryBuilder()
      .insert()
      .into(Campaign)
      .values({
        clientId: client.id,
        name: content.lines.campaignName,
        description: content.lines.campaignDescription,
        fromDate: '2025-01-01',
        toDate: '2030-12-31',
        identifier: 'WELCOME',
        allowedChatsPerAgent: 3,
      })
      .orIgnore()
      .execute();

    await seedRealtimeDemo(manager, client.id, content);
    await seedAdminDemo(manager, client.id, content);
    await seedTelephonyDemo(manager, client.id, content);
    await seedOutboundDemo(manager, client.id, content);

    return { resellerId: reseller.id, clientId: client.id, usersCreated, language: client.language };
  });
}

/** Demo pause reasons, agents serving both demo lines, and their routing settings. */
async function seedRealtimeDemo(manager: EntityManager, clientId: string, content: DemoContent): Promise<void> {
  const labels = content.pauseReasons;
  await manager.query(
    `INSERT INTO pause_reasons (tenant_id, code, label, position)
     VALUES ($1, 'break', $2, 1), ($1, 'lunch', $3, 2), ($1, 'training', $4, 3), ($1, 'meeting', $5, 4)
     ON CONFLICT DO NOTHING`,
    [clientId, labels.break, labels.lunch, labels.training, labels.meeting],
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
