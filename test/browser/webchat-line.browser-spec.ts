import { randomUUID } from 'node:crypto';
import path from 'node:path';
import type { Browser, BrowserContext } from 'playwright-core';
import { baseUrl, DEMO, DEMO_PASSWORD, launchBrowser, newPage } from '../support/browser';

/**
 * The web-chat page before a conversation: the tenant's welcome message and widget title on an
 * open line, the off-hours message and no form on a closed one, and the catalogue message for a
 * deleted line. Works on the demo tenant and puts back every setting it changes.
 */
jest.setTimeout(60_000);
/** WEBCHAT_SCREENSHOTS=1 refreshes docs/screenshots/widget-welcome-*.png and widget-off-hours-*.png. */
const SHOTS = process.env.WEBCHAT_SCREENSHOTS === '1';
const shot = (name: string) => path.join(__dirname, `../../docs/screenshots/${name}.png`);

const WELCOME = 'Bienvenido a la tienda demo: ¿en qué te ayudamos?';
const OFF_HOURS = 'Ahora estamos cerrados. ¡Gracias por escribirnos!';
const TITLE = 'Ayuda de la tienda demo';

async function call<T>(token: string, method: string, path: string, body?: unknown): Promise<T> {
  const response = await fetch(`${baseUrl()}${path}`, {
    method,
    headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const envelope = (await response.json()) as { data: T; errorMessage?: string };
  if (!response.ok) throw new Error(`${method} ${path}: ${response.status} ${envelope.errorMessage}`);
  return envelope.data;
}

/** A weekday other than today's in UTC (the demo tenant's zone unless its dashboards set one). */
const notToday = (timeZone: string) =>
  (['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'].indexOf(
    new Intl.DateTimeFormat('en-US', { timeZone, weekday: 'short' }).format(new Date()),
  ) +
    3) %
  7;

describe('Web chat: welcome, off hours and deleted lines', () => {
  let browser: Browser;
  const contexts: BrowserContext[] = [];
  let token: string;
  let savedSettings: Record<string, unknown>;
  let savedWebChat: { enabled: boolean; settings: Record<string, string> };
  let openLine: string;
  let closedLine: string;

  beforeAll(async () => {
    browser = await launchBrowser();
    const login = await fetch(`${baseUrl()}/api/auth/login`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ email: DEMO.admin, password: DEMO_PASSWORD }),
    });
    token = ((await login.json()).data as { accessToken: string }).accessToken;
    savedSettings = await call(token, 'GET', '/api/platform-settings');
    const channels = await call<{ channel: string; enabled: boolean; settings: Record<string, string> }[]>(
      token,
      'GET',
      '/api/channels-config',
    );
    savedWebChat = channels.find((channel) => channel.channel === 'WebChat')!;
    await call(token, 'PUT', '/api/platform-settings', { ...savedSettings, welcomeMessage: WELCOME, offHoursMessage: OFF_HOURS });
    await call(token, 'PUT', '/api/channels-config/WebChat', { enabled: savedWebChat.enabled, settings: { widgetTitle: TITLE } });
    const { timeZone } = await call<{ timeZone: string }>(token, 'GET', '/api/dashboards/settings').catch(() => ({ timeZone: 'UTC' }));
    const line = (name: string, businessHours: unknown[]) =>
      call<{ id: string }>(token, 'POST', '/api/attention-lines', { name, type: 'inbound', channel: 'WebChat', businessHours });
    openLine = (await line(`Web open ${randomUUID().slice(0, 8)}`, [])).id;
    closedLine = (await line(`Web closed ${randomUUID().slice(0, 8)}`, [{ day: notToday(timeZone), from: '00:00', to: '23:59' }])).id;
  }, 60_000);

  afterAll(async () => {
    for (const context of contexts) await context.close();
    await browser?.close();
    if (!token) return;
    await call(token, 'PUT', '/api/platform-settings', savedSettings).catch(() => undefined);
    await call(token, 'PUT', '/api/channels-config/WebChat', { enabled: savedWebChat.enabled, settings: savedWebChat.settings }).catch(
      () => undefined,
    );
    for (const id of [openLine, closedLine]) if (id) await call(token, 'DELETE', `/api/attention-lines/${id}`).catch(() => undefined);
  });

  const page = async (query: string, language: string) => {
    const { context, page: opened } = await newPage(browser, { language });
    contexts.push(context);
    await opened.setViewportSize({ width: 400, height: 720 });
    await opened.goto(`/WindowChat/windowChat/?${query}`);
    return opened;
  };

  it('greets with the tenant’s welcome message and widget title on an open line', async () => {
    const customer = await page(`line=${openLine}&lang=es`, 'es');
    await customer.getByTestId('webchat-prechat').waitFor();
    expect(await customer.getByTestId('webchat-welcome').textContent()).toBe(WELCOME);
    expect(await customer.getByTestId('webchat-title').textContent()).toBe(TITLE);
    if (SHOTS) {
      await customer.screenshot({ path: shot('widget-welcome-es') });
      const english = await page(`line=${openLine}&lang=en`, 'en');
      await english.getByTestId('webchat-prechat').waitFor();
      await english.screenshot({ path: shot('widget-welcome-en') });
    }
  });

  it('says, in the customer’s language, that no agent is attending when nobody serves the open line', async () => {
    // The line was made by this suite: no agent belongs to it, so nobody is available or busy on it.
    const spanish = await page(`line=${openLine}&lang=es`, 'es');
    const wait = spanish.getByTestId('webchat-expected-wait');
    await wait.waitFor();
    expect(await wait.getAttribute('data-nobody-serving')).toBe('true');
    expect((await wait.textContent())?.trim()).toBe(
      'Ahora no hay agentes atendiendo: su conversación quedará en cola y la atenderemos en cuanto uno esté disponible',
    );
    const russian = await page(`line=${openLine}&lang=ru`, 'ru');
    await russian.getByTestId('webchat-expected-wait').getByText('Сейчас ни один оператор не работает', { exact: false }).waitFor();
  });

  it('shows the off-hours message and no form on a closed line', async () => {
    const customer = await page(`line=${closedLine}&lang=en`, 'en');
    await customer.getByTestId('webchat-off-hours').getByText(OFF_HOURS).waitFor();
    expect(await customer.getByTestId('webchat-prechat').count()).toBe(0);
    if (SHOTS) {
      await customer.screenshot({ path: shot('widget-off-hours-en') });
      const spanish = await page(`line=${closedLine}&lang=es`, 'es');
      await spanish.getByTestId('webchat-off-hours').waitFor();
      await spanish.screenshot({ path: shot('widget-off-hours-es') });
    }
  });

  it('says in the customer’s language that a deleted line does not exist', async () => {
    const { id: gone } = await call<{ id: string }>(token, 'POST', '/api/attention-lines', {
      name: `Web gone ${randomUUID().slice(0, 8)}`,
      type: 'inbound',
      channel: 'WebChat',
      businessHours: [],
    });
    await call(token, 'DELETE', `/api/attention-lines/${gone}`);
    const customer = await page(`line=${gone}&lang=es`, 'es');
    await customer.getByTestId('webchat-unknown-line').waitFor();
    expect(await customer.getByTestId('webchat-unknown-line').textContent()).toBe('No se encontró una línea de atención');
    expect(await customer.getByTestId('webchat-prechat').count()).toBe(0);
  });
});
