import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import path from 'node:path';
import readline from 'node:readline';
import type { Browser, BrowserContext, Page, Response } from 'playwright-core';
import { OFF_MENU_ROUTES, type DashboardSummary, type MenuItem, type PauseDetailRow, type PlatformSettings } from '@centralita/contracts';
import { eventually } from '../support/eventually';
import { takeWorkerLock } from '../support/suite-api';
import { api, createDemoAgent, DEMO, DEMO_PASSWORD, launchBrowser, newPage, signIn } from '../support/browser';

/**
 * A working day in the console (issue 24, items 4, 5, 6, 9, 10), against the seeded demo tenant:
 * figures counted to now and an agent's own, settings that show what is in effect, supervisor
 * actions that confirm and tell the agent, menus without duplicates or dead ends, a classic
 * tabular dashboard, and no 404 when staff who are not agents open the desk.
 */
jest.setTimeout(180_000);

const TAG = `CD${Date.now().toString(36)}`;
const AGENT = { name: `${TAG} Agent`, email: `${TAG.toLowerCase()}@demo.centralita.io` };

const login = async (email: string) =>
  (await api<{ accessToken: string }>('POST', '/api/auth/login', null, { email, password: DEMO_PASSWORD })).accessToken;

/** Queues a web chat on a line, with the customer's messages. */
async function queueChat(lineId: string, name: string, messages: string[] = []): Promise<{ visitorToken: string }> {
  const started = await api<{ visitorToken: string }>('POST', '/api/webchat/conversations', null, { attentionLineId: lineId, name });
  await api('POST', '/api/webchat/conversation/menu', started.visitorToken, { queryTypeId: 'sales', submenuId: 'new' });
  for (const text of messages) await api('POST', '/api/webchat/conversation/messages', started.visitorToken, { text });
  return started;
}

/** Sentiment scoring on the browser tier's database and queue prefix (as the dashboards suite runs it). */
async function startSentimentWorker(): Promise<ChildProcess> {
  const url = new URL(process.env.DATABASE_URL!);
  url.pathname = `/${process.env.CENTRALITA_BROWSER_TEST_DB}`;
  const child = spawn(process.execPath, [path.join(__dirname, '../support/sentiment-worker.child.cjs')], {
    env: { ...process.env, DATABASE_URL: url.toString(), QUEUE_PREFIX: `${process.env.QUEUE_PREFIX}-browser`, NODE_ENV: 'test' },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  // Its first line says it is ready; an exit before that fails the test that needs it, at once.
  await Promise.race([
    once(readline.createInterface({ input: child.stdout! }), 'line'),
    once(child, 'exit').then(([code]) => Promise.reject(new Error(`the sentiment worker exited (${String(code)})`))),
  ]);
  return child;
}

const links = (menu: MenuItem[]): string[] =>
  menu.flatMap((item) => (item.type === 'link' ? [item.path] : item.type === 'group' ? links(item.children) : []));

/** 'hh:mm:ss' → seconds. */
const seconds = (text: string) => text.split(':').reduce((total, part) => total * 60 + Number(part), 0);

describe('A day in the console', () => {
  let browser: Browser;
  let worker: ChildProcess | undefined;
  const contexts: BrowserContext[] = [];
  let adminToken: string;
  let supervisorToken: string;
  let agentToken: string;
  let agentId: string;
  let lineId: string;

  const open = async (email: string, language = 'en'): Promise<Page> => {
    const { context, page } = await newPage(browser, { language });
    contexts.push(context);
    await signIn(page, email);
    await page.getByTestId('sidebar').waitFor();
    return page;
  };

  beforeAll(async () => {
    adminToken = await login(DEMO.admin);
    supervisorToken = await login(DEMO.supervisor);
    // A line nobody serves: its customers keep waiting with no agent available.
    lineId = (
      await api<{ id: string }>('POST', '/api/attention-lines', adminToken, {
        name: `${TAG} nobody serves`,
        type: 'inbound',
        channel: 'WebChat',
        internal: false,
        businessHours: [],
      })
    ).id;
    ({ id: agentId } = await createDemoAgent(adminToken, AGENT));
    agentToken = await login(AGENT.email);
    await api('POST', '/api/agent/presence/login', agentToken, {});
    // One customer gives up (offered to the tenant, nobody's figure), one keeps waiting.
    const gaveUp = await queueChat(lineId, `${TAG} Lucía`);
    await api('POST', '/api/webchat/conversation/leave', gaveUp.visitorToken);
    browser = await launchBrowser();
  });

  afterAll(async () => {
    for (const context of contexts) await context.close();
    await browser?.close();
    worker?.kill();
  });

  it('lists each screen once in the menu and keeps unbuilt or duplicate routes reachable by URL only', async () => {
    const supervisorMenu = links(await api<MenuItem[]>('GET', '/api/menu', supervisorToken));
    const live = ['/dashboard/superUser', '/conversations/conversations', '/livePersonConversations/ConversationList'];
    expect(supervisorMenu.filter((path) => live.includes(path) || path === '/livePersonConversations/LivePersonWindowChat')).toEqual([
      '/dashboard/superUser',
    ]);
    const agentMenu = links(await api<MenuItem[]>('GET', '/api/menu', agentToken));
    expect(
      agentMenu.filter((path) => ['/dashboard/DashboardAgente', '/conversations/agentConversations', '/chat/agent'].includes(path)),
    ).toEqual(['/conversations/agentConversations']);
    // Every route kept off the menu (unbuilt, duplicate or public) stays off; a built screen is on it.
    for (const offMenu of Object.keys(OFF_MENU_ROUTES)) expect(agentMenu).not.toContain(offMenu);
    expect(agentMenu).toContain('/crm/crmlist');

    // Still reachable by URL: the supervisor's old monitor route opens the live board.
    const page = await open(DEMO.supervisor);
    await page.goto('/livePersonConversations/ConversationList');
    await page.getByTestId('supervisor-view').waitFor();
    expect(await page.getByTestId('capability-placeholder').count()).toBe(0);
  });

  it('shows the classic dashboard as one table of the same figures', async () => {
    const page = await open(DEMO.supervisor, 'es');
    await page.goto('/dashboard/defaultold');
    const table = page.getByTestId('classic-table');
    await table.waitFor();
    expect(await table.locator('tbody tr').count()).toBe(11);
    expect(await page.getByTestId('capability-placeholder').count()).toBe(0);
    const offered = await api<DashboardSummary>(
      'GET',
      `/api/dashboards/summary?from=${Date.now() - 86_400_000}&to=${Date.now() + 86_400_000}`,
      supervisorToken,
    );
    expect(offered.offered).toBeGreaterThan(0);
    expect(await table.locator('thead th').first().textContent()).toBe('Indicador');
  });

  it("shows an agent their own figures on the dashboard, not the tenant's", async () => {
    const page = await open(AGENT.email);
    await page.goto('/dashboard/default');
    // The tenant has offered contacts today (the customer who gave up); this agent answered none.
    await eventually(async () => expect(await page.getByTestId('kpi-offered-value').textContent()).toBe('0'));
    expect(await page.getByTestId('kpi-handled-value').textContent()).toBe('0');
  });

  it('colours a queue with customers waiting and no agent available', async () => {
    await queueChat(lineId, `${TAG} Waiting`);
    const page = await open(DEMO.supervisor);
    await page.goto('/dashboard/superUser');
    const card = page.locator(`[data-testid="queue-card"][data-line-id="${lineId}"]`);
    await eventually(async () => expect(await card.getAttribute('data-unserved')).toBe('true'));
    expect(await card.getByTestId('queue-unserved').textContent()).toContain('no agent available');
  });

  it('asks before a force pause, tells the agent why, and counts the pause to now', async () => {
    const desk = await open(AGENT.email);
    await desk.goto('/conversations/agentConversations');
    const board = await open(DEMO.supervisor);
    await board.goto('/dashboard/superUser');
    const row = board.locator(`[data-testid="agent-row"][data-agent-id="${agentId}"]`);
    await eventually(async () => expect(await row.getAttribute('data-status')).toBe('available'));
    // A labelled action, not a bare icon.
    expect(await row.getByTestId('agent-force-pause').textContent()).toContain('Force pause');

    await row.getByTestId('agent-force-pause').click();
    expect(await board.getByTestId('agent-force-confirm-message').textContent()).toContain(AGENT.name);
    await board.getByTestId('agent-force-cancel').click();
    expect(await row.getAttribute('data-status')).toBe('available');

    await row.getByTestId('agent-force-pause').click();
    await board.getByTestId('agent-force-confirm').click();
    await eventually(async () => expect(await row.getAttribute('data-status')).toBe('paused'));
    await eventually(async () => expect(await desk.locator('.p-toast').textContent()).toContain('A supervisor paused you'));

    // Pause detail for today (the range runs to midnight): seconds of pause, not the hours left in the day.
    await board.goto('/dashboard/shared/AgentPauseDetail');
    const pauseRow = board.getByTestId('table-pauses').locator('tr', { hasText: AGENT.name });
    await pauseRow.waitFor();
    expect(seconds((await pauseRow.locator('td').nth(2).textContent())!)).toBeLessThan(300);
    const now = Date.now();
    const [pause] = await api<PauseDetailRow[]>(
      'GET',
      `/api/dashboards/pauses?from=${now - 3_600_000}&to=${now + 12 * 3_600_000}&agentId=${agentId}`,
      supervisorToken,
    );
    expect(pause!.ms).toBeLessThan(300_000);
  });

  it('asks before a force logout and tells the agent their shift ended', async () => {
    await api('POST', '/api/agent/presence/available', agentToken, {});
    const desk = await open(AGENT.email);
    await desk.goto('/conversations/agentConversations');
    const board = await open(DEMO.supervisor);
    await board.goto('/dashboard/superUser');
    const row = board.locator(`[data-testid="agent-row"][data-agent-id="${agentId}"]`);
    await eventually(async () => expect(await row.getAttribute('data-status')).toBe('available'));
    await row.getByTestId('agent-force-logout').click();
    expect(await board.getByTestId('agent-force-confirm-message').textContent()).toContain('back to the queue: 0');
    await board.getByTestId('agent-force-confirm').click();
    await eventually(async () => expect(await row.getAttribute('data-status')).toBe('loggedOut'));
    await eventually(async () => expect(await desk.locator('.p-toast').textContent()).toContain('A supervisor ended your shift'));
  });

  it('raises an alert on the live board when a conversation turns negative', async () => {
    // The alert is a worker-written outbox row that any API of the run delivers once stale, to its own
    // queue prefix. Suites with their own API and worker (startSuiteApi, same database, another prefix)
    // would take it on a loaded machine: this test holds their lock, so none runs meanwhile.
    const release = await takeWorkerLock();
    try {
      worker = await startSentimentWorker();
      const board = await open(DEMO.supervisor);
      await board.goto('/dashboard/superUser');
      await board.getByTestId('agent-board').waitFor();
      await queueChat(lineId, `${TAG} Angry`, ['This is terrible, awful service, I hate it', 'Horrible, awful, the worst']);
      const alert = board.locator('[data-testid="sentiment-alert"]', { hasText: `${TAG} Angry` });
      await eventually(async () => expect(await alert.count()).toBe(1), { timeoutMs: 30_000 });
    } finally {
      release();
    }
  }, 420_000);

  it('shows on platform settings exactly what is in effect, with what an empty message means', async () => {
    const inEffect = await api<PlatformSettings>('GET', '/api/platform-settings', adminToken);
    const page = await open(DEMO.admin);
    await page.goto('/platformSettings/platformSettings');
    const welcome = page.locator('#settings-welcome');
    await eventually(async () => expect(await welcome.inputValue()).toBe(inEffect.welcomeMessage));
    expect(await page.getByTestId('admin-form').textContent()).toContain('Empty: the web chat greets with its own text');
    const chips = await page.locator('.settings-emoticons .p-chips-token-label').allTextContents();
    expect(chips).toEqual(inEffect.emoticons);
    expect(inEffect.emoticons.length).toBeGreaterThan(0);
  });

  it('lets an administrator and a supervisor open the desk without a 404', async () => {
    for (const email of [DEMO.admin, DEMO.supervisor]) {
      const page = await open(email);
      const missing: string[] = [];
      const watch = (response: Response) => {
        if (response.status() === 404) missing.push(response.url());
      };
      page.on('response', watch);
      await page.goto('/conversations/agentConversations');
      await page.waitForLoadState('networkidle');
      page.off('response', watch);
      expect(missing).toEqual([]);
    }
  });
});
