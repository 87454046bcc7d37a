import type { Browser, BrowserContext, Page } from 'playwright-core';
import { DEMO, launchBrowser, newPage, signIn } from '../support/browser';

/**
 * PrimeReact's own texts follow the console language (issue 24 item 8): the reports date picker shows
 * Greek month and day names for a Greek console, and Russian ones after switching the language.
 */
jest.setTimeout(90_000);

const GREEK_MONTHS = [
  'Ιανουάριος',
  'Φεβρουάριος',
  'Μάρτιος',
  'Απρίλιος',
  'Μάιος',
  'Ιούνιος',
  'Ιούλιος',
  'Αύγουστος',
  'Σεπτέμβριος',
  'Οκτώβριος',
  'Νοέμβριος',
  'Δεκέμβριος',
];
const RUSSIAN_MONTHS = ['Январь', 'Февраль', 'Март', 'Апрель', 'Май', 'Июнь', 'Июль', 'Август', 'Сентябрь', 'Октябрь', 'Ноябрь', 'Декабрь'];

describe('PrimeReact texts in the console language', () => {
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;

  beforeAll(async () => {
    browser = await launchBrowser();
    ({ context, page } = await newPage(browser, { language: 'el' }));
    await signIn(page, DEMO.supervisor);
    await page.waitForURL((url) => !url.pathname.startsWith('/session'));
  });
  afterAll(async () => {
    await context?.close();
    await browser?.close();
  });

  /** Opens the "from" date picker and reads the shown month and the week-day headers. */
  async function openPicker(): Promise<{ month: number; title: string; days: string[] }> {
    await page.locator('#report-from').click();
    const panel = page.locator('.p-datepicker:visible');
    await panel.locator('.p-datepicker-month').waitFor();
    const title = (await panel.locator('.p-datepicker-month').textContent())!.trim();
    const days = (await panel.locator('.p-datepicker-calendar thead th').allTextContents()).map((day) => day.trim());
    // The picker opens on the month of the field's date (the default range ends today).
    const value = await page.locator('#report-from').inputValue();
    const month = Number(/^\d{2}-(\d{2})-\d{4}/.exec(value)![1]) - 1;
    await page.keyboard.press('Escape');
    await panel.waitFor({ state: 'hidden' });
    return { month, title, days };
  }

  it('shows Greek month and day names in a Greek console', async () => {
    await page.goto('/reports/reports');
    const { month, title, days } = await openPicker();
    expect(title).toBe(GREEK_MONTHS[month]);
    expect(days).toEqual(['Δε', 'Τρ', 'Τε', 'Πε', 'Πα', 'Σα', 'Κυ']);
  });

  it('switches to Russian names when the user switches the language', async () => {
    await page.selectOption('[data-testid=language-switch]', 'ru');
    await page.locator('html[lang=ru]').waitFor({ state: 'attached' });
    const { month, title, days } = await openPicker();
    expect(title).toBe(RUSSIAN_MONTHS[month]);
    expect(days).toEqual(['Пн', 'Вт', 'Ср', 'Чт', 'Пт', 'Сб', 'Вс']);
  });
});
