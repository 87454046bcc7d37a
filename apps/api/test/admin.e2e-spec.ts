import { QUEUES, type MailJob } from '@centralita/contracts';
import { getQueueToken } from '@nestjs/bullmq';
import type { Queue } from 'bullmq';
import { eventually } from '../../../test/support/eventually';
import { AuditLog } from '../src/modules/admin/audit-log.entity';
import { AttentionLine } from '../src/modules/attention-lines/attention-line.entity';
import { Campaign } from '../src/modules/campaigns/campaign.entity';
import { PredefinedMessage } from '../src/modules/predefined-messages/predefined-message.entity';
import { User } from '../src/modules/users/user.entity';
import { createUser, type TestTenant, twoTenants } from './support/factories';
import { bearer, login, startTestApp, uniqueEmail, type TestApp } from './support/test-app';

const campaign = (overrides: Record<string, unknown> = {}) => ({
  name: 'Spring sale',
  description: 'Inbound chats for the spring sale',
  fromDate: '2026-03-01',
  toDate: '2026-04-30',
  identifier: `SPR${Math.floor(Math.random() * 1e9)}`,
  allowedChatsPerAgent: 3,
  templateCampaign: false,
  customer: 'ACME',
  ...overrides,
});

// Argon2 hashing and logins in beforeAll are slow on shared CI machines.
jest.setTimeout(30_000);

describe('Administration API (e2e)', () => {
  let t: TestApp;
  let tenantA: TestTenant;
  let tenantB: TestTenant;
  let adminA: string;
  let adminB: string;
  let agentA: string;

  beforeAll(async () => {
    t = await startTestApp();
    ({ tenantA, tenantB, adminA, adminB, agentA } = await twoTenants(t));
  });
  afterAll(() => t.close());

  describe('campaigns', () => {
    it('creates a campaign and writes an audit row with its state after', async () => {
      const response = await t
        .http()
        .post('/api/campaigns')
        .set(bearer(adminA))
        .send(campaign({ name: 'Audited' }))
        .expect(200);
      const created = response.body.data;
      expect(created).toMatchObject({ name: 'Audited', allowedChatsPerAgent: 3, customer: 'ACME', templateCampaign: false });
      const audit = await t
        .http()
        .get('/api/audit')
        .query({ entityType: 'campaign', entityId: created.id })
        .set(bearer(adminA))
        .expect(200);
      expect(audit.body.data.items).toHaveLength(1);
      expect(audit.body.data.items[0]).toMatchObject({ action: 'create', before: null, after: { name: 'Audited' } });
    });

    it('refuses 6 chats per agent, names the field, and stores nothing', async () => {
      const body = campaign({ allowedChatsPerAgent: 6 });
      const response = await t.http().post('/api/campaigns').set(bearer(adminA)).send(body).expect(400);
      expect(response.body).toMatchObject({
        statusCode: 400,
        errorCode: 'validation',
        errorMessage: 'allowedChatsPerAgent must be between 1 and 5',
      });
      expect(response.body.data.fields.allowedChatsPerAgent).toEqual(['allowedChatsPerAgent must be between 1 and 5']);
      expect(await t.dataSource.getRepository(Campaign).countBy({ identifier: body.identifier as string })).toBe(0);
    });

    it('refuses missing required fields, listing each', async () => {
      const response = await t
        .http()
        .post('/api/campaigns')
        .set(bearer(adminA))
        .send({ identifier: 'X1', allowedChatsPerAgent: 2 })
        .expect(400);
      expect(Object.keys(response.body.data.fields).sort()).toEqual(['description', 'fromDate', 'name', 'toDate']);
    });

    it('refuses a to date before the from date and an identifier over 20 characters', async () => {
      const dates = await t
        .http()
        .post('/api/campaigns')
        .set(bearer(adminA))
        .send(campaign({ toDate: '2026-02-01' }))
        .expect(400);
      expect(dates.body.errorMessage).toBe('toDate must be after the start date');
      const id = await t
        .http()
        .post('/api/campaigns')
        .set(bearer(adminA))
        .send(campaign({ identifier: 'X'.repeat(21) }))
        .expect(400);
      expect(id.body.errorMessage).toBe('identifier must be at most 20 characters');
    });

    it('answers 409 for an identifier already used in the tenant', async () => {
      const body = campaign();
      await t.http().post('/api/campaigns').set(bearer(adminA)).send(body).expect(200);
      const again = await t.http().post('/api/campaigns').set(bearer(adminA)).send(body).expect(409);
      expect(again.body.errorCode).toBe('conflict');
    });

    it('updates with before and after in the audit trail', async () => {
      const created = (
        await t
          .http()
          .post('/api/campaigns')
          .set(bearer(adminA))
          .send(campaign({ name: 'Before' }))
          .expect(200)
      ).body.data;
      await t
        .http()
        .put(`/api/campaigns/${created.id}`)
        .set(bearer(adminA))
        .send(campaign({ name: 'After', identifier: created.identifier }))
        .expect(200);
      const rows = await t.dataSource.getRepository(AuditLog).find({ where: { entityId: created.id, action: 'update' } });
      expect(rows).toHaveLength(1);
      expect(rows[0].before).toMatchObject({ name: 'Before' });
      expect(rows[0].after).toMatchObject({ name: 'After' });
      expect(rows[0].clientId).toBe(tenantA.client.id);
    });

    it('pages, sorts and filters on the server', async () => {
      const tag = `zz${Date.now()}`;
      for (const n of ['c', 'a', 'b'])
        await t
          .http()
          .post('/api/campaigns')
          .set(bearer(adminA))
          .send(campaign({ name: `${tag}-${n}` }))
          .expect(200);
      const page = await t
        .http()
        .get('/api/campaigns')
        .query({ q: tag, sortField: 'name', sortOrder: 'desc', page: 1, pageSize: 2 })
        .set(bearer(adminA))
        .expect(200);
      expect(page.body.data.total).toBe(3);
      expect(page.body.data.items.map((c: { name: string }) => c.name)).toEqual([`${tag}-c`, `${tag}-b`]);
      await t.http().get('/api/campaigns').query({ sortField: 'password' }).set(bearer(adminA)).expect(400);
    });

    it("answers 404 for another tenant's campaign on read, update and delete", async () => {
      const other = (await t.http().post('/api/campaigns').set(bearer(adminB)).send(campaign()).expect(200)).body.data;
      await t.http().get(`/api/campaigns/${other.id}`).set(bearer(adminA)).expect(404);
      await t.http().put(`/api/campaigns/${other.id}`).set(bearer(adminA)).send(campaign()).expect(404);
      await t.http().delete(`/api/campaigns/${other.id}`).set(bearer(adminA)).expect(404);
      expect((await t.dataSource.getRepository(Campaign).findOneByOrFail({ id: other.id })).name).toBe('Spring sale');
    });

    it('forbids an AGENT to list or change campaigns', async () => {
      await t.http().get('/api/campaigns').set(bearer(agentA)).expect(403);
      const response = await t.http().post('/api/campaigns').set(bearer(agentA)).send(campaign()).expect(403);
      expect(response.body.errorCode).toBe('forbidden');
    });

    it('soft-deletes: the row stays for history but leaves the list', async () => {
      const created = (await t.http().post('/api/campaigns').set(bearer(adminA)).send(campaign()).expect(200)).body.data;
      await t.http().delete(`/api/campaigns/${created.id}`).set(bearer(adminA)).expect(200);
      await t.http().get(`/api/campaigns/${created.id}`).set(bearer(adminA)).expect(404);
      const row = await t.dataSource.getRepository(Campaign).findOne({ where: { id: created.id }, withDeleted: true });
      expect(row?.deletedAt).toBeInstanceOf(Date);
      expect(await t.dataSource.getRepository(AuditLog).countBy({ entityId: created.id, action: 'delete' })).toBe(1);
    });
  });

  describe('predefined messages', () => {
    it('accepts 500 characters and refuses 501', async () => {
      await t
        .http()
        .post('/api/predefined-messages')
        .set(bearer(adminA))
        .send({ message: 'a'.repeat(500), shortcut: '/long', scope: 'tenant' })
        .expect(200);
      const response = await t
        .http()
        .post('/api/predefined-messages')
        .set(bearer(adminA))
        .send({ message: 'b'.repeat(501), shortcut: '/toolong', scope: 'tenant' })
        .expect(400);
      expect(response.body.errorMessage).toBe('message must be at most 500 characters');
      expect(await t.dataSource.getRepository(PredefinedMessage).countBy({ shortcut: '/toolong' })).toBe(0);
    });

    it('needs a line of the tenant for line scope', async () => {
      await t
        .http()
        .post('/api/predefined-messages')
        .set(bearer(adminA))
        .send({ message: 'Hi', shortcut: '/l', scope: 'line' })
        .expect(400);
      const lineB = await t.dataSource
        .getRepository(AttentionLine)
        .save({ clientId: tenantB.client.id, name: 'B line', type: 'inbound', channel: 'WebChat' });
      await t
        .http()
        .post('/api/predefined-messages')
        .set(bearer(adminA))
        .send({ message: 'Hi', shortcut: '/l', scope: 'line', attentionLineId: lineB.id })
        .expect(404);
    });

    it('keeps personal templates to their owner', async () => {
      const mine = (
        await t
          .http()
          .post('/api/predefined-messages')
          .set(bearer(adminA))
          .send({ message: 'Mine', shortcut: '/mine', scope: 'personal' })
          .expect(200)
      ).body.data;
      const other = await createUser(t.dataSource, tenantA, { role: 'ADMIN' });
      const otherToken = (await login(t, other.email, other.password)).accessToken;
      await t.http().get(`/api/predefined-messages/${mine.id}`).set(bearer(otherToken)).expect(404);
      await t.http().get(`/api/predefined-messages/${mine.id}`).set(bearer(adminA)).expect(200);
    });

    it("answers 404 for another tenant's template and 403 for an agent", async () => {
      const other = (
        await t
          .http()
          .post('/api/predefined-messages')
          .set(bearer(adminB))
          .send({ message: 'B', shortcut: '/b', scope: 'tenant' })
          .expect(200)
      ).body.data;
      await t
        .http()
        .put(`/api/predefined-messages/${other.id}`)
        .set(bearer(adminA))
        .send({ message: 'X', shortcut: '/x', scope: 'tenant' })
        .expect(404);
      await t.http().delete(`/api/predefined-messages/${other.id}`).set(bearer(adminA)).expect(404);
      await t
        .http()
        .post('/api/predefined-messages')
        .set(bearer(agentA))
        .send({ message: 'X', shortcut: '/x', scope: 'tenant' })
        .expect(403);
    });

    it('audits updates with before and after', async () => {
      const created = (
        await t
          .http()
          .post('/api/predefined-messages')
          .set(bearer(adminA))
          .send({ message: 'Old', shortcut: '/o', scope: 'tenant' })
          .expect(200)
      ).body.data;
      await t
        .http()
        .put(`/api/predefined-messages/${created.id}`)
        .set(bearer(adminA))
        .send({ message: 'New', shortcut: '/o', scope: 'tenant' })
        .expect(200);
      const audit = await t.http().get('/api/audit').query({ entityId: created.id }).set(bearer(adminA)).expect(200);
      expect(audit.body.data.items[0]).toMatchObject({ action: 'update', before: { message: 'Old' }, after: { message: 'New' } });
    });
  });

  describe('users', () => {
    it('invites a user serving lines and campaigns; accepting sets an argon2id password that is never audited', async () => {
      const line = await t.dataSource
        .getRepository(AttentionLine)
        .save({ clientId: tenantA.client.id, name: `L${Date.now()}`, type: 'inbound', channel: 'WebChat' });
      const camp = (await t.http().post('/api/campaigns').set(bearer(adminA)).send(campaign()).expect(200)).body.data;
      const email = uniqueEmail('new');
      const response = await t
        .http()
        .post('/api/users')
        .set(bearer(adminA))
        .send({
          name: 'New agent',
          email,
          roleId: tenantA.roles.get('AGENT')!.id,
          attentionLineIds: [line.id],
          campaignIds: [camp.id],
        })
        .expect(200);
      expect(response.body.data).toMatchObject({ email, name: 'New agent', roleId: tenantA.roles.get('AGENT')!.id });
      expect(await t.dataSource.getRepository(User).countBy({ email })).toBe(0);

      const mails = t.app.get<Queue<MailJob>>(getQueueToken(QUEUES.mail));
      const token = await eventually(async () => {
        const jobs = await mails.getJobs(['waiting', 'delayed', 'active', 'completed', 'failed', 'prioritized']);
        const text = jobs.find((job) => job?.data.to === email)?.data.text ?? '';
        const match = /\/session\/invitation\/([A-Za-z0-9_-]{43})/.exec(text);
        if (!match) throw new Error(`no invitation mail to ${email} yet`);
        return match[1];
      });
      await t.http().post('/api/invitations/accept').send({ token, password: 'a long passphrase' }).expect(200);
      const stored = await t.dataSource.getRepository(User).findOneByOrFail({ email });
      expect(stored.passwordHash.startsWith('$argon2id$')).toBe(true);
      const detail = (await t.http().get(`/api/users/${stored.id}/detail`).set(bearer(adminA)).expect(200)).body.data;
      expect(detail).toMatchObject({ roleCode: 'AGENT', attentionLineIds: [line.id], campaignIds: [camp.id], active: true });
      await login(t, email, 'a long passphrase');
      const audit = await t.dataSource.getRepository(AuditLog).findOneByOrFail({ entityId: response.body.data.id, action: 'create' });
      expect(JSON.stringify(audit.after)).not.toContain('a long passphrase');
    });

    it('refuses a missing role, and a password (new users choose their own)', async () => {
      const response = await t.http().post('/api/users').set(bearer(adminA)).send({ name: 'X', email: uniqueEmail() }).expect(400);
      expect(response.body.data.fields).toEqual({ roleId: ['roleId is required'] });
      await t
        .http()
        .post('/api/users')
        .set(bearer(adminA))
        .send({ name: 'X', email: uniqueEmail(), roleId: tenantA.roles.get('AGENT')!.id, password: '1234567' })
        .expect(400);
    });

    it("refuses another tenant's role or line with 404", async () => {
      const base = { name: 'X', email: uniqueEmail() };
      await t
        .http()
        .post('/api/users')
        .set(bearer(adminA))
        .send({ ...base, roleId: tenantB.roles.get('AGENT')!.id })
        .expect(404);
      const lineB = await t.dataSource
        .getRepository(AttentionLine)
        .save({ clientId: tenantB.client.id, name: `LB${Date.now()}`, type: 'inbound', channel: 'WebChat' });
      await t
        .http()
        .post('/api/users')
        .set(bearer(adminA))
        .send({ ...base, roleId: tenantA.roles.get('AGENT')!.id, attentionLineIds: [lineB.id] })
        .expect(404);
    });

    it('a new password ends the sessions of the user', async () => {
      const target = await createUser(t.dataSource, tenantA);
      const session = await login(t, target.email, target.password);
      await t.http().get('/api/auth/profile').set(bearer(session.accessToken)).expect(200);
      await t
        .http()
        .put(`/api/users/${target.user.id}`)
        .set(bearer(adminA))
        .send({ name: 'Renamed', roleId: target.user.roleId, password: 'brand new password', active: true })
        .expect(200);
      await t.http().get('/api/auth/profile').set(bearer(session.accessToken)).expect(401);
      await login(t, target.email, 'brand new password');
    });

    it("answers 404 for another tenant's user and 403 for an agent", async () => {
      const b = await createUser(t.dataSource, tenantB);
      await t.http().get(`/api/users/${b.user.id}/detail`).set(bearer(adminA)).expect(404);
      await t.http().put(`/api/users/${b.user.id}`).set(bearer(adminA)).send({ name: 'X', roleId: b.user.roleId }).expect(404);
      await t.http().delete(`/api/users/${b.user.id}`).set(bearer(adminA)).expect(404);
      await t.http().post('/api/users').set(bearer(agentA)).send({}).expect(403);
    });

    it('delete deactivates and audits', async () => {
      const target = await createUser(t.dataSource, tenantA);
      await t.http().delete(`/api/users/${target.user.id}`).set(bearer(adminA)).expect(200);
      expect((await t.dataSource.getRepository(User).findOneByOrFail({ id: target.user.id })).active).toBe(false);
      const row = await t.dataSource.getRepository(AuditLog).findOneByOrFail({ entityId: target.user.id, action: 'delete' });
      expect(row.before).toMatchObject({ active: true });
      expect(row.after).toMatchObject({ active: false });
    });
  });

  describe('audit', () => {
    it('is readable only with audit.view and only for the own tenant', async () => {
      await t.http().get('/api/audit').set(bearer(agentA)).expect(403);
      const b = await t.http().get('/api/audit').set(bearer(adminB)).expect(200);
      const a = await t.http().get('/api/audit').set(bearer(adminA)).expect(200);
      const idsA = new Set(a.body.data.items.map((row: { id: string }) => row.id));
      expect(b.body.data.items.some((row: { id: string }) => idsA.has(row.id))).toBe(false);
    });
  });
});
