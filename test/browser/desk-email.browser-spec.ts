import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { randomBytes } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import net from 'node:net';
import { tmpdir } from 'node:os';
import path, { join } from 'node:path';
import type { ChannelAccountView } from '@centralita/contracts';
import { Client } from 'pg';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { customerMessageId, rawMail } from '../../apps/api/test/email/support/mails';
import { startSmtpPeer, type SmtpPeer } from '../../apps/api/test/email/support/smtp-peer';
import { startDovecot, type RunningDovecot } from '../support/dovecot';
import { eventually } from '../support/eventually';
import { api, createDemoAgent, DEMO, DEMO_PASSWORD, launchBrowser } from '../support/browser';
import { takeWorkerLock } from '../support/suite-api';

/**
 * Email in the agent's desk (issue 20), end to end in a browser: a hostile HTML mail (scripts,
 * event handlers, javascript: links, remote trackers, a CSS overlay) arrives in a real IMAP
 * mailbox (Dovecot), reaches the agent's desk as harmless content in a sandboxed frame, and not a
 * single request reaches the tracker server — not even after "Show images" (the tracker is plain
 * HTTP; the frame then allows HTTPS images only). The agent answers with the rich-text editor and a
 * cc; the SMTP peer receives one mail threaded under the customer's.
 *
 * The suite starts an API and a worker of its own (the worker reads the mailbox; the tier's shared
 * processes have no OUTGOING_ALLOWED_CIDRS for the loopback servers), on the tier's database.
 */
jest.setTimeout(150_000);

const ROOT = path.resolve(__dirname, '..', '..');
// DESK_SCREENSHOTS=1 refreshes the docs' pictures; otherwise they go to the temp folder.
const SCREENSHOTS = process.env.DESK_SCREENSHOTS === '1' ? join(ROOT, 'docs', 'screenshots') : join(tmpdir(), 'centralita-desk-email');

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

describe('Email in the agent desk (browser)', () => {
  const tag = randomBytes(3).toString('hex');
  const domain = `desk-${tag}.test`;
  const mailbox = `soporte@${domain}`;
  const mailboxPassword = `imap-${tag}`;
  const smtpCredentials = { user: `smtp-${tag}`, password: `smtp-${tag}-pass` };
  const customer = { address: `marta.ruiz@cliente-${tag}.test`, name: `Marta Ruiz ${tag}` };
  let dovecot: RunningDovecot;
  let smtp: SmtpPeer;
  let tracker: Server;
  const trackerHits: string[] = [];
  let trackerUrl = '';
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
  /** What the browser did with every load aimed at the tracker: blocked before it left (CSP), or answered. */
  const trackerLoads: { url: string; outcome: string }[] = [];

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

  const conversationItem = (name: string) => agent.getByTestId('conversation-item').filter({ has: agent.getByText(name, { exact: true }) });

  /** Closes the notifications (a new conversation's toast) so the pictures show the desk itself. */
  async function dismissToasts(): Promise<void> {
    const close = agent.locator('.p-toast .p-toast-icon-close');
    for (let open = await close.count(); open > 0; open = await close.count())
      await close
        .first()
        .click({ timeout: 2000 })
        .catch(() => undefined);
    await eventually(async () => expect(await agent.locator('.p-toast-message').count()).toBe(0));
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
    // The trackers' server: every request it gets is a privacy leak the test fails on.
    tracker = createServer((request, response) => {
      trackerHits.push(request.url ?? '');
      response.writeHead(200, { 'Content-Type': 'image/gif' }).end(Buffer.from('R0lGODlhAQABAAAAACw=', 'base64'));
    });
    await new Promise<void>((resolve) => tracker.listen(0, '127.0.0.1', () => resolve()));
    trackerUrl = `http://127.0.0.1:${(tracker.address() as net.AddressInfo).port}`;

    const session = await api<{ accessToken: string }>('POST', '/api/auth/login', null, { email: DEMO.admin, password: DEMO_PASSWORD });
    adminToken = session.accessToken;
    lineId = (
      await api<{ id: string }>('POST', '/api/attention-lines', adminToken, {
        name: `Email line ${tag}`,
        type: 'inbound',
        channel: 'WebChat',
        businessHours: [],
      })
    ).id;
    agentEmail = `desk-email-${tag}@demo.centralita.io`;
    const { id: agentId } = await createDemoAgent(adminToken, { name: `Elena Email ${tag}`, email: agentEmail });
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
      QUEUE_PREFIX: `${process.env.QUEUE_PREFIX}-browser-email`,
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
      name: `Soporte ${tag}`,
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
        fromName: 'Soporte Centralita',
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
    agent.on('response', (response) => {
      if (response.url().startsWith(trackerUrl)) trackerLoads.push({ url: response.url(), outcome: `answered ${response.status()}` });
    });
    agent.on('requestfailed', (request) => {
      if (request.url().startsWith(trackerUrl))
        trackerLoads.push({ url: request.url(), outcome: request.failure()?.errorText ?? 'failed' });
    });
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
    await new Promise((resolve) => tracker?.close(resolve));
    await db?.end();
  });

  it('shows a hostile HTML mail as harmless content, lets no request reach its trackers, and answers it with the editor', async () => {
    const hostileId = customerMessageId(`cliente-${tag}.test`);
    await dovecot.append(
      mailbox,
      mailboxPassword,
      rawMail({
        extraHeaders: [
          `Authentication-Results: mx.${domain}; spf=pass smtp.mailfrom=cliente-${tag}.test; dkim=fail header.d=cliente-${tag}.test; dmarc=fail`,
        ],
        from: customer.address,
        fromName: customer.name,
        to: mailbox,
        subject: 'Mi pedido no ha llegado',
        messageId: hostileId,
        text: 'Hola, mi pedido 4471 no ha llegado. Marta',
        html: [
          '<html><head><style>.promo{background:url(' + trackerUrl + '/css-bg.gif)} .veil{position:fixed;top:0;left:0}</style>',
          '<script>parent.window.__pwned = true; fetch("' + trackerUrl + '/script")</script></head>',
          '<body onload="fetch(\'' + trackerUrl + '/onload\')">',
          '<p id="greeting">Hola, mi pedido <b>4471</b> no ha llegado.</p>',
          '<img src="' + trackerUrl + '/pixel.gif" width="1" height="1" onerror="fetch(\'' + trackerUrl + '/onerror\')">',
          '<a id="bad-link" href="javascript:parent.window.__pwned=true">Ver el pedido</a>',
          '<div id="overlay" class="veil" style="position:fixed;top:0;left:0;width:100%;height:100%;background:#fff;z-index:9999">Introduzca su contraseña</div>',
          '<div class="promo">Oferta</div>',
          '<iframe src="' + trackerUrl + '/frame"></iframe><form action="' + trackerUrl + '/form"><input name="password"></form>',
          '<svg onload="fetch(\'' + trackerUrl + '/svg\')"></svg>',
          '</body></html>',
        ].join(''),
      }),
    );

    const item = conversationItem(customer.name);
    await item.waitFor({ timeout: 60_000 });
    expect(await item.getByTestId('channel-badge').getAttribute('data-channel')).toBe('email');
    await item.click();
    await agent.getByTestId('email-conversation').waitFor();
    const card = agent.getByTestId('email-card').first();
    await card.getByTestId('email-subject').filter({ hasText: 'Mi pedido no ha llegado' }).waitFor();
    expect(await card.getByTestId('email-from').textContent()).toBe(`${customer.name} <${customer.address}>`);
    // The receiving server's verdicts, and the warning a failed DMARC deserves.
    expect(await card.getByTestId('email-auth-spf').getAttribute('data-verdict')).toBe('pass');
    expect(await card.getByTestId('email-auth-dmarc').getAttribute('data-verdict')).toBe('fail');
    await card.getByTestId('email-forged').waitFor();

    // The frame: sandboxed without scripts, its own CSP allowing embedded images only, the mail's content inert.
    const frame = card.getByTestId('email-frame');
    expect(await frame.getAttribute('sandbox')).toBe('allow-popups allow-popups-to-escape-sandbox');
    const srcdoc = (await frame.getAttribute('srcdoc'))!;
    expect(srcdoc).toContain(`img-src data:;`);
    expect(srcdoc).not.toMatch(/<script|onload=|onerror=|javascript:|<iframe|<form|<svg/i);
    expect(srcdoc).not.toMatch(/position\s*:\s*fixed/i);
    const inside = agent.frameLocator('[data-testid=email-frame]');
    await inside.locator('#greeting').filter({ hasText: 'no ha llegado' }).waitFor();
    await inside.locator('#overlay').waitFor();
    expect(await inside.locator('#bad-link').getAttribute('href')).toBeNull();
    await card.getByTestId('email-images-blocked').waitFor();
    expect(await agent.evaluate(() => (window as unknown as { __pwned?: boolean }).__pwned)).toBeUndefined();

    await dismissToasts();
    await agent.screenshot({ path: join(SCREENSHOTS, 'desk-email-es.png') });

    // "Show images" lets HTTPS images through, never plain HTTP: the tracker still gets nothing.
    await card.getByTestId('email-show-images').click();
    await eventually(async () => expect(await frame.getAttribute('srcdoc')).toContain('img-src data: https:;'));
    await agent.waitForTimeout(1500);
    expect(trackerHits).toEqual([]);
    // Chromium reports the loads the frame's CSP refused; none was answered, every one was blocked in the browser.
    expect(trackerLoads.filter((load) => !/BLOCKED_BY_CSP|csp/i.test(load.outcome))).toEqual([]);

    // The reply: rich text in the editor, a cc, sent by the worker and threaded under the customer's mail.
    await agent.getByTestId('email-composer-copies').click();
    await agent.getByTestId('email-composer-cc').fill(`almacen@${domain}`);
    const editor = agent.locator('[data-testid=email-composer] .ql-editor');
    await editor.click();
    await agent.keyboard.type('Hola Marta, ');
    await agent.keyboard.press('Control+B');
    await agent.keyboard.type('hoy sale su pedido');
    await agent.keyboard.press('Control+B');
    await agent.keyboard.type('.');
    await agent.getByTestId('email-composer-send').click();
    const sent = await eventually(
      async () => {
        if (smtp.received.length !== 1) {
          const { rows } = await db.query(
            `SELECT m.text, m.delivery_status, m.delivery_error FROM messages m JOIN conversations c ON c.id = m.conversation_id
             WHERE c.channel_account_id = $1 AND m.sender_kind = 'agent'`,
            [account.id],
          );
          const problems = await agent.getByTestId('email-composer-problem').allTextContents();
          const toasts = await agent.locator('.p-toast-message').allTextContents();
          // A failure's picture goes to the temp folder, never into the docs.
          await agent.screenshot({ path: join(tmpdir(), 'desk-email-failure.png') });
          throw new Error(
            `the SMTP peer got ${smtp.received.length}; stored ${JSON.stringify(rows)}; composer ${problems.join(' ')}; toasts ${toasts.join(' ')}`,
          );
        }
        return smtp.received[0]!;
      },
      { timeoutMs: 30_000 },
    );
    expect(sent.parsed.inReplyTo).toBe(hostileId);
    expect(sent.parsed.subject).toBe('Re: Mi pedido no ha llegado');
    expect(sent.header('Cc')).toBe(`almacen@${domain}`);
    expect(String(sent.parsed.html)).toContain('<strong>hoy sale su pedido</strong>');
    await agent
      .locator('[data-testid=email-card][data-direction=out] [data-testid=email-delivery][data-status=sent]')
      .waitFor({ timeout: 30_000 });

    // The same desk in English (screenshots for the user guide).
    await agent.evaluate(() => window.localStorage.setItem('language', 'en'));
    await agent.reload();
    await agent.locator('[data-testid=connection-status][data-status=online]').waitFor();
    await conversationItem(customer.name).click();
    await agent.locator('[data-testid=email-card][data-direction=out]').waitFor();
    await agent.getByText('Remote images are blocked to protect your privacy.').first().waitFor();
    await dismissToasts();
    await agent.screenshot({ path: join(SCREENSHOTS, 'desk-email-en.png') });
    expect(trackerHits).toEqual([]);
  });
  it('offers email in the channels screen with a form generated from its credential names, and no webhook to paste', async () => {
    const context = await browser.newContext({ viewport: { width: 1366, height: 900 }, baseURL: url });
    contexts.push(context);
    await context.addInitScript(() => window.localStorage.setItem('language', 'es'));
    const admin = await context.newPage();
    await admin.goto('/session/signin');
    await admin.getByTestId('signin-email').fill(DEMO.admin);
    await admin.getByTestId('signin-password').fill(DEMO_PASSWORD);
    await admin.getByTestId('signin-submit').click();
    await admin.waitForURL((where) => !where.pathname.startsWith('/session'));
    await admin.goto('/ChannelsAdmin/ChannelsAdmin');
    await admin.getByTestId('channels-connect').click();
    await admin.getByTestId('channel-kind-email').click();
    for (const name of ['imapHost', 'imapPort', 'imapSecurity', 'smtpHost', 'fromAddress']) {
      await admin.getByTestId(`channel-account-setting-${name}`).waitFor();
    }
    await admin.getByTestId('channel-account-secret-imapPassword').waitFor();
    await admin.getByText('Servidor IMAP', { exact: true }).waitFor();
    await admin.getByText('Dirección del buzón', { exact: true }).waitFor();
    await admin.getByTestId('channel-account-setting-imapHost').fill('imap.empresa.com');
    await admin.getByTestId('channel-account-setting-smtpHost').fill('smtp.empresa.com');
    await admin.getByTestId('channel-account-setting-imapPort').fill('993');
    await admin.getByTestId('channel-account-setting-imapSecurity').fill('tls');
    await admin.screenshot({ path: join(SCREENSHOTS, 'channels-admin-email-es.png') });
    await admin.getByTestId('channel-account-cancel').click();
  });
});
