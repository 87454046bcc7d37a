import { LEVEL_PERMISSIONS } from '@centralita/contracts';
import type { DataSource } from 'typeorm';
import { AttentionLine } from '../modules/attention-lines/attention-line.entity';
import { verifyPassword } from '../modules/auth/password-hasher';
import { Campaign } from '../modules/campaigns/campaign.entity';
import { Role } from '../modules/roles/role.entity';
import { Client } from '../modules/tenancy/client.entity';
import { Reseller } from '../modules/tenancy/reseller.entity';
import { User } from '../modules/users/user.entity';
import { randomBytes } from 'node:crypto';
import { LANGUAGES } from '@centralita/contracts';
import { createDataSource } from './data-source';
import { runMigrations } from './migrate';
import { DEMO_ACCOUNTS, DEMO_CLIENT_ID, DEMO_PASSWORD, DEMO_RESELLER_ID, seed } from './seed';
import { demoContent } from './seed-content';

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

  it('writes the demo content in Spanish by default, and a tenant that exists keeps its language', async () => {
    // Asked for English, but the demo tenant already exists in Spanish: nothing English is added.
    expect((await seed(dataSource, { language: 'en' })).language).toBe('es');
    expect(await demoTexts(dataSource)).toEqual(expectedTexts('es'));
    expect(await dataSource.query(`SELECT count(*)::int AS n FROM attention_lines WHERE client_id = $1`, [DEMO_CLIENT_ID])).toEqual([
      { n: 2 },
    ]);
  });

  it('adds no lines to a demo tenant seeded before its content had languages (English line names)', async () => {
    await seed(dataSource);
    const lines = (await dataSource.query(`SELECT id, name FROM attention_lines WHERE client_id = $1`, [DEMO_CLIENT_ID])) as {
      id: string;
      name: string;
    }[];
    const english = demoContent('en').lines;
    const renamed = (name: string) => (name === demoContent('es').lines.customerService ? english.customerService : english.helpDesk);
    try {
      for (const line of lines) await dataSource.query(`UPDATE attention_lines SET name = $2 WHERE id = $1`, [line.id, renamed(line.name)]);
      await seed(dataSource);
      expect(
        (await dataSource.query(`SELECT name FROM attention_lines WHERE client_id = $1 ORDER BY name`, [DEMO_CLIENT_ID])) as {
          name: string;
        }[],
      ).toEqual([{ name: english.customerService }, { name: english.helpDesk }]);
    } finally {
      for (const line of lines) await dataSource.query(`UPDATE attention_lines SET name = $2 WHERE id = $1`, [line.id, line.name]);
    }
  });

  it('seeds a new demo tenant in the language asked for, every text of its content in that language', async () => {
    const admin = createDataSource(process.env.CENTRALITA_ADMIN_DATABASE_URL!);
    const name = `centralita_seed_${randomBytes(4).toString('hex')}`;
    await admin.initialize();
    await admin.query(`CREATE DATABASE ${name}`);
    const url = new URL(process.env.CENTRALITA_ADMIN_DATABASE_URL!);
    url.pathname = `/${name}`;
    try {
      await runMigrations(url.toString());
      const russian = createDataSource(url.toString());
      await russian.initialize();
      try {
        expect((await seed(russian, { language: 'ru' })).language).toBe('ru');
        expect(await russian.query(`SELECT language FROM clients WHERE id = $1`, [DEMO_CLIENT_ID])).toEqual([{ language: 'ru' }]);
        expect(await demoTexts(russian)).toEqual(expectedTexts('ru'));
      } finally {
        await russian.destroy();
      }
    } finally {
      await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await admin.destroy();
    }
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

/** The demo tenant's seeded texts, as the screens list them. */
async function demoTexts(dataSource: DataSource) {
  const column = async (sql: string) => ((await dataSource.query(sql, [DEMO_CLIENT_ID])) as { v: string }[]).map((row) => row.v);
  return {
    lines: await column(`SELECT name AS v FROM attention_lines WHERE client_id = $1 ORDER BY internal, name`),
    campaigns: await column(`SELECT name || ' / ' || description AS v FROM campaigns WHERE client_id = $1`),
    pauseReasons: await column(`SELECT label AS v FROM pause_reasons WHERE tenant_id = $1 ORDER BY position`),
    poll: await column(
      `SELECT p.name || ' / ' || p.description AS v FROM polls p WHERE p.client_id = $1
       UNION ALL (SELECT q.text || ' ' || array_to_string(q.options, ',') FROM poll_questions q WHERE q.client_id = $1 ORDER BY q.position)`,
    ),
    // Inserted in one statement (one created_at, random ids): compared as sets.
    predefinedMessages: (await column(`SELECT shortcut || ': ' || message AS v FROM predefined_messages WHERE client_id = $1`)).sort(),
    qna: (await column(`SELECT category || ': ' || question || ' ' || answer AS v FROM qna_entries WHERE client_id = $1`)).sort(),
    ivr: await column(`SELECT name || ' / ' || description || ' / ' || (draft_tree::text) AS v FROM ivrs WHERE client_id = $1`),
    trunk: await column(`SELECT name AS v FROM trunks WHERE client_id = $1`),
    outbound: await column(
      `SELECT name AS v FROM phone_lists WHERE client_id = $1
       UNION ALL SELECT name FROM dialer_campaigns WHERE tenant_id = $1
       UNION ALL SELECT name || ' / ' || description || ' / ' || script FROM outbound_templates WHERE tenant_id = $1`,
    ),
  };
}

/** What demoTexts reads when the demo tenant was seeded in `language`. */
function expectedTexts(language: (typeof LANGUAGES)[number]) {
  const content = demoContent(language);
  return {
    lines: [content.lines.customerService, content.lines.helpDesk],
    campaigns: [`${content.lines.campaignName} / ${content.lines.campaignDescription}`],
    pauseReasons: Object.values(content.pauseReasons),
    poll: [
      `${content.poll.name} / ${content.poll.description}`,
      `${content.poll.satisfaction} ${content.poll.options.join(',')}`,
      `${content.poll.recommend} `,
      `${content.poll.solved} `,
    ],
    predefinedMessages: Object.entries(content.predefinedMessages)
      .map(([shortcut, message]) => `${shortcut}: ${message}`)
      .sort(),
    qna: content.qna.map((entry) => `${entry.category}: ${entry.question} ${entry.answer}`).sort(),
    ivr: [expect.stringContaining(`${content.telephony.ivrName} / ${content.telephony.ivrDescription} / `)],
    trunk: [content.telephony.trunkName],
    outbound: [
      content.outbound.listName,
      content.outbound.campaignName,
      `${content.outbound.templateName} / ${content.outbound.templateDescription} / ${content.outbound.script}`,
    ],
  };
}
