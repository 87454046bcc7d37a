import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { Client } from 'pg';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { ALWAYS_OPEN, api, createDemoAgent, DEMO, DEMO_PASSWORD, launchBrowser, newPage, signIn } from '../support/browser';
import { eventually } from '../support/eventually';
import { takeWorkerLock } from '../support/suite-api';

/**
 * Outbound dialing end to end: the built worker runs the dialer with the carrier simulator (every
 * call answered by a person who stays on the line); an agent sets 'waiting for outbound call' in the
 * desk, sees the screen pop, hangs up and picks a disposition; the administrator's live board
 * (/OutboundCampaign/CampaignList) shows the call and the agent's states as they change.
 */
const ROOT = path.resolve(__dirname, '..', '..');
const DEMO_LIST_ID = '00000000-0000-4000-8000-00000000d1a1';

jest.setTimeout(90_000);

describe('Outbound dialing: agent desk and live campaign board', () => {
  let browser: Browser;
  const contexts: BrowserContext[] = [];
  let agent: Page;
  let supervisor: Page;
  let worker: ChildProcess | null = null;
  let campaignId: string;
  let agentId: string;
  let adminToken: string;
  let tenantId: string;
  const agentEmail = `outbound-${randomBytes(4).toString('hex')}@demo.centralita.io`;
  const agentName = `Outbound Agent ${randomBytes(2).toString('hex')}`;

  /** The run's suite-worker lock (see takeWorkerLock), held from before this suite's worker starts until it stopped. */
  let releaseWorkerLock: () => void = () => undefined;

  beforeAll(async () => {
    // Every worker reads every mailbox of the tier's database and announces what it stores to its own
    // API: this suite's worker would take an email suite's mail and route it through the tier's API,
    // whose pushes never reach that suite's desk. Suites with a worker run one at a time.
    releaseWorkerLock = await takeWorkerLock();
    const session = await api<{ accessToken: string; user: { clientId: string } }>('POST', '/api/auth/login', null, {
      email: DEMO.admin,
      password: DEMO_PASSWORD,
    });
    const token = session.accessToken;
    adminToken = token;
    tenantId = session.user.clientId;
    // An agent of our own, serving no line, so no other suite's chats or presence interfere.
    const user = await createDemoAgent(token, { name: agentName, email: agentEmail });
    agentId = user.id;
    const campaign = await api<{ id: string }>('POST', '/api/outbound/campaigns', token, {
      name: `Browser progressive ${randomBytes(2).toString('hex')}`,
      phoneListId: DEMO_LIST_ID,
      mode: 'progressive',
      callingWindows: ALWAYS_OPEN,
      agentIds: [agentId],
    });
    campaignId = campaign.id;
    await api('POST', `/api/outbound/campaigns/${campaignId}/start`, token, {});

    const databaseUrl = new URL(process.env.DATABASE_URL!);
    databaseUrl.pathname = `/${process.env.CENTRALITA_BROWSER_TEST_DB}`;
    worker = spawn(process.execPath, [path.join(ROOT, 'apps/worker/dist/main.js')], {
      env: {
        ...process.env,
        NODE_ENV: 'test',
        DATABASE_URL: databaseUrl.toString(),
        QUEUE_PREFIX: `${process.env.QUEUE_PREFIX}-browser`,
        DIALER_ENABLED: 'true',
        DIALER_DRIVER: 'interval',
        // Provider sends stay with the channel suites' workers, which point at their fakes.
        CHANNEL_SEND_ENABLED: 'off',
        DIALER_TENANTS: session.user.clientId,
        SIMULATOR_PROFILE: JSON.stringify({
          answerRate: 1,
          machineRate: 0,
          busyRate: 0,
          failedRate: 0,
          // Long enough for the board to show a ringing call's campaign as dialling even on a loaded machine.
          ringSec: { min: 2, max: 2.5 },
          talkSec: { mean: 3600, sd: 1 },
        }),
      },
      stdio: ['ignore', 'ignore', 'inherit'],
    });

    browser = await launchBrowser();
    for (let i = 0; i < 2; i++) {
      const { context, page } = await newPage(browser, { language: 'en' });
      contexts.push(context);
      if (i === 0) agent = page;
      else supervisor = page;
    }
    // The suite-worker lock may be waited for (up to 200 s) before the setup starts.
  }, 260_000);

  /** A new agent of the demo tenant, serving no line. */
  async function newAgent(tag: string): Promise<{ id: string; email: string }> {
    const email = `${tag}-${randomBytes(4).toString('hex')}@demo.centralita.io`;
    const { id } = await createDemoAgent(adminToken, { name: `${tag} ${randomBytes(2).toString('hex')}`, email });
    return { id, email };
  }

  /** A phone list written straight to the tables (the import has its own tests). */
  async function phoneList(entries: { phone: string; name: string }[]): Promise<string> {
    const url = new URL(process.env.DATABASE_URL!);
    url.pathname = `/${process.env.CENTRALITA_BROWSER_TEST_DB}`;
    const db = new Client({ connectionString: url.toString() });
    await db.connect();
    try {
      const { rows } = await db.query(`INSERT INTO phone_lists (client_id, name, entry_count) VALUES ($1, $2, $3) RETURNING id`, [
        tenantId,
        `Browser list ${randomBytes(2).toString('hex')}`,
        entries.length,
      ]);
      for (const [index, entry] of entries.entries()) {
        await db.query(`INSERT INTO phone_list_entries (list_id, client_id, phone, name, line) VALUES ($1, $2, $3, $4, $5)`, [
          rows[0].id,
          tenantId,
          entry.phone,
          entry.name,
          index + 2,
        ]);
      }
      return rows[0].id as string;
    } finally {
      await db.end();
    }
  }

  afterAll(async () => {
    if (worker && worker.exitCode === null) {
      worker.kill('SIGTERM');
      await new Promise((resolve) => worker!.once('exit', resolve));
    }
    releaseWorkerLock();
    for (const context of contexts) await context.close();
    await browser?.close();
  });

  const boardAgent = () => supervisor.getByTestId(`board-agent-${agentId}`);

  it('shows the live board of the running campaign to the supervisor', async () => {
    await signIn(supervisor, DEMO.supervisor);
    await supervisor.waitForURL('**/dashboard/**');
    await supervisor.goto('/OutboundCampaign/CampaignList');
    await supervisor.getByTestId('outbound-campaigns').waitFor();
    await supervisor.getByTestId(`campaign-status-${campaignId}`).click();
    await supervisor.getByTestId('outbound-board').waitFor();
    await supervisor.locator('[data-testid=board-remaining]', { hasText: '12' }).waitFor();
    // Running, but its only agent is not waiting: the board says why nothing is dialled (pushed by the dialer's round).
    const idle = supervisor.locator('[data-testid=board-idle][data-reason=noAgentWaiting]');
    await idle.waitFor();
    expect((await idle.textContent())?.trim()).toBe('Not dialling: no agent of the campaign is waiting for a call');
  });

  it('lets the agent wait for an outbound call and pops the answered contact', async () => {
    await signIn(agent, agentEmail);
    await agent.waitForURL('**/dashboard/**');
    await agent.goto('/conversations/agentConversations');
    await agent.getByTestId('presence-available').click();
    // Dialling: the board's "not dialling" reason goes away while the call is placed and rings. Only
    // for that moment: once the agent is on the call nobody waits, and the dialer's next round says so
    // again. Watched on every DOM change from before the agent waits, so the moment is not missed.
    await supervisor.evaluate(() => {
      const seen = window as unknown as { boardIdleGone?: boolean };
      new MutationObserver((_, observer) => {
        if (document.querySelector('[data-testid=board-idle]')) return;
        seen.boardIdleGone = true;
        observer.disconnect();
      }).observe(document.body, { childList: true, subtree: true });
    });
    const reasonGone = supervisor.waitForFunction(() => (window as unknown as { boardIdleGone?: boolean }).boardIdleGone === true, null, {
      timeout: 60_000,
    });
    await agent.locator('[data-testid=outbound-wait]:not([disabled])').click();
    // The board sees the agent waiting (or already on the call: the simulator answers within 2.5 s).
    await supervisor
      .locator(
        `[data-testid=board-agent-${agentId}][data-status=waitingOutboundCall], [data-testid=board-agent-${agentId}][data-status=outboundCall]`,
      )
      .waitFor();
    const pop = agent.getByTestId('outbound-screen-pop');
    await pop.waitFor({ timeout: 30_000 });
    expect(await agent.getByTestId('pop-phone').textContent()).toMatch(/^\+34600100\d{3}$/);
    expect((await agent.getByTestId('pop-contact').textContent())?.length).toBeGreaterThan(2);
    await supervisor.locator(`[data-testid=board-agent-${agentId}][data-status=outboundCall]`).waitFor();
    await supervisor.locator('[data-testid=board-in-progress]', { hasText: '1' }).waitFor();
    await reasonGone;
  });

  it('hangs up, takes the disposition, and the board shows the finished call', async () => {
    await agent.getByTestId('outbound-hangup').click();
    await agent.getByTestId('outbound-disposition-form').waitFor();
    await supervisor.locator(`[data-testid=board-agent-${agentId}][data-status=afterCallWork]`).waitFor();
    await agent.getByTestId('outbound-disposition').selectOption('sale');
    await agent.getByTestId('outbound-save-disposition').click();
    await agent.getByTestId('outbound-done').waitFor();
    const calls = supervisor.getByTestId('board-calls');
    await calls.getByText('Done').first().waitFor();
    await calls.getByText('Sale').first().waitFor();
    await supervisor.locator('[data-testid=board-answered]', { hasText: '1' }).waitFor();
    await supervisor.locator('[data-testid=board-remaining]', { hasText: '11' }).waitFor();
    expect(await boardAgent().count()).toBe(1);
  });
  it("tells a preview agent that their call waits for a free line on the campaign's trunk, then connects it when one frees", async () => {
    // A trunk of one line, held by a progressive campaign's call to another agent.
    const trunk = await api<{ id: string }>('POST', '/api/trunks', adminToken, {
      name: `One line ${randomBytes(2).toString('hex')}`,
      host: 'sip.one-line.test',
      callerId: '+34910000077',
      maxConcurrentCalls: 1,
    });
    const [talking, previewing] = [await newAgent('talking'), await newAgent('previewing')];
    const busy = await api<{ id: string }>('POST', '/api/outbound/campaigns', adminToken, {
      name: `Browser busy line ${randomBytes(2).toString('hex')}`,
      phoneListId: await phoneList([{ phone: '+34600177001', name: 'Holds the line' }]),
      mode: 'progressive',
      callingWindows: ALWAYS_OPEN,
      trunkId: trunk.id,
      agentIds: [talking.id],
    });
    const preview = await api<{ id: string }>('POST', '/api/outbound/campaigns', adminToken, {
      name: `Browser preview ${randomBytes(2).toString('hex')}`,
      phoneListId: await phoneList([{ phone: '+34600177002', name: 'Previewed Person' }]),
      mode: 'preview',
      callingWindows: ALWAYS_OPEN,
      trunkId: trunk.id,
      agentIds: [previewing.id],
    });
    for (const id of [busy.id, preview.id]) await api('POST', `/api/outbound/campaigns/${id}/start`, adminToken, {});
    const talker = await api<{ accessToken: string }>('POST', '/api/auth/login', null, { email: talking.email, password: DEMO_PASSWORD });
    await api('POST', '/api/agent/presence/login', talker.accessToken, {});
    await api('POST', '/api/outbound/agent/waiting', talker.accessToken, {});
    const call = await eventually(
      async () => {
        const current = await api<{ id: string; status: string } | null>('GET', '/api/outbound/agent/call', talker.accessToken);
        expect(current?.status).toBe('connected');
        return current!;
      },
      { timeoutMs: 30_000, intervalMs: 200 },
    );

    const { context, page } = await newPage(browser, { language: 'en' });
    contexts.push(context);
    // The race that once left the desk saying "dialling": the dialer finds the line busy and pushes
    // "waiting for a line" before the answer to the agent's dial reaches the desk. Forced here: the
    // answer is held until the push has arrived over the page's socket.
    const linePushed = new Promise<void>((resolve) =>
      page.on('websocket', (socket) =>
        socket.on('framereceived', ({ payload }) => {
          if (String(payload).includes('"outbound.preview"') && String(payload).includes('waitingForLineSince":"')) resolve();
        }),
      ),
    );
    await signIn(page, previewing.email);
    await page.waitForURL('**/dashboard/**');
    await page.goto('/conversations/agentConversations');
    await page.getByTestId('presence-available').click();
    await page.locator('[data-testid=preview-next]:not([disabled])').click();
    await page.getByTestId('preview-phone').getByText('+34600177002').waitFor();
    await page.route('**/api/outbound/agent/preview/*/dial', async (route) => {
      const answer = await route.fetch();
      await linePushed;
      await route.fulfill({ response: answer });
    });
    await page.getByTestId('preview-dial').click();
    const waiting = page.getByTestId('preview-waiting-line');
    await waiting.waitFor({ timeout: 30_000 });
    expect(await waiting.textContent()).toMatch(
      /Every line of the trunk is busy: the call to Previewed Person goes out as soon as one frees up \(waiting since \d\d:\d\d:\d\d\)\./,
    );
    // OUTBOUND_SCREENSHOTS=1 refreshes the user guide's picture of it.
    if (process.env.OUTBOUND_SCREENSHOTS === '1')
      await page.screenshot({ path: path.join(ROOT, 'docs/screenshots/outbound-preview-waiting-line-en.png') });

    // The other call ends: the line is free and the previewed call connects.
    await api('POST', `/api/outbound/calls/${call.id}/hangup`, talker.accessToken, {});
    await page.getByTestId('outbound-screen-pop').waitFor({ timeout: 30_000 });
    expect(await page.getByTestId('pop-phone').textContent()).toBe('+34600177002');
    expect(await waiting.count()).toBe(0);
  });
});
