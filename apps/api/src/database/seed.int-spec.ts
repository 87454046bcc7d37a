import { LEVEL_PERMISSIONS } from '@centralita/contracts';
import type { DataSource } from 'typeorm';
import { AttentionLine } from '../modules/attention-lines/attention-line.entity';
import { verifyPassword } from '../modules/auth/password-hasher';
import { Campaign } from '../modules/campaigns/campaign.entity';
import { Role } from '../modules/roles/role.entity';
import { Client } from '../modules/tenancy/client.entity';
import { Reseller } from '../modules/tenancy/reseller.entity';
import { User } from '../modules/users/user.entity';
import { createDataSource } from './data-source';
import { DEMO_ACCOUNTS, DEMO_CLIENT_ID, DEMO_PASSWORD, DEMO_RESELLER_ID, seed } from './seed';

describe('seed', () => {
  let dataSource: DataSource;
  beforeAll(async () => {
    dataSource = createDataSource(process.env.DATABASE_URL!);
    await dataSource.initialize();
  });
  afterAll(() => dataSource.destroy());

  const snapshot = async () => ({
    resellers: await dataSource.getRepository(Reseller).countBy({ name: 'Centralita Demo' }),
    clients: await dataSource.getRepository(Client).countBy({ id: DEMO_CLIENT_ID }),
    roles: await dataSource.getRepository(Role).countBy({ clientId: DEMO_CLIENT_ID }),
    users: await dataSource.getRepository(User).countBy({ clientId: DEMO_CLIENT_ID, email: DEMO_ACCOUNTS[0].email }),
    demoUsers: (await dataSource.getRepository(User).find({ where: DEMO_ACCOUNTS.map(({ email }) => ({ email })) })).length,
    lines: await dataSource.getRepository(AttentionLine).countBy({ clientId: DEMO_CLIENT_ID }),
    campaigns: await dataSource.getRepository(Campaign).countBy({ clientId: DEMO_CLIENT_ID }),
  });

  it('is idempotent, also when two runs race', async () => {
    await Promise.all([seed(dataSource), seed(dataSource)]);
    const first = await snapshot();
    await seed(dataSource);
    expect(await snapshot()).toEqual(first);
    expect(first).toEqual({ resellers: 1, clients: 1, roles: 3, users: 1, demoUsers: 7, lines: 2, campaigns: 1 });
  });

  it('creates the demo accounts with their roles and the documented password', async () => {
    await seed(dataSource);
    for (const account of DEMO_ACCOUNTS) {
      const user = await dataSource
        .getRepository(User)
        .findOneOrFail({ where: { email: account.email }, relations: { role: true, client: true } });
      expect(user.role!.code).toBe(account.role);
      expect(user.client!.kind).toBe(account.level);
      if (account.level === 'tenant') expect(user.client!.name).toBe('Demo Contact Centre');
      else if (account.level === 'reseller') expect(user.client!.resellerId).toBe(DEMO_RESELLER_ID);
      else expect(user.client!.resellerId).toBeNull();
      expect(account.password).toBe(DEMO_PASSWORD);
      expect(await verifyPassword(user.passwordHash, DEMO_PASSWORD)).toBe(true);
    }
  });

  it('gives ADMIN every tenant permission and SUPER/AGENT the documented ones, restoring ADMIN permissions added later', async () => {
    await seed(dataSource);
    const roles = await dataSource.getRepository(Role).findBy({ clientId: DEMO_CLIENT_ID });
    const byCode = new Map(roles.map((role) => [role.code, role]));
    await dataSource.getRepository(Role).update({ id: byCode.get('ADMIN')!.id }, { permissions: ['dashboard.view'] });
    await seed(dataSource);
    const admin = await dataSource.getRepository(Role).findOneByOrFail({ id: byCode.get('ADMIN')!.id });
    expect([...admin.permissions].sort()).toEqual([...LEVEL_PERMISSIONS.tenant].sort());
    expect([...byCode.get('SUPER')!.permissions].sort()).toEqual(
      [
        'dashboard.view',
        'dashboard.supervise',
        'conversations.supervise',
        'conversations.handle',
        'reports.view',
        'outbound.manage',
        'softphone.use',
        'crm.use',
      ].sort(),
    );
    expect([...byCode.get('AGENT')!.permissions].sort()).toEqual(
      ['dashboard.view', 'conversations.handle', 'softphone.use', 'crm.use', 'emails.send'].sort(),
    );
  });

  it('leaves a changed demo password alone', async () => {
    await seed(dataSource);
    const repo = dataSource.getRepository(User);
    const agent = await repo.findOneByOrFail({ email: 'agent3@demo.centralita.io' });
    await repo.update({ id: agent.id }, { passwordHash: 'changed' });
    await seed(dataSource);
    expect((await repo.findOneByOrFail({ id: agent.id })).passwordHash).toBe('changed');
    await repo.update({ id: agent.id }, { passwordHash: agent.passwordHash });
  });
});
