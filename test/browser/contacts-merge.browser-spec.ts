import { randomBytes, randomUUID } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from 'pg';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { api, createDemoAgent, DEMO, DEMO_PASSWORD, launchBrowser, newPage, signIn } from '../support/browser';
import { eventually } from '../support/eventually';

/**
 * Issue 20 item 6 in the desk: the customer panel shows the person behind a web chat's contact (the
 * intake makes the visitor one), the agent merges it with the customer's Telegram identity ("Merge
 * with…", search, confirm), the timeline then holds the Telegram conversation too, and "Separate"
 * takes it out again. The Telegram contact and its earlier conversation are written by SQL, so the
 * suite needs no provider fake.
 */
jest.setTimeout(120_000);

const SCREENSHOTS =
  process.env.MAIL_BLACKLIST_SCREENSHOTS === '1'
    ? join(__dirname, '..', '..', 'docs', 'screenshots')
    : join(tmpdir(), 'centralita-contacts');

describe('Merging contacts in the desk (browser)', () => {
  let browser: Browser;
  const contexts: BrowserContext[] = [];
  let db: Client;
  let adminToken: string;
  let tenant: string;
  let lineId: string;
  let agent: Page;
  const tag = randomBytes(3).toString('hex');

  beforeAll(async () => {
    mkdirSync(SCREENSHOTS, { recursive: true });
    const url = new URL(process.env.DATABASE_URL!);
    url.pathname = `/${process.env.CENTRALITA_BROWSER_TEST_DB}`;
    db = new Client({ connectionString: url.toString() });
    await db.connect();
    browser = await launchBrowser();
    const session = await api<{ accessToken: string; user: { clientId: string } }>('POST', '/api/auth/login', null, {
      email: DEMO.admin,
      password: DEMO_PASSWORD,
    });
    adminToken = session.accessToken;
    tenant = session.user.clientId;
    lineId = (
      await api<{ id: string }>('POST', '/api/attention-lines', adminToken, {
        name: `Contacts line ${tag}`,
        type: 'inbound',
        channel: 'WebChat',
        businessHours: [],
      })
    ).id;
    const email = `contacts-${tag}@demo.centralita.io`;
    const { id } = await createDemoAgent(adminToken, { name: `Rosa Merge ${tag}`, email });
    const detail = await api<Record<string, unknown>>('GET', `/api/users/${id}`, adminToken);
    await api('PUT', `/api/users/${id}`, adminToken, {
      name: detail.name,
      email: detail.email,
      roleId: detail.roleId,
      active: true,
      attentionLineIds: [lineId],
      campaignIds: detail.campaignIds ?? [],
      pauseReasonCodes: detail.pauseReasonCodes ?? [],
    });
    const staff = await newPage(browser, { language: 'es' });
    contexts.push(staff.context);
    agent = staff.page;
    await agent.setViewportSize({ width: 1440, height: 1250 });
    await signIn(agent, email);
    await agent.waitForURL('**/dashboard/**');
    await agent.goto('/conversations/agentConversations');
    await agent.locator('[data-testid=connection-status][data-status=online]').waitFor();
  }, 120_000);

  afterAll(async () => {
    for (const context of contexts) await context.close();
    await browser?.close();
    await db?.end();
    if (adminToken && lineId) await api('DELETE', `/api/attention-lines/${lineId}`, adminToken).catch(() => undefined);
  });

  it("merges the chat's contact with the customer's Telegram identity, shows the joint timeline, and separates them", async () => {
    await agent.getByTestId('presence-available').click();
    const visitor = await newPage(browser, { language: 'es' });
    contexts.push(visitor.context);
    const customer = visitor.page;
    await customer.goto(`/WindowChat/windowChat/?tenant=${tenant}&line=${lineId}&lang=es`);
    await customer.getByTestId('webchat-name').fill(`Iris ${tag}`);
    await customer.getByTestId('webchat-email').fill(`iris-${tag}@example.com`);
    await customer.getByTestId('webchat-start').click();
    await customer.getByTestId('webchat-menu').waitFor();
    await customer.selectOption('[data-testid=webchat-query-type]', 'support');
    await customer.selectOption('[data-testid=webchat-submenu]', 'technical');
    await customer.getByTestId('webchat-menu-submit').click();
    await customer.locator('[data-testid=webchat][data-status=Active]').waitFor();
    await agent
      .getByTestId('chat-customer-name')
      .filter({ hasText: `Iris ${tag}` })
      .waitFor();
    // The intake made the visitor this chat's contact; the same customer wrote on Telegram earlier.
    const [{ id: conversationId, contact_id: webchatContact }] = (
      await db.query(`SELECT id, contact_id FROM conversations WHERE tenant_id = $1 AND entry_line_id = $2`, [tenant, lineId])
    ).rows as { id: string; contact_id: string }[];
    expect(webchatContact).toEqual(expect.any(String));
    const [{ id: telegram }] = (
      await db.query(
        `INSERT INTO contacts (tenant_id, channel, channel_account_id, external_id, name) VALUES ($1, 'telegram', $2, $3, $4) RETURNING id`,
        [tenant, `acct-${tag}`, `telegram-${tag}`, `Iris Telegram ${tag}`],
      )
    ).rows as { id: string }[];
    const earlier = randomUUID();
    await db.query(
      `INSERT INTO conversations (id, tenant_id, channel, entry_line_id, attention_line_id, status, customer_name, snapshot, version, last_event, contact_id, created_at, closed_at)
       VALUES ($1, $2, 'telegram', $3, $3, 'Closed', $4, '{"value":"Closed","context":{}}'::jsonb, 1, 'test', $5, now() - interval '2 days', now() - interval '2 days')`,
      [earlier, tenant, lineId, `Iris Telegram ${tag}`, telegram],
    );

    const panel = agent.getByTestId('customer-panel');
    await panel.getByTestId('person-panel').waitFor();
    expect(await panel.getByTestId('person-identity').count()).toBe(1);
    await agent.locator(`[data-testid=person-timeline-conversation][data-id="${conversationId}"]`).waitFor();

    await agent.getByTestId('person-merge').click();
    await agent.getByTestId('merge-search').fill(`Iris Telegram ${tag}`);
    await agent.locator(`[data-testid=merge-result][data-contact="${telegram}"]`).click();
    expect(await agent.getByTestId('merge-question').textContent()).toContain(`Iris Telegram ${tag}`);
    await agent.getByTestId('merge-confirm').click();

    await eventually(async () => expect(await agent.getByTestId('person-identity').count()).toBe(2));
    await agent.locator(`[data-testid=person-timeline-conversation][data-id="${earlier}"]`).waitFor();
    await agent.locator(`[data-testid=person-timeline-conversation][data-id="${conversationId}"]`).waitFor();
    expect(await agent.getByTestId('person-history').textContent()).toContain('Unidos por');
    await agent.getByTestId('person-panel').scrollIntoViewIfNeeded();
    for (const close of await agent.locator('.p-toast-icon-close').all()) await close.click().catch(() => undefined);
    await agent.locator('.p-toast-message').first().waitFor({ state: 'detached' });
    await agent.screenshot({ path: join(SCREENSHOTS, 'desk-person-es.png') });
    const merges = (await db.query(`SELECT action FROM contact_merges WHERE contact_id = $1`, [webchatContact])).rows as {
      action: string;
    }[];
    expect(merges).toEqual([{ action: 'merge' }]);

    // Separate the Telegram identity again: the timeline is this chat only.
    await agent.locator(`[data-testid=person-identity][data-contact="${telegram}"] [data-testid=person-unmerge]`).click();
    await eventually(async () => expect(await agent.getByTestId('person-identity').count()).toBe(1));
    expect(await agent.locator(`[data-testid=person-timeline-conversation][data-id="${earlier}"]`).count()).toBe(0);
  });
});
