import { randomBytes } from 'node:crypto';
import { devMailboxKey, type DevMailboxEntry, type Envelope } from '@centralita/contracts';
import type { INestApplicationContext } from '@nestjs/common';
import { eventually } from '../../../../test/support/eventually';
import { createWorker } from '../../../worker/src/main';
import { DEMO_CLIENT_ID } from '../../src/database/seed-ids';
import { RegistrationRequest } from '../../src/modules/auth/registration-request.entity';
import { User } from '../../src/modules/users/user.entity';
import { createTenant, createUser } from '../support/factories';
import { bearer, login, startTestApp, uniqueEmail, type TestApp } from '../support/test-app';

/**
 * Issue 17 item 4, class "nothing for development reachable in a deployment". Before: the dev
 * mailbox was public whenever NODE_ENV was not production (and `npm start` ran development on every
 * interface), so anyone could request a reset for any account and read the link; self-registration
 * added AGENT users to the demo tenant and signed them in, answering 409 for a known address.
 */
describe('Security: development surfaces (e2e)', () => {
  const passphrase = 'a long enough passphrase';

  describe('by default (no DEV_MAILBOX, no SELF_REGISTRATION)', () => {
    let t: TestApp;
    beforeAll(async () => {
      t = await startTestApp();
    });
    afterAll(() => t?.close());

    it('has no dev mailbox at all: 404 with or without an administrator session', async () => {
      const tenant = await createTenant(t.dataSource);
      const admin = await createUser(t.dataSource, tenant, { role: 'ADMIN' });
      const { accessToken } = await login(t, admin.email, admin.password);
      await t.http().get('/api/dev/mailbox').expect(404);
      await t.http().get('/api/dev/mailbox').set(bearer(accessToken)).expect(404);
    });

    it('refuses self-registration (403) and stores nothing; the console is told it is closed', async () => {
      const email = uniqueEmail('closed');
      const response = await t.http().post('/api/auth/register').send({ email, username: 'Nobody', password: passphrase }).expect(403);
      expect(response.body).toMatchObject({ statusCode: 403, errorCode: 'forbidden', errorMessage: 'Self-registration is disabled.' });
      expect(await t.dataSource.getRepository(User).countBy({ email })).toBe(0);
      expect(await t.dataSource.getRepository(RegistrationRequest).countBy({ email })).toBe(0);
      expect((await t.http().get('/api/auth/registration').expect(200)).body.data).toEqual({ enabled: false });
      await t
        .http()
        .post('/api/auth/register/confirm')
        .send({ token: 'x'.repeat(43) })
        .expect(403);
    });
  });

  describe('a production-like start (NODE_ENV=production, no dev flag)', () => {
    it('exposes no development surface', async () => {
      const production = await startTestApp({ nodeEnv: 'production' });
      try {
        await production.http().get('/api/dev/mailbox').expect(404);
        expect((await production.http().get('/api/auth/registration').expect(200)).body.data).toEqual({ enabled: false });
        await production
          .http()
          .post('/api/auth/register')
          .send({ email: uniqueEmail('prod'), username: 'P', password: passphrase })
          .expect(403);
      } finally {
        await production.close();
      }
    });
  });

  describe('with DEV_MAILBOX=on and SELF_REGISTRATION=on (what `npm run dev` and an operator may set)', () => {
    // Own prefix: this worker (no SMTP, mailbox on) takes only this suite's mail jobs.
    const queuePrefix = `${process.env.QUEUE_PREFIX}-devsurf-${randomBytes(3).toString('hex')}`;
    let t: TestApp;
    let worker: INestApplicationContext;

    beforeAll(async () => {
      worker = await createWorker({ config: { queuePrefix, smtpUrl: null, devMailbox: true }, logger: ['error'] });
      t = await startTestApp({ queuePrefix, devMailbox: true, selfRegistration: { enabled: true, resellerId: null } });
    });
    afterAll(async () => {
      await t?.close();
      await worker?.close();
    });

    const kept = async (): Promise<DevMailboxEntry[]> =>
      (await t.redis.lrange(devMailboxKey(queuePrefix), 0, -1)).map((raw) => JSON.parse(raw) as DevMailboxEntry);
    const mailTo = (email: string) =>
      eventually(async () => {
        const found = (await kept()).filter((entry) => entry.to === email);
        expect(found.length).toBeGreaterThan(0);
        return found;
      });

    it('requires an administrator session: 401 anonymous, 403 for an agent', async () => {
      const tenant = await createTenant(t.dataSource);
      const agent = await createUser(t.dataSource, tenant, { role: 'AGENT' });
      const { accessToken } = await login(t, agent.email, agent.password);
      const anonymous = await t.http().get('/api/dev/mailbox').expect(401);
      expect(anonymous.body.data).toBeNull();
      const refused = await t.http().get('/api/dev/mailbox').set(bearer(accessToken)).expect(403);
      expect(refused.body).toMatchObject({ errorCode: 'forbidden', data: null });
    });

    it("lists to an administrator only the mail of their own tenant's users", async () => {
      const tenantA = await createTenant(t.dataSource);
      const tenantB = await createTenant(t.dataSource);
      const adminA = await createUser(t.dataSource, tenantA, { role: 'ADMIN' });
      const userA = await createUser(t.dataSource, tenantA);
      const userB = await createUser(t.dataSource, tenantB);
      await t.http().post('/Session/SendResetPasswordEmail').send({ email: userA.email }).expect(200);
      await t.http().post('/Session/SendResetPasswordEmail').send({ email: userB.email }).expect(200);
      await mailTo(userA.email);
      await mailTo(userB.email);

      const { accessToken } = await login(t, adminA.email, adminA.password);
      const mine = (await t.http().get('/api/dev/mailbox').set(bearer(accessToken)).expect(200)).body.data as DevMailboxEntry[];
      expect(mine.map((entry) => entry.to)).toContain(userA.email);
      expect(mine.map((entry) => entry.to)).not.toContain(userB.email);
      expect(mine.every((entry) => entry.clientId === tenantA.client.id)).toBe(true);
      // Asking for the other tenant's address by name does not reach it either.
      const other = await t.http().get('/api/dev/mailbox').query({ to: userB.email }).set(bearer(accessToken)).expect(200);
      expect(other.body.data).toEqual([]);
    });

    it('answers the reset request identically for known and unknown addresses', async () => {
      const tenant = await createTenant(t.dataSource);
      const known = await createUser(t.dataSource, tenant);
      const unknown = uniqueEmail('nobody');
      const a = await t.http().post('/Session/SendResetPasswordEmail').send({ email: known.email }).expect(200);
      const b = await t.http().post('/Session/SendResetPasswordEmail').send({ email: unknown }).expect(200);
      expect(a.body).toEqual(b.body);
      expect(a.body).toEqual({ statusCode: 200, data: { accepted: true }, errorMessage: null });
      await mailTo(known.email);
    });

    it('answers registration identically for a new and an existing address, and signs nobody in', async () => {
      const tenant = await createTenant(t.dataSource);
      const existing = await createUser(t.dataSource, tenant, { role: 'AGENT' });
      const fresh = uniqueEmail('fresh');
      const forNew = await t.http().post('/api/auth/register').send({ email: fresh, username: 'Fresh', password: passphrase }).expect(200);
      const forExisting = await t
        .http()
        .post('/api/auth/register')
        .send({ email: existing.email.toUpperCase(), username: 'Copy', password: passphrase })
        .expect(200);
      expect(forExisting.body).toEqual(forNew.body);
      expect(forNew.body).toEqual({ statusCode: 200, data: { accepted: true }, errorMessage: null });
      expect(JSON.stringify(forNew.body)).not.toMatch(/accessToken|refreshToken/);

      // The known address is told it already has an account; nothing else happens to it.
      const [notice] = await mailTo(existing.email);
      expect(notice.subject).toMatch(/You already have an account/);
      expect(notice.text).not.toMatch(/\/session\/activate\//);
      expect(await t.dataSource.getRepository(User).countBy({ email: existing.email })).toBe(1);
      expect(await t.dataSource.getRepository(RegistrationRequest).countBy({ email: existing.email })).toBe(0);
      // The new address gets a link and no account until it is opened.
      const [confirmation] = await mailTo(fresh);
      expect(confirmation.text).toMatch(/\/session\/activate\/[A-Za-z0-9_-]{43}/);
      expect(await t.dataSource.getRepository(User).countBy({ email: fresh })).toBe(0);
    });

    it('lands a confirmed registration in a NEW tenant of its own, as its ADMIN, never an existing one', async () => {
      const email = uniqueEmail('founder');
      await t.http().post('/api/auth/register').send({ email, username: 'Founder', password: passphrase }).expect(200);
      const [mail] = await mailTo(email);
      // Nobody can read it in the mailbox: no organisation exists yet.
      expect(mail.clientId).toBeNull();
      const token = /\/session\/activate\/([A-Za-z0-9_-]{43})/.exec(mail.text)![1];

      const confirmed = await t.http().post('/api/auth/register/confirm').send({ token }).expect(200);
      expect(confirmed.body.data).toEqual({ activated: true, email });
      const user = await t.dataSource.getRepository(User).findOneOrFail({ where: { email }, relations: { role: true, client: true } });
      expect(user.role!.code).toBe('ADMIN');
      expect(user.clientId).not.toBe(DEMO_CLIENT_ID);
      expect(user.client!.kind).toBe('tenant');
      expect(user.client!.createdAt.getTime()).toBeGreaterThan(Date.now() - 60_000);
      expect(await t.dataSource.getRepository(User).countBy({ clientId: user.clientId })).toBe(1);

      const session = await login(t, email, passphrase);
      expect(session.user).toMatchObject({ role: 'ADMIN', clientId: user.clientId });
      // The link is single use.
      const again = await t.http().post('/api/auth/register/confirm').send({ token }).expect(400);
      expect(again.body.errorCode).toBe('registration_link_invalid');
      expect(await t.dataSource.getRepository(User).countBy({ email })).toBe(1);
    });

    it('refuses common passwords on registration with the same answer whatever the address', async () => {
      const tenant = await createTenant(t.dataSource);
      const existing = await createUser(t.dataSource, tenant);
      for (const email of [existing.email, uniqueEmail('weak')]) {
        const response = await t.http().post('/api/auth/register').send({ email, username: 'Weak', password: 'password1' }).expect(400);
        expect(response.body).toMatchObject({
          statusCode: 400,
          errorCode: 'weak_password',
          data: { issues: [{ field: 'password', key: 'weakPassword' }] },
        });
        expect(await t.dataSource.getRepository(RegistrationRequest).countBy({ email })).toBe(0);
      }
    });

    it('rejects unknown registration links', async () => {
      const response = await t
        .http()
        .post('/api/auth/register/confirm')
        .send({ token: 'A'.repeat(43) })
        .expect(400);
      expect(response.body as Envelope<null>).toMatchObject({ statusCode: 400, errorCode: 'registration_link_invalid', data: null });
    });
  });
});
