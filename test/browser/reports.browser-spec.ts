import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdir, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
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
/** REPORT_SCREENSHOTS=1 writes docs/screenshots/reports-detail-{el,ru}.png; otherwise they go to a temporary folder. */
const SCREENSHOTS =
  process.env.REPORT_SCREENSHOTS === '1' ? path.join(__dirname, '../../docs/screenshots') : path.join(tmpdir(), 'centralita-reports');

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
    await expect(dialog.getByTestId('detail-channel').textContent()).resolves.toBe('WebChat');
    await page.keyboard.press('Escape');
    await dialog.waitFor({ state: 'hidden' });
  });

  // Issue 24 item 8: states, events, channels and roles in the reader's language, never their codes.
  it.each([
    ['el', 'Μεταβατική', 'Δημιουργήθηκε', 'Πελάτης'],
    ['ru', 'Переходная', 'Создан', 'Клиент'],
  ])(
    'labels the table and the conversation detail in %s, with no code left where a label belongs',
    async (language, transitory, created, customer) => {
      const localised = await newPage(browser, { language });
      try {
        const { page: reader } = localised;
        await signIn(reader, DEMO.supervisor);
        await reader.waitForURL((url) => !url.pathname.startsWith('/session'));
        await reader.goto('/reports/reports');
        const row = reader.locator('[data-testid=report-row]').filter({ hasText: `${TAG} Ada` });
        await row.waitFor();
        await expect(row.locator('[data-column=status]').textContent()).resolves.toBe(transitory);
        await expect(row.locator('[data-column=channel]').textContent()).resolves.toBe('WebChat');
        const statuses = await reader.locator('[data-testid=report-row] [data-column=status]').allTextContents();
        expect(statuses.filter((status) => /^(Transitory|LiningUp|Active|Inquest|Closed)$/.test(status))).toEqual([]);

        await row.click();
        const dialog = reader.getByTestId('conversation-detail');
        await dialog.getByTestId('detail-transitions').waitFor();
        await expect(dialog.getByTestId('detail-status').textContent()).resolves.toBe(transitory);
        const transitions = await dialog.getByTestId('detail-transitions').innerText();
        expect(transitions).toContain(`— → ${transitory} (${created})`);
        // The web-chat visitor started it: named by role, not by a visitor id.
        expect(transitions).toContain(customer);
        expect(transitions).not.toMatch(/xstate|conversation\.|Transitory|LiningUp|customer|system/);
        await mkdir(SCREENSHOTS, { recursive: true });
        await reader.screenshot({ path: path.join(SCREENSHOTS, `reports-detail-${language}.png`) });
      } finally {
        await localised.context.close();
      }
    },
  );
});
