import { randomBytes } from 'node:crypto';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { ALWAYS_OPEN, api, createDemoAgent, DEMO, DEMO_PASSWORD, launchBrowser, newPage, signIn } from '../support/browser';

/**
 * Outbound templates in the console: an administrator writes a script, declares its placeholders
 * as parameters, sees the live preview, saves it, finds it in the list, test-sends it for a row of
 * the demo phone list and sees it offered in the campaign form. OUTBOUND_TEMPLATE_SCREENSHOTS=1
 * also writes docs/screenshots/outbound-templates-{es,en}.png.
 */
const SHOTS = process.env.OUTBOUND_TEMPLATE_SCREENSHOTS === '1';
const shot = (name: string) => path.join(__dirname, `../../docs/screenshots/${name}.png`);
const suffix = Date.now().toString(36).slice(-5);

const DEMO_LIST_ID = '00000000-0000-4000-8000-00000000d1a1';
const DEMO_TEMPLATE_ID = '00000000-0000-4000-8000-00000000d1a3';

jest.setTimeout(60_000);

/** The whole form in one frame (the console scrolls its content area, so a full-page shot would cut it). */
async function screenshot(page: Page, name: string): Promise<void> {
  if (!SHOTS) return;
  await page.setViewportSize({ width: 1440, height: 1250 });
  await page
    .locator('.p-toast-message')
    .waitFor({ state: 'detached', timeout: 10_000 })
    .catch(() => undefined);
  // Every scrolled container back to the top, so the shot starts at the page title.
  await page.evaluate(() => document.querySelectorAll('*').forEach((element) => element.scrollTo?.(0, 0)));
  await page.screenshot({ path: shot(name) });
}

async function writeTemplate(page: Page, name: string, script: string): Promise<void> {
  await page.getByTestId('tpl-name').fill(name);
  await page.getByTestId('tpl-description').fill('Renewal offer for the demo list');
  await page.getByTestId('tpl-script').fill(script);
}

describe('Outbound templates', () => {
  let browser: Browser;
  beforeAll(async () => {
    browser = await launchBrowser();
  });
  afterAll(async () => {
    await browser?.close();
  });

  it('an administrator creates a template with parameters, sees it listed, test-sends it and picks it for a campaign', async () => {
    const { context, page } = await newPage(browser, { language: 'en' });
    await signIn(page, DEMO.admin);
    await page.waitForURL('**/dashboard/default');

    await page.goto('/OutboundCampaign/CreateTemplates');
    await page.getByTestId('admin-table').waitFor();
    await page.getByTestId('admin-add').click();
    await page.waitForURL('**/OutboundCampaign/SubmitTemplates');
    await page.getByTestId('tpl-test-save-first').waitFor();

    const name = `Renewal ${suffix}`;
    await writeTemplate(page, name, 'Hello {{customerName}}, this month we offer {{offer}}. ');
    // Undeclared placeholders are refused next to the script, in the user's language.
    await page.getByTestId('tpl-save').click();
    await page.getByTestId('tpl-script-error').getByText('The script uses “customerName”, which is not a declared parameter.').waitFor();

    await page.getByTestId('tpl-detect').click();
    await page.getByTestId('tpl-param-source-0').selectOption('name');
    await page.getByTestId('tpl-param-defaultValue-0').fill('customer');
    await page.getByTestId('tpl-param-source-1').selectOption('fixed');
    await page.getByTestId('tpl-param-value-1').fill('20% off for a year');
    // A third parameter inserted at the end of the script with its chip.
    await page.getByTestId('tpl-add-param').click();
    await page.getByTestId('tpl-param-key-2').fill('phone');
    await page.getByTestId('tpl-param-source-2').selectOption('phone');
    await page.getByTestId('tpl-script').press('End');
    await page.getByTestId('tpl-insert-phone').click();
    await page.getByTestId('tpl-script-error').waitFor({ state: 'detached' });
    await page
      .getByTestId('tpl-preview-text')
      .getByText('Hello Lucía Fernández, this month we offer 20% off for a year. +34600100101')
      .waitFor();
    await page.getByTestId('tpl-preview-missing').getByText('Every parameter has a value.').waitFor();

    await page.getByTestId('tpl-save').click();
    await page.waitForURL('**/OutboundCampaign/CreateTemplates');
    await page.getByTestId('admin-search').fill(suffix);
    const row = page.getByTestId('admin-list').locator('tr', { hasText: name });
    await row.getByText('customerName').waitFor();
    await screenshot(page, 'outbound-templates-list-en');

    await row.getByTestId('admin-edit').click();
    await page.waitForURL('**/OutboundCampaign/SubmitTemplates?id=*');
    await page.getByTestId('tpl-test-send').waitFor();
    await page.getByTestId('tpl-test-list').selectOption({ label: 'Demo outbound list' });
    await page.getByTestId('tpl-test-contact').locator('option', { hasText: 'Mateo García' }).waitFor({ state: 'attached' });
    await page.getByTestId('tpl-test-contact').selectOption({ label: 'Mateo García · +34600100102' });
    await page.getByTestId('tpl-test-send').click();
    const result = page.getByTestId('tpl-test-result');
    await result.getByText('Hello Mateo García, this month we offer 20% off for a year. +34600100102').waitFor();
    await result.getByText('Contact: Mateo García · +34600100102').waitFor();
    // Sample values override the contact; an empty contact leaves the phone unknown.
    await page.getByTestId('tpl-test-list').selectOption('');
    await page.getByTestId('tpl-test-value-customerName').fill('Sample Person');
    await page.getByTestId('tpl-test-send').click();
    await result.getByText('Parameters without a value: phone').waitFor();
    await result.locator('mark', { hasText: '{{phone}}' }).waitFor();
    await screenshot(page, 'outbound-templates-en');

    // The campaign form offers the template.
    await page.goto('/OutboundCampaign/SubmitOutboundCampaing');
    await page.getByTestId('outbound-template').click();
    await page.locator(`li[role="option"][aria-label="${name}"]`).waitFor();
    await context.close();
  });

  it('shows the form in Spanish with the demo template and its preview', async () => {
    const { context, page } = await newPage(browser, { language: 'es' });
    await signIn(page, DEMO.admin);
    await page.waitForURL('**/dashboard/default');
    await page.goto('/OutboundCampaign/CreateTemplates');
    const row = page.getByTestId('admin-list').locator('tr', { hasText: 'Renewal call script' });
    await row.getByTestId('admin-edit').click();
    await page.getByTestId('tpl-preview-text').getByText('Hello Lucía Fernández', { exact: false }).waitFor();
    await page.getByTestId('tpl-test-send').click();
    await page.getByTestId('tpl-test-result').getByText('Sin contacto', { exact: false }).waitFor();
    await screenshot(page, 'outbound-templates-es');
    await context.close();
  });

  it("shows the campaign's script rendered for the contact in the agent's preview", async () => {
    const token = (await api<{ accessToken: string }>('POST', '/api/auth/login', null, { email: DEMO.admin, password: DEMO_PASSWORD }))
      .accessToken;
    // An agent of our own, so no other suite's campaigns or chats reach them.
    const email = `script-${randomBytes(4).toString('hex')}@demo.centralita.io`;
    const agent = await createDemoAgent(token, { name: `Script Agent ${suffix}`, email });
    const campaign = await api<{ id: string }>('POST', '/api/outbound/campaigns', token, {
      name: `Scripted preview ${suffix}`,
      phoneListId: DEMO_LIST_ID,
      mode: 'preview',
      callingWindows: ALWAYS_OPEN,
      agentIds: [agent.id],
      templateId: DEMO_TEMPLATE_ID,
    });
    await api('POST', `/api/outbound/campaigns/${campaign.id}/start`, token, {});

    const { context, page } = await newPage(browser, { language: 'es' });
    try {
      await signIn(page, email);
      await page.waitForURL('**/dashboard/**');
      await page.goto('/conversations/agentConversations');
      await page.getByTestId('presence-available').click();
      await page.getByTestId('preview-next').click();
      const name = (await page.getByTestId('preview-contact').textContent())!;
      const phone = (await page.getByTestId('preview-phone').textContent())!;
      const script = page.getByTestId('preview-script');
      await script.getByText('Guion: Renewal call script').waitFor();
      await script.getByText(`Hello ${name}, I am calling from Centralita`, { exact: false }).waitFor();
      await script.getByText(`let me confirm your number: ${phone}.`, { exact: false }).waitFor();
      if (SHOTS) {
        await page.getByTestId('outbound-panel').scrollIntoViewIfNeeded();
        await page.getByTestId('outbound-panel').screenshot({ path: shot('outbound-templates-desk-es') });
      }
    } finally {
      await api('POST', `/api/outbound/campaigns/${campaign.id}/cancel`, token, {});
      await context.close();
    }
  });
});
