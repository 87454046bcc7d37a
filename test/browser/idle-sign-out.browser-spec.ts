import { randomBytes } from 'node:crypto';
import { Client } from 'pg';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { REFRESH_TOKEN_HEADER } from '@centralita/contracts';
import { api, baseUrl, DEMO, DEMO_PASSWORD, launchBrowser, newPage, signIn } from '../support/browser';

/**
 * The idle sign-out of the platform settings, on the page clock (Playwright's fake timers): the
 * tenant's minutes are real minutes, the test jumps through them. The idle time is tenant-wide
 * and other suites sign in to the demo tenant meanwhile, so this suite has a tenant of its own.
 */
jest.setTimeout(60_000);

const IDLE_MINUTES = 5;
const HOME = '/dashboard/DashboardAgente';

function database(): Client {
  const url = new URL(process.env.DATABASE_URL!);
  url.pathname = `/${process.env.CENTRALITA_BROWSER_TEST_DB}`;
  return new Client({ connectionString: url.toString() });
}

/**
 * A tenant with an administrator and an agent: the demo tenant's built-in roles copied, and the
 * demo password (its hash copied), since users can only be created inside one's own tenant.
 */
async function ownTenant(tag: string): Promise<{ admin: string; agent: string }> {
  const admin = `idle-admin-${tag}@example.test`;
  const agent = `idle-agent-${tag}@example.test`;
  const db = database();
  await db.connect();
  try {
    await db.query(
      `WITH demo AS (SELECT client_id, password_hash FROM users WHERE email = $2),
            reseller AS (INSERT INTO resellers (name) VALUES ($1) RETURNING id),
            client AS (INSERT INTO clients (reseller_id, name) SELECT id, $1 FROM reseller RETURNING id),
            copied AS (
              INSERT INTO roles (client_id, code, name, permissions, built_in)
              SELECT client.id, r.code, r.name, r.permissions, true FROM client, roles r, demo
               WHERE r.client_id = demo.client_id AND r.built_in AND r.code IN ('ADMIN', 'AGENT')
              RETURNING id, client_id, code)
       INSERT INTO users (client_id, role_id, email, name, password_hash)
       SELECT copied.client_id, copied.id, CASE copied.code WHEN 'ADMIN' THEN $3 ELSE $4 END, copied.code || ' ' || $1, demo.password_hash
         FROM copied, demo`,
      [`Idle ${tag}`, DEMO.admin, admin, agent],
    );
  } finally {
    await db.end();
  }
  return { admin, agent };
}

const storedItem = (page: Page, key: string) => page.evaluate((name) => window.localStorage.getItem(name), key);

describe('Idle sign-out', () => {
  let browser: Browser;
  const contexts: BrowserContext[] = [];
  let agent: string;

  beforeAll(async () => {
    browser = await launchBrowser();
    const accounts = await ownTenant(randomBytes(3).toString('hex'));
    agent = accounts.agent;
    const { accessToken } = await api<{ accessToken: string }>('POST', '/api/auth/login', null, {
      email: accounts.admin,
      password: DEMO_PASSWORD,
    });
    const settings = await api<Record<string, unknown>>('GET', '/api/platform-settings', accessToken);
    await api('PUT', '/api/platform-settings', accessToken, { ...settings, idleLogoutMinutes: IDLE_MINUTES });
  });

  afterAll(async () => {
    for (const context of contexts) await context.close();
    await browser?.close();
  });

  /** A signed-in agent on a page whose clock the test drives (time still flows until it jumps). */
  async function signedInAgent(language?: string): Promise<{ context: BrowserContext; page: Page }> {
    const { context, page } = await newPage(browser, { language });
    contexts.push(context);
    await context.clock.install();
    await signIn(page, agent);
    await page.waitForURL(`**${HOME}`);
    await page.getByTestId('topbar').waitFor();
    // A non-administrator gets the tenant's idle time with the session user.
    expect(JSON.parse((await storedItem(page, 'authUser'))!).idleLogoutMinutes).toBe(IDLE_MINUTES);
    return { context, page };
  }

  it('warns a minute before the idle time, then signs out through the logout path to the sign-in page', async () => {
    const { page } = await signedInAgent('en');
    await page.clock.fastForward('03:50');
    expect(await page.getByTestId('idle-countdown').count()).toBe(0);

    await page.clock.fastForward('00:20');
    const countdown = page.getByTestId('idle-countdown');
    await countdown.waitFor();
    const text = (await countdown.textContent()) ?? '';
    expect(text).toMatch(/^For your security, you will be signed out in \d+ s because there has been no activity\.$/);
    const seconds = Number(/in (\d+) s/.exec(text)?.[1]);
    expect(seconds).toBeGreaterThan(0);
    expect(seconds).toBeLessThanOrEqual(50);
    expect(await page.getByTestId('idle-stay').textContent()).toContain('Stay signed in');

    const refreshToken = await storedItem(page, 'refreshToken');
    const logout = page.waitForResponse((response) => new URL(response.url()).pathname === '/api/auth/logout');
    await page.clock.fastForward('01:00');
    expect((await logout).status()).toBe(200);
    await page.waitForURL('**/session/signin');
    const notice = page.getByTestId('idle-signed-out-notice');
    await notice.waitFor();
    expect(await notice.textContent()).toContain('You were signed out because there was no activity for too long.');
    expect(await storedItem(page, 'accessToken')).toBeNull();
    // The session is over on the server too: its refresh token no longer works.
    const refreshed = await fetch(`${baseUrl()}/Session/RefreshToken`, { headers: { [REFRESH_TOKEN_HEADER]: refreshToken! } });
    expect(refreshed.status).toBe(401);
  });

  it('shares activity between the tabs of the browser, and "Stay signed in" in one tab clears the warning in the others', async () => {
    const { context, page: first } = await signedInAgent();
    const second = await context.newPage();
    await second.goto(HOME);
    await second.getByTestId('topbar').waitFor();

    // Two minutes in, the user works in the second tab only.
    await first.clock.fastForward('02:00');
    await second.mouse.move(200, 300);
    await second.mouse.move(240, 340);
    // Recorded for all tabs (the page's clock is the fake one, two minutes ahead).
    await first.waitForFunction(() => Number(window.localStorage.getItem('lastActivityAt')) >= Date.now() - 5_000);

    // Six minutes in: the first tab, idle since sign-in, is still signed in and warns with the second.
    await first.clock.fastForward('04:10');
    await first.getByTestId('idle-countdown').waitFor();
    await second.getByTestId('idle-countdown').waitFor();
    expect(new URL(first.url()).pathname).toBe(HOME);
    expect(await first.getByTestId('idle-stay').textContent()).toContain('Mantener la sesión');

    await first.getByTestId('idle-stay').click();
    await first.getByTestId('idle-countdown').waitFor({ state: 'hidden' });
    await second.getByTestId('idle-countdown').waitFor({ state: 'hidden' });
    expect(new URL(second.url()).pathname).toBe(HOME);
  });
});
