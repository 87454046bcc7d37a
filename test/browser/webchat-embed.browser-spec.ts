import { randomUUID } from 'node:crypto';
import path from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import type { MenuItem, WebchatLineView } from '@centralita/contracts';
import { api, baseUrl, DEMO, DEMO_PASSWORD, launchBrowser, newPage, signIn } from '../support/browser';

/**
 * Issue 24 items 7 and 8: the administrator's web-chat page per line (reached from the service
 * lines list and the menu: embed snippet, direct link, copy, live preview, open or closed now and
 * the hours) and the widget's off-hours screen naming when the line opens again. Lines are made
 * by this suite (unique names) and deleted afterwards.
 */
jest.setTimeout(90_000);
/** WEBCHAT_SCREENSHOTS=1 refreshes docs/screenshots/webchat-embed-es.png and webchat-embed-en.png. */
const SHOTS = process.env.WEBCHAT_SCREENSHOTS === '1';
const shot = (name: string) => path.join(__dirname, `../../docs/screenshots/${name}.png`);

const WEEKDAYS = ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'];
/** Three days after today in `timeZone`: the line is certainly closed now and opens that day at 09:00. */
const inThreeDays = (timeZone: string) =>
  (WEEKDAYS.indexOf(new Intl.DateTimeFormat('en-US', { timeZone, weekday: 'short' }).format(new Date())) + 3) % 7;
const weekday = (day: number, locale: string) =>
  new Intl.DateTimeFormat(locale, { weekday: 'long', timeZone: 'UTC' }).format(new Date(Date.UTC(2023, 0, 1 + day)));

describe('Web chat embed page and off-hours hours', () => {
  let browser: Browser;
  const contexts: BrowserContext[] = [];
  let token: string;
  let clientId: string;
  let openLine: { id: string; name: string };
  let closedLine: { id: string; name: string };
  let closedDay: number;

  beforeAll(async () => {
    browser = await launchBrowser();
    const login = await api<{ accessToken: string; user: { clientId: string } }>('POST', '/api/auth/login', null, {
      email: DEMO.admin,
      password: DEMO_PASSWORD,
    });
    token = login.accessToken;
    clientId = login.user.clientId;
    const suffix = randomUUID().slice(0, 6);
    const line = async (name: string, businessHours: unknown[]) => ({
      name,
      id: (await api<{ id: string }>('POST', '/api/attention-lines', token, { name, type: 'inbound', channel: 'WebChat', businessHours }))
        .id,
    });
    openLine = await line(`Tienda online ${suffix}`, []);
    // The line's zone is the tenant's (dashboard settings), UTC when none is set.
    const probe = await api<WebchatLineView>('GET', `/api/webchat/lines/${openLine.id}`, null);
    closedDay = inThreeDays(probe.timeZone);
    closedLine = await line(`Soporte nocturno ${suffix}`, [
      { day: closedDay, from: '09:00', to: '17:30' },
      { day: (closedDay + 1) % 7, from: '09:00', to: '17:30' },
    ]);
  });

  afterAll(async () => {
    for (const context of contexts) await context.close();
    await browser?.close();
    for (const line of [openLine, closedLine])
      if (line) await api('DELETE', `/api/attention-lines/${line.id}`, token).catch(() => undefined);
  });

  async function admin(language: string): Promise<{ page: Page; context: BrowserContext }> {
    const opened = await newPage(browser, { language });
    contexts.push(opened.context);
    await opened.context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: baseUrl() });
    await signIn(opened.page, DEMO.admin);
    await opened.page.getByTestId('sidebar').waitFor();
    return opened;
  }

  const origin = () => new URL(baseUrl()).origin;

  it('lists the page in the administrator’s menu, with the service lines', async () => {
    const menu = await api<MenuItem[]>('GET', '/api/menu', token);
    const links = (items: MenuItem[]): string[] =>
      items.flatMap((item) => (item.type === 'link' ? [item.path] : item.type === 'group' ? links(item.children) : []));
    expect(links(menu)).toContain('/attentionList/webChat');
    // The visitors' page stays off the menu (still open by URL).
    expect(links(menu)).not.toContain('/WindowChat/windowChat/');
  });

  it('opens from the service lines list: snippet and link to copy, and a live preview of the line’s chat', async () => {
    const { page } = await admin('es');
    await page.goto('/attentionList/attentionList');
    await page.getByTestId('admin-search').fill(openLine.name);
    await page.locator(`[data-testid="line-webchat"][data-id="${openLine.id}"]`).click();
    await page.waitForURL(`**/attentionList/webChat?id=${openLine.id}`);
    await page.getByTestId('webchat-embed').waitFor();

    const snippet = `<script src="${origin()}/widget.js" data-tenant="${clientId}" data-line="${openLine.id}" async></script>`;
    expect(await page.getByTestId('webchat-embed-snippet').textContent()).toBe(snippet);
    const link = `${origin()}/WindowChat/windowChat/?tenant=${clientId}&line=${openLine.id}`;
    expect(await page.getByTestId('webchat-embed-link').inputValue()).toBe(link);
    expect(await page.getByTestId('webchat-embed-open').getAttribute('href')).toBe(link);
    expect(await page.getByTestId('webchat-embed-open').getAttribute('target')).toBe('_blank');
    expect(await page.getByTestId('webchat-embed-status').getAttribute('data-open')).toBe('true');
    expect(await page.getByTestId('webchat-embed-hours').textContent()).toBe('Siempre abierta (sin horario)');

    await page.getByTestId('webchat-embed-copy-snippet').click();
    await page.getByText('Código copiado al portapapeles.').waitFor();
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(snippet);
    await page.getByTestId('webchat-embed-copy-link').click();
    await page.getByText('Enlace copiado al portapapeles.').waitFor();
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(link);

    // The preview is the chat the launcher opens (embed=1), for this line: its pre-chat form, in the
    // console's language while the snippet leaves the language to the visitor's browser.
    const preview = page.frameLocator('[data-testid="webchat-embed-preview"]');
    await preview.getByTestId('webchat-prechat').waitFor();
    expect(await page.getByTestId('webchat-embed-preview').getAttribute('src')).toBe(
      `/WindowChat/windowChat/?tenant=${clientId}&line=${openLine.id}&embed=1&lang=es`,
    );
  });

  it('puts the chosen language in the snippet, the link and the preview', async () => {
    const { page } = await admin('en');
    await page.goto(`/attentionList/webChat?id=${openLine.id}`);
    await page.getByTestId('webchat-embed').waitFor();
    await page.getByTestId('webchat-embed-lang').click();
    await page.getByRole('option', { name: 'Deutsch (de)' }).click();
    await page.waitForURL(/lang=de/);
    await page.getByTestId('webchat-embed-snippet').getByText('data-lang="de"', { exact: false }).waitFor();
    expect(await page.getByTestId('webchat-embed-snippet').textContent()).toContain(`data-line="${openLine.id}" data-lang="de" async>`);
    expect(await page.getByTestId('webchat-embed-link').inputValue()).toMatch(/&lang=de$/);
    const frame = page.frameLocator('[data-testid="webchat-embed-preview"]');
    await frame.getByTestId('webchat-prechat').waitFor();
    const previewFrame = page.frames().find((candidate) => candidate.url().includes('embed=1'));
    expect(await previewFrame?.evaluate(() => document.documentElement.lang)).toBe('de');
  });

  it('shows a closed line’s state: closed now, when it opens again and its hours', async () => {
    const { page } = await admin('es');
    await page.goto(`/attentionList/webChat?id=${closedLine.id}`);
    await page.getByTestId('webchat-embed-state').waitFor();
    expect(await page.getByTestId('webchat-embed-status').getAttribute('data-open')).toBe('false');
    expect(await page.getByTestId('webchat-embed-reopens').textContent()).toBe(
      `Abrimos de nuevo el ${weekday(closedDay, 'es')} a las 09:00.`,
    );
    const hours = await page.getByTestId('webchat-embed-hours').textContent();
    expect(hours).toContain('09:00–17:30');
    // The preview shows what a customer sees now: the off-hours screen with the next opening.
    await page.frameLocator('[data-testid="webchat-embed-preview"]').getByTestId('webchat-reopens').waitFor();
  });

  it('says an unknown line was not found', async () => {
    const { page } = await admin('es');
    await page.goto(`/attentionList/webChat?id=${randomUUID()}`);
    expect(await page.getByTestId('webchat-embed-error').textContent()).toBe('No se encontró la línea de atención.');
  });

  it('tells the customer of a closed line when it opens again, in the widget’s language', async () => {
    const visitor = async (lang: string) => {
      const { context, page } = await newPage(browser);
      contexts.push(context);
      await page.setViewportSize({ width: 400, height: 720 });
      await page.goto(`/WindowChat/windowChat/?line=${closedLine.id}&lang=${lang}`);
      await page.getByTestId('webchat-off-hours').waitFor();
      return page;
    };
    const spanish = await visitor('es');
    expect(await spanish.getByTestId('webchat-reopens').textContent()).toBe(`Abrimos de nuevo el ${weekday(closedDay, 'es')} a las 09:00.`);
    expect(await spanish.getByTestId('webchat-prechat').count()).toBe(0);
    // The week is listed Monday first: Sunday and Monday fall on two rows, any other two days share one.
    const rows = spanish.getByTestId('webchat-hours').locator('.webchat-hours__row');
    const next = (closedDay + 1) % 7;
    expect(await rows.allTextContents()).toEqual(
      closedDay === 0
        ? [`${weekday(next, 'es')}09:00–17:30`, `${weekday(closedDay, 'es')}09:00–17:30`]
        : [`${weekday(closedDay, 'es')} – ${weekday(next, 'es')}09:00–17:30`],
    );
    const english = await visitor('en');
    expect(await english.getByTestId('webchat-reopens').textContent()).toBe(`We open again on ${weekday(closedDay, 'en')} at 09:00 AM.`);
    const russian = await visitor('ru');
    expect(await russian.getByTestId('webchat-reopens').textContent()).toBe(`Мы снова откроемся: ${weekday(closedDay, 'ru')}, 09:00.`);
  });

  it('takes the screenshots of the embed page in Spanish and English', async () => {
    if (!SHOTS) return;
    for (const language of ['es', 'en']) {
      const { page } = await admin(language);
      await page.setViewportSize({ width: 1366, height: 1180 });
      await page.goto(`/attentionList/webChat?id=${closedLine.id}`);
      await page.frameLocator('[data-testid="webchat-embed-preview"]').getByTestId('webchat-reopens').waitFor();
      await page.screenshot({ path: shot(`webchat-embed-${language}`) });
    }
  });
});
