/**
 * Headless Chromium for the browser tier, driven by playwright-core (never a downloaded browser:
 * Debian's chromium, found by scripts/test.mjs and passed as CHROMIUM_PATH).
 */
import { QUEUES, type MailJob } from '@centralita/contracts';
import { Queue } from 'bullmq';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { eventually } from './eventually';

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
  reseller: 'reseller@demo.centralita.io',
  platform: 'platform@demo.centralita.io',
} as const;

export async function signIn(page: Page, email: string, password = DEMO_PASSWORD): Promise<void> {
  await page.goto('/session/signin');
  await page.getByTestId('signin-email').fill(email);
  await page.getByTestId('signin-password').fill(password);
  await page.getByTestId('signin-submit').click();
}

/** An API call from a test, answered with the envelope's data; a non-2xx answer throws with its message. */
export async function api<T>(method: string, route: string, token: string | null, body?: unknown): Promise<T> {
  const send = () =>
    fetch(`${baseUrl()}${route}`, {
      method,
      headers: { 'Content-Type': 'application/json', ...(token ? { Authorization: `Bearer ${token}` } : {}) },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
  let response: Response;
  try {
    response = await send();
  } catch (error) {
    // Jest runs suites one after another in the same process, and fetch's pool keeps connections
    // across them: a connection the API closed while this process was busy loading the next suite
    // is reused once and fails before the request was read ("other side closed"). Sent again, once.
    if (!isStaleConnection(error)) throw error;
    response = await send();
  }
  const envelope = (await response.json()) as { data: T; errorMessage?: string };
  if (!response.ok) throw new Error(`${method} ${route}: ${response.status} ${envelope.errorMessage}`);
  return envelope.data;
}

function isStaleConnection(error: unknown): boolean {
  const cause = (error as { cause?: { code?: string; message?: string } } | null)?.cause;
  return cause?.code === 'UND_ERR_SOCKET' || cause?.code === 'ECONNRESET' || /other side closed/.test(cause?.message ?? '');
}

/**
 * The newest invitation link mailed to `email`, read from the browser tier API's mail queue (no
 * worker runs in this tier, so the mail waits there): the path /session/invitation/<token>.
 */
export async function invitationPath(email: string): Promise<string> {
  const queue = new Queue<MailJob>(QUEUES.mail, {
    connection: { url: process.env.REDIS_URL ?? 'redis://127.0.0.1:6379' },
    prefix: `${process.env.QUEUE_PREFIX}-browser`,
  });
  try {
    return await eventually(
      async () => {
        const jobs = (await queue.getJobs(['waiting', 'delayed', 'active', 'completed', 'failed', 'prioritized']))
          .filter((job) => job?.data.to === email)
          .sort((a, b) => b.timestamp - a.timestamp);
        const match = /\/session\/invitation\/[A-Za-z0-9_-]{43}/.exec(jobs[0]?.data.text ?? '');
        if (!match) throw new Error(`no invitation mail to ${email} yet`);
        return match[0];
      },
      { timeoutMs: 15_000 },
    );
  } finally {
    await queue.close();
  }
}

/**
 * An agent of the demo tenant made for one suite (the demo password, serving no line, in no
 * campaign), so no other suite's chats, campaigns or presence reach them. Users are invited: the
 * invitation mailed to them is accepted with the demo password.
 */
export async function createDemoAgent(adminToken: string, user: { name: string; email: string }): Promise<{ id: string }> {
  const options = await api<{ roles: { id: string; name: string }[] }>('GET', '/api/users/form-options', adminToken);
  const role = options.roles.find((item) => /agent/i.test(item.name));
  if (!role) throw new Error('no agent role in the demo tenant');
  await api<{ id: string }>('POST', '/api/users', adminToken, {
    ...user,
    roleId: role.id,
    active: true,
    attentionLineIds: [],
    campaignIds: [],
    pauseReasonCodes: [],
  });
  const token = (await invitationPath(user.email)).split('/').at(-1)!;
  const accepted = await api<{ user: { id: string } }>('POST', '/api/invitations/accept', null, { token, password: DEMO_PASSWORD });
  return { id: accepted.user.id };
}

/** Calling windows open all day, every day (outbound campaigns that must dial whenever the test runs). */
export const ALWAYS_OPEN = Object.fromEntries(
  ['sun', 'mon', 'tue', 'wed', 'thu', 'fri', 'sat'].map((day) => [day, [{ from: '00:00', to: '23:59' }]]),
);
