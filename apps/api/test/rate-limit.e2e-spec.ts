import { randomBytes } from 'node:crypto';
import { createTenant, createUser } from './support/factories';
import { startTestApp, uniqueEmail, type TestApp } from './support/test-app';

/** Each app here has its own key prefix so other suites' sign-ins from 127.0.0.1 never count against it. */
const isolatedPrefix = (): string => `${process.env.QUEUE_PREFIX}-rl-${randomBytes(3).toString('hex')}`;
const fakeIp = (): string => `203.0.113.${Math.floor(Math.random() * 250) + 1}`;

describe('Rate limits (e2e)', () => {
  describe('sign-in per account', () => {
    let t: TestApp;
    beforeAll(async () => {
      t = await startTestApp({ queuePrefix: isolatedPrefix() });
    });
    afterAll(() => t.close());

    it('answers 429 rate_limited with Retry-After after 5 attempts a minute, even with the right password', async () => {
      const tenant = await createTenant(t.dataSource);
      const { email, password } = await createUser(t.dataSource, tenant);
      for (let attempt = 0; attempt < 5; attempt++)
        await t.http().post('/api/auth/login').send({ email, password: 'wrong password' }).expect(401);
      const limited = await t.http().post('/api/auth/login').send({ email, password }).expect(429);
      expect(limited.body).toMatchObject({ statusCode: 429, data: null, errorCode: 'rate_limited' });
      expect(Number(limited.headers['retry-after'])).toBeGreaterThanOrEqual(1);
      expect(Number(limited.headers['retry-after'])).toBeLessThanOrEqual(60);
    });

    it('limits unknown accounts the same way (no enumeration through the limiter)', async () => {
      const email = uniqueEmail('ghost');
      for (let attempt = 0; attempt < 5; attempt++)
        await t.http().post('/api/auth/login').send({ email, password: 'wrong password' }).expect(401);
      await t.http().post('/api/auth/login').send({ email, password: 'wrong password' }).expect(429);
    });

    it("a successful sign-in clears the account's counter", async () => {
      const tenant = await createTenant(t.dataSource);
      const { email, password } = await createUser(t.dataSource, tenant);
      for (let attempt = 0; attempt < 4; attempt++)
        await t.http().post('/api/auth/login').send({ email, password: 'wrong password' }).expect(401);
      await t.http().post('/api/auth/login').send({ email, password }).expect(200);
      for (let attempt = 0; attempt < 4; attempt++)
        await t.http().post('/api/auth/login').send({ email, password: 'wrong password' }).expect(401);
    });
  });

  describe('sign-in per IP', () => {
    it('answers 429 after 20 attempts a minute from one address behind a trusted proxy, other addresses unaffected', async () => {
      const t = await startTestApp({
        queuePrefix: isolatedPrefix(),
        trustProxy: ['loopback'],
        rateLimits: { loginPerIp: { limit: 20, windowSeconds: 60 } },
      });
      try {
        const ip = fakeIp();
        for (let attempt = 0; attempt < 20; attempt++) {
          await t
            .http()
            .post('/api/auth/login')
            .set('X-Forwarded-For', ip)
            .send({ email: uniqueEmail('spray'), password: 'wrong password' })
            .expect(401);
        }
        const limited = await t
          .http()
          .post('/api/auth/login')
          .set('X-Forwarded-For', ip)
          .send({ email: uniqueEmail('spray'), password: 'wrong password' })
          .expect(429);
        expect(limited.body.errorCode).toBe('rate_limited');
        await t
          .http()
          .post('/api/auth/login')
          .set('X-Forwarded-For', '198.51.100.7')
          .send({ email: uniqueEmail('spray'), password: 'wrong password' })
          .expect(401);
      } finally {
        await t.close();
      }
    });

    it('ignores X-Forwarded-For when no proxy is trusted, so spoofing it does not reset the limit', async () => {
      const t = await startTestApp({
        queuePrefix: isolatedPrefix(),
        trustProxy: false,
        rateLimits: { loginPerIp: { limit: 3, windowSeconds: 60 } },
      });
      try {
        for (let attempt = 0; attempt < 3; attempt++) {
          await t
            .http()
            .post('/api/auth/login')
            .set('X-Forwarded-For', fakeIp())
            .send({ email: uniqueEmail('spoof'), password: 'wrong password' })
            .expect(401);
        }
        await t
          .http()
          .post('/api/auth/login')
          .set('X-Forwarded-For', fakeIp())
          .send({ email: uniqueEmail('spoof'), password: 'wrong password' })
          .expect(429);
      } finally {
        await t.close();
      }
    });
  });

  describe('password reset requests', () => {
    it('answers 429 after 3 requests for one email within 15 minutes', async () => {
      const t = await startTestApp({ queuePrefix: isolatedPrefix() });
      try {
        const email = uniqueEmail('reset');
        for (let attempt = 0; attempt < 3; attempt++) {
          await t
            .http()
            .post('/Session/SendResetPasswordEmail')
            .send({ email })
            .expect(200, { statusCode: 200, data: { accepted: true }, errorMessage: null });
        }
        const limited = await t.http().post('/Session/SendResetPasswordEmail').send({ email }).expect(429);
        expect(limited.body.errorCode).toBe('rate_limited');
      } finally {
        await t.close();
      }
    });

    it('answers 429 after 10 requests from one address within 15 minutes', async () => {
      const t = await startTestApp({
        queuePrefix: isolatedPrefix(),
        trustProxy: ['loopback'],
        rateLimits: { resetPerIp: { limit: 10, windowSeconds: 900 } },
      });
      try {
        const ip = fakeIp();
        for (let attempt = 0; attempt < 10; attempt++) {
          await t
            .http()
            .post('/Session/SendResetPasswordEmail')
            .set('X-Forwarded-For', ip)
            .send({ email: uniqueEmail('reset') })
            .expect(200);
        }
        await t
          .http()
          .post('/Session/SendResetPasswordEmail')
          .set('X-Forwarded-For', ip)
          .send({ email: uniqueEmail('reset') })
          .expect(429);
      } finally {
        await t.close();
      }
    });
  });
});
