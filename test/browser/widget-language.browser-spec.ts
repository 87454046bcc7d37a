import type { Browser, BrowserContext, Frame, Page } from 'playwright-core';
import { baseUrl, DEMO, DEMO_PASSWORD, launchBrowser } from '../support/browser';

/**
 * Issue 24 item 8: the web chat speaks the visitor's browser language (the first of es, en, el,
 * it, sr, de, ru that navigator.languages lists; Spanish otherwise) unless the link or the embed's
 * data-lang names one. That the embed passes only its own data-lang (never the host page's
 * <html lang>) is unit-tested in apps/web/src/widget/widget-logic.spec.ts (frameQuery).
 */
jest.setTimeout(60_000);

describe('Web chat language', () => {
  let browser: Browser;
  let line: string;
  const contexts: BrowserContext[] = [];

  beforeAll(async () => {
    browser = await launchBrowser();
    const login = await fetch(`${baseUrl()}/api/auth/login`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ email: DEMO.admin, password: DEMO_PASSWORD }),
    });
    const { accessToken } = (await login.json()).data as { accessToken: string };
    const options = await fetch(`${baseUrl()}/api/attention-lines/options`, { headers: { Authorization: `Bearer ${accessToken}` } });
    const found = ((await options.json()).data as { id: string; name: string }[]).find((option) => option.name === 'Customer service');
    if (!found) throw new Error('the demo tenant has no "Customer service" line');
    line = found.id;
  });
  afterAll(async () => {
    for (const context of contexts) await context.close();
    await browser?.close();
  });

  /** A visitor whose browser lists `locale` first (Chromium derives navigator.languages from it). */
  async function visitor(locale: string): Promise<Page> {
    const context = await browser.newContext({ locale, baseURL: baseUrl(), viewport: { width: 400, height: 720 } });
    contexts.push(context);
    return context.newPage();
  }

  const languageOf = async (target: Page | Frame): Promise<string> => {
    await target.waitForFunction(() => document.documentElement.lang !== '' && !!document.querySelector('[data-testid^=webchat]'));
    return target.evaluate(() => document.documentElement.lang);
  };

  it.each([
    ['el-GR', 'el'],
    ['sr-RS', 'sr'],
    ['fr-FR', 'es'],
  ])('follows a %s browser on a link that names no language (%s)', async (locale, expected) => {
    const page = await visitor(locale);
    await page.goto(`/WindowChat/windowChat/?line=${line}`);
    await expect(languageOf(page)).resolves.toBe(expected);
  });

  it('keeps the language the link names', async () => {
    const page = await visitor('el-GR');
    await page.goto(`/WindowChat/windowChat/?line=${line}&lang=de`);
    await expect(languageOf(page)).resolves.toBe('de');
  });
});
