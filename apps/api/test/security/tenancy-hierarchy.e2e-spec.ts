import { randomBytes, randomUUID as randomUuid } from 'node:crypto';
import { QUEUES, type MailJob } from '@centralita/contracts';
import { getQueueToken } from '@nestjs/bullmq';
import type { Queue } from 'bullmq';
import { eventually } from '../../../../test/support/eventually';
import { invitePlatformOperator } from '../../src/database/platform-operator';
import { UserInvitation } from '../../src/modules/invitations/user-invitation.entity';
import { Client } from '../../src/modules/tenancy/client.entity';
import { Reseller } from '../../src/modules/tenancy/reseller.entity';
import { User } from '../../src/modules/users/user.entity';
import { createReseller, createTenant, createUser, platformOrganisation, type TestTenant } from '../support/factories';
import { bearer, login, startTestApp, uniqueEmail, type TestApp } from '../support/test-app';

jest.setTimeout(60_000);

const PUBLIC_URL = 'https://console.centralita.test';
const STRONG = 'violet kettle drums at dawn';

/**
 * Issue 17 item 1 — tenancy hierarchy: platform operator > reseller staff > tenant users. Every
 * clients/resellers query is scoped by the caller's level; outside it answers 404. New tenants and
 * users come with invitations, which reveal nothing about addresses known elsewhere.
 */
describe('Security: tenancy hierarchy (e2e)', () => {
  // Own queue prefix and no worker: the invitation mails stay in the mail queue for the test to read.
  const queuePrefix = `${process.env.QUEUE_PREFIX}-tenancy-${randomBytes(3).toString('hex')}`;
  let t: TestApp;
  let mailQueue: Queue<MailJob>;
  let resellerA: Awaited<ReturnType<typeof createReseller>>;
  let resellerB: Awaited<ReturnType<typeof createReseller>>;
  let staffA: string;
  let staffB: string;
  let platform: string;
  let tenantAdminA1: string;
  let tenantA1: TestTenant;
  let tenantA2: TestTenant;
  let tenantB1: TestTenant;

  /** Mails queued to an address, oldest first. */
  const mailsTo = async (email: string): Promise<MailJob[]> =>
    (await mailQueue.getJobs(['waiting', 'delayed', 'active', 'completed', 'failed', 'prioritized']))
      .filter((job) => job?.data.to === email)
      .sort((a, b) => a.timestamp - b.timestamp || Number(a.id) - Number(b.id))
      .map((job) => job.data);
  const invitationToken = (mail: MailJob): string => {
    const match = /https:\/\/console\.centralita\.test\/session\/invitation\/([A-Za-z0-9_-]{43})/.exec(mail.text);
    if (!match) throw new Error(`no invitation link in:\n${mail.text}`);
    return match[1];
  };
  const newestMailTo = (email: string, after = 0): Promise<MailJob> =>
    eventually(async () => {
      const mails = await mailsTo(email);
      if (mails.length <= after) throw new Error(`no new mail to ${email} yet`);
      return mails.at(-1)!;
    });

  beforeAll(async () => {
    t = await startTestApp({ queuePrefix, publicUrl: PUBLIC_URL });
    mailQueue = t.app.get<Queue<MailJob>>(getQueueToken(QUEUES.mail));
    resellerA = await createReseller(t.dataSource, 2);
    resellerB = await createReseller(t.dataSource, 1);
    [tenantA1, tenantA2] = resellerA.tenants;
    [tenantB1] = resellerB.tenants;
    const a = await createUser(t.dataSource, resellerA.staff, { role: 'RESELLER_ADMIN' });
    const b = await createUser(t.dataSource, resellerB.staff, { role: 'RESELLER_ADMIN' });
    const p = await createUser(t.dataSource, await platformOrganisation(t.dataSource), { role: 'PLATFORM_ADMIN' });
    const admin = await createUser(t.dataSource, tenantA1, { role: 'ADMIN' });
    staffA = (await login(t, a.email, a.password)).accessToken;
    staffB = (await login(t, b.email, b.password)).accessToken;
    platform = (await login(t, p.email, p.password)).accessToken;
    tenantAdminA1 = (await login(t, admin.email, admin.password)).accessToken;
  });
  afterAll(() => t?.close());

  const ids = (body: { data: { items: { id: string }[] } }) => body.data.items.map((item) => item.id).sort();

  describe('reseller staff', () => {
    it('list, read and update only the tenants of their own reseller', async () => {
      const list = await t.http().get('/api/clients').query({ pageSize: 200 }).set(bearer(staffA)).expect(200);
      expect(ids(list.body)).toEqual([tenantA1.client.id, tenantA2.client.id].sort());
      await t.http().get(`/api/clients/${tenantA2.client.id}`).set(bearer(staffA)).expect(200);
      const updated = await t
        .http()
        .put(`/api/clients/${tenantA2.client.id}`)
        .set(bearer(staffA))
        .send({ name: `Renamed ${randomBytes(3).toString('hex')}`, subscriptionPlan: 'gold' })
        .expect(200);
      expect(updated.body.data).toMatchObject({ subscriptionPlan: 'gold', resellerId: resellerA.reseller.id });
    });

    it("get 404 on another reseller's tenant, on its staff organisation and on their own staff organisation", async () => {
      for (const id of [tenantB1.client.id, resellerB.staff.client.id, resellerA.staff.client.id]) {
        await t.http().get(`/api/clients/${id}`).set(bearer(staffA)).expect(404);
        await t.http().put(`/api/clients/${id}`).set(bearer(staffA)).send({ name: 'Hijacked', subscriptionPlan: 'free' }).expect(404);
      }
      expect((await t.dataSource.getRepository(Client).findOneByOrFail({ id: tenantB1.client.id })).name).not.toBe('Hijacked');
      await t.http().get(`/api/resellers/${resellerB.reseller.id}`).set(bearer(staffA)).expect(404);
      await t.http().put(`/api/resellers/${resellerB.reseller.id}`).set(bearer(staffA)).send({ name: 'Hijacked' }).expect(404);
    });

    it('create tenants only under their own reseller (another reseller in the body answers 404 and stores nothing)', async () => {
      const name = `Smuggled ${randomBytes(3).toString('hex')}`;
      await t
        .http()
        .post('/api/clients')
        .set(bearer(staffA))
        .send({ name, adminEmail: uniqueEmail('first'), adminName: 'First', resellerId: resellerB.reseller.id })
        .expect(404);
      expect(await t.dataSource.getRepository(Client).countBy({ name })).toBe(0);
    });

    it('rename their own reseller and its staff organisation follows', async () => {
      const name = `Brand ${randomBytes(3).toString('hex')}`;
      await t.http().put('/api/resellers/current').set(bearer(staffA)).send({ name }).expect(200);
      expect((await t.http().get('/api/resellers/current').set(bearer(staffA)).expect(200)).body.data).toMatchObject({
        id: resellerA.reseller.id,
        name,
        tenantCount: 2,
      });
      expect((await t.dataSource.getRepository(Client).findOneByOrFail({ id: resellerA.staff.client.id })).name).toBe(name);
    });
  });

  describe('a tenant administrator', () => {
    it('lists and reads only its own tenant, and gets 404 on a sibling tenant', async () => {
      const list = await t.http().get('/api/clients').set(bearer(tenantAdminA1)).expect(200);
      expect(ids(list.body)).toEqual([tenantA1.client.id]);
      await t.http().get(`/api/clients/${tenantA2.client.id}`).set(bearer(tenantAdminA1)).expect(404);
      await t
        .http()
        .put(`/api/clients/${tenantA2.client.id}`)
        .set(bearer(tenantAdminA1))
        .send({ name: tenantA2.client.name, allowedOrigins: ['https://evil.example'] })
        .expect(404);
      const [row] = await t.dataSource.query(`SELECT allowed_origins FROM clients WHERE id = $1`, [tenantA2.client.id]);
      expect(row.allowed_origins).toEqual([]);
    });

    it('gets 404 on its reseller, cannot rename it, and cannot list or create resellers or tenants', async () => {
      const before = (await t.dataSource.getRepository(Reseller).findOneByOrFail({ id: resellerA.reseller.id })).name;
      await t.http().get('/api/resellers/current').set(bearer(tenantAdminA1)).expect(404);
      await t.http().put('/api/resellers/current').set(bearer(tenantAdminA1)).send({ name: 'Hijacked brand' }).expect(404);
      expect((await t.dataSource.getRepository(Reseller).findOneByOrFail({ id: resellerA.reseller.id })).name).toBe(before);
      await t.http().get('/api/resellers').set(bearer(tenantAdminA1)).expect(403);
      const sibling = `Sibling ${randomBytes(3).toString('hex')}`;
      await t
        .http()
        .post('/api/clients')
        .set(bearer(tenantAdminA1))
        .send({ name: sibling, adminEmail: uniqueEmail(), adminName: 'X' })
        .expect(403);
      expect(await t.dataSource.getRepository(Client).countBy({ name: sibling })).toBe(0);
    });

    it('edits its own branding and origins, but not its plan or name', async () => {
      const plan = (await t.dataSource.getRepository(Client).findOneByOrFail({ id: tenantA1.client.id })).subscriptionPlan;
      await t
        .http()
        .put(`/api/clients/${tenantA1.client.id}`)
        .set(bearer(tenantAdminA1))
        .send({ name: tenantA1.client.name, subscriptionPlan: plan, mainColor: '#0f766e', allowedOrigins: ['https://shop.example'] })
        .expect(200);
      const refused = await t
        .http()
        .put(`/api/clients/${tenantA1.client.id}`)
        .set(bearer(tenantAdminA1))
        .send({ name: tenantA1.client.name, subscriptionPlan: 'enterprise-free' })
        .expect(403);
      expect(refused.body.errorCode).toBe('forbidden');
      const stored = await t.dataSource.getRepository(Client).findOneByOrFail({ id: tenantA1.client.id });
      expect(stored).toMatchObject({ subscriptionPlan: plan, mainColor: '#0f766e', allowedOrigins: ['https://shop.example'] });
    });

    it('holds no cross-tenant permission even if its role row says so', async () => {
      const tenant = await createTenant(t.dataSource);
      const role = tenant.roles.get('ADMIN')!;
      await t.dataSource.query(
        `UPDATE roles SET permissions = permissions || ARRAY['resellers.manage','tenants.manage','platform.manage'] WHERE id = $1`,
        [role.id],
      );
      const admin = await createUser(t.dataSource, tenant, { role: 'ADMIN' });
      const token = (await login(t, admin.email, admin.password)).accessToken;
      const profile = (await t.http().get('/api/auth/profile').set(bearer(token)).expect(200)).body.data;
      expect(profile.level).toBe('tenant');
      expect(profile.permissions).not.toContain('tenants.manage');
      await t.http().get('/api/resellers').set(bearer(token)).expect(403);
      await t.http().get('/api/resellers/current').set(bearer(token)).expect(404);
      await t.http().post('/api/clients').set(bearer(token)).send({ name: 'Nope', adminEmail: uniqueEmail(), adminName: 'N' }).expect(403);
    });
  });

  describe('the platform operator', () => {
    it('sees the tenants of every reseller, and every reseller', async () => {
      const list = await t.http().get('/api/clients').query({ pageSize: 200 }).set(bearer(platform)).expect(200);
      const seen = ids(list.body);
      for (const id of [tenantA1.client.id, tenantA2.client.id, tenantB1.client.id]) expect(seen).toContain(id);
      // Staff organisations are never customers, for anyone.
      expect(seen).not.toContain(resellerA.staff.client.id);
      const resellers = await t.http().get('/api/resellers').query({ pageSize: 200 }).set(bearer(platform)).expect(200);
      expect(ids(resellers.body)).toEqual(expect.arrayContaining([resellerA.reseller.id, resellerB.reseller.id]));
      await t.http().get(`/api/clients/${tenantB1.client.id}`).set(bearer(platform)).expect(200);
    });

    it('creates a reseller whose first administrator accepts the invitation and manages its tenants', async () => {
      const adminEmail = uniqueEmail('reseller-admin');
      const name = `New brand ${randomBytes(3).toString('hex')}`;
      const created = (
        await t.http().post('/api/resellers').set(bearer(platform)).send({ name, adminEmail, adminName: 'Rita Reseller' }).expect(200)
      ).body.data;
      const mail = await newestMailTo(adminEmail);
      const session = (
        await t
          .http()
          .post('/api/invitations/accept')
          .send({ token: invitationToken(mail), password: STRONG })
          .expect(200)
      ).body.data;
      expect(session.user).toMatchObject({ role: 'RESELLER_ADMIN', level: 'reseller', email: adminEmail });
      const list = await t.http().get('/api/clients').set(bearer(session.accessToken)).expect(200);
      expect(list.body.data.items).toEqual([]);
      expect((await t.http().get('/api/resellers/current').set(bearer(session.accessToken)).expect(200)).body.data.id).toBe(created.id);
      // Reseller staff cannot create resellers.
      await t
        .http()
        .post('/api/resellers')
        .set(bearer(session.accessToken))
        .send({ name: 'x', adminEmail: uniqueEmail(), adminName: 'x' })
        .expect(403);
    });
  });

  describe('bootstrapping a deployment', () => {
    it('the CLI invitation (printed, never mailed) makes a platform operator without SQL', async () => {
      const email = uniqueEmail('operator');
      const { link } = await invitePlatformOperator(t.dataSource, { email, name: 'Olga Operator', publicUrl: PUBLIC_URL });
      const token = link.split('/').at(-1)!;
      const session = (await t.http().post('/api/invitations/accept').send({ token, password: STRONG }).expect(200)).body.data;
      expect(session.user).toMatchObject({ email, role: 'PLATFORM_ADMIN', level: 'platform' });
      await t.http().get('/api/resellers').set(bearer(session.accessToken)).expect(200);
      await expect(invitePlatformOperator(t.dataSource, { email, name: 'Again', publicUrl: PUBLIC_URL })).rejects.toThrow(
        /already has an account/,
      );
    });
  });

  describe('creating a tenant', () => {
    it('creates the tenant, its roles and an invitation; the mailed link signs the first administrator in, once', async () => {
      const adminEmail = uniqueEmail('first-admin');
      const created = (
        await t
          .http()
          .post('/api/clients')
          .set(bearer(staffA))
          .send({ name: `Fresh ${randomBytes(3).toString('hex')}`, subscriptionPlan: 'basic', adminEmail, adminName: 'Fiona First' })
          .expect(200)
      ).body.data;
      expect(created.invitation).toMatchObject({ email: adminEmail, name: 'Fiona First', roleName: 'Administrator' });
      expect(await t.dataSource.getRepository(User).countBy({ email: adminEmail })).toBe(0);

      const mail = await newestMailTo(adminEmail);
      expect(mail.text).toContain('Fiona First');
      const token = invitationToken(mail);
      const stored = await t.dataSource.getRepository(UserInvitation).findOneByOrFail({ email: adminEmail });
      expect(stored.tokenHash).not.toContain(token); // stored hashed

      const check = (await t.http().post('/api/invitations/check').send({ token }).expect(200)).body.data;
      expect(check).toMatchObject({ valid: true, email: adminEmail, organisationName: created.name });
      const weak = await t.http().post('/api/invitations/accept').send({ token, password: 'password1' }).expect(400);
      expect(weak.body.errorCode).toBe('weak_password');
      expect(await t.dataSource.getRepository(User).countBy({ email: adminEmail })).toBe(0);

      const session = (await t.http().post('/api/invitations/accept').send({ token, password: STRONG }).expect(200)).body.data;
      expect(session.user).toMatchObject({ email: adminEmail, role: 'ADMIN', level: 'tenant', clientId: created.id });
      const clients = await t.http().get('/api/clients').set(bearer(session.accessToken)).expect(200);
      expect(ids(clients.body)).toEqual([created.id]);
      await login(t, adminEmail, STRONG);

      const again = await t.http().post('/api/invitations/accept').send({ token, password: STRONG }).expect(400);
      expect(again.body.errorCode).toBe('invitation_invalid');
      await t.http().post('/api/invitations/check').send({ token }).expect(400);
      expect(await t.dataSource.getRepository(User).countBy({ email: adminEmail })).toBe(1);
    });

    it('refuses an expired invitation, and a re-sent one replaces the old link', async () => {
      const email = uniqueEmail('late');
      const invited = (
        await t
          .http()
          .post('/api/users')
          .set(bearer(tenantAdminA1))
          .send({ name: 'Lena Late', email, roleId: tenantA1.roles.get('AGENT')!.id })
          .expect(200)
      ).body.data;
      const first = invitationToken(await newestMailTo(email));
      await t.dataSource.query(`UPDATE user_invitations SET expires_at = now() - interval '1 second' WHERE id = $1`, [invited.id]);
      const expired = await t.http().post('/api/invitations/accept').send({ token: first, password: STRONG }).expect(400);
      expect(expired.body.errorCode).toBe('invitation_invalid');
      expect(await t.dataSource.getRepository(User).countBy({ email })).toBe(0);

      const before = (await mailsTo(email)).length;
      await t.http().post(`/api/invitations/${invited.id}/resend`).set(bearer(tenantAdminA1)).expect(200);
      const second = invitationToken(await newestMailTo(email, before));
      expect(second).not.toBe(first);
      await t.http().post('/api/invitations/accept').send({ token: first, password: STRONG }).expect(400);
      const session = (await t.http().post('/api/invitations/accept').send({ token: second, password: STRONG }).expect(200)).body.data;
      expect(session.user).toMatchObject({ email, role: 'AGENT', clientId: tenantA1.client.id });
      // Another tenant's administrator cannot see, re-send or revoke it.
      await t.http().post(`/api/invitations/${invited.id}/resend`).set(bearer(staffB)).expect(404);
    });
  });

  describe("a tenant's first administrator, managed from above", () => {
    /** A fresh tenant of reseller A created through the API, with its first-admin invitation. */
    const freshTenant = async (caller: string, extra: Record<string, unknown> = {}) => {
      const adminEmail = uniqueEmail('first');
      const created = (
        await t
          .http()
          .post('/api/clients')
          .set(bearer(caller))
          .send({ name: `Stranded ${randomBytes(3).toString('hex')}`, adminEmail, adminName: 'Fay First', ...extra })
          .expect(200)
      ).body.data;
      return { id: created.id as string, invitationId: created.invitation.id as string, adminEmail };
    };

    it('reseller staff see an expired first invitation, re-send it with a new link that signs the admin in', async () => {
      const tenant = await freshTenant(staffA);
      const first = invitationToken(await newestMailTo(tenant.adminEmail));
      await t.dataSource.query(`UPDATE user_invitations SET expires_at = now() - interval '1 second' WHERE id = $1`, [tenant.invitationId]);

      const state = (await t.http().get(`/api/clients/${tenant.id}/invitations`).set(bearer(staffA)).expect(200)).body.data;
      expect(state.activeAdmins).toBe(0);
      expect(state.invitations).toEqual([
        expect.objectContaining({ id: tenant.invitationId, email: tenant.adminEmail, name: 'Fay First' }),
      ]);
      expect(new Date(state.invitations[0].expiresAt).getTime()).toBeLessThan(Date.now());

      const before = (await mailsTo(tenant.adminEmail)).length;
      const resent = (
        await t.http().post(`/api/clients/${tenant.id}/invitations/${tenant.invitationId}/resend`).set(bearer(staffA)).expect(200)
      ).body.data;
      expect(new Date(resent.expiresAt).getTime()).toBeGreaterThan(Date.now() + 6 * 24 * 3600 * 1000);
      const second = invitationToken(await newestMailTo(tenant.adminEmail, before));
      expect(second).not.toBe(first);
      await t.http().post('/api/invitations/accept').send({ token: first, password: STRONG }).expect(400);
      const session = (await t.http().post('/api/invitations/accept').send({ token: second, password: STRONG }).expect(200)).body.data;
      expect(session.user).toMatchObject({ email: tenant.adminEmail, role: 'ADMIN', clientId: tenant.id });

      const after = (await t.http().get(`/api/clients/${tenant.id}/invitations`).set(bearer(staffA)).expect(200)).body.data;
      expect(after).toEqual({ activeAdmins: 1, invitations: [] });
    });

    it('reseller staff revoke a mistyped first invitation and invite the right address', async () => {
      const tenant = await freshTenant(staffA);
      const wrong = invitationToken(await newestMailTo(tenant.adminEmail));
      await t.http().delete(`/api/clients/${tenant.id}/invitations/${tenant.invitationId}`).set(bearer(staffA)).expect(200);
      await t.http().post('/api/invitations/check').send({ token: wrong }).expect(400);
      expect((await t.dataSource.getRepository(UserInvitation).findOneByOrFail({ id: tenant.invitationId })).revokedAt).not.toBeNull();

      const right = uniqueEmail('right');
      const invited = (
        await t
          .http()
          .post(`/api/clients/${tenant.id}/invitations`)
          .set(bearer(staffA))
          .send({ adminEmail: right, adminName: 'Rhea Right' })
          .expect(200)
      ).body.data;
      expect(invited).toMatchObject({ email: right, name: 'Rhea Right', roleName: 'Administrator' });
      const token = invitationToken(await newestMailTo(right));
      const session = (await t.http().post('/api/invitations/accept').send({ token, password: STRONG }).expect(200)).body.data;
      expect(session.user).toMatchObject({ email: right, role: 'ADMIN', level: 'tenant', clientId: tenant.id });

      const bad = await t
        .http()
        .post(`/api/clients/${tenant.id}/invitations`)
        .set(bearer(staffA))
        .send({ adminEmail: 'not-an-email', adminName: '' })
        .expect(400);
      expect(bad.body.errorCode).toBe('validation');
    });

    it('the platform manages the first invitation of any reseller’s tenant', async () => {
      const tenant = await freshTenant(platform, { resellerId: resellerB.reseller.id });
      const state = (await t.http().get(`/api/clients/${tenant.id}/invitations`).set(bearer(platform)).expect(200)).body.data;
      expect(state.invitations.map((i: { id: string }) => i.id)).toEqual([tenant.invitationId]);
      const before = (await mailsTo(tenant.adminEmail)).length;
      await t.http().post(`/api/clients/${tenant.id}/invitations/${tenant.invitationId}/resend`).set(bearer(platform)).expect(200);
      await newestMailTo(tenant.adminEmail, before);
    });

    it("another reseller's staff get 404, tenant administrators 403, and nothing changes or is mailed", async () => {
      const tenant = await freshTenant(staffA);
      const stored = await t.dataSource.getRepository(UserInvitation).findOneByOrFail({ id: tenant.invitationId });
      const mails = (await mailsTo(tenant.adminEmail)).length;
      for (const caller of [staffB, tenantAdminA1]) {
        await t
          .http()
          .get(`/api/clients/${tenant.id}/invitations`)
          .set(bearer(caller))
          .expect(caller === staffB ? 404 : 403);
        await t
          .http()
          .post(`/api/clients/${tenant.id}/invitations/${tenant.invitationId}/resend`)
          .set(bearer(caller))
          .expect(caller === staffB ? 404 : 403);
        await t
          .http()
          .delete(`/api/clients/${tenant.id}/invitations/${tenant.invitationId}`)
          .set(bearer(caller))
          .expect(caller === staffB ? 404 : 403);
        await t
          .http()
          .post(`/api/clients/${tenant.id}/invitations`)
          .set(bearer(caller))
          .send({ adminEmail: uniqueEmail('intruder'), adminName: 'Ivo Intruder' })
          .expect(caller === staffB ? 404 : 403);
      }
      // Through a tenant of its own, reseller staff cannot reach another tenant's invitation either.
      const foreign = (
        await t
          .http()
          .post('/api/users')
          .set(bearer(tenantAdminA1))
          .send({ name: 'Otto Other', email: uniqueEmail('other'), roleId: tenantA1.roles.get('ADMIN')!.id })
          .expect(200)
      ).body.data;
      await t.http().post(`/api/clients/${tenant.id}/invitations/${foreign.id}/resend`).set(bearer(staffA)).expect(404);
      await t.http().delete(`/api/clients/${tenant.id}/invitations/${foreign.id}`).set(bearer(staffA)).expect(404);
      expect((await t.dataSource.getRepository(UserInvitation).findOneByOrFail({ id: foreign.id })).revokedAt).toBeNull();

      expect(await t.dataSource.getRepository(UserInvitation).findOneByOrFail({ id: tenant.invitationId })).toMatchObject({
        tokenHash: stored.tokenHash,
        revokedAt: null,
      });
      expect(await t.dataSource.getRepository(UserInvitation).countBy({ clientId: tenant.id })).toBe(1);
      expect((await mailsTo(tenant.adminEmail)).length).toBe(mails);
    });
  });

  describe("a reseller's first administrator, managed by the platform", () => {
    it('the platform re-sends an expired first invitation of a reseller; reseller staff and tenants cannot reach it', async () => {
      const adminEmail = uniqueEmail('brand-admin');
      const created = (
        await t
          .http()
          .post('/api/resellers')
          .set(bearer(platform))
          .send({ name: `Stranded brand ${randomBytes(3).toString('hex')}`, adminEmail, adminName: 'Bea Brand' })
          .expect(200)
      ).body.data;
      const first = invitationToken(await newestMailTo(adminEmail));
      const invitationId = created.invitation.id as string;
      await t.dataSource.query(`UPDATE user_invitations SET expires_at = now() - interval '1 second' WHERE id = $1`, [invitationId]);

      for (const caller of [staffA, tenantAdminA1]) {
        await t.http().get(`/api/resellers/${created.id}/invitations`).set(bearer(caller)).expect(403);
        await t.http().post(`/api/resellers/${created.id}/invitations/${invitationId}/resend`).set(bearer(caller)).expect(403);
        await t.http().delete(`/api/resellers/${created.id}/invitations/${invitationId}`).set(bearer(caller)).expect(403);
      }
      // An unknown reseller answers 404.
      await t.http().get(`/api/resellers/${randomUuid()}/invitations`).set(bearer(platform)).expect(404);

      const state = (await t.http().get(`/api/resellers/${created.id}/invitations`).set(bearer(platform)).expect(200)).body.data;
      expect(state).toMatchObject({ activeAdmins: 0, invitations: [expect.objectContaining({ id: invitationId, email: adminEmail })] });
      const before = (await mailsTo(adminEmail)).length;
      await t.http().post(`/api/resellers/${created.id}/invitations/${invitationId}/resend`).set(bearer(platform)).expect(200);
      const second = invitationToken(await newestMailTo(adminEmail, before));
      await t.http().post('/api/invitations/accept').send({ token: first, password: STRONG }).expect(400);
      const session = (await t.http().post('/api/invitations/accept').send({ token: second, password: STRONG }).expect(200)).body.data;
      expect(session.user).toMatchObject({ email: adminEmail, role: 'RESELLER_ADMIN', level: 'reseller' });
      expect((await t.http().get(`/api/resellers/${created.id}/invitations`).set(bearer(platform)).expect(200)).body.data).toEqual({
        activeAdmins: 1,
        invitations: [],
      });
    });
  });

  describe('adding a user', () => {
    it('answers an address with an account in another tenant exactly like a new one, and creates no user', async () => {
      const elsewhere = await createUser(t.dataSource, tenantB1, { role: 'AGENT' });
      const agentRole = tenantA1.roles.get('AGENT')!.id;
      const fresh = uniqueEmail('fresh');
      const send = (email: string) =>
        t.http().post('/api/users').set(bearer(tenantAdminA1)).send({ name: 'Same Name', email, roleId: agentRole });
      const known = await send(elsewhere.email).expect(200);
      const unknown = await send(fresh).expect(200);
      const shape = (body: { data: Record<string, unknown> }) => ({
        ...body,
        data: { ...body.data, id: '<id>', email: '<email>', expiresAt: '<t>', createdAt: '<t>' },
      });
      expect(shape(known.body)).toEqual(shape(unknown.body));
      expect(Object.keys(known.body.data).sort()).toEqual(['createdAt', 'email', 'expiresAt', 'id', 'name', 'roleId', 'roleName']);

      // The pending list shows both alike; the existing account is untouched and no second user exists.
      const pending = (await t.http().get('/api/invitations').set(bearer(tenantAdminA1)).expect(200)).body.data;
      expect(pending.map((p: { email: string }) => p.email)).toEqual(expect.arrayContaining([elsewhere.email, fresh]));
      expect(await t.dataSource.getRepository(User).findBy({ email: elsewhere.email })).toEqual([
        expect.objectContaining({ id: elsewhere.user.id, clientId: tenantB1.client.id }),
      ]);

      // Only the owner of the address learns it already has an account; that mail carries no usable link.
      const notice = await newestMailTo(elsewhere.email);
      expect(notice.text).toContain('already has a Centralita account');
      expect(notice.text).not.toMatch(/session\/invitation\//);
      const invite = await newestMailTo(fresh);
      expect(invite.text).toMatch(/session\/invitation\/[A-Za-z0-9_-]{43}/);
    });

    it('still says so for a user of the own tenant, and refuses a password in the body', async () => {
      const own = await createUser(t.dataSource, tenantA1, { role: 'AGENT' });
      const dup = await t
        .http()
        .post('/api/users')
        .set(bearer(tenantAdminA1))
        .send({ name: 'Dup', email: own.email, roleId: tenantA1.roles.get('AGENT')!.id })
        .expect(409);
      expect(dup.body.errorCode).toBe('user_exists');
      const withPassword = uniqueEmail('pw');
      await t
        .http()
        .post('/api/users')
        .set(bearer(tenantAdminA1))
        .send({ name: 'Pw', email: withPassword, roleId: tenantA1.roles.get('AGENT')!.id, password: 'a long passphrase here' })
        .expect(400);
      expect(await t.dataSource.getRepository(UserInvitation).countBy({ email: withPassword })).toBe(0);
    });
  });
});
