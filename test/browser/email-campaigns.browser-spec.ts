import { randomBytes, randomInt } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path, { join } from 'node:path';
import type { ChannelAccountView, MessageCampaignView, PhoneImportState } from '@centralita/contracts';
import { localMailSettings } from '../../apps/api/test/email/support/mail-account';
import { startSmtpPeer, type SmtpPeer } from '../../apps/api/test/email/support/smtp-peer';
import { startDovecot, type RunningDovecot } from '../support/dovecot';
import { eventually } from '../support/eventually';
import { consoleAdmin } from '../support/console-admin';
import { startSuiteApi, type SuiteApi } from '../support/suite-api';

/**
 * Issue 21, email campaigns in the console: the email kind of the template editor on
 * /OutboundCampaign/CreateTemplates (checks as you type, live preview, saved usable at once) and
 * an email campaign created in the form on /OutboundCampaign/CampaignList (tab of message
 * campaigns: email account, address column, a parameter from another column), started, and its
 * board counting the mails the worker sent to the local SMTP server. Own API and worker.
 */
jest.setTimeout(180_000);

const ROOT = path.resolve(__dirname, '..', '..');
// DESK_SCREENSHOTS=1 refreshes the docs' pictures; otherwise they go to the temp folder.
const SCREENSHOTS = process.env.DESK_SCREENSHOTS === '1' ? join(ROOT, 'docs', 'screenshots') : join(tmpdir(), 'centralita-email-campaigns');

describe('Email templates and email campaigns (browser)', () => {
  const run = randomBytes(3).toString('hex');
  const mailbox = `boletin-${run}@campanas-${run}.test`;
  const customers = `lectores-${run}.test`;
  let dovecot: RunningDovecot;
  let smtp: SmtpPeer;
  let suite: SuiteApi | undefined;
  let url: string;
  const admin = consoleAdmin();
  const { call } = admin;
  let account: ChannelAccountView;
  let listName: string;
  const accountName = `Boletín ${run}`;

  const adminPage = (language: 'es' | 'en', where: string) => admin.page(language, where);

  /** A list imported as an administrator does (CSV with a header row): phone, name, email and city columns. */
  async function importList(name: string, rows: string[]): Promise<string> {
    const response = await fetch(`${url}/api/phone-lists/imports?name=${encodeURIComponent(name)}&fileName=lista.csv`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${admin.token()}`, 'Content-Type': 'text/csv' },
      body: ['telefono,nombre,email,ciudad', ...rows].join('\r\n'),
    });
    expect(response.status).toBe(200);
    const started = ((await response.json()) as { data: PhoneImportState }).data;
    return eventually(
      async () => {
        const state = await call<PhoneImportState>('GET', `/api/phone-lists/imports/${started.id}`);
        expect(state).toMatchObject({ status: 'done' });
        return state.phoneListId!;
      },
      { timeoutMs: 30_000, intervalMs: 300 },
    );
  }

  beforeAll(async () => {
    mkdirSync(SCREENSHOTS, { recursive: true });
    dovecot = await startDovecot();
    dovecot.addUser(mailbox, `imap-${run}`);
    smtp = await startSmtpPeer({ user: `smtp-${run}`, password: `smtp-pass-${run}` });
    suite = await startSuiteApi({
      env: { OUTGOING_ALLOWED_CIDRS: '127.0.0.0/8', EMAIL_POLL_MS: '1000', EMAIL_ACCOUNTS_REFRESH_MS: '500' },
      worker: true,
      queuePrefixSuffix: '-email-campaigns',
    });
    url = suite.url;
    await admin.open(suite);
    account = await admin.connectAccount({
      kind: 'email',
      name: accountName,
      externalAccountId: mailbox,
      settings: {
        ...localMailSettings(dovecot, smtp, `smtp-${run}`),
        fromName: 'Boletín',
        campaignPerMinute: '600',
      },
      secrets: { imapPassword: `imap-${run}`, smtpPassword: `smtp-pass-${run}` },
    });
    listName = `Lectores ${run}`;
    await importList(
      listName,
      Array.from({ length: 12 }, (_, index) => {
        const n = index + 1;
        // Row 12 repeats row 1's address: skipped as a duplicate.
        return `+3460${randomInt(1000, 9999)}${String(n).padStart(3, '0')},Lector ${n},${n === 12 ? 'l1' : `l${n}`}@${customers},${n % 2 ? 'Sevilla' : 'Bilbao'}`;
      }),
    );
  }, 240_000);

  afterAll(async () => {
    await admin.close(account);
    await smtp?.close();
    await dovecot?.close();
  });

  it.each(['es', 'en'] as const)('writes an email template with a live preview and saves it usable at once (%s)', async (language) => {
    const page = await adminPage(language, '/OutboundCampaign/CreateTemplates');
    await page.getByTestId('channel-templates').waitFor();
    await page.getByTestId('tpl-account').click();
    await page.locator('li[role="option"]', { hasText: accountName }).click();
    const editor = page.getByTestId('email-template-editor');
    await editor.waitFor();
    const name = `boletin_${language}_${run}`;
    await page.getByTestId('email-tpl-name').fill(name);
    await page.getByTestId('email-tpl-subject').fill(language === 'es' ? 'Novedades para {{1}}' : 'News for {{1}}');
    // The shared rules as you type: no body yet, no save.
    await eventually(async () => expect(await editor.innerText()).toContain('body is required'));
    expect(await page.getByTestId('email-tpl-save').isDisabled()).toBe(true);
    await page
      .getByTestId('email-tpl-html')
      .fill(language === 'es' ? '<p>Hola <b>{{1}}</b>, abrimos en {{2}}.</p>' : '<p>Hello <b>{{1}}</b>, we open in {{2}}.</p>');
    await page.getByTestId('email-tpl-example-1').fill('Ana');
    await page.getByTestId('email-tpl-example-2').fill('Cádiz');
    await eventually(async () =>
      expect(await page.getByTestId('email-preview-subject').innerText()).toBe(language === 'es' ? 'Novedades para Ana' : 'News for Ana'),
    );
    const frame = page.frameLocator('[data-testid="email-template-preview"] iframe');
    await eventually(async () =>
      expect(await frame.locator('p').innerText()).toBe(language === 'es' ? 'Hola Ana, abrimos en Cádiz.' : 'Hello Ana, we open in Cádiz.'),
    );
    await editor.scrollIntoViewIfNeeded();
    await page.screenshot({ path: join(SCREENSHOTS, `email-templates-${language}.png`) });
    await page.getByTestId('email-tpl-save').click();
    const row = page.getByRole('row').filter({ hasText: name });
    await eventually(async () => expect(await row.innerText()).toContain(language === 'es' ? 'Aprobada' : 'Approved'));
  });

  it.each(['es', 'en'] as const)(
    'creates an email campaign in the form, starts it and sees the board count the mails (%s)',
    async (language) => {
      const page = await adminPage(language, '/OutboundCampaign/CampaignList?tab=messages');
      await page.getByTestId('message-campaigns').waitFor();
      const form = page.locator('section').filter({ has: page.locator('.mc-form') });
      const dropdownPick = async (index: number, option: string | RegExp) => {
        await form.locator('.mc-form .p-dropdown').nth(index).click();
        await page.locator('li[role="option"]', { hasText: option }).first().click();
      };
      const campaignName = language === 'es' ? `Boletín de mayo ${run}` : `May newsletter ${run}`;
      await form.locator('.mc-form input').first().fill(campaignName);
      await dropdownPick(0, accountName);
      await dropdownPick(1, `boletin_${language}_${run}`);
      await dropdownPick(2, listName);
      const fields = page.getByTestId('email-campaign-fields');
      await fields.waitFor();
      // The address column is found by its name; parameter 2 comes from the city column.
      await eventually(async () =>
        expect(await page.getByTestId('email-address-column').locator('.p-dropdown-label').innerText()).toBe('email'),
      );
      await page.getByTestId('email-source-2').click();
      await page.locator('li[role="option"]', { hasText: language === 'es' ? 'Columna de la lista' : 'List column' }).click();
      await page.getByTestId('email-column-2').click();
      await page.locator('li[role="option"]', { hasText: 'ciudad' }).click();
      await fields.scrollIntoViewIfNeeded();
      await page.screenshot({ path: join(SCREENSHOTS, `email-campaign-form-${language}.png`) });
      await form.getByRole('button', { name: language === 'es' ? 'Crear campaña' : 'Create campaign' }).click();

      const created = await eventually(async () => {
        const found = (await call<MessageCampaignView[]>('GET', '/api/message-campaigns')).find((one) => one.name === campaignName);
        expect(found).toMatchObject({ channel: 'email', addressColumn: 'email', status: 'draft' });
        return found!;
      });
      const row = page.getByRole('row').filter({ hasText: campaignName }).first();
      await row.getByRole('button', { name: language === 'es' ? 'Iniciar' : 'Start' }).click();
      // The form selects the campaign it created (its board opens); a click on its row would close it again.
      await page.getByTestId('message-campaign-board').waitFor();
      expect(await page.getByTestId('message-campaign-board').innerText()).toContain(campaignName);
      await eventually(
        async () => {
          const view = await call<MessageCampaignView>('GET', `/api/message-campaigns/${created.id}`);
          expect(view).toMatchObject({ status: 'finished', counts: { total: 12, sent: 11, skipped: 1 } });
          expect(await page.getByTestId('board-sent').locator('strong').innerText()).toBe('11');
          expect(await page.getByTestId('board-skipped').locator('strong').innerText()).toBe('1');
        },
        { timeoutMs: 60_000, intervalMs: 500 },
      );
      expect(await page.getByTestId('message-campaign-board').innerText()).toContain(
        language === 'es' ? 'Dirección repetida en la lista: 1' : 'Address repeated in the list: 1',
      );
      const mails = smtp.received.filter(
        (mail) => mail.envelope.to[0]?.endsWith(`@${customers}`) && mail.parsed.subject?.includes(language === 'es' ? 'Novedades' : 'News'),
      );
      expect(mails).toHaveLength(11);
      expect(mails.find((mail) => mail.envelope.to[0] === `l2@${customers}`)!.parsed.html).toContain('Bilbao');
      await page.getByTestId('message-campaign-board').scrollIntoViewIfNeeded();
      await page.screenshot({ path: join(SCREENSHOTS, `email-campaign-board-${language}.png`) });
    },
  );
});
