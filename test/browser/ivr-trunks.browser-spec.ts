import type { Browser, Locator, Page } from 'playwright-core';
import { DEMO, launchBrowser, newPage, signIn } from '../support/browser';

const suffix = Date.now().toString(36).slice(-5);

/** Picks an option of a PrimeReact Dropdown by its visible label. */
async function pick(page: Page, dropdown: Locator, label: string): Promise<void> {
  await dropdown.click();
  // The open panel's items (not the hidden native <option> PrimeReact keeps for each dropdown).
  await page.locator(`li[role="option"][aria-label="${label}"]`).click();
}

describe('IVRs and trunks', () => {
  let browser: Browser;
  beforeAll(async () => {
    browser = await launchBrowser();
  });
  afterAll(async () => {
    await browser?.close();
  });

  it('an administrator creates a trunk and an IVR with two options, applies it and sees it listed', async () => {
    const { context, page } = await newPage(browser, { language: 'en' });
    await signIn(page, DEMO.admin);
    await page.waitForURL('**/dashboard/default');

    const trunk = `Carrier ${suffix}`;
    await page.goto('/settings/troncals?new=1');
    await page.getByTestId('trunk-name').fill(trunk);
    await page.getByTestId('trunk-host').fill('not a host!');
    await page.getByTestId('trunk-password').fill('browser-secret');
    await page.getByTestId('admin-save').click();
    // The shared rule refuses the host before anything is sent.
    await page.getByTestId('trunk-host-error').waitFor();
    await page.getByTestId('trunk-host').fill('sip.carrier.example');
    await page.getByTestId('admin-save').click();
    await page.waitForURL('**/settings/troncals');
    await page.getByTestId('admin-search').fill(suffix);
    await page.getByTestId('admin-list').getByText(trunk).waitFor();
    await page.getByTestId('admin-list').getByText('sip.carrier.example:5060').waitFor();

    const ivr = `Menu ${suffix}`;
    await page.goto('/settings/submitivr');
    await page.getByTestId('ivr-name').fill(ivr);
    await page.getByTestId('admin-save').click();
    await page.waitForURL('**/settings/ivrMain');
    await page.getByTestId('admin-search').fill(suffix);
    await page.getByTestId('admin-list').locator('tr', { hasText: ivr }).getByTestId('ivr-tree-link').click();
    await page.waitForURL('**/settings/ivrs?id=*');
    await page.getByTestId('ivr-editor').waitFor();

    // Applying the starter tree is refused next to the offending field.
    await page.getByTestId('ivr-apply').click();
    await page.getByTestId('ivr-options-error').waitFor();

    await page.getByTestId('ivr-node-prompt').fill('Press 1 for customer service or 0 to hang up.');
    await page.getByTestId('ivr-add-option').click();
    await pick(page, page.getByTestId('ivr-destination-type').nth(1), 'Service line');
    await pick(page, page.getByTestId('ivr-destination-target').first(), 'Customer service');
    await page.getByTestId('ivr-add-option').click();
    await pick(page, page.getByTestId('ivr-option-digit').nth(1), '0');
    await page.getByTestId('ivr-apply').click();
    await page.getByTestId('ivr-published-version').getByText('Published: version 1').waitFor();
    await page.getByTestId('ivr-pending').getByText('Published and up to date').waitFor();

    await page.goto('/settings/ivrMain');
    await page.getByTestId('admin-search').fill(suffix);
    const row = page.getByTestId('admin-list').locator('tr', { hasText: ivr });
    await row.getByText('Version 1').waitFor();
    await context.close();
  });
});
