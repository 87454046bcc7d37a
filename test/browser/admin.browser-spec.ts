import type { Browser, Page } from 'playwright-core';
import { api, DEMO, DEMO_PASSWORD, invitationPath, launchBrowser, newPage, signIn } from '../support/browser';

// One test walks five admin screens end to end (line, campaign, invited user, template, poll):
// about a minute on a loaded two-core machine, past the tier's 30 s.
jest.setTimeout(120_000);

const suffix = Date.now().toString(36).slice(-5);

/** Picks an option of a PrimeReact Dropdown/MultiSelect by its visible label. */
async function pick(page: Page, testId: string, label: string): Promise<void> {
  await page.getByTestId(testId).click();
  await page.getByRole('option', { name: label }).first().click();
}

async function save(page: Page, listPath: string): Promise<void> {
  await page.getByTestId('admin-save').click();
  await page.waitForURL(`**${listPath}`);
  await page.getByTestId('admin-list').waitFor();
}

describe('Administration', () => {
  let browser: Browser;
  beforeAll(async () => {
    browser = await launchBrowser();
  });
  afterAll(async () => {
    await browser?.close();
  });

  it('an administrator creates a line, a campaign, a user serving them, a predefined message and a poll', async () => {
    const { context, page } = await newPage(browser, { language: 'en' });
    await signIn(page, DEMO.admin);
    await page.waitForURL('**/dashboard/default');

    const line = `Sales line ${suffix}`;
    await page.goto('/attentionList/attentionEdit');
    // One route adds and edits: the title says which (issue 24 item 8).
    await expect(page.getByTestId('page-title').textContent()).resolves.toBe('Add service line');
    await page.getByTestId('line-name').fill(line);
    // Tuesday closing before it opens is refused with the day, the times and the way out.
    await page.locator('label[for=line-day-2]').click();
    await page.getByLabel('Tuesday closes').fill('08:00');
    await page.getByTestId('admin-save').click();
    await expect(page.getByTestId('line-hours-error').textContent()).resolves.toBe(
      'Tuesday: closes at 08:00, before it opens at 09:00. Hours cannot pass midnight: close at 23:59 and open the next day at 00:00.',
    );
    await page.locator('label[for=line-day-2]').click();
    await pick(page, 'line-channel', 'WhatsApp');
    // Routing: the least-occupied agent, priority 3 (12 is refused on the form), 90 s in the queue.
    await pick(page, 'line-routing-policy', 'Least occupied agent');
    await page.locator('#line-priority').fill('12');
    await page.getByTestId('admin-save').click();
    await page.getByTestId('line-priority-error').waitFor();
    await page.locator('#line-priority').fill('3');
    await page.locator('#line-queue-timeout').fill('90');
    // Blended agents: one chat during a call, and calls offered to agents holding chats.
    await page.locator('#line-chats-during-call').fill('1');
    await page.locator('label[for=line-offer-calls-with-chats]').click();
    await save(page, '/attentionList/attentionList');
    await page.getByTestId('admin-list').getByText(line).waitFor();
    const { accessToken } = await api<{ accessToken: string }>('POST', '/api/auth/login', null, {
      email: DEMO.admin,
      password: DEMO_PASSWORD,
    });
    const saved = await api<{ items: { name: string; routingPolicy: string; priority: number; queueTimeoutSeconds: number | null }[] }>(
      'GET',
      `/api/attention-lines?q=${encodeURIComponent(line)}`,
      accessToken,
    );
    expect(saved.items).toEqual([
      expect.objectContaining({
        name: line,
        routingPolicy: 'least-occupied',
        priority: 3,
        queueTimeoutSeconds: 90,
        chatsDuringCall: 1,
        offerCallsWithChats: true,
      }),
    ]);

    const campaign = `Campaign ${suffix}`;
    await page.goto('/campaings/submitCampaings');
    await page.getByTestId('campaign-name').fill(campaign);
    await page.getByTestId('campaign-identifier').fill(`C${suffix}`.toUpperCase());
    await page.getByTestId('campaign-description').fill('Created by the browser test');
    await page.getByTestId('campaign-from').fill('01-12-2026');
    await page.getByTestId('campaign-to').fill('31-12-2026');
    // 6 chats per agent is refused by the shared rule before anything is sent.
    await page.locator('#campaign-chats').fill('6');
    await page.getByTestId('admin-save').click();
    await page.getByTestId('campaign-chats-error').waitFor();
    await page.locator('#campaign-chats').fill('3');
    await save(page, '/campaings/campaings');
    await page.getByTestId('admin-list').getByText(campaign).waitFor();

    const userName = `Agent ${suffix}`;
    await page.goto('/users/add');
    await page.getByTestId('user-name').fill(userName);
    await page.getByTestId('user-email').fill(`agent-${suffix}@demo.centralita.io`);
    await pick(page, 'user-role', 'Agent');
    // Adding a user invites them: there is no password field, they choose it from the mail.
    await page.getByTestId('user-invite-hint').waitFor();
    await pick(page, 'user-lines', line);
    await page.keyboard.press('Escape');
    await pick(page, 'user-campaigns', campaign);
    await page.keyboard.press('Escape');
    await save(page, '/users/Users');
    await page.getByTestId('pending-invitations').getByText(userName).waitFor();
    const token = (await invitationPath(`agent-${suffix}@demo.centralita.io`)).split('/').at(-1);
    await api('POST', '/api/invitations/accept', null, { token, password: 'a long enough password' });
    await page.reload();
    await page.getByTestId('admin-search').fill(suffix);
    await page.getByTestId('admin-list').getByText(userName).waitFor();

    await page.goto('/predefinedMessages/PredefinedMessagesSubmit');
    await page.getByTestId('predefined-shortcut').fill(`/hi${suffix}`);
    await page.getByTestId('predefined-message').fill('Hello! How can I help you today?');
    await save(page, '/predefinedMessages/PredefinedMessagesList');
    await page.getByTestId('admin-list').getByText(`/hi${suffix}`).waitFor();

    const poll = `Poll ${suffix}`;
    await page.goto('/settings/editpoll');
    await expect(page.getByTestId('page-title').textContent()).resolves.toBe('Add poll');
    await page.getByTestId('poll-name').fill(poll);
    await page.getByTestId('poll-question-text-0').fill('How likely are you to recommend us?');
    await save(page, '/settings/polls');
    await page.getByTestId('admin-list').getByText(poll).waitFor();

    // The user serves the new line and campaign.
    await page.goto('/users/Users');
    await page.getByTestId('admin-search').fill(suffix);
    await page.getByTestId('admin-list').getByText(userName).waitFor();
    await page.getByTestId('admin-edit').first().click();
    await page.getByTestId('user-lines').getByText(line).waitFor();
    await expect(page.getByTestId('page-title').textContent()).resolves.toBe('Edit user');
    await page.getByTestId('user-campaigns').getByText(campaign).waitFor();
    await context.close();
  });
});
