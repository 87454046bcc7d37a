import type { Browser } from 'playwright-core';
import { DEMO, launchBrowser, newPage, signIn } from '../support/browser';

/** A JWT-shaped token whose exp is in the past: the console must treat the session as expired. */
function expiredToken(): string {
  const encode = (value: object) => Buffer.from(JSON.stringify(value)).toString('base64url');
  return `${encode({ alg: 'HS256', typ: 'JWT' })}.${encode({ sub: 'x', exp: Math.floor(Date.now() / 1000) - 60 })}.signature`;
}

describe('Console shell', () => {
  let browser: Browser;
  beforeAll(async () => {
    browser = await launchBrowser();
  });
  afterAll(async () => {
    await browser?.close();
  });

  it.each([
    ['administrator', DEMO.admin, '/dashboard/default'],
    ['supervisor', DEMO.supervisor, '/dashboard/superUser'],
    ['agent', DEMO.agent, '/dashboard/DashboardAgente'],
  ])('signs the %s in and lands on their dashboard', async (_role, email, home) => {
    const { context, page } = await newPage(browser);
    await signIn(page, email);
    await page.waitForURL(`**${home}`);
    await page.getByTestId('sidebar').waitFor();
    expect(new URL(page.url()).pathname).toBe(home);
    await context.close();
  });

  it('shows the catalogue message for a wrong password, in the chosen language', async () => {
    const { context, page } = await newPage(browser, { language: 'en' });
    await signIn(page, DEMO.admin, 'not-the-password');
    await expect(page.getByTestId('signin-error').textContent()).resolves.toContain('Invalid credentials');
    expect(new URL(page.url()).pathname).toBe('/session/signin');
    await context.close();
  });

  it('switches the language and keeps it after a reload', async () => {
    const { context, page } = await newPage(browser);
    await signIn(page, DEMO.admin);
    await page.waitForURL('**/dashboard/default');
    await page.goto('/users/Users');
    await expect(page.getByTestId('breadcrumb-title').textContent()).resolves.toBe('Usuarios');
    await page.selectOption('[data-testid=language-switch]', 'en');
    await page.getByTestId('breadcrumb-title').getByText('Users', { exact: true }).waitFor();
    await page.reload();
    await page.getByTestId('breadcrumb-title').getByText('Users', { exact: true }).waitFor();
    expect(await page.evaluate(() => document.documentElement.lang)).toBe('en');
    await page.selectOption('[data-testid=language-switch]', 'de');
    await page.getByTestId('breadcrumb-title').getByText('Benutzer', { exact: true }).waitFor();
    await context.close();
  });

  it('toggles between the full 260 px and the compact 80 px sidebar', async () => {
    const { context, page } = await newPage(browser);
    await signIn(page, DEMO.admin);
    const sidebar = page.getByTestId('sidebar');
    await sidebar.waitFor();
    const widthFor = async (compact: 'true' | 'false') => {
      if ((await sidebar.getAttribute('data-compact')) !== compact) await page.getByTestId('sidebar-toggle').click();
      await page.locator(`[data-testid=sidebar][data-compact="${compact}"]`).waitFor();
      await page.waitForFunction(
        (expected) => document.querySelector('[data-testid=sidebar]')?.getBoundingClientRect().width === expected,
        compact === 'true' ? 80 : 260,
      );
      return (await sidebar.boundingBox())?.width;
    };
    expect(await widthFor('false')).toBe(260);
    expect(await widthFor('true')).toBe(80);
    const header = await page.getByTestId('topbar').boundingBox();
    expect(header?.height).toBe(64);
    await context.close();
  });

  it('shows a breadcrumb with the home link and the page title last', async () => {
    const { context, page } = await newPage(browser, { language: 'en' });
    await signIn(page, DEMO.admin);
    await page.waitForURL('**/dashboard/default');
    await page.goto('/attentionList/attentionList');
    const breadcrumb = page.getByTestId('breadcrumb');
    await breadcrumb.waitFor();
    expect(await breadcrumb.locator('a[href="/"]').count()).toBeGreaterThan(0);
    await expect(page.getByTestId('breadcrumb-title').textContent()).resolves.toBe('Service lines');
    await expect(page.getByTestId('page-title').textContent()).resolves.toBe('Service lines');
    await context.close();
  });

  it('shows the not-found page and its button goes back one step', async () => {
    const { context, page } = await newPage(browser);
    await signIn(page, DEMO.admin);
    await page.waitForURL('**/dashboard/default');
    await page.goto('/users/Users');
    await page.getByTestId('breadcrumb-title').waitFor();
    // Reached from a console page (a full load carries it as the referrer): back one step.
    await page.goto('/no/such/page', { referer: new URL('/users/Users', page.url()).href });
    const back = page.getByTestId('not-found-back');
    await expect(back.textContent()).resolves.toContain('Regresar al Dashboard');
    await back.click();
    await page.waitForURL('**/users/Users');
    await context.close();
  });

  it('sends the not-found button to the dashboard when the page was opened directly, never out of the console', async () => {
    const { context, page } = await newPage(browser);
    await signIn(page, DEMO.admin);
    await page.waitForURL('**/dashboard/default');
    // A link followed from another site (no console page before it in this tab's history).
    const fresh = await context.newPage();
    await fresh.goto('data:text/html,<p>another site</p>');
    await fresh.goto('/no/such/page');
    await fresh.getByTestId('not-found-back').click();
    await fresh.waitForURL('**/dashboard/default');
    expect(await fresh.getByTestId('not-found').count()).toBe(0);
    await context.close();
  });

  it('never shows the desk connection and the shift state as contradictory', async () => {
    const { context, page } = await newPage(browser);
    await signIn(page, DEMO.agent);
    await page.waitForURL('**/dashboard/DashboardAgente');
    await page.getByTestId('agent-desk').waitFor();
    const connection = page.locator('[data-testid=connection-status][data-status=online]');
    await connection.waitFor();
    // The indicator names the live link, so "Desconectado" (the shift state) never sits beside a bare "En línea".
    expect(await connection.textContent()).toBe('Tiempo real: conectado');
    const shift = page.getByTestId('presence-state');
    expect(await shift.getAttribute('data-stale')).toBe('false');
    expect(await shift.getAttribute('title')).toBeNull();
    await context.close();
  });

  it('sends an expired session to sign-in with the disconnected notice', async () => {
    const { context, page } = await newPage(browser, { language: 'en' });
    await signIn(page, DEMO.agent);
    await page.waitForURL('**/dashboard/DashboardAgente');
    // The agent desk loads its data on arrival: tamper with the tokens only once it has, or its own
    // 401 ends the session before the reload this test is about.
    await page.getByTestId('agent-desk').waitFor();
    // Loaded: the presence came back and the desk's socket is online (networkidle never settles
    // for long while several sockets connect on a busy machine).
    await page.locator('[data-testid=presence-panel] [data-testid=agent-status]').waitFor();
    await page.locator('[data-testid=connection-status][data-status=online]').waitFor();
    await page.getByTestId('pause-reason').locator('option').first().waitFor({ state: 'attached' });
    await page.evaluate((token) => {
      window.localStorage.setItem('accessToken', token);
      window.localStorage.setItem('refreshToken', 'revoked-or-unknown');
    }, expiredToken());
    await page.reload();
    await page.waitForURL('**/session/signin**');
    await expect(page.getByTestId('disconnected-notice').textContent()).resolves.toContain('disconnected');
    await context.close();
  }, 60_000);

  it('signs every tab out when the user signs out in one of them', async () => {
    const { context, page: first } = await newPage(browser, { language: 'en' });
    await signIn(first, DEMO.supervisor);
    await first.waitForURL('**/dashboard/superUser');
    const second = await context.newPage();
    await second.goto('/dashboard/superUser');
    await second.getByTestId('topbar').waitFor();

    await first.getByTestId('user-menu').click();
    await first.getByTestId('logout').click();
    await first.waitForURL('**/session/signin**');
    // The other tab goes to sign-in at once, not at its next call to the API.
    await second.waitForURL('**/session/signin**');
    await expect(second.getByRole('status').textContent()).resolves.toContain('You have signed out.');
    await context.close();
  }, 60_000);

  it('redirects an unauthenticated visitor of a protected route to sign-in', async () => {
    const { context, page } = await newPage(browser);
    await page.goto('/users/Users');
    await page.waitForURL('**/session/signin**');
    await page.getByTestId('signin-email').waitFor();
    await context.close();
  });

  it('refuses a protected route the role does not grant', async () => {
    const { context, page } = await newPage(browser);
    await signIn(page, DEMO.agent);
    await page.waitForURL('**/dashboard/DashboardAgente');
    await page.goto('/users/Users');
    await page.getByTestId('no-permission').waitFor();
    await context.close();
  });
});
