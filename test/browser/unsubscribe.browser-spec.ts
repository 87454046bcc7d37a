import { randomBytes } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path, { join } from 'node:path';
import type { AuthResult, MailBlacklistEntry, Page as ListPage } from '@centralita/contracts';
// Relative: this tier resolves modules the node10 way, which cannot see the package's ./server export.
import { UnsubscribeSigner, unsubscribeUrl } from '../../libs/contracts/src/server/list-unsubscribe';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { DEMO, DEMO_PASSWORD, api, baseUrl, launchBrowser, signIn } from '../support/browser';
import { eventually } from '../support/eventually';

/**
 * Issue 20 item 5 must-show: the public unsubscribe page (in Spanish and in English, by ?lang and
 * by the browser's language) lands the address on the tenant's mail blacklist, a forged link is
 * refused, and the administrator's BlackListMail screen lists it, adds and removes addresses.
 */
jest.setTimeout(120_000);

const ROOT = path.resolve(__dirname, '..', '..');
// MAIL_BLACKLIST_SCREENSHOTS=1 refreshes the docs' pictures; otherwise they go to the temp folder.
const SCREENSHOTS =
  process.env.MAIL_BLACKLIST_SCREENSHOTS === '1' ? join(ROOT, 'docs', 'screenshots') : join(tmpdir(), 'centralita-unsubscribe');

describe('Unsubscribe page and mail blacklist screen (browser)', () => {
  let browser: Browser;
  const contexts: BrowserContext[] = [];
  let admin: AuthResult;
  const signer = new UnsubscribeSigner(process.env);
  const tag = randomBytes(3).toString('hex');
  const spanish = `ana.perez-${tag}@cliente.example.com`;
  const english = `john.smith-${tag}@customer.example.com`;

  const listed = async (address: string) =>
    (await api<ListPage<MailBlacklistEntry>>('GET', `/api/mail-blacklist?q=${encodeURIComponent(address)}`, admin.accessToken)).items;

  async function open(locale: string): Promise<Page> {
    const context = await browser.newContext({ viewport: { width: 1280, height: 760 }, baseURL: baseUrl(), locale });
    contexts.push(context);
    return context.newPage();
  }

  beforeAll(async () => {
    mkdirSync(SCREENSHOTS, { recursive: true });
    browser = await launchBrowser();
    admin = await api<AuthResult>('POST', '/api/auth/login', null, { email: DEMO.admin, password: DEMO_PASSWORD });
  });
  afterAll(async () => {
    for (const context of contexts) await context.close();
    await browser?.close();
  });

  it('confirms in Spanish (?lang=es) without a session and lands the address on the blacklist', async () => {
    const page = await open('en-US');
    const link = unsubscribeUrl({ tenantId: admin.user.clientId, address: spanish, publicUrl: baseUrl(), language: 'es', signer });
    await page.goto(link);
    await page.getByTestId('unsubscribe-ready').waitFor();
    expect(await page.getByTestId('page-title').textContent()).toBe('Darse de baja');
    const lead = await page.getByTestId('unsubscribe-lead').textContent();
    expect(lead).toContain('a***@c***.com');
    expect(lead).toContain('dejará de enviar correos');
    expect(await page.content()).not.toContain(spanish);
    await page.screenshot({ path: join(SCREENSHOTS, 'unsubscribe-es.png') });

    await page.getByTestId('unsubscribe-confirm').click();
    await page.getByTestId('unsubscribe-done').waitFor();
    expect(await page.getByTestId('unsubscribe-done').textContent()).toContain('no recibirá más correos');
    await eventually(async () =>
      expect((await listed(spanish)).map((entry) => [entry.reason, entry.source])).toEqual([['unsubscribe', 'link']]),
    );

    // The same link again: already unsubscribed, nothing asked.
    await page.goto(link);
    await page.getByTestId('unsubscribe-already').waitFor();
  });

  it("follows the browser's language (English) when the link carries none", async () => {
    const page = await open('en-GB');
    await page.goto(unsubscribeUrl({ tenantId: admin.user.clientId, address: english, publicUrl: baseUrl(), signer }));
    await page.getByTestId('unsubscribe-ready').waitFor();
    expect(await page.getByTestId('page-title').textContent()).toBe('Unsubscribe');
    expect(await page.getByTestId('unsubscribe-lead').textContent()).toContain('will stop sending mail to j***@c***.com');
    await page.screenshot({ path: join(SCREENSHOTS, 'unsubscribe-en.png') });
    await page.getByTestId('unsubscribe-confirm').click();
    await page.getByTestId('unsubscribe-done').waitFor();
    await eventually(async () => expect((await listed(english)).map((entry) => entry.reason)).toEqual(['unsubscribe']));
  });

  it('refuses a forged link with a clear message and stores nothing', async () => {
    const victim = `victim-${tag}@cliente.example.com`;
    const page = await open('es-ES');
    const forged = `u1.${admin.user.clientId}.${randomBytes(32).toString('base64url')}`;
    await page.goto(`/session/Unsubscribe/${encodeURIComponent(victim)}?token=${forged}`);
    await page.getByTestId('unsubscribe-invalid').waitFor();
    expect(await page.getByTestId('unsubscribe-invalid').textContent()).toContain('no es válido para esta dirección');
    expect(await listed(victim)).toEqual([]);
  });

  it('lists the unsubscribed addresses on the BlackListMail screen, and adds and removes one', async () => {
    const context = await browser.newContext({ viewport: { width: 1366, height: 800 }, baseURL: baseUrl() });
    contexts.push(context);
    await context.addInitScript(() => window.localStorage.setItem('language', 'es'));
    const page = await context.newPage();
    await signIn(page, DEMO.admin);
    await page.waitForURL((where) => !where.pathname.startsWith('/session'));
    await page.goto('/settings/BlackListMail');
    await page.getByTestId('blacklist-table').waitFor();
    await page.getByTestId('blacklist-search').fill(tag);
    await eventually(async () =>
      expect(await page.getByTestId('blacklist-address').allTextContents()).toEqual(expect.arrayContaining([spanish, english])),
    );
    const reasons = await page.getByTestId('blacklist-reason').allTextContents();
    expect(reasons).toContain('Baja del destinatario');
    await page.screenshot({ path: join(SCREENSHOTS, 'mail-blacklist-es.png') });

    // Add: an invalid address is refused in the form, a valid one is listed.
    const manual = `manual-${tag}@proveedor.example.com`;
    await page.getByTestId('blacklist-add').click();
    await page.getByTestId('blacklist-address-input').fill('not an address');
    await page.getByTestId('blacklist-save').click();
    await page.getByTestId('blacklist-address-error').waitFor();
    await page.getByTestId('blacklist-address-input').fill(manual);
    await page.getByTestId('blacklist-note-input').fill('Pidió la baja por teléfono');
    await page.getByTestId('blacklist-save').click();
    await eventually(async () => expect(await page.getByTestId('blacklist-address').allTextContents()).toContain(manual));
    expect((await listed(manual)).map((entry) => [entry.reason, entry.source, entry.note])).toEqual([
      ['manual', 'admin', 'Pidió la baja por teléfono'],
    ]);

    // Remove it again.
    await page.getByTestId('blacklist-search').fill(manual);
    await eventually(async () => expect(await page.getByTestId('blacklist-address').allTextContents()).toEqual([manual]));
    await page.getByTestId('blacklist-remove').click();
    await page.getByTestId('blacklist-confirm-remove').click();
    await eventually(async () => expect(await listed(manual)).toEqual([]));

    // The toasts of the add and the removal go first: the screenshot shows the screen, not them.
    // (A toast can still be entering while the first are closed: close again until none is left.)
    await eventually(
      async () => {
        for (const close of await page.locator('.p-toast-icon-close').all()) await close.click({ timeout: 1_000 }).catch(() => undefined);
        expect(await page.locator('.p-toast-message').count()).toBe(0);
      },
      { timeoutMs: 30_000, intervalMs: 500 },
    );
    // English through the header's language switch (the init script keeps Spanish on every load).
    await page.getByTestId('language-switch').first().selectOption('en');
    await page.getByTestId('blacklist-search').fill(tag);
    await eventually(async () =>
      expect(await page.getByTestId('blacklist-address').allTextContents()).toEqual(expect.arrayContaining([spanish, english])),
    );
    expect(await page.getByTestId('page-title').textContent()).toBe('Mail blacklist');
    await page.screenshot({ path: join(SCREENSHOTS, 'mail-blacklist-en.png') });
  });
});
