import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import path from 'node:path';
import readline from 'node:readline';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { eventually } from '../support/eventually';
import { baseUrl, DEMO, DEMO_PASSWORD, launchBrowser, newPage, signIn } from '../support/browser';

/**
 * The supervisor's general dashboard against the seeded demo tenant: web-chat traffic started
 * through the public API shows in the figures and the ECharts charts, and a filter changes them.
 * With DASHBOARD_SCREENSHOTS=1 it also writes docs/screenshots/dashboard-{es,en}.png and feelings-en.png.
 */
jest.setTimeout(120_000);

const TAG = `D${Date.now().toString(36)}`;
const SHOTS = process.env.DASHBOARD_SCREENSHOTS === '1';
const WAITING_ROOM = `${TAG} waiting room`;

interface Started {
  visitorToken: string;
}

async function api<T>(pathname: string, init: RequestInit & { token?: string } = {}): Promise<T> {
  const response = await fetch(`${baseUrl()}${pathname}`, {
    ...init,
    headers: { 'Content-Type': 'application/json', ...(init.token ? { Authorization: `Bearer ${init.token}` } : {}) },
  });
  const body = (await response.json()) as { data: T; errorMessage?: string };
  if (response.status !== 200) throw new Error(`${pathname} answered ${response.status}: ${body.errorMessage}`);
  return body.data;
}

/** Queues a web chat on the demo "Customer service" line, with the customer's messages. */
async function queueChat(lineId: string, name: string, messages: string[]): Promise<Started> {
  const started = await api<Started>('/api/webchat/conversations', {
    method: 'POST',
    body: JSON.stringify({ attentionLineId: lineId, name }),
  });
  await api('/api/webchat/conversation/menu', {
    method: 'POST',
    token: started.visitorToken,
    body: JSON.stringify({ queryTypeId: 'sales', submenuId: 'new' }),
  });
  for (const text of messages)
    await api('/api/webchat/conversation/messages', { method: 'POST', token: started.visitorToken, body: JSON.stringify({ text }) });
  return started;
}

/**
 * For the screenshots only: agent 3 takes a chat, answers and closes it, then pauses (so the
 * chats queued next keep waiting). Not in normal runs: other suites use the demo agents.
 */
async function answeredChat(lineId: string): Promise<void> {
  const agent = await api<{ accessToken: string }>('/api/auth/login', {
    method: 'POST',
    body: JSON.stringify({ email: 'agent3@demo.centralita.io', password: DEMO_PASSWORD }),
  });
  await api('/api/agent/presence/login', { method: 'POST', token: agent.accessToken, body: '{}' });
  await queueChat(lineId, `${TAG} Marta`, ['Hola, muchas gracias por la ayuda, excelente']);
  const [mine] = await eventually(async () => {
    const held = await api<{ id: string; customerName: string }[]>('/api/agent/conversations', { token: agent.accessToken });
    const found = held.filter((conversation) => conversation.customerName === `${TAG} Marta`);
    expect(found).toHaveLength(1);
    return found;
  });
  await api(`/api/agent/conversations/${mine!.id}/messages`, {
    method: 'POST',
    token: agent.accessToken,
    body: JSON.stringify({ text: 'Con gusto' }),
  });
  await api(`/api/agent/conversations/${mine!.id}/close`, {
    method: 'POST',
    token: agent.accessToken,
    body: JSON.stringify({ disposition: 'resolved' }),
  });
  await eventually(async () => {
    await api('/api/agent/presence/pause', { method: 'POST', token: agent.accessToken, body: JSON.stringify({ reasonId: 'break' }) });
  });
}

/** Sentiment scoring on the browser tier's database and queue prefix (see browser-setup.ts). */
async function startSentimentWorker(): Promise<ChildProcess> {
  const url = new URL(process.env.DATABASE_URL!);
  url.pathname = `/${process.env.CENTRALITA_BROWSER_TEST_DB}`;
  const child = spawn(process.execPath, [path.join(__dirname, '../support/sentiment-worker.child.cjs')], {
    env: { ...process.env, DATABASE_URL: url.toString(), QUEUE_PREFIX: `${process.env.QUEUE_PREFIX}-browser`, NODE_ENV: 'test' },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  await once(readline.createInterface({ input: child.stdout! }), 'line');
  return child;
}

const value = (page: Page, kpi: string) => page.getByTestId(`kpi-${kpi}-value`).textContent();
const points = async (page: Page, chart: string) => Number(await page.getByTestId(chart).getAttribute('data-points'));

describe('Dashboards', () => {
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  let worker: ChildProcess | undefined;
  const chats: Started[] = [];
  let adminToken = '';
  let phoneLine = '';

  beforeAll(async () => {
    worker = await startSentimentWorker();
    const admin = await api<{ accessToken: string }>('/api/auth/login', {
      method: 'POST',
      body: JSON.stringify({ email: DEMO.admin, password: DEMO_PASSWORD }),
    });
    const lines = await api<{ id: string; name: string }[]>('/api/attention-lines/options', { token: admin.accessToken });
    const line = lines.find((option) => option.name === 'Customer service');
    if (!line) throw new Error('the demo tenant has no "Customer service" line');
    // A line nobody serves, so its customer keeps waiting whatever other suites left logged in.
    const waitingRoom = await api<{ id: string }>('/api/attention-lines', {
      method: 'POST',
      token: admin.accessToken,
      body: JSON.stringify({ name: WAITING_ROOM, type: 'inbound', channel: 'WebChat', internal: false, businessHours: [] }),
    });
    // Where a customer gives up: also a line nobody serves, or an agent another suite left logged in
    // could take the chat before the customer leaves (then there is no abandon to show).
    const gaveUpLine = await api<{ id: string }>('/api/attention-lines', {
      method: 'POST',
      token: admin.accessToken,
      body: JSON.stringify({ name: `${TAG} gave up`, type: 'inbound', channel: 'WebChat', internal: false, businessHours: [] }),
    });
    adminToken = admin.accessToken;
    // A phone line: the channel filter offers Phone from then on (deleted after the suite; no call reaches it).
    phoneLine = (
      await api<{ id: string }>('/api/attention-lines', {
        method: 'POST',
        token: admin.accessToken,
        body: JSON.stringify({ name: `${TAG} phone`, type: 'inbound', channel: 'Phone', internal: false, businessHours: [] }),
      })
    ).id;
    if (SHOTS) await answeredChat(line.id);
    // One customer gives up (an abandon: offered, not answered); one keeps waiting (the live board).
    const gaveUp = await queueChat(gaveUpLine.id, `${TAG} Lucía`, ['Esto es horrible, estoy muy enfadado, el servicio es pésimo']);
    await api('/api/webchat/conversation/leave', { method: 'POST', token: gaveUp.visitorToken });
    chats.push(
      await queueChat(waitingRoom.id, `${TAG} John`, [
        'Thanks, this is great, I love it',
        'This is terrible, awful service, I hate it',
        'Horrible, awful',
      ]),
    );
    browser = await launchBrowser();
    ({ context, page } = await newPage(browser, { language: 'en' }));
    await page.setViewportSize({ width: 1366, height: 900 });
    await signIn(page, DEMO.supervisor);
    await page.waitForURL((url) => !url.pathname.startsWith('/session'));
  });

  afterAll(async () => {
    // Nobody is left waiting for the suites that follow (an agent logging in would receive them).
    for (const chat of chats)
      await api('/api/webchat/conversation/leave', { method: 'POST', token: chat.visitorToken }).catch(() => undefined);
    if (phoneLine) await api(`/api/attention-lines/${phoneLine}`, { method: 'DELETE', token: adminToken }).catch(() => undefined);
    await context?.close();
    await browser?.close();
    if (worker && worker.exitCode === null) {
      worker.kill('SIGTERM');
      await once(worker, 'exit');
    }
  });

  it('renders the general dashboard with figures, charts and the live position board', async () => {
    await page.goto('/dashboard/generaldashboard');
    await expect(page.getByTestId('page-title').textContent()).resolves.toBe('General dashboard');
    await eventually(async () => expect(Number(await value(page, 'offered'))).toBeGreaterThanOrEqual(1), { timeoutMs: 20_000 });
    expect(Number(await value(page, 'abandoned'))).toBeGreaterThanOrEqual(1);
    expect(Number(await value(page, 'waitingNow'))).toBeGreaterThanOrEqual(1);
    // ECharts drew SVG marks, and the series carry data.
    for (const chart of ['chart-trend', 'chart-percentages', 'chart-queueStatus']) {
      await page.locator(`[data-testid=${chart}] svg`).waitFor();
      expect(await page.locator(`[data-testid=${chart}] svg path`).count()).toBeGreaterThan(0);
      expect(await points(page, chart)).toBeGreaterThan(0);
    }
    await page.getByTestId('table-positions').getByText(`${TAG} John`).waitFor();
    // Every figure explains itself.
    await expect(page.getByTestId('kpi-serviceLevel').locator('[data-help]').getAttribute('title')).resolves.toMatch(/÷ offered/);
    if (SHOTS) await page.screenshot({ path: path.join(__dirname, '../../docs/screenshots/dashboard-en.png'), fullPage: true });
  });

  it('changes the figures when a filter is applied', async () => {
    const before = Number(await value(page, 'offered'));
    expect(before).toBeGreaterThan(0);
    await page.locator('.p-dropdown:has(#dash-attentionLineId)').click();
    await page.getByRole('option', { name: WAITING_ROOM }).click();
    // Nothing ended on the waiting room yet: its customer is still queued, and still on the live board.
    await eventually(async () => expect(await value(page, 'offered')).toBe('0'), { timeoutMs: 20_000 });
    await expect(value(page, 'serviceLevel')).resolves.toBe('—');
    await expect(value(page, 'waitingNow')).resolves.toBe('1');
    await page.getByTestId('widget-trend-empty').waitFor();
    await page.getByTestId('table-positions').getByText(`${TAG} John`).waitFor();
  });

  it('shows customer sentiment by line, agent and over time, with the conversation turning negative', async () => {
    await page.goto('/dashboard/DashboardFeelings');
    await eventually(
      async () => {
        await page.getByTestId('dashboard-refresh').click();
        await page.getByTestId('table-turningNegative').getByText(`${TAG} John`).waitFor({ timeout: 2_000 });
      },
      { timeoutMs: 60_000 },
    );
    expect(Number(await value(page, 'sentimentNegative'))).toBeGreaterThanOrEqual(3);
    for (const chart of ['chart-sentiment-line', 'chart-sentiment-time']) expect(await points(page, chart)).toBeGreaterThan(0);
    if (SHOTS) await page.screenshot({ path: path.join(__dirname, '../../docs/screenshots/feelings-en.png'), fullPage: true });
  });

  it('gives everyone else the summary dashboard at /dashboard/default', async () => {
    const admin = await newPage(browser, { language: 'en' });
    try {
      await signIn(admin.page, DEMO.admin);
      await admin.page.waitForURL('**/dashboard/default');
      await admin.page.getByTestId('widget-summary').waitFor();
      expect(Number(await value(admin.page, 'offered'))).toBeGreaterThanOrEqual(1);
      await admin.page.locator('[data-testid=chart-trend] svg').waitFor();
      // Supervisor-only panels are not on it.
      expect(await admin.page.getByTestId('widget-positions').count()).toBe(0);

      // The administrator's settings are saved server-side.
      await admin.page.goto('/dashboard/DashboardSettings');
      await admin.page.locator('#refreshSeconds').fill('90');
      await admin.page.getByTestId('dashboard-settings-save').click();
      await admin.page.getByText('Settings saved').waitFor();
      await admin.page.goto('/dashboard/DashboardSettingServiceAgents');
      await admin.page.getByTestId('schedule-row').first().waitFor();
      await expect(admin.page.getByTestId('schedule-row').count()).resolves.toBe(5);
      await admin.page.getByTestId('widget-compliance').waitFor();
    } finally {
      await admin.context.close();
    }
  });

  it.each([
    ['en', 'Phone', 'Channel', 'Phone, never queued: hung up in the IVR: '],
    ['es', 'Teléfono', 'Canal', 'Teléfono, fuera de las colas: colgadas en el IVR: '],
  ])('filters and groups by the phone channel, named in the console’s language (%s)', async (language, phone, channel, outside) => {
    const own = await newPage(browser, { language: language as 'en' | 'es' });
    try {
      await own.page.setViewportSize({ width: 1366, height: 900 });
      await signIn(own.page, DEMO.supervisor);
      await own.page.waitForURL((url) => !url.pathname.startsWith('/session'));
      await own.page.goto('/dashboard/generaldashboard');
      await own.page.locator('.p-dropdown:has(#dash-channel)').click();
      await own.page.getByRole('option', { name: phone, exact: true }).click();
      await own.page.getByTestId('widget-queueStatus').getByText(channel, { exact: true }).click();
      const table = own.page.getByTestId('table-queueStatus');
      await eventually(
        async () => expect(await table.locator('tbody tr').allTextContents()).toEqual([expect.stringMatching(new RegExp(`^${phone}`))]),
        {
          timeoutMs: 20_000,
        },
      );
      await expect(own.page.getByTestId('queueStatus-callsOutsideQueues').textContent()).resolves.toMatch(new RegExp(`^${outside}\\d+`));
    } finally {
      await own.context.close();
    }
  });

  it('speaks Spanish', async () => {
    const spanish = await newPage(browser, { language: 'es' });
    try {
      await spanish.page.setViewportSize({ width: 1366, height: 900 });
      await signIn(spanish.page, DEMO.supervisor);
      await spanish.page.waitForURL((url) => !url.pathname.startsWith('/session'));
      await spanish.page.goto('/dashboard/generaldashboard');
      await spanish.page.getByTestId('kpi-offered').getByText('Ofrecidas').waitFor();
      await spanish.page.locator('[data-testid=chart-trend] svg').waitFor();
      if (SHOTS) await spanish.page.screenshot({ path: path.join(__dirname, '../../docs/screenshots/dashboard-es.png'), fullPage: true });
    } finally {
      await spanish.context.close();
    }
  });
});
