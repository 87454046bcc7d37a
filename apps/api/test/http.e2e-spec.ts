import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { CATALOGUE_MESSAGES } from '@centralita/contracts';
import { User } from '../src/modules/users/user.entity';
import { createTenant } from './support/factories';
import { createLine } from './support/realtime';
import { startTestApp, uniqueEmail, type TestApp } from './support/test-app';

describe('HTTP surface (e2e)', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(() => t.close());

  const stored = (email: string): Promise<number> => t.dataSource.getRepository(User).countBy({ email });

  describe('bad input is answered in the envelope, names the problem and stores nothing', () => {
    it('malformed JSON → 400', async () => {
      const email = uniqueEmail('malformed');
      const response = await t
        .http()
        .post('/api/auth/register')
        .set('Content-Type', 'application/json')
        .send(`{"email":"${email}","username":"x","password":"12345678"`)
        .expect(400);
      expect(response.body).toEqual({
        statusCode: 400,
        data: null,
        errorMessage: 'The request body is not valid JSON',
        errorCode: 'validation',
      });
      expect(await stored(email)).toBe(0);
    });

    it('missing field → 400 naming it', async () => {
      const email = uniqueEmail('missing');
      const response = await t.http().post('/api/auth/register').send({ email, username: 'Missing Password' }).expect(400);
      expect(response.body).toMatchObject({ statusCode: 400, errorCode: 'validation', errorMessage: 'password must be a string' });
      expect(response.body.data.fields).toEqual({ password: ['password must be a string'] });
      expect(await stored(email)).toBe(0);
    });

    it('wrong type → 400 naming the field', async () => {
      const email = uniqueEmail('type');
      const response = await t.http().post('/api/auth/register').send({ email, username: 42, password: 'long enough' }).expect(400);
      expect(response.body.errorMessage).toBe('username must be a string');
      const login = await t.http().post('/api/auth/login').send({ email: 12345, password: 'x' }).expect(400);
      expect(login.body.errorMessage).toBe('email must be an email');
      expect(await stored(email)).toBe(0);
    });

    it('fields nobody asked for (role, clientId) → 400, never applied', async () => {
      const email = uniqueEmail('extra');
      const response = await t
        .http()
        .post('/api/auth/register')
        .send({ email, username: 'Sneaky', password: 'long enough', role: 'ADMIN' })
        .expect(400);
      expect(response.body.errorMessage).toBe('property role should not exist');
      expect(await stored(email)).toBe(0);
    });

    it('oversize body → 413', async () => {
      const email = uniqueEmail('huge');
      const response = await t
        .http()
        .post('/api/auth/register')
        .send({ email, username: 'x'.repeat(200 * 1024), password: 'long enough' })
        .expect(413);
      expect(response.body).toEqual({
        statusCode: 413,
        data: null,
        errorMessage: 'The request body is larger than the 100kb limit',
        errorCode: 'payload_too_large',
      });
      expect(await stored(email)).toBe(0);
    });

    it('a non-JSON body is not parsed, so the required fields are reported', async () => {
      const response = await t.http().post('/api/auth/login').set('Content-Type', 'text/plain').send('email=a@b.c&password=x').expect(400);
      expect(response.body.errorMessage).toBe('email must be an email; password must be a string');
    });
  });

  describe('routing', () => {
    it('unknown API paths answer the spec 404 in the envelope', async () => {
      const response = await t.http().get('/api/does-not-exist').expect(404);
      expect(response.body).toEqual({ statusCode: 404, data: null, errorMessage: CATALOGUE_MESSAGES[404], errorCode: 'not_found' });
      await t.http().get('/Session/DoesNotExist').expect(404);
    });

    it('Session routes live at the root, outside /api', async () => {
      await t.http().get('/api/Session/RefreshToken').expect(404);
      await t.http().get('/Session/RefreshToken').expect(401);
    });

    it('sends nosniff and no-store on API answers', async () => {
      const response = await t.http().get('/api/health').expect(200);
      expect(response.headers['x-content-type-options']).toBe('nosniff');
      expect(response.headers['cache-control']).toBe('no-store');
      expect(response.headers['x-powered-by']).toBeUndefined();
    });
  });

  describe('GET /api/health', () => {
    it('answers up for PostgreSQL and Redis', async () => {
      await t
        .http()
        .get('/api/health')
        .expect(200, { statusCode: 200, data: { database: 'up', redis: 'up', voice: 'notConnected' }, errorMessage: null });
    });

    it("reports the phone channel connected while a voice server's status is fresh and its rtpengine is up", async () => {
      const key = `${process.env.QUEUE_PREFIX}:voice:status`;
      try {
        await t.redis.set(key, JSON.stringify({ sip: '127.0.0.1:5060', rtpengine: 'up', calls: 0 }), 'PX', 15_000);
        expect((await t.http().get('/api/health').expect(200)).body.data.voice).toBe('connected');
        await t.redis.set(key, JSON.stringify({ sip: '127.0.0.1:5060', rtpengine: 'down', calls: 0 }), 'PX', 15_000);
        expect((await t.http().get('/api/health').expect(200)).body.data.voice).toBe('notConnected');
        await t.redis.set(key, 'not json', 'PX', 15_000);
        expect((await t.http().get('/api/health').expect(200)).body.data.voice).toBe('notConnected');
      } finally {
        await t.redis.del(key);
      }
    });

    it('answers 503 (not a hang) when Redis is unreachable, and so do calls that need it', async () => {
      const broken = await startTestApp({ redisUrl: 'redis://127.0.0.1:1' });
      try {
        const health = await broken.http().get('/api/health').expect(503);
        expect(health.body).toEqual({
          statusCode: 503,
          data: { database: 'up', redis: 'down', voice: 'notConnected' },
          errorMessage: CATALOGUE_MESSAGES.generic,
          errorCode: 'service_unavailable',
        });
        const login = await broken
          .http()
          .post('/api/auth/login')
          .send({ email: uniqueEmail('x'), password: 'whatever' })
          .expect(503);
        expect(login.body.errorCode).toBe('service_unavailable');
      } finally {
        await broken.close();
      }
    });
  });

  describe('OpenAPI', () => {
    it('/api/docs-json lists the auth and session paths with bearer auth', async () => {
      const response = await t.http().get('/api/docs-json').expect(200);
      const paths = Object.keys(response.body.paths);
      expect(paths).toEqual(
        expect.arrayContaining([
          '/api/auth/login',
          '/api/auth/register',
          '/api/auth/logout',
          '/api/auth/user-info',
          '/api/auth/profile',
          '/api/general/branding',
          '/Session/RefreshToken',
          '/Session/SendResetPasswordEmail',
          '/Session/ValidateUrlToResetPassword',
          '/Session/ResetPassword',
          '/api/users',
          '/api/users/{id}',
          '/api/roles',
          '/api/roles/codes',
          '/api/roles/{id}',
          '/api/roles/{id}/menu',
          '/api/menu',
          '/api/health',
        ]),
      );
      expect(response.body.components.securitySchemes.bearer).toMatchObject({ type: 'http', scheme: 'bearer' });
      expect(response.body.paths['/api/auth/profile'].get.security).toEqual([{ bearer: [] }]);
    });

    it('/api/docs serves the UI', async () => {
      const response = await t.http().get('/api/docs').redirects(1).expect(200);
      expect(response.text).toContain('swagger');
    });
  });

  describe('the built console', () => {
    let dist: string;
    let web: TestApp;
    beforeAll(async () => {
      dist = mkdtempSync(path.join(tmpdir(), 'centralita-web-'));
      mkdirSync(path.join(dist, 'assets'));
      writeFileSync(path.join(dist, 'index.html'), '<!doctype html><div id="root"></div>');
      writeFileSync(path.join(dist, 'assets', 'app-1234.js'), 'console.log(1)');
      web = await startTestApp({ webDist: dist });
    });
    afterAll(async () => {
      await web.close();
      rmSync(dist, { recursive: true, force: true });
    });

    it('serves index.html for console routes (SPA fallback) with a CSP', async () => {
      for (const route of ['/', '/session/signin', '/session/resetPassword/abc', '/users/Users']) {
        const response = await web.http().get(route).expect(200);
        expect(response.text).toContain('<div id="root">');
        expect(response.headers['content-security-policy']).toContain("default-src 'self'");
        expect(response.headers['content-security-policy']).toContain("frame-ancestors 'self'");
      }
    });

    it('lets only the origins of the line’s own tenant frame the web-chat page', async () => {
      const tenant = await createTenant(web.dataSource);
      await web.dataSource.query(`UPDATE clients SET allowed_origins = $2 WHERE id = $1`, [
        tenant.client.id,
        ['https://shop.example', 'https://evil.example; script-src *', 'javascript:alert(1)'],
      ]);
      const line = await createLine(web.dataSource, tenant, 'Framed line');
      const widget = await web.http().get(`/WindowChat/windowChat/?line=${line}`).expect(200);
      const csp = widget.headers['content-security-policy'] as string;
      expect(csp).toContain("frame-ancestors 'self' https://shop.example;");
      expect(csp).not.toContain('evil.example');
      expect(csp).not.toContain('javascript:');
      for (const route of [
        '/WindowChat/windowChat/?line=not-a-uuid',
        '/WindowChat/windowChat/',
        // The tenant parameter alone never opens the page to a site.
        `/WindowChat/windowChat/?tenant=${tenant.client.id}`,
        `/users/Users?tenant=${tenant.client.id}&line=${line}`,
      ]) {
        const response = await web.http().get(route).expect(200);
        expect(response.headers['content-security-policy']).toContain("frame-ancestors 'self';");
      }
    });

    it("never lets tenant A's sites frame tenant B's line, whatever ?tenant= says", async () => {
      const tenantA = await createTenant(web.dataSource);
      const tenantB = await createTenant(web.dataSource);
      await web.dataSource.query(`UPDATE clients SET allowed_origins = $2 WHERE id = $1`, [tenantA.client.id, ['https://a-shop.example']]);
      await web.dataSource.query(`UPDATE clients SET allowed_origins = $2 WHERE id = $1`, [tenantB.client.id, ['https://b-shop.example']]);
      const lineB = await createLine(web.dataSource, tenantB, 'Line of B');
      const response = await web.http().get(`/WindowChat/windowChat/?tenant=${tenantA.client.id}&line=${lineB}`).expect(200);
      const csp = response.headers['content-security-policy'] as string;
      expect(csp).toContain("frame-ancestors 'self' https://b-shop.example;");
      expect(csp).not.toContain('a-shop.example');
      // A deleted line is framed by nobody else.
      const deleted = await createLine(web.dataSource, tenantB, 'Deleted line of B');
      await web.dataSource.query(`UPDATE attention_lines SET deleted_at = now() WHERE id = $1`, [deleted]);
      const gone = await web.http().get(`/WindowChat/windowChat/?line=${deleted}`).expect(200);
      expect(gone.headers['content-security-policy']).toContain("frame-ancestors 'self';");
    });

    it('serves fingerprinted assets as immutable', async () => {
      const response = await web.http().get('/assets/app-1234.js').expect(200);
      expect(response.headers['cache-control']).toContain('immutable');
    });

    it('never answers API, Session or socket.io paths with the console', async () => {
      const api = await web.http().get('/api/nope').expect(404);
      expect(api.body.errorCode).toBe('not_found');
      const session = await web.http().get('/Session/Nope').expect(404);
      expect(session.body.errorCode).toBe('not_found');
      await web.http().get('/api/health').expect(200);
    });
  });
});
