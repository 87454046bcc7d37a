import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import readline from 'node:readline';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { baseUrl, DEMO, DEMO_PASSWORD, launchBrowser, newPage, signIn } from '../support/browser';

/**
 * Reports against the seeded demo tenant: conversations started through the public web-chat API
 * appear in the supervisor's report, and the CSV the worker exports holds the rows the table shows.
 */
jest.setTimeout(90_000);

const TAG = `R${Date.now().toString(36)}`;

async function startConversations(): Promise<void> {
  const login = await fetch(`${baseUrl()}/api/auth/login`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ email: DEMO.admin, password: DEMO_PASSWORD }),
  });
  const session = (await login.json()).data as { accessToken: string };
  const lines = await fetch(`${baseUrl()}/api/attention-lines/options`, { headers: { Authorization: `Bearer ${session.accessToken}` } });
  const line = ((await lines.json()).data as { id: string; name: string }[]).find((option) => option.name === 'Customer service');
  if (!line) throw new Error('the demo tenant has no "Customer service" line');
  for (const name of [`${TAG} Ada`, `=${TAG}+1`]) {
    const started = await fetch(`${baseUrl()}/api/webchat/conversations`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ attentionLineId: line.id, name }),
    });
    if (started.status !== 200) throw new Error(`webchat start answered ${started.status}: ${await started.text()}`);
  }
}

/** The export processor on the browser tier's database and queue prefix (see browser-setup.ts). */
async function startReportWorker(): Promise<ChildProcess> {
  const url = new URL(process.env.DATABASE_URL!);
  url.pathname = `/${process.env.CENTRALITA_BROWSER_TEST_DB}`;
  const child = spawn(process.execPath, [path.join(__dirname, '../support/report-worker.child.cjs')], {
    env: { ...process.env, DATABASE_URL: url.toString(), QUEUE_PREFIX: `${process.env.QUEUE_PREFIX}-browser`, NODE_ENV: 'test' },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  await once(readline.createInterface({ input: child.stdout! }), 'line');
  return child;
}

/** RFC 4180 fields of a line written with every field quoted. */
const fields = (line: string): string[] => [...line.matchAll(/"((?:[^"]|"")*)"/g)].map((match) => match[1]!.replace(/""/g, '"'));

describe('Reports page', () => {
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  let worker: ChildProcess | undefined;

  beforeAll(async () => {
    worker = await startReportWorker();
    await startConversations();
    browser = await launchBrowser();
    ({ context, page } = await newPage(browser, { language: 'en' }));
    await signIn(page, DEMO.supervisor);
    await page.waitForURL((url) => !url.pathname.startsWith('/session'));
  });
  afterAll(async () => {
    await context?.close();
    await browser?.close();
    if (worker && worker.exitCode === null) {
      worker.kill('SIGTERM');
      await once(worker, 'exit');
    }
  });

  it('shows the conversations started in the last seven days, user text as plain text', async () => {
    await page.goto('/reports/reports');
    await expect(page.getByTestId('page-title').textContent()).resolves.toBe('Reports');
    await page
      .locator('[data-testid=report-row]')
      .filter({ hasText: `${TAG} Ada` })
      .waitFor();
    await page
      .locator('[data-testid=report-row]')
      .filter({ hasText: `=${TAG}+1` })
      .waitFor();
  });

  it('exports a CSV that holds exactly the rows the table shows', async () => {
    const tableRows = await page
      .locator('[data-testid=report-row]')
      .evaluateAll((rows) =>
        rows.map((row) =>
          Object.fromEntries(
            [...row.querySelectorAll('[data-column]')].map((cell) => [
              cell.getAttribute('data-column'),
              cell.getAttribute('title') ?? cell.textContent,
            ]),
          ),
        ),
      );
    expect(tableRows.length).toBeGreaterThanOrEqual(2);
    const downloading = page.waitForEvent('download', { timeout: 60_000 });
    await page.getByTestId('export-csv').click();
    const download = await downloading;
    expect(download.suggestedFilename()).toMatch(/^conversations-\d{4}-\d{2}-\d{2}-\d{4}-\d{2}-\d{2}\.csv$/);
    const csv = (await readFile((await download.path())!, 'utf8')).replace(/^\uFEFF/, '');
    const [header, ...lines] = csv.trimEnd().split('\r\n');
    const keys = [
      'id',
      'createdAt',
      'channel',
      'line',
      'agent',
      'customer',
      'status',
      'closedAt',
      'waitSeconds',
      'handleSeconds',
      'messages',
    ];
    expect(fields(header!)).toEqual([
      'Conversation',
      'Started',
      'Channel',
      'Line',
      'Agent',
      'Customer',
      'Status',
      'Closed',
      'Wait (s)',
      'Handle time (s)',
      'Messages',
    ]);
    const exported = new Map(
      lines.map((line) => fields(line)).map((cells) => [cells[0], Object.fromEntries(keys.map((key, i) => [key, cells[i]]))]),
    );
    for (const row of tableRows) {
      const match = exported.get(row.id!);
      expect(match).toBeDefined();
      // Neutralised in the file (a leading apostrophe), plain text on screen; an empty cell shows N/A.
      const shown = (value: string | undefined) => (value ? value : 'N/A');
      expect({ customer: match!.customer!.replace(/^'/, ''), channel: match!.channel, line: shown(match!.line) }).toEqual({
        customer: row.customer,
        channel: row.channel,
        line: row.line,
      });
    }
    const formula = [...exported.values()].find((row) => row.customer?.includes(`${TAG}+1`));
    expect(formula?.customer).toBe(`'=${TAG}+1`);
    await expect(page.getByTestId('export-status').getAttribute('data-status')).resolves.toBe('done');
  });

  it('opens the conversation detail with its status changes', async () => {
    await page
      .locator('[data-testid=report-row]')
      .filter({ hasText: `${TAG} Ada` })
      .click();
    const dialog = page.getByTestId('conversation-detail');
    await dialog.waitFor();
    await dialog.getByText(`${TAG} Ada`).first().waitFor();
    // Started through the web chat and still in its menu: one status change into Transitory.
    await dialog.getByText('— → Transitory', { exact: false }).first().waitFor();
  });
});
