import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { startTestApp, type TestApp } from '../support/test-app';

const WEB_PUBLIC = path.resolve(__dirname, '../../../web/public');

/** Every `<script>` of a page loads a file: with `script-src 'self'` an inline one would never run. */
const inlineScripts = (html: string): string[] =>
  [...html.matchAll(/<script\b([^>]*)>/gi)].map((m) => m[1]).filter((attributes) => !/\bsrc=/i.test(attributes));

/**
 * The console's security headers hold on every surface the API serves: the console's pages and
 * files, the API docs (Swagger UI and its JSON), the widget demo page and every JSON answer.
 */
describe('Security headers on every surface (e2e)', () => {
  let dist: string;
  let t: TestApp;

  beforeAll(async () => {
    dist = mkdtempSync(path.join(tmpdir(), 'centralita-headers-'));
    mkdirSync(path.join(dist, 'assets'));
    writeFileSync(
      path.join(dist, 'index.html'),
      '<!doctype html><div id="root"></div><script type="module" src="/assets/app-1.js"></script>',
    );
    writeFileSync(path.join(dist, 'assets', 'app-1.js'), 'console.log(1)');
    // The demo page exactly as the console's build publishes it.
    copyFileSync(path.join(WEB_PUBLIC, 'widget-demo.html'), path.join(dist, 'widget-demo.html'));
    copyFileSync(path.join(WEB_PUBLIC, 'widget-demo.js'), path.join(dist, 'widget-demo.js'));
    t = await startTestApp({ webDist: dist });
  });
  afterAll(async () => {
    await t.close();
    rmSync(dist, { recursive: true, force: true });
  });

  const surfaces: [string, string][] = [
    ['console index', '/'],
    ['a console route', '/users/Users'],
    ['a console asset', '/assets/app-1.js'],
    ['the widget demo page', '/widget-demo.html?tenant=x&line=y'],
    ['the widget demo script', '/widget-demo.js'],
    ['the API docs UI', '/api/docs/'],
    ['a Swagger UI asset', '/api/docs/swagger-ui-bundle.js'],
    ['the Swagger UI start script', '/api/docs/swagger-ui-init.js'],
    ['the OpenAPI JSON', '/api/docs-json'],
    ['an API JSON route', '/api/health'],
    ['an API error', '/api/does-not-exist'],
    ['a Session route', '/Session/RefreshToken'],
  ];

  it.each(surfaces)('%s (%s) carries a CSP with frame-ancestors, nosniff and a referrer policy', async (_what, route) => {
    const response = await t.http().get(route);
    expect(response.status).toBeLessThan(500);
    const csp = response.headers['content-security-policy'] as string | undefined;
    expect(csp).toMatch(/default-src '(self|none)'/);
    expect(csp).toMatch(/frame-ancestors '(self|none)'/);
    expect(csp).not.toContain("'unsafe-eval'");
    expect(csp).not.toMatch(/script-src[^;]*'unsafe-inline'/);
    expect(response.headers['x-content-type-options']).toBe('nosniff');
    expect(response.headers['referrer-policy']).toBe('strict-origin-when-cross-origin');
  });

  it('gives pages the console CSP and JSON answers one that loads nothing and is framed by nobody', async () => {
    const console = (await t.http().get('/').expect(200)).headers['content-security-policy'];
    expect((await t.http().get('/api/docs/').expect(200)).headers['content-security-policy']).toBe(console);
    expect((await t.http().get('/widget-demo.html').expect(200)).headers['content-security-policy']).toBe(console);
    expect(console).toContain("script-src 'self'");
    const json = (await t.http().get('/api/health').expect(200)).headers['content-security-policy'];
    expect(json).toBe("default-src 'none'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'");
  });

  it('serves pages whose scripts all come from files, so the CSP lets them run', async () => {
    const docs = await t.http().get('/api/docs/').expect(200);
    expect(docs.text).toContain('swagger-ui-init.js');
    expect(inlineScripts(docs.text)).toEqual([]);
    const demo = await t.http().get('/widget-demo.html').expect(200);
    expect(demo.text).toContain('<script src="/widget-demo.js"></script>');
    expect(inlineScripts(demo.text)).toEqual([]);
    expect(inlineScripts(readFileSync(path.join(WEB_PUBLIC, 'widget-demo.html'), 'utf8'))).toEqual([]);
  });
});
