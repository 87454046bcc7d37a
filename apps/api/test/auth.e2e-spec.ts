import { createHmac } from 'node:crypto';
import { CATALOGUE_MESSAGES, DEFAULT_BRANDING, REFRESH_TOKEN_HEADER, type AuthResult, type Envelope } from '@centralita/contracts';
import { JwtService } from '@nestjs/jwt';
import { Client } from '../src/modules/tenancy/client.entity';
import { User } from '../src/modules/users/user.entity';
import { DEMO_ACCOUNTS, DEMO_CLIENT_ID, seed } from '../src/database/seed';
import { RefreshToken } from '../src/modules/auth/refresh-token.entity';
import { createTenant, createUser, TEST_PASSWORD } from './support/factories';
import { bearer, login, startTestApp, uniqueEmail, type TestApp } from './support/test-app';

const admin = DEMO_ACCOUNTS.find((account) => account.role === 'ADMIN')!;
const agent = DEMO_ACCOUNTS.find((account) => account.role === 'AGENT')!;

describe('Auth (e2e)', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await startTestApp();
    await seed(t.dataSource);
  });
  afterAll(() => t.close());

  describe('POST /api/auth/login', () => {
    it('signs in a demo account and answers tokens and the session user', async () => {
      const response = await t.http().post('/api/auth/login').send({ email: admin.email, password: admin.password }).expect(200);
      const body = response.body as Envelope<AuthResult>;
      expect(body).toMatchObject({ statusCode: 200, errorMessage: null });
      expect(body.data!.accessToken.split('.')).toHaveLength(3);
      expect(body.data!.refreshToken).toMatch(/^[A-Za-z0-9_-]{43}$/);
      expect(body.data!.user).toMatchObject({
        email: admin.email,
        role: 'ADMIN',
        clientId: DEMO_CLIENT_ID,
        clientName: 'Demo Contact Centre',
        avatar: null,
        sessionTime: 480,
        // The tenant's platform setting; the demo tenant keeps the default.
        idleLogoutMinutes: 30,
      });
      expect(body.data!.user.permissions).toContain('users.manage');
    });

    it('accepts the email in any case and with surrounding spaces', async () => {
      await t
        .http()
        .post('/api/auth/login')
        .send({ email: `  ${agent.email.toUpperCase()} `, password: agent.password })
        .expect(200);
    });

    it('answers 401 Invalid credentials for a wrong password', async () => {
      const response = await t.http().post('/api/auth/login').send({ email: agent.email, password: 'wrong password' }).expect(401);
      expect(response.body).toEqual({
        statusCode: 401,
        data: null,
        errorMessage: CATALOGUE_MESSAGES[401],
        errorCode: 'invalid_credentials',
      });
    });

    it('answers the same 401 for an unknown email', async () => {
      const response = await t
        .http()
        .post('/api/auth/login')
        .send({ email: uniqueEmail('nobody'), password: 'whatever1' })
        .expect(401);
      expect(response.body.errorCode).toBe('invalid_credentials');
    });

    it('refuses a deactivated account even with the right password', async () => {
      const tenant = await createTenant(t.dataSource);
      const { email, password } = await createUser(t.dataSource, tenant, { active: false });
      const response = await t.http().post('/api/auth/login').send({ email, password }).expect(401);
      expect(response.body).toMatchObject({ errorMessage: CATALOGUE_MESSAGES[401], errorCode: 'account_disabled' });
    });

    it('refuses an expired password', async () => {
      const tenant = await createTenant(t.dataSource);
      const { user, email, password } = await createUser(t.dataSource, tenant);
      await t.dataSource.getRepository(User).update({ id: user.id }, { passwordExpiresAt: new Date(Date.now() - 1000) });
      const response = await t.http().post('/api/auth/login').send({ email, password }).expect(401);
      expect(response.body.errorCode).toBe('password_expired');
    });

    it('upgrades a hash made with weaker parameters at sign-in', async () => {
      const argon2 = await import('argon2');
      const tenant = await createTenant(t.dataSource);
      const { user, email, password } = await createUser(t.dataSource, tenant);
      const weak = await argon2.hash(password, { type: argon2.argon2id, memoryCost: 8192, timeCost: 1, parallelism: 1 });
      await t.dataSource.getRepository(User).update({ id: user.id }, { passwordHash: weak });
      await t.http().post('/api/auth/login').send({ email, password }).expect(200);
      const stored = await t.dataSource.getRepository(User).findOneByOrFail({ id: user.id });
      expect(stored.passwordHash).not.toBe(weak);
      const params = stored.passwordHash.split('$')[3].split(',').sort();
      expect(stored.passwordHash.startsWith('$argon2id$')).toBe(true);
      expect(params).toEqual(['m=19456', 'p=1', 't=2']);
    });
  });

  // Issue 17: off by default; when on, it never signs in nor joins an existing tenant (the full
  // class is in test/security/dev-surfaces.e2e-spec.ts).
  describe('POST /api/auth/register', () => {
    it('is refused by default (SELF_REGISTRATION off): 403 and nothing stored', async () => {
      const email = uniqueEmail('closed');
      const response = await t
        .http()
        .post('/api/auth/register')
        .send({ email, username: 'Nobody', password: 'a long enough passphrase' })
        .expect(403);
      expect(response.body.errorCode).toBe('forbidden');
      expect(await t.dataSource.getRepository(User).countBy({ email })).toBe(0);
      expect((await t.http().get('/api/auth/registration').expect(200)).body.data).toEqual({ enabled: false });
    });

    it('when open, answers "check your email" and signs nobody in; short passwords name the field', async () => {
      const open = await startTestApp({ selfRegistration: { enabled: true, resellerId: null } });
      try {
        const email = uniqueEmail('register');
        const response = await open
          .http()
          .post('/api/auth/register')
          .send({ email, username: 'New Admin', password: 'a long enough passphrase' })
          .expect(200);
        expect(response.body.data).toEqual({ accepted: true });
        expect(await t.dataSource.getRepository(User).countBy({ email })).toBe(0);

        const short = await open.http().post('/api/auth/register').send({ email, username: 'Short', password: 'short' }).expect(400);
        expect(short.body.errorMessage).toBe('password must be longer than or equal to 8 characters');
      } finally {
        await open.close();
      }
    });
  });

  describe('session endpoints', () => {
    it('GET /api/auth/profile answers the caller', async () => {
      const session = await login(t, agent.email, agent.password);
      const response = await t.http().get('/api/auth/profile').set(bearer(session.accessToken)).expect(200);
      expect(response.body.data).toMatchObject({
        id: session.user.id,
        email: agent.email,
        role: 'AGENT',
        roleName: 'Agent',
        clientName: 'Demo Contact Centre',
      });
      expect(response.body.data.lastLoginAt).toEqual(expect.any(String));
    });

    it('GET /api/auth/user-info answers the caller, and other users only to user managers of the same tenant', async () => {
      const agentSession = await login(t, agent.email, agent.password);
      const adminSession = await login(t, admin.email, admin.password);
      const self = await t
        .http()
        .get('/api/auth/user-info')
        .query({ UserId: agentSession.user.id })
        .set(bearer(agentSession.accessToken))
        .expect(200);
      expect(self.body.data).toEqual(agentSession.user);
      await t.http().get('/api/auth/user-info').query({ UserId: adminSession.user.id }).set(bearer(agentSession.accessToken)).expect(403);
      const other = await t
        .http()
        .get('/api/auth/user-info')
        .query({ UserId: agentSession.user.id })
        .set(bearer(adminSession.accessToken))
        .expect(200);
      expect(other.body.data.email).toBe(agent.email);

      const tenantB = await createTenant(t.dataSource);
      const stranger = await createUser(t.dataSource, tenantB);
      const hidden = await t
        .http()
        .get('/api/auth/user-info')
        .query({ UserId: stranger.user.id })
        .set(bearer(adminSession.accessToken))
        .expect(404);
      expect(hidden.body.errorMessage).toBe(CATALOGUE_MESSAGES[404]);
    });

    it('requires a token on protected endpoints', async () => {
      const response = await t.http().get('/api/auth/profile').expect(401);
      expect(response.body).toEqual({ statusCode: 401, data: null, errorMessage: CATALOGUE_MESSAGES[401], errorCode: 'unauthorized' });
    });

    it('POST /api/auth/logout ends the session: refresh and access tokens stop working', async () => {
      const tenant = await createTenant(t.dataSource);
      const { email, password } = await createUser(t.dataSource, tenant);
      const session = await login(t, email, password);
      const other = await login(t, email, password);
      await t
        .http()
        .post('/api/auth/logout')
        .set(bearer(session.accessToken))
        .send({ userId: session.user.id })
        .expect(200, { statusCode: 200, data: { loggedOut: true }, errorMessage: null });
      await t.http().get('/api/auth/profile').set(bearer(session.accessToken)).expect(401);
      await t.http().get('/Session/RefreshToken').set(REFRESH_TOKEN_HEADER, session.refreshToken).expect(401);
      // Another sign-in of the same user is a different session and lives on.
      await t.http().get('/api/auth/profile').set(bearer(other.accessToken)).expect(200);
    });

    it('refuses to sign out somebody else', async () => {
      const session = await login(t, agent.email, agent.password);
      const adminSession = await login(t, admin.email, admin.password);
      await t.http().post('/api/auth/logout').set(bearer(session.accessToken)).send({ userId: adminSession.user.id }).expect(403);
      await t.http().get('/api/auth/profile').set(bearer(adminSession.accessToken)).expect(200);
    });
  });

  describe('GET /api/general/branding', () => {
    it("answers the caller's tenant branding", async () => {
      const tenant = await createTenant(t.dataSource);
      await t.dataSource
        .getRepository(Client)
        .update(
          { id: tenant.client.id },
          { menuLogoUrl: 'https://cdn.example.com/logo.svg', mainColor: '#123456', bannerUrl: 'https://cdn.example.com/banner.png' },
        );
      const { email, password } = await createUser(t.dataSource, tenant);
      const session = await login(t, email, password);
      const response = await t.http().get('/api/general/branding').set(bearer(session.accessToken)).expect(200);
      expect(response.body.data).toEqual({
        logoUrl: 'https://cdn.example.com/logo.svg',
        completeLogoUrl: DEFAULT_BRANDING.completeLogoUrl,
        mainColor: '#123456',
        bannerUrl: 'https://cdn.example.com/banner.png',
        loginImageUrl: null,
      });
    });

    it('answers a tenant branding by clientId without a session (sign-in page)', async () => {
      const tenant = await createTenant(t.dataSource);
      await t.dataSource
        .getRepository(Client)
        .update({ id: tenant.client.id }, { completeMenuLogoUrl: 'https://cdn.example.com/full.svg' });
      const response = await t.http().get('/api/general/branding').query({ clientId: tenant.client.id }).expect(200);
      expect(response.body.data.completeLogoUrl).toBe('https://cdn.example.com/full.svg');
    });

    it('falls back to the default logos for an unknown client', async () => {
      const response = await t.http().get('/api/general/branding').query({ clientId: '5c0ffee0-0000-4000-8000-000000000000' }).expect(200);
      expect(response.body.data).toMatchObject({ logoUrl: DEFAULT_BRANDING.logoUrl, completeLogoUrl: DEFAULT_BRANDING.completeLogoUrl });
    });

    it('names the field when clientId is not a UUID', async () => {
      const response = await t.http().get('/api/general/branding').query({ clientId: 'nope' }).expect(400);
      expect(response.body.errorMessage).toBe('clientId must be a UUID');
    });
  });

  describe('access tokens', () => {
    const jwt = new JwtService();
    const secret = (): string => process.env.JWT_SECRET!;
    const claimsOf = (token: string): Record<string, unknown> => JSON.parse(Buffer.from(token.split('.')[1], 'base64url').toString());

    it('carries typ access, issuer, audience and a ~10 minute expiry', async () => {
      const session = await login(t, agent.email, agent.password);
      const claims = claimsOf(session.accessToken);
      expect(claims).toMatchObject({
        typ: 'access',
        iss: 'centralita',
        aud: 'centralita-console',
        sub: session.user.id,
        cid: DEMO_CLIENT_ID,
      });
      expect((claims.exp as number) - (claims.iat as number)).toBe(600);
    });

    it('refuses an expired token with session_expired', async () => {
      const session = await login(t, agent.email, agent.password);
      const claims = claimsOf(session.accessToken);
      const expired = jwt.sign(
        { ...claims, iat: Math.floor(Date.now() / 1000) - 1200, exp: Math.floor(Date.now() / 1000) - 600 },
        { secret: secret(), algorithm: 'HS256' },
      );
      const response = await t.http().get('/api/auth/profile').set(bearer(expired)).expect(401);
      expect(response.body).toMatchObject({ errorMessage: CATALOGUE_MESSAGES[401], errorCode: 'session_expired' });
    });

    it('refuses a tampered token', async () => {
      const session = await login(t, agent.email, agent.password);
      const [header, , signature] = session.accessToken.split('.');
      const adminSession = await login(t, admin.email, admin.password);
      const forgedPayload = Buffer.from(JSON.stringify({ ...claimsOf(session.accessToken), sub: adminSession.user.id })).toString(
        'base64url',
      );
      const response = await t
        .http()
        .get('/api/auth/profile')
        .set(bearer(`${header}.${forgedPayload}.${signature}`))
        .expect(401);
      expect(response.body.errorCode).toBe('unauthorized');
    });

    it('refuses alg "none", a foreign secret, another audience and another token kind', async () => {
      const session = await login(t, agent.email, agent.password);
      const claims = claimsOf(session.accessToken);
      const none = `${Buffer.from(JSON.stringify({ alg: 'none', typ: 'JWT' })).toString('base64url')}.${Buffer.from(JSON.stringify(claims)).toString('base64url')}.`;
      const foreign = jwt.sign(claims, { secret: 'another secret entirely, 32+ chars long', algorithm: 'HS256' });
      const audience = jwt.sign({ ...claims, aud: 'somebody-else' }, { secret: secret(), algorithm: 'HS256' });
      const kind = jwt.sign({ ...claims, typ: 'reset' }, { secret: secret(), algorithm: 'HS256' });
      const hs512 = jwt.sign(claims, { secret: secret(), algorithm: 'HS512' });
      for (const token of [none, foreign, audience, kind, hs512]) {
        await t.http().get('/api/auth/profile').set(bearer(token)).expect(401);
      }
      // Sanity check: the same claims, correctly signed, are accepted.
      const good = `${session.accessToken.split('.').slice(0, 2).join('.')}.${createHmac('sha256', secret()).update(session.accessToken.split('.').slice(0, 2).join('.')).digest('base64url')}`;
      await t.http().get('/api/auth/profile').set(bearer(good)).expect(200);
    });
  });

  describe('GET /Session/RefreshToken', () => {
    it('rotates: answers a new pair, and the new access token works', async () => {
      const session = await login(t, agent.email, agent.password);
      const response = await t
        .http()
        .get('/Session/RefreshToken')
        .query({ userId: session.user.id })
        .set(REFRESH_TOKEN_HEADER, session.refreshToken)
        .expect(200);
      const pair = response.body.data as { accessToken: string; refreshToken: string };
      expect(Object.keys(pair).sort()).toEqual(['accessToken', 'refreshToken']);
      expect(pair.refreshToken).not.toBe(session.refreshToken);
      await t.http().get('/api/auth/profile').set(bearer(pair.accessToken)).expect(200);
    });

    it('also takes the refresh token from the JSON body', async () => {
      const session = await login(t, agent.email, agent.password);
      const response = await t.http().get('/Session/RefreshToken').send({ refreshToken: session.refreshToken }).expect(200);
      expect(response.body.data.refreshToken).toEqual(expect.any(String));
    });

    it('detects reuse: replaying a rotated token revokes the whole family, the newest token included', async () => {
      const tenant = await createTenant(t.dataSource);
      const { email } = await createUser(t.dataSource, tenant);
      const session = await login(t, email, TEST_PASSWORD);
      const first = (await t.http().get('/Session/RefreshToken').set(REFRESH_TOKEN_HEADER, session.refreshToken).expect(200)).body.data;
      const second = (await t.http().get('/Session/RefreshToken').set(REFRESH_TOKEN_HEADER, first.refreshToken).expect(200)).body.data;

      const reuse = await t.http().get('/Session/RefreshToken').set(REFRESH_TOKEN_HEADER, session.refreshToken).expect(401);
      expect(reuse.body).toMatchObject({ errorMessage: CATALOGUE_MESSAGES[401], errorCode: 'refresh_token_invalid' });

      await t.http().get('/Session/RefreshToken').set(REFRESH_TOKEN_HEADER, second.refreshToken).expect(401);
      await t.http().get('/api/auth/profile').set(bearer(second.accessToken)).expect(401);
      const rows = await t.dataSource.getRepository(RefreshToken).findBy({ userId: session.user.id });
      expect(rows).toHaveLength(3);
      expect(rows.every((row) => row.revokedAt !== null)).toBe(true);
    });

    it('stores only hashes of refresh tokens', async () => {
      const session = await login(t, agent.email, agent.password);
      const stored = await t.dataSource.getRepository(RefreshToken).findBy({ userId: session.user.id });
      expect(stored.some((row) => row.tokenHash === session.refreshToken)).toBe(false);
      expect(stored.every((row) => /^[0-9a-f]{64}$/.test(row.tokenHash))).toBe(true);
    });

    it('refuses a token of another user id, an unknown token and a missing token', async () => {
      const session = await login(t, agent.email, agent.password);
      await t
        .http()
        .get('/Session/RefreshToken')
        .query({ userId: '5c0ffee0-0000-4000-8000-000000000000' })
        .set(REFRESH_TOKEN_HEADER, session.refreshToken)
        .expect(401);
      await t.http().get('/Session/RefreshToken').set(REFRESH_TOKEN_HEADER, 'x'.repeat(43)).expect(401);
      await t.http().get('/Session/RefreshToken').expect(401);
      // The mismatch did not spend the token.
      await t.http().get('/Session/RefreshToken').set(REFRESH_TOKEN_HEADER, session.refreshToken).expect(200);
    });

    it('refuses an idle-expired refresh token', async () => {
      const session = await login(t, agent.email, agent.password);
      await t.dataSource.query(
        `UPDATE refresh_tokens SET expires_at = now() - interval '1 second' WHERE user_id = $1 AND rotated_at IS NULL AND revoked_at IS NULL`,
        [session.user.id],
      );
      const response = await t.http().get('/Session/RefreshToken').set(REFRESH_TOKEN_HEADER, session.refreshToken).expect(401);
      expect(response.body.errorCode).toBe('session_expired');
    });
  });
});
