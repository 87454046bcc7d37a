/**
 * Headless Chromium for the browser tier, driven by playwright-core (never a downloaded browser:
 * Debian's chromium, found by scripts/test.mjs and passed as CHROMIUM_PATH).
 */
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';

export const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

export const baseUrl = (): string => {
  const url = process.env.CENTRALITA_E2E_URL;
  if (!url) throw new Error('CENTRALITA_E2E_URL is not set: run the browser tier through npm test');
  return url;
};

/** Fake microphone and camera, permission granted without a prompt (softphone and video tests). */
export const FAKE_MEDIA_ARGS = [
  '--use-fake-ui-for-media-stream',
  '--use-fake-device-for-media-stream',
  '--autoplay-policy=no-user-gesture-required',
];

export function launchBrowser(options: { fakeMedia?: boolean } = {}): Promise<Browser> {
  const args = options.fakeMedia ? [...CHROMIUM_ARGS, ...FAKE_MEDIA_ARGS] : CHROMIUM_ARGS;
  return chromium.launch({ executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium', args });
}

export async function newPage(browser: Browser, options: { language?: string } = {}): Promise<{ context: BrowserContext; page: Page }> {
  const context = await browser.newContext({ viewport: { width: 1366, height: 800 }, baseURL: baseUrl() });
  if (options.language) {
    const language = options.language;
    await context.addInitScript((lng) => window.localStorage.setItem('language', lng), language);
  }
  const page = await context.newPage();
  return { context, page };
}

export const DEMO_PASSWORD = 'centralita-demo';
export const DEMO = {
  admin: 'admin@demo.centralita.io',
  supervisor: 'supervisor@demo.centralita.io',
  agent: 'agent1@demo.centralita.io',
} as const;

export async function signIn(page: Page, email: string, password = DEMO_PASSWORD): Promise<void> {
  await page.goto('/session/signin');
  await page.getByTestId('signin-email').fill(email);
  await page.getByTestId('signin-password').fill(password);
  await page.getByTestId('signin-submit').click();
}

/** An API call from a test, answered with the envelope's data; a non-2xx answer throws with its message. */
export async function api<T>(method: string, route: string, token: string | null, body?: unknown): Promise<T> {
  const response = await fetch(`${baseUrl()}${route}`, {
    method,
    headers: { 'Content-Type': 'application/json', ...(token ? { Authorization: `Bearer ${token}` } : {}) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const envelope = (await response.json()) as { data: T; errorMessage?: string };
  if (!response.ok) throw new Error(`${method} ${route}: ${response.status} ${envelope.errorMessage}`);
  return envelope.data;
}

/**
 * An agent of the demo tenant made for one suite (the demo password, serving no line, in no
 * campaign), so no other suite's chats, campaigns or presence reach them.
 */
export async function createDemoAgent(adminToken: string, user: { name: string; email: string }): Promise<{ id: string }> {
  const options = await api<{ roles: { id: string; name: string }[] }>('GET', '/api/users/form-options', adminToken);
  const role = options.roles.find((item) => /agent/i.test(item.name));
  if (!role) throw new Error('no agent role in the demo tenant');
  return api<{ id: string }>('POST', '/api/users', adminToken, {
    ...user,
    roleId: role.id,
    password: DEMO_PASSWORD,
    active: true,
    attentionLineIds: [],
    campaignIds: [],
    pauseReasonCodes: [],
  });
}

/** Calling windows open all day, every day (outbound campaigns that must dial whenever the test runs). */
export const ALWAYS_OPEN = Object.fromEntries(
  ['sun', 'mon', 'tue', 'wed', 'thu', 'fri', 'sat'].map((day) => [day, [{ from: '00:00', to: '23:59' }]]),
);
