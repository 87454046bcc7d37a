import { randomUUID } from 'node:crypto';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { Client } from 'pg';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { eventually } from '../support/eventually';
import { baseUrl, DEMO, DEMO_PASSWORD, launchBrowser, newPage, signIn } from '../support/browser';
import { startKamailio, type RunningKamailio } from '../support/kamailio';
import { takeWorkerLock } from '../support/suite-api';

/**
 * Softphone end to end: a real Kamailio (WebSocket transport) and two sip.js clients in headless
 * Chromium with fake media devices. Agents 2 and 3 of the demo tenant (agent1 belongs to the desk
 * journey, which may run at the same time) register, call, toggle mute and hold, send DTMF and hang
 * up; presence follows the call through the API. The steps share one call, so they run in order.
 * Then a third sip.js client (the library itself, served to a blank page) plays the outbound
 * dialer: its INVITE carries X-Outbound-Call-Id, and the callee's softphone treats it as the
 * dialer's call (dialer screen pop, UpdDISPO disposition form posting to the outbound API).
 */
const CALLER = { email: 'agent2@demo.centralita.io', extension: '1002', name: 'Demo Agent 2' };
const CALLEE = { email: 'agent3@demo.centralita.io', extension: '1003', name: 'Demo Agent 3' };
const SIPJS_LIB = path.resolve(__dirname, '../../node_modules/sip.js/lib');
/** sip.js's ES modules, served by the test on the console's origin for the dialer stand-in. */
const DIALER_MODULES = '/__test-dialer/sipjs/';
/**
 * A module script (run as written, no bundler) that places one call with an extra header. It is
 * added to a page the API really served: Chromium's local-network checks block a WebSocket to
 * 127.0.0.1 from a page the test fulfilled itself.
 */
const DIALER_SCRIPT = `
  import { Web } from '${DIALER_MODULES}index.js';
  window.startDialer = async ({ wsUrl, domain, from, to, header }) => {
    const remote = document.body.appendChild(document.createElement('audio'));
    const user = new Web.SimpleUser(wsUrl, {
      aor: 'sip:' + from + '@' + domain,
      media: { constraints: { audio: true, video: false }, remote: { audio: remote } },
      userAgentOptions: {
        logLevel: 'error',
        sessionDescriptionHandlerFactoryOptions: { peerConnectionConfiguration: { iceServers: [] }, iceGatheringTimeout: 2000 },
      },
    });
    window.dialer = user;
    await user.connect();
    await user.call('sip:' + to + '@' + domain, { extraHeaders: [header] });
  };
`;

/** The browser tier's own database (see browser-setup.ts). */
function database(): Client {
  const url = new URL(process.env.DATABASE_URL!);
  url.pathname = `/${process.env.CENTRALITA_BROWSER_TEST_DB}`;
  return new Client({ connectionString: url.toString() });
}

async function api<T>(path: string, token: string | null, init: { method?: string; body?: unknown } = {}): Promise<T> {
  const response = await fetch(`${baseUrl()}${path}`, {
    method: init.method ?? 'GET',
    headers: { 'Content-Type': 'application/json', ...(token ? { Authorization: `Bearer ${token}` } : {}) },
    body: init.body === undefined ? undefined : JSON.stringify(init.body),
  });
  const envelope = (await response.json()) as { data: T; errorMessage?: string };
  if (!response.ok) throw new Error(`${init.method ?? 'GET'} ${path}: ${response.status} ${envelope.errorMessage}`);
  return envelope.data;
}

async function signInApi(email: string): Promise<{ token: string; id: string }> {
  const session = await api<{ accessToken: string; user: { id: string } }>('/api/auth/login', null, {
    method: 'POST',
    body: { email, password: DEMO_PASSWORD },
  });
  return { token: session.accessToken, id: session.user.id };
}

jest.setTimeout(90_000);

describe('Softphone over a real SIP server', () => {
  let kamailio: RunningKamailio;
  let browser: Browser;
  const contexts: BrowserContext[] = [];
  let caller: Page;
  let callee: Page;
  let callerToken: string;
  let calleeToken: string;
  let db: Client;
  let releaseLock: (() => void) | undefined;
  let servedLines: { user_id: string; attention_line_id: string; tenant_id: string }[] = [];

  const status = (page: Page, state: string) => page.locator(`[data-testid=softphone-status][data-state=${state}]`);

  beforeAll(async () => {
    // The demo tenant's SIP server is one setting other suites change too (call-monitor,
    // voice-inbound-day): hold the suite lock they hold, and start from an unconfigured tenant, as
    // the first test's screen expects, whatever ran before.
    releaseLock = await takeWorkerLock();
    kamailio = await startKamailio();
    const [one, two] = [await signInApi(CALLER.email), await signInApi(CALLEE.email)];
    callerToken = one.token;
    calleeToken = two.token;
    const admin = await signInApi(DEMO.admin);
    // The caller's account is set up through the console below; the callee's through the API.
    await api(`/api/softphone/accounts/${two.id}`, admin.token, {
      method: 'PUT',
      body: { extension: CALLEE.extension, password: 'sip-pass-3' },
    });
    // Logged in, so the SIP call moves their presence; but serving no line meanwhile, or the web
    // chats other suites queue on the demo lines (the desk's) would be routed to them.
    db = database();
    await db.connect();
    await db.query(`DELETE FROM softphone_configs WHERE client_id = (SELECT client_id FROM users WHERE email = $1)`, [DEMO.admin]);
    servedLines = (
      await db.query<{ user_id: string; attention_line_id: string; tenant_id: string }>(
        `DELETE FROM agent_attention_lines WHERE user_id = ANY($1::uuid[]) RETURNING user_id, attention_line_id, tenant_id`,
        [[one.id, two.id]],
      )
    ).rows;
    for (const token of [callerToken, calleeToken]) await api('/api/agent/presence/login', token, { method: 'POST', body: {} });

    browser = await launchBrowser({ fakeMedia: true });
    for (const language of ['en', 'en']) {
      const { context, page } = await newPage(browser, { language });
      contexts.push(context);
      if (!caller) caller = page;
      else callee = page;
    }
  }, 300_000);

  afterAll(async () => {
    for (const context of contexts) await context.close();
    await browser?.close();
    await kamailio?.stop();
    // Back as the seed left them: logged out, serving their lines.
    for (const token of [callerToken, calleeToken])
      if (token) await api('/api/agent/presence/logout', token, { method: 'POST', body: {} }).catch(() => undefined);
    for (const row of servedLines)
      await db.query(
        `INSERT INTO agent_attention_lines (user_id, attention_line_id, tenant_id) VALUES ($1, $2, $3) ON CONFLICT DO NOTHING`,
        [row.user_id, row.attention_line_id, row.tenant_id],
      );
    await db?.end();
    releaseLock?.();
  });

  it('lets the administrator set the SIP server and an extension from the softphone page', async () => {
    const { context, page } = await newPage(browser, { language: 'en' });
    contexts.push(context);
    await signIn(page, DEMO.admin);
    await page.waitForURL('**/dashboard/**');
    await page.goto('/SoftPhoneNew/Phone');
    await page.getByTestId('softphone-not-configured').waitFor();
    await page.getByTestId('softphone-ws-url').fill('http://wrong');
    await page.getByTestId('softphone-domain').fill(kamailio.domain);
    await page.getByTestId('softphone-server-save').click();
    // The refusal names the field and its format in the user's language (validation.matches.wsUrl).
    await page.getByText('WebSocket URL: Must be a ws:// or wss:// URL.').first().waitFor();
    await page.getByTestId('softphone-ws-url').fill(kamailio.wsUrl);
    await page.getByTestId('softphone-server-save').click();
    await page.getByText('SIP settings saved').first().waitFor();

    await page.getByTestId('softphone-account-user').selectOption({ label: `${CALLER.name} (${CALLER.email})` });
    await page.getByTestId('softphone-account-extension').fill(CALLER.extension);
    await page.getByTestId('softphone-account-password').fill('sip-pass-2');
    await page.getByTestId('softphone-account-save').click();
    await page.locator('[data-testid=softphone-account-password][value="••••••••"]').waitFor();
    await context.close();
  });

  it('registers both agents with Kamailio from /SoftPhoneNew/Phone', async () => {
    for (const [page, agent] of [
      [caller, CALLER],
      [callee, CALLEE],
    ] as const) {
      await signIn(page, agent.email);
      await page.waitForURL('**/dashboard/DashboardAgente');
      await page.goto('/SoftPhoneNew/Phone');
      await status(page, 'registered').waitFor();
      await page.getByTestId('softphone-identity').filter({ hasText: agent.extension }).waitFor();
    }
  });

  it("rings the callee with the caller's number and the screen pop, and both are in call once answered", async () => {
    await caller.getByTestId('softphone-number').fill(CALLEE.extension);
    await caller.getByTestId('softphone-call').click();
    await status(caller, 'calling').waitFor();

    await status(callee, 'ringing').waitFor();
    await callee.getByTestId('softphone-remote-number').filter({ hasText: CALLER.extension }).waitFor();
    await callee.getByTestId('softphone-contacts').filter({ hasText: CALLER.name }).waitFor();

    await callee.getByTestId('softphone-answer').click();
    await status(callee, 'inCall').waitFor();
    await status(caller, 'inCall').waitFor();
    await caller.getByTestId('softphone-timer').waitFor();
  });

  it('moves both agents to inCall presence through the API', async () => {
    for (const token of [callerToken, calleeToken]) {
      await eventually(async () => expect((await api<{ status: string }>('/api/agent/presence', token)).status).toBe('inCall'));
    }
  });

  it('toggles mute and hold, and the callee receives the DTMF tones', async () => {
    const mute = caller.getByTestId('softphone-mute');
    await mute.click();
    await caller.locator('[data-testid=softphone-mute][aria-pressed=true]').waitFor();
    await mute.click();
    await caller.locator('[data-testid=softphone-mute][aria-pressed=false]').waitFor();

    const hold = caller.getByTestId('softphone-hold');
    await hold.click();
    await caller.locator('[data-testid=softphone-hold][aria-pressed=true]').waitFor();
    await hold.click();
    await caller.locator('[data-testid=softphone-hold][aria-pressed=false]').waitFor();

    await caller.getByTestId('softphone-dtmf-5').click();
    await caller.getByTestId('softphone-dtmf-hash').click();
    await caller.getByTestId('softphone-dtmf-sent').filter({ hasText: '5#' }).waitFor();
    await callee.getByTestId('softphone-dtmf-received').filter({ hasText: '5#' }).waitFor();
  });

  it('ends the call on both sides when the caller hangs up, with the disposition form', async () => {
    await caller.getByTestId('softphone-hangup').click();
    await status(caller, 'ended').waitFor();
    await status(callee, 'ended').waitFor();
    await caller.getByTestId('softphone-disposition').waitFor();
    await callee.getByTestId('softphone-disposition').waitFor();
    for (const token of [callerToken, calleeToken]) {
      await eventually(async () => expect((await api<{ status: string }>('/api/agent/presence', token)).status).toBe('afterCallWork'));
    }
  });

  it('stores the disposition and gets the phone ready for the next call', async () => {
    await callee.getByTestId('softphone-disposition-select').selectOption('callback');
    await callee.getByTestId('softphone-disposition-notes').fill('Wants a quote on Monday');
    await callee.getByTestId('softphone-disposition-save').click();
    await status(callee, 'registered').waitFor();
    const calls = await api<{ remoteNumber: string; disposition: string; notes: string; direction: string }[]>(
      '/api/softphone/calls',
      calleeToken,
    );
    expect(calls[0]).toMatchObject({
      remoteNumber: CALLER.extension,
      disposition: 'callback',
      notes: 'Wants a quote on Monday',
      direction: 'inbound',
    });
  });

  it("shows a call carrying X-Outbound-Call-Id as the dialer's, and dispositions it with UpdDISPO on the outbound API", async () => {
    const outboundCallId = randomUUID();
    const contactNumber = '+34912000101';
    // The dialer stand-in: sip.js's own ES modules on a page of the console's origin (secure context, fake media).
    const { context, page: dialer } = await newPage(browser, { language: 'en' });
    contexts.push(context);
    await context.route(`**${DIALER_MODULES}**`, async (route) => {
      const file = path.join(SIPJS_LIB, new URL(route.request().url()).pathname.slice(DIALER_MODULES.length));
      if (!file.startsWith(SIPJS_LIB) || !existsSync(file)) return route.fulfill({ status: 404 });
      return route.fulfill({ path: file, contentType: 'text/javascript' });
    });
    // A script URL of the page's own origin: the console's CSP (script-src 'self') refuses inline scripts.
    await context.route('**/__test-dialer/dialer.js', (route) => route.fulfill({ contentType: 'text/javascript', body: DIALER_SCRIPT }));
    await dialer.goto('/session/signin');
    await dialer.addScriptTag({ type: 'module', url: '/__test-dialer/dialer.js' });
    await dialer.waitForFunction(() => 'startDialer' in window);
    await dialer.evaluate((options) => (window as unknown as { startDialer(options: object): Promise<void> }).startDialer(options), {
      wsUrl: kamailio.wsUrl,
      domain: kamailio.domain,
      from: contactNumber,
      to: CALLEE.extension,
      header: `X-Outbound-Call-Id: ${outboundCallId}`,
    });

    await status(callee, 'ringing').waitFor();
    await callee.locator(`[data-testid=softphone-dialer-pop][data-outbound-call-id="${outboundCallId}"]`).waitFor();
    await callee.getByTestId('softphone-dialer-badge').filter({ hasText: 'Dialer call' }).waitFor();
    await callee.getByTestId('softphone-remote-number').filter({ hasText: contactNumber }).waitFor();
    // No outbound call of that id is the agent's: the pop says its details are not available.
    await callee.getByTestId('softphone-dialer-unavailable').waitFor();
    await callee.getByTestId('softphone-answer').click();
    await status(callee, 'inCall').waitFor();

    // The contact hangs up: the softphone ends the dialer call on the outbound API (HangUp), not through softphone presence.
    const hangUp = callee.waitForRequest((request) => request.url().endsWith(`/api/outbound/calls/${outboundCallId}/hangup`));
    await dialer.evaluate(() => (window as unknown as { dialer: { hangup(): Promise<void> } }).dialer.hangup());
    await status(callee, 'ended').waitFor();
    expect((await hangUp).method()).toBe('POST');
    const form = callee.getByTestId('softphone-dialer-disposition');
    await form.waitFor();
    expect(await callee.getByTestId('softphone-disposition').count()).toBe(0);
    const options = await callee
      .getByTestId('softphone-dialer-disposition-select')
      .locator('option')
      .evaluateAll((items) => items.map((item) => (item as HTMLOptionElement).value).filter(Boolean));
    expect(options).toEqual(['sale', 'interested', 'callback', 'notInterested', 'wrongNumber', 'doNotCall']);
    await callee.getByTestId('softphone-dialer-disposition-select').selectOption('callback');
    await callee.locator('[data-testid=softphone-dialer-disposition-save][disabled]').waitFor();
    await callee.getByTestId('softphone-dialer-callback-at').fill('2030-05-04T10:30');
    await callee.screenshot({ path: path.join(process.env.SCREENSHOT_DIR ?? '/tmp', 'softphone-dialer-disposition.png'), fullPage: true });

    const softphoneCallsBefore = await api<unknown[]>('/api/softphone/calls', calleeToken);
    const sent = callee.waitForRequest((request) => request.url().endsWith(`/api/outbound/calls/${outboundCallId}/disposition`));
    await callee.getByTestId('softphone-dialer-disposition-save').click();
    const request = await sent;
    expect(request.method()).toBe('POST');
    expect(request.postDataJSON()).toEqual({ disposition: 'callback', callbackAt: expect.stringMatching(/^2030-05-04T\d\d:30:00\.000Z$/) });
    // That outbound call does not exist: the API's refusal is shown and the form stays for another try.
    expect((await request.response())?.status()).toBe(404);
    await callee.getByText('Could not save the disposition').first().waitFor();
    await form.waitFor();
    expect(await api<unknown[]>('/api/softphone/calls', calleeToken)).toHaveLength(softphoneCallsBefore.length);

    await callee.getByTestId('softphone-dialer-disposition-skip').click();
    await status(callee, 'registered').waitFor();
    await context.close();
  });
});
