import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { randomBytes } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import path, { join } from 'node:path';
import type { ChannelAccountView } from '@centralita/contracts';
import { Client } from 'pg';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { startSmtpPeer, type SmtpPeer } from '../../apps/api/test/email/support/smtp-peer';
import { startDovecot, type RunningDovecot } from '../support/dovecot';
import { eventually } from '../support/eventually';
import { api, createDemoAgent, DEMO, DEMO_PASSWORD, launchBrowser } from '../support/browser';
import { takeWorkerLock } from '../support/suite-api';

/**
 * /emails/SendEmail (issue 20 item 4) in a browser: the agent, available in the desk, opens the
 * page from the menu, is told in their language what is missing, writes to an address from the
 * tenant's email account with the desk's composer, and lands in the desk on the new conversation,
 * Active with them; the SMTP peer got the mail. Same processes as desk-email.browser-spec.ts (an
 * API and a worker of its own allowed to reach the loopback Dovecot and SMTP peer).
 */
jest.setTimeout(150_000);

const ROOT = path.resolve(__dirname, '..', '..');
// SEND_EMAIL_SCREENSHOTS=1 refreshes the docs' pictures; otherwise they go to the temp folder.
const SCREENSHOTS =
  process.env.SEND_EMAIL_SCREENSHOTS === '1' ? join(ROOT, 'docs', 'screenshots') : join(tmpdir(), 'centralita-send-email');

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

describe('Send email from /emails/SendEmail (browser)', () => {
  const tag = randomBytes(3).toString('hex');
  const domain = `ventas-${tag}.test`;
  const mailbox = `ventas@${domain}`;
  const mailboxPassword = `imap-${tag}`;
  const smtpCredentials = { user: `smtp-${tag}`, password: `smtp-${tag}-pass` };
  const customer = `lucia.mora@cliente-${tag}.test`;
  let dovecot: RunningDovecot;
  let smtp: SmtpPeer;
  let apiProcess: ChildProcess;
  let workerProcess: ChildProcess;
  let url: string;
  let db: Client;
  let browser: Browser;
  const contexts: BrowserContext[] = [];
  let adminToken: string;
  let lineId: string;
  let agentEmail: string;
  let account: ChannelAccountView;
  let agent: Page;

  async function call<T>(method: string, route: string, body?: unknown): Promise<T> {
    const response = await fetch(`${url}${route}`, {
      method,
      headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${adminToken}` },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const envelope = (await response.json()) as { data: T; errorMessage?: string };
    if (!response.ok) throw new Error(`${method} ${route}: ${response.status} ${envelope.errorMessage}`);
    return envelope.data;
  }

  async function stop(child: ChildProcess | undefined): Promise<void> {
    if (!child || child.exitCode !== null || child.signalCode !== null) return;
    const exited = once(child, 'exit');
    child.kill('SIGTERM');
    await exited;
  }

  /** The run's suite-worker lock (see takeWorkerLock), held from before this suite's worker starts until it stopped. */
  let releaseWorkerLock: () => void = () => undefined;

  beforeAll(async () => {
    // Every worker reads every mailbox of the tier's database and announces what it stores to its own
    // API: while another suite's worker runs, it can take this suite's mail and route it through an API
    // whose pushes never reach this desk. Suites with a worker run one at a time.
    releaseWorkerLock = await takeWorkerLock();
    mkdirSync(SCREENSHOTS, { recursive: true });
    const browserDatabase = new URL(process.env.DATABASE_URL!);
    browserDatabase.pathname = `/${process.env.CENTRALITA_BROWSER_TEST_DB}`;
    db = new Client({ connectionString: browserDatabase.toString() });
    await db.connect();

    dovecot = await startDovecot();
    dovecot.addUser(mailbox, mailboxPassword);
    smtp = await startSmtpPeer(smtpCredentials);

    const session = await api<{ accessToken: string }>('POST', '/api/auth/login', null, { email: DEMO.admin, password: DEMO_PASSWORD });
    adminToken = session.accessToken;
    lineId = (
      await api<{ id: string }>('POST', '/api/attention-lines', adminToken, {
        name: `Send email line ${tag}`,
        type: 'inbound',
        channel: 'WebChat',
        businessHours: [],
      })
    ).id;
    agentEmail = `send-email-${tag}@demo.centralita.io`;
    const { id: agentId } = await createDemoAgent(adminToken, { name: `Sara Envío ${tag}`, email: agentEmail });
    const detail = await api<Record<string, unknown>>('GET', `/api/users/${agentId}`, adminToken);
    await api('PUT', `/api/users/${agentId}`, adminToken, {
      name: detail.name,
      email: detail.email,
      roleId: detail.roleId,
      active: true,
      attentionLineIds: [lineId],
      campaignIds: detail.campaignIds ?? [],
      pauseReasonCodes: detail.pauseReasonCodes ?? [],
    });

    const port = await freePort();
    url = `http://127.0.0.1:${port}`;
    const env = {
      ...process.env,
      NODE_ENV: 'test',
      DATABASE_URL: browserDatabase.toString(),
      PORT: String(port),
      PUBLIC_URL: url,
      WEB_DIST: path.join(ROOT, 'apps/web/dist'),
      // A prefix of its own: another suite's worker (without the loopback allowance) never takes these sends.
      QUEUE_PREFIX: `${process.env.QUEUE_PREFIX}-browser-send-email`,
      RATE_LIMIT_LOGIN_IP: '100000',
      RATE_LIMIT_RESET_IP: '100000',
      OUTGOING_ALLOWED_CIDRS: '127.0.0.0/8',
      EMAIL_POLL_MS: '500',
      EMAIL_ACCOUNTS_REFRESH_MS: '500',
      EMAIL_RETRY_MS: '500',
      OUTBOX_STALE_MS: '800',
      OUTBOX_POLL_MS: '200',
      DIALER_ENABLED: 'false',
    };
    apiProcess = spawn(process.execPath, [path.join(ROOT, 'apps/api/dist/main.js')], { env, stdio: ['ignore', 'ignore', 'inherit'] });
    workerProcess = spawn(process.execPath, [path.join(ROOT, 'apps/worker/dist/main.js')], { env, stdio: ['ignore', 'ignore', 'inherit'] });
    await eventually(
      async () => {
        if (apiProcess.exitCode !== null) throw new Error(`the API exited with ${apiProcess.exitCode}`);
        if (!(await fetch(`${url}/api/health`)).ok) throw new Error('not healthy yet');
      },
      { timeoutMs: 120_000, intervalMs: 200 },
    );
    adminToken = (await call<{ accessToken: string }>('POST', '/api/auth/login', { email: DEMO.admin, password: DEMO_PASSWORD }))
      .accessToken;
    account = await call<ChannelAccountView>('POST', '/api/channel-accounts', {
      kind: 'email',
      name: `Ventas ${tag}`,
      externalAccountId: mailbox,
      attentionLineId: lineId,
      settings: {
        imapHost: '127.0.0.1',
        imapPort: String(dovecot.port),
        imapSecurity: 'none',
        smtpHost: '127.0.0.1',
        smtpPort: String(smtp.port),
        smtpSecurity: 'none',
        smtpUser: smtpCredentials.user,
        fromName: 'Ventas Centralita',
      },
      secrets: { imapPassword: mailboxPassword, smtpPassword: smtpCredentials.password },
    });

    browser = await launchBrowser();
    const context = await browser.newContext({ viewport: { width: 1366, height: 860 }, baseURL: url });
    contexts.push(context);
    await context.addInitScript(() => {
      if (!window.localStorage.getItem('language')) window.localStorage.setItem('language', 'es');
    });
    agent = await context.newPage();
    await agent.goto('/session/signin');
    await agent.getByTestId('signin-email').fill(agentEmail);
    await agent.getByTestId('signin-password').fill(DEMO_PASSWORD);
    await agent.getByTestId('signin-submit').click();
    await agent.waitForURL((where) => !where.pathname.startsWith('/session'));
    await agent.goto('/conversations/agentConversations');
    await agent.locator('[data-testid=connection-status][data-status=online]').waitFor();
    await agent.getByTestId('presence-available').click();
    // The suite-worker lock may be waited for (up to 200 s) before the setup starts.
  }, 440_000);

  afterAll(async () => {
    for (const context of contexts) await context.close().catch(() => undefined);
    await browser?.close();
    if (account) await call('DELETE', `/api/channel-accounts/${account.id}`).catch(() => undefined);
    await stop(workerProcess);
    releaseWorkerLock();
    await stop(apiProcess);
    await smtp?.close();
    await dovecot?.close();
    await db?.end();
  });

  /** Fills the form: the account (by its label), the recipient, the subject and the body. */
  async function fillForm(to: string, subject: string, body: string): Promise<void> {
    await agent.getByTestId('send-email-account').click();
    await agent.locator('li[role=option]', { hasText: `Ventas ${tag} <${mailbox}>` }).click();
    await agent.locator('#send-email-to').fill(to);
    await agent.keyboard.press('Escape');
    await agent.getByTestId('email-composer-subject').fill(subject);
    const editor = agent.locator('[data-testid=email-composer] .ql-editor');
    await editor.click();
    await agent.keyboard.press('Control+A');
    await agent.keyboard.type(body);
  }

  it('the agent sends an email from /emails/SendEmail and lands in the desk on the new conversation; the SMTP peer got it', async () => {
    // The menu's entry (the CRM group) leads to the page.
    await agent.goto('/emails/SendEmail');
    await agent.getByTestId('send-email-account').waitFor();
    await agent.getByTestId('page-title').filter({ hasText: 'Enviar correo' }).waitFor();

    // What is missing is said in the user's language, and nothing is sent.
    await fillForm('no-es-un-correo', 'Su pedido', 'Hola');
    await agent.getByTestId('email-composer-send').click();
    await agent.getByTestId('send-email-problem').filter({ hasText: 'No es una dirección de correo: no-es-un-correo' }).waitFor();
    expect(smtp.received).toHaveLength(0);

    // The page holds the staff connection: the agent, who left the desk, is connected again (room for a conversation).
    await eventually(
      async () => {
        const { rows } = await db.query(
          `SELECT p.status, p.snapshot->'context'->>'disconnectedAt' AS disconnected FROM agent_presence p JOIN users u ON u.id = p.user_id WHERE u.email = $1`,
          [agentEmail],
        );
        expect(rows).toEqual([{ status: 'available', disconnected: null }]);
      },
      { timeoutMs: 20_000 },
    );
    await fillForm(customer, 'Su pedido 5120', 'Hola Lucía, su pedido 5120 sale hoy.');
    await agent.screenshot({ path: join(SCREENSHOTS, 'send-email-es.png') });
    const answered = agent.waitForResponse(
      (response) => new URL(response.url()).pathname === '/api/emails' && response.request().method() === 'POST',
    );
    await agent.getByTestId('email-composer-send').click();
    const response = await answered;
    if (response.status() !== 200) throw new Error(`POST /api/emails answered ${response.status()}: ${await response.text()}`);

    await eventually(
      async () => {
        if (new URL(agent.url()).pathname === '/conversations/agentConversations') return;
        const problems = await agent.getByTestId('send-email-problem').allTextContents();
        throw new Error(`still on ${agent.url()}: ${problems.join(' ')}`);
      },
      { timeoutMs: 30_000 },
    );
    await agent.getByTestId('email-conversation').waitFor({ timeout: 30_000 });
    await agent.getByTestId('email-card').first().getByTestId('email-subject').filter({ hasText: 'Su pedido 5120' }).waitFor();
    await agent.getByTestId('chat-customer-name').filter({ hasText: customer }).waitFor();

    const mail = await eventually(
      () => {
        expect(smtp.received).toHaveLength(1);
        return smtp.received[0]!;
      },
      { timeoutMs: 30_000 },
    );
    expect(mail.parsed.subject).toBe('Su pedido 5120');
    expect(mail.envelope.to).toEqual([customer]);
    expect(String(mail.parsed.html)).toContain('su pedido 5120 sale hoy');
    const { rows } = await db.query(`SELECT status, agent_id IS NOT NULL AS held FROM conversations WHERE channel_account_id = $1`, [
      account.id,
    ]);
    expect(rows).toEqual([{ status: 'Active', held: true }]);

    // The same page in English (the user guide's picture), not sent.
    await agent.evaluate(() => window.localStorage.setItem('language', 'en'));
    await agent.goto('/emails/SendEmail');
    await agent.getByTestId('page-title').filter({ hasText: 'Send email' }).waitFor();
    await fillForm(`pablo.rey@cliente-${tag}.test`, 'Your quote', 'Hello Pablo, your quote is attached.');
    await agent.screenshot({ path: join(SCREENSHOTS, 'send-email-en.png') });
  });
});
