import { randomBytes } from 'node:crypto';
import os from 'node:os';
import path from 'node:path';
import { Client } from 'pg';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { api, createDemoAgent, DEMO, DEMO_PASSWORD, launchBrowser, newPage, signIn } from '../support/browser';
import { eventually } from '../support/eventually';

/**
 * The outbound page's do-not-call and callbacks tabs and the campaign form's trunk and agent
 * pickers (/OutboundCampaign/CampaignList, /OutboundCampaign/SubmitOutboundCampaing), plus the
 * agent desk's "my callbacks". The campaign stays a draft, so no dialer touches its callbacks.
 * With OUTBOUND_SCREENSHOTS=1 it also writes docs/screenshots/outbound-dnc-{es,en}.png and
 * outbound-callbacks-en.png.
 */
const SHOTS = process.env.OUTBOUND_SCREENSHOTS === '1';
const SHOT_DIR = path.join(__dirname, '../../docs/screenshots');
const DEMO_LIST_ID = '00000000-0000-4000-8000-00000000d1a1';
const LIST = '/OutboundCampaign/CampaignList';
const FORM = '/OutboundCampaign/SubmitOutboundCampaing';

jest.setTimeout(90_000);

/** The browser tier's own database (see browser-setup.ts): callbacks are booked by agents, so tests write them. */
function database(): Client {
  const url = new URL(process.env.DATABASE_URL!);
  url.pathname = `/${process.env.CENTRALITA_BROWSER_TEST_DB}`;
  return new Client({ connectionString: url.toString() });
}

/** Picks an option of a PrimeReact Dropdown/MultiSelect by its visible label. */
async function pick(page: Page, testId: string, label: string): Promise<void> {
  await page.getByTestId(testId).click();
  await page.getByRole('option', { name: label }).first().click();
}

describe('Outbound lists: do-not-call, callbacks, trunk and agent pickers', () => {
  let browser: Browser;
  const contexts: BrowserContext[] = [];
  let supervisor: Page;
  let db: Client;
  let token: string;
  let campaignId: string;
  let trunkId: string;
  let agentId: string;
  const tag = randomBytes(3).toString('hex');
  const campaignName = `Lists ${tag}`;
  const trunkName = `Carrier ${tag}`;
  const agentName = `Callback Agent ${tag}`;
  const agentEmail = `lists-${tag}@demo.centralita.io`;
  // Numbers outside the demo phone list, so no other suite's dialling meets these entries.
  const digits = () => String(100000 + Math.floor(Math.random() * 899999));
  const newNumber = `+34699${digits()}`;
  const fixtureNumbers = [`+34698${digits()}`, `+34697${digits()}`];
  const dncIds: string[] = [];
  let callbackPhones: { overdue: string; upcoming: string };

  beforeAll(async () => {
    const session = await api<{ accessToken: string }>('POST', '/api/auth/login', null, { email: DEMO.admin, password: DEMO_PASSWORD });
    token = session.accessToken;
    agentId = (await createDemoAgent(token, { name: agentName, email: agentEmail })).id;
    trunkId = (
      await api<{ id: string }>('POST', '/api/trunks', token, {
        name: trunkName,
        host: 'sip.example.test',
        port: 5060,
        transport: 'udp',
        maxConcurrentCalls: 4,
        active: true,
      })
    ).id;
    campaignId = (
      await api<{ id: string }>('POST', '/api/outbound/campaigns', token, {
        name: campaignName,
        phoneListId: DEMO_LIST_ID,
        mode: 'preview',
      })
    ).id;
    // A list with more than the entry under test: one for this campaign with a note, one for every campaign.
    dncIds.push(
      (await api<{ id: string }>('POST', '/api/outbound/dnc', token, { phone: fixtureNumbers[0], campaignId, reason: 'Asked by email' }))
        .id,
      (await api<{ id: string }>('POST', '/api/outbound/dnc', token, { phone: fixtureNumbers[1] })).id,
    );

    db = database();
    await db.connect();
    const contacts = (
      await db.query<{ id: string; phone: string }>(
        `SELECT id, phone FROM outbound_contacts WHERE campaign_id = $1 ORDER BY phone LIMIT 3`,
        [campaignId],
      )
    ).rows;
    const book = (contact: { id: string }, dueInMs: number, bookedBy: string) =>
      db.query(
        `INSERT INTO outbound_callbacks (tenant_id, campaign_id, contact_id, due_at, agent_id, created_by)
         SELECT tenant_id, id, $2::uuid, $3, $4::uuid, $4::uuid FROM dialer_campaigns WHERE id = $1`,
        [campaignId, contact.id, new Date(Date.now() + dueInMs), bookedBy],
      );
    await book(contacts[0], -45 * 60_000, agentId);
    await book(contacts[1], 3 * 3_600_000, agentId);
    const [other] = (await db.query<{ id: string }>(`SELECT id FROM users WHERE email = $1`, [DEMO.agent])).rows;
    await book(contacts[2], 26 * 3_600_000, other.id);
    callbackPhones = { overdue: contacts[0].phone, upcoming: contacts[1].phone };

    browser = await launchBrowser();
    const { context, page } = await newPage(browser, { language: 'en' });
    contexts.push(context);
    supervisor = page;
    await signIn(supervisor, DEMO.supervisor);
    await supervisor.waitForURL('**/dashboard/**');
  }, 60_000);

  afterAll(async () => {
    for (const id of dncIds) await api('DELETE', `/api/outbound/dnc/${id}`, token).catch(() => undefined);
    if (campaignId) await api('POST', `/api/outbound/campaigns/${campaignId}/cancel`, token, {}).catch(() => undefined);
    await db?.end();
    for (const context of contexts) await context.close();
    await browser?.close();
  });

  it('adds a number to the do-not-call list, refusing a malformed one, finds it and removes it', async () => {
    await supervisor.goto(LIST);
    await supervisor.getByTestId('outbound-campaigns').waitFor();
    await supervisor.getByTestId('tab-dnc').click();
    await supervisor.waitForURL((url) => url.searchParams.get('tab') === 'dnc');
    const table = supervisor.getByTestId('dnc-table');
    await table.getByText(fixtureNumbers[0]).waitFor();
    if (SHOTS) await supervisor.screenshot({ path: path.join(SHOT_DIR, 'outbound-dnc-en.png'), fullPage: true });

    await supervisor.getByTestId('dnc-add').click();
    const dialog = supervisor.getByTestId('dnc-dialog');
    await supervisor.getByTestId('dnc-phone-input').fill('600 12');
    await supervisor.getByTestId('dnc-dialog-save').click();
    expect(await dialog.getByTestId('dnc-phone-error').textContent()).toContain('E.164');
    if (SHOTS) await supervisor.screenshot({ path: path.join(os.tmpdir(), 'outbound-dnc-dialog-en.png') });

    await supervisor.getByTestId('dnc-phone-input').fill(`${newNumber.slice(0, 3)} ${newNumber.slice(3, 6)} ${newNumber.slice(6)}`);
    await pick(supervisor, 'dnc-scope', campaignName);
    await supervisor.getByTestId('dnc-reason').fill('Asked on the phone');
    await supervisor.getByTestId('dnc-dialog-save').click();
    await dialog.waitFor({ state: 'detached' });

    // Search ignores the separators the user types.
    await supervisor.getByTestId('dnc-search').fill(`${newNumber.slice(0, 6)} ${newNumber.slice(6)}`);
    const row = table.locator('tr', { hasText: newNumber });
    await row.waitFor();
    expect(await row.textContent()).toContain(campaignName);
    expect(await row.textContent()).toContain('Asked on the phone');
    await eventually(async () => expect(await table.locator('tbody tr').count()).toBe(1));

    // The same number again is refused with a sentence naming it.
    await supervisor.getByTestId('dnc-add').click();
    await supervisor.getByTestId('dnc-phone-input').fill(newNumber);
    await pick(supervisor, 'dnc-scope', campaignName);
    await supervisor.getByTestId('dnc-dialog-save').click();
    expect(await supervisor.getByTestId('dnc-dialog-error').textContent()).toContain(`${newNumber} is already on that do-not-call list`);
    await supervisor.getByTestId('dnc-dialog-cancel').click();

    await supervisor.locator(`[data-testid=dnc-remove][data-phone="${newNumber}"]`).click();
    await supervisor.getByTestId('dnc-cancel-remove').click();
    await row.waitFor();
    await supervisor.locator(`[data-testid=dnc-remove][data-phone="${newNumber}"]`).click();
    await supervisor.getByTestId('dnc-confirm-remove').click();
    await table.getByText('No number matches the search or filter.').waitFor();
    const left = await api<{ total: number }>('GET', `/api/outbound/dnc?q=${encodeURIComponent(newNumber)}`, token);
    expect(left.total).toBe(0);
  });

  it("shows the agent's own callbacks on the desk", async () => {
    const { context, page } = await newPage(browser, { language: 'en' });
    contexts.push(context);
    await signIn(page, agentEmail);
    await page.waitForURL('**/dashboard/**');
    await page.goto('/conversations/agentConversations');
    const mine = page.getByTestId('my-callbacks');
    await mine.getByTestId('my-callback').first().waitFor();
    // Only the two this agent booked, soonest (the overdue one) first.
    expect(await mine.getByTestId('my-callback').count()).toBe(2);
    expect(await mine.getByTestId('my-callback').first().textContent()).toContain(callbackPhones.overdue);
    expect(await mine.getByTestId('my-callback').first().textContent()).toContain('Overdue');
    await context.close();
    contexts.pop();
  });

  it('lists callbacks with contact, campaign, agent and due time, filters them and cancels one', async () => {
    await supervisor.getByTestId('tab-callbacks').click();
    await supervisor.waitForURL((url) => url.searchParams.get('tab') === 'callbacks');
    const table = supervisor.getByTestId('callbacks-table');
    const overdueRow = table.locator('tr', { hasText: callbackPhones.overdue });
    await overdueRow.waitFor();
    if (SHOTS) {
      // A fresh load: no toasts of the previous test over the table.
      await supervisor.reload();
      await overdueRow.waitFor();
      await supervisor.screenshot({ path: path.join(SHOT_DIR, 'outbound-callbacks-en.png'), fullPage: true });
    }
    await pick(supervisor, 'callbacks-campaign', campaignName);
    await eventually(async () => expect(await table.locator('tbody tr').count()).toBe(3));
    expect(await overdueRow.textContent()).toContain(agentName);
    expect(await overdueRow.textContent()).toContain(campaignName);
    expect(await overdueRow.getByTestId('callback-overdue').count()).toBe(1);

    await pick(supervisor, 'callbacks-show', 'Overdue');
    await eventually(async () => expect(await table.locator('tbody tr').count()).toBe(1));
    await overdueRow.waitFor();

    await supervisor.locator(`[data-testid=callback-cancel][data-phone="${callbackPhones.overdue}"]`).click();
    await supervisor.getByTestId('callback-confirm-cancel').click();
    await table.getByText('No callback matches the filter.').waitFor();
    await pick(supervisor, 'callbacks-show', 'Cancelled');
    await table.locator('tr', { hasText: callbackPhones.overdue }).getByTestId('callback-status').getByText('Cancelled').waitFor();
    const [stored] = (
      await db.query<{ status: string }>(
        `SELECT b.status FROM outbound_callbacks b JOIN outbound_contacts c ON c.id = b.contact_id WHERE b.campaign_id = $1 AND c.phone = $2`,
        [campaignId, callbackPhones.overdue],
      )
    ).rows;
    expect(stored.status).toBe('cancelled');
  });

  it('picks a trunk and agents in the campaign form, saves them and shows them on edit', async () => {
    await supervisor.goto(`${FORM}?id=${campaignId}`);
    await eventually(async () => expect(await supervisor.getByTestId('outbound-name').inputValue()).toBe(campaignName));
    await pick(supervisor, 'outbound-trunk', trunkName);
    await supervisor.getByTestId('outbound-agents').click();
    await supervisor.locator('.p-multiselect-filter').fill(agentName);
    await supervisor.getByRole('option', { name: agentName }).click();
    await supervisor.keyboard.press('Escape');
    await supervisor.getByTestId('admin-save').click();
    await supervisor.waitForURL(`**${LIST}`);

    const saved = await api<{ trunkId: string | null; agentIds: string[] }>('GET', `/api/outbound/campaigns/${campaignId}`, token);
    expect(saved).toMatchObject({ trunkId, agentIds: [agentId] });

    await supervisor.goto(`${FORM}?id=${campaignId}`);
    await eventually(async () => expect(await supervisor.getByTestId('outbound-name').inputValue()).toBe(campaignName));
    await supervisor.getByTestId('outbound-trunk').locator('.p-dropdown-label', { hasText: trunkName }).waitFor();
    await supervisor.getByTestId('outbound-agents').locator('.p-multiselect-token', { hasText: agentName }).waitFor();
    if (SHOTS) await supervisor.screenshot({ path: path.join(os.tmpdir(), 'outbound-form-pickers-en.png'), fullPage: true });
  });

  it('shows the do-not-call tab in Spanish', async () => {
    const { context, page } = await newPage(browser, { language: 'es' });
    contexts.push(context);
    await signIn(page, DEMO.supervisor);
    await page.waitForURL('**/dashboard/**');
    await page.goto(`${LIST}?tab=dnc`);
    await page.getByTestId('dnc-table').getByText(fixtureNumbers[0]).waitFor();
    await page.getByText('Todas las campañas').first().waitFor();
    await page.getByText('Añadir número').waitFor();
    if (SHOTS) await page.screenshot({ path: path.join(SHOT_DIR, 'outbound-dnc-es.png'), fullPage: true });
    await page.goto(`${LIST}?tab=callbacks`);
    await page.getByTestId('callbacks-table').getByText('Pendiente').first().waitFor();
    if (SHOTS) await page.screenshot({ path: path.join(os.tmpdir(), 'outbound-callbacks-es.png'), fullPage: true });
  });
});
