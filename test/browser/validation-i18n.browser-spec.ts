import type { Browser } from 'playwright-core';
import { api, DEMO, DEMO_PASSWORD, launchBrowser, newPage, signIn } from '../support/browser';

// Two sign-ins and two form rounds on a loaded two-core machine.
jest.setTimeout(90_000);

const suffix = Date.now().toString(36).slice(-5).toUpperCase();

/** Issue 24 item 8: what the API refuses in a form is said in the user's language, never in the server's English. */
describe('API refusals in the console language', () => {
  let browser: Browser;
  let identifier: string;

  beforeAll(async () => {
    browser = await launchBrowser();
    const { accessToken } = await api<{ accessToken: string }>('POST', '/api/auth/login', null, {
      email: DEMO.admin,
      password: DEMO_PASSWORD,
    });
    identifier = `I18N${suffix}`;
    await api('POST', '/api/campaigns', accessToken, {
      name: `Taken identifier ${suffix}`,
      description: 'Holds the identifier the form repeats',
      fromDate: '2026-12-01',
      toDate: '2026-12-31',
      identifier,
      allowedChatsPerAgent: 2,
      templateCampaign: false,
      customer: null,
    });
  });
  afterAll(async () => {
    await browser?.close();
  });

  it.each([
    ['es', 'Otra campaña ya usa este identificador.'],
    ['ru', 'Этот идентификатор уже использует другая кампания.'],
  ])('in %s, a campaign repeating an identifier is refused with the translated sentence at the field', async (language, sentence) => {
    const { context, page } = await newPage(browser, { language });
    await signIn(page, DEMO.admin);
    await page.waitForURL('**/dashboard/default');
    await page.goto('/campaings/submitCampaings');
    await page.getByTestId('campaign-name').fill(`Repeat ${language} ${suffix}`);
    await page.getByTestId('campaign-identifier').fill(identifier);
    await page.getByTestId('campaign-description').fill('Repeats an identifier');
    await page.getByTestId('campaign-from').fill('01-12-2026');
    await page.getByTestId('campaign-to').fill('31-12-2026');
    await page.getByTestId('admin-save').click();
    const fieldError = page.getByTestId('campaign-identifier-error');
    await fieldError.waitFor();
    await expect(fieldError.textContent()).resolves.toBe(sentence);
    const formError = await page.getByTestId('admin-form-error').textContent();
    expect(formError).toBe(sentence);
    expect(`${formError}`).not.toMatch(/already used|identifier is/i);
    // Editing the field clears the server's refusal until the next save.
    await page.getByTestId('campaign-identifier').fill(`${identifier}X`);
    await expect(fieldError.count()).resolves.toBe(0);
    await context.close();
  });
});
