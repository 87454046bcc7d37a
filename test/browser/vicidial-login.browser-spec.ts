import { randomBytes } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path, { join } from 'node:path';
import type { AuthResult, ExternLoginVicidialResult } from '@centralita/contracts';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { DEMO, DEMO_PASSWORD, api, baseUrl, createDemoAgent, launchBrowser, signIn } from '../support/browser';

/**
 * Issue 22 item 5 must-show: an administrator creates an integration key (shown once), a dialer
 * asks ExternLoginVicidial for a link, the link signs the agent into the desk, and the same link
 * opened again lands on the sign-in page with the notice.
 */
jest.setTimeout(120_000);

const ROOT = path.resolve(__dirname, '..', '..');
// VICIDIAL_SCREENSHOTS=1 refreshes the docs' pictures; otherwise they go to the temp folder.
const SCREENSHOTS = process.env.VICIDIAL_SCREENSHOTS === '1' ? join(ROOT, 'docs', 'screenshots') : join(tmpdir(), 'centralita-vicidial');

describe('External dialer sign-in (browser)', () => {
  let browser: Browser;
  const contexts: BrowserContext[] = [];
  const tag = randomBytes(3).toString('hex');
  let key = '';
  let agentEmail = '';

  async function open(): Promise<Page> {
    const context = await browser.newContext({ viewport: { width: 1280, height: 760 }, baseURL: baseUrl() });
    await context.addInitScript(() => window.localStorage.setItem('language', 'es'));
    contexts.push(context);
    return context.newPage();
  }

  const issue = async (body: Record<string, unknown>): Promise<ExternLoginVicidialResult> => {
    const response = await fetch(`${baseUrl()}/api/ExternLoginVicidial`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', 'X-Api-Key': key },
      body: JSON.stringify(body),
    });
    const envelope = (await response.json()) as { data: ExternLoginVicidialResult; errorMessage?: string };
    if (!response.ok) throw new Error(`ExternLoginVicidial: ${response.status} ${envelope.errorMessage}`);
    return envelope.data;
  };
  /** The link's path: the API's PUBLIC_URL may differ from the browser tier's address. */
  const pathOf = (url: string) => new URL(url).pathname;

  beforeAll(async () => {
    mkdirSync(SCREENSHOTS, { recursive: true });
    browser = await launchBrowser();
    const admin = await api<AuthResult>('POST', '/api/auth/login', null, { email: DEMO.admin, password: DEMO_PASSWORD });
    agentEmail = `dialer-agent-${tag}@demo.centralita.io`;
    await createDemoAgent(admin.accessToken, { name: `Dialer Agent ${tag}`, email: agentEmail });
  });
  afterAll(async () => {
    for (const context of contexts) await context.close();
    await browser?.close();
  });

  it('lets the administrator create a key that is shown once', async () => {
    const page = await open();
    await signIn(page, DEMO.admin);
    await page.waitForURL(/\/dashboard\//);
    await page.goto('/settings/integrationKeys');
    await page.getByTestId('integration-keys').waitFor();
    await page.getByTestId('keys-add').click();
    await page.getByTestId('key-name-input').fill(`VICIdial ${tag}`);
    await page.getByTestId('key-save').click();
    const value = page.getByTestId('key-created-value');
    const failure = page.getByTestId('key-create-error');
    await Promise.race([value.waitFor(), failure.waitFor()]);
    if (await failure.isVisible()) throw new Error(`key creation failed: ${await failure.textContent()}`);
    key = await value.inputValue();
    expect(key).toMatch(/^ctk_[A-Za-z0-9_-]{43}$/);
    await page.screenshot({ path: join(SCREENSHOTS, 'integration-key-created.png') });
    await page.getByTestId('key-created-close').click();
    const row = page.getByTestId('key-name').filter({ hasText: `VICIdial ${tag}` });
    await row.waitFor();
    expect(await page.content()).not.toContain(key);
    await page.screenshot({ path: join(SCREENSHOTS, 'integration-keys.png') });
  });

  it('signs the agent into the desk with the link, and a reused link shows the notice on the sign-in page', async () => {
    const { url } = await issue({ agent: agentEmail });
    const linkPath = pathOf(url);

    const page = await open();
    await page.goto(linkPath);
    await page.waitForURL(/\/dashboard\/DashboardAgente/);
    const stored = await page.evaluate(() => window.localStorage.getItem('authUser'));
    expect(JSON.parse(stored ?? '{}')).toMatchObject({ email: agentEmail, role: 'AGENT' });

    const again = await open();
    await again.goto(linkPath);
    await again.waitForURL(/\/session\/signin\?notice=vicidial-link-invalid/);
    const notice = again.getByTestId('vicidial-link-invalid');
    await notice.waitFor();
    expect(await notice.textContent()).toContain('no es válido, ha caducado o ya se usó');
    await again.screenshot({ path: join(SCREENSHOTS, 'vicidial-link-invalid.png') });
  });

  it('returns to a console path given as the callback', async () => {
    const { url } = await issue({ agent: agentEmail, callback: '/SoftPhoneNew/Phone' });
    expect(url).toContain(`/${encodeURIComponent('/SoftPhoneNew/Phone')}`);
    const page = await open();
    await page.goto(pathOf(url));
    await page.waitForURL(/\/SoftPhoneNew\/Phone$/);
  });
});
