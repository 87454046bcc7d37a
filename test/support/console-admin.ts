import type { ChannelAccountView, OptionItem } from '@centralita/contracts';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import type { WhatsAppFake } from '../fakes/whatsapp-cloud';
import { DEMO, DEMO_PASSWORD, launchBrowser } from './browser';
import type { SuiteApi } from './suite-api';

/**
 * The demo administrator in the console of a suite's own API (startSuiteApi), as the browser suites
 * of templates and campaigns use it: a token for API calls, a signed-in page per language, a channel
 * account connected on the first attention line, and the closing (pages, browser, the account, the
 * API). Each suite keeps its own fakes and what it does with the account.
 *
 *   const admin = consoleAdmin();
 *   beforeAll: suite = await startSuiteApi(...); await admin.open(suite); account = await admin.connectAccount({...});
 *   test:      const page = await admin.page('es', '/OutboundCampaign/CreateTemplates');
 *   afterAll:  await admin.close(account); ...fakes
 */
export function consoleAdmin(viewport: { width: number; height: number } = { width: 1366, height: 900 }) {
  let suite: SuiteApi | undefined;
  let browser: Browser | undefined;
  let token = '';
  const contexts: BrowserContext[] = [];

  const call = <T>(method: string, route: string, body?: unknown): Promise<T> => suite!.call<T>(method, route, token || null, body);

  return {
    call,
    /** The administrator's bearer token (empty until open). */
    token: () => token,
    /** Signs the administrator in over the API of `started` and launches the browser. */
    async open(started: SuiteApi): Promise<void> {
      suite = started;
      token = (await call<{ accessToken: string }>('POST', '/api/auth/login', { email: DEMO.admin, password: DEMO_PASSWORD })).accessToken;
      browser = await launchBrowser();
    },
    /** A channel account connected on the tenant's first attention line. */
    async connectAccount(input: Record<string, unknown>): Promise<ChannelAccountView> {
      const lines = await call<OptionItem[]>('GET', '/api/attention-lines/options');
      return call<ChannelAccountView>('POST', '/api/channel-accounts', { ...input, attentionLineId: lines[0]!.id });
    },
    /** The WhatsApp Cloud API fake's number connected (on the first line), its webhooks pointed at the suite's API. */
    async connectWhatsApp(fake: WhatsAppFake, name: string, settings: Record<string, string> = {}): Promise<ChannelAccountView> {
      const account = await this.connectAccount({
        kind: 'whatsapp',
        name,
        externalAccountId: fake.phoneNumberId,
        settings: { wabaId: fake.wabaId, ...settings },
        secrets: { accessToken: fake.accessToken, appSecret: fake.appSecret },
      });
      fake.setWebhookUrl(`${suite!.url}/api/channels/whatsapp/${account.id}/webhook`);
      return account;
    },
    /** A new browser context in `language`, signed in as the administrator, at `where`. */
    async page(language: 'es' | 'en', where: string): Promise<Page> {
      const context = await browser!.newContext({ viewport, baseURL: suite!.url });
      contexts.push(context);
      await context.addInitScript((lng) => window.localStorage.setItem('language', lng), language);
      const page = await context.newPage();
      await page.goto('/session/signin');
      await page.getByTestId('signin-email').fill(DEMO.admin);
      await page.getByTestId('signin-password').fill(DEMO_PASSWORD);
      await page.getByTestId('signin-submit').click();
      await page.waitForURL((at) => !at.pathname.startsWith('/session'));
      await page.goto(where);
      return page;
    },
    /** Closes the pages and the browser, deletes the account (when there is one) and stops the API. */
    async close(account: ChannelAccountView | undefined): Promise<void> {
      for (const context of contexts) await context.close().catch(() => undefined);
      await browser?.close();
      if (account && token) await call('DELETE', `/api/channel-accounts/${account.id}`).catch(() => undefined);
      await suite?.stop();
    },
  };
}
