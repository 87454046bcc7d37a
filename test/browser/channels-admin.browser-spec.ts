import { randomBytes, randomInt } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path, { join } from 'node:path';
import type { ChannelAccountView, ChannelKindView, OptionItem } from '@centralita/contracts';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { startWhatsAppFake, type WhatsAppFake } from '../fakes/whatsapp-cloud';
import { eventually } from '../support/eventually';
import { DEMO, DEMO_PASSWORD, launchBrowser } from '../support/browser';
import { startSuiteApi, type SuiteApi } from '../support/suite-api';

/**
 * The channel accounts screen (/ChannelsAdmin/ChannelsAdmin) against the real API: an administrator
 * connects a WhatsApp account, reads the webhook URL and verify token to paste at Meta, tests the
 * connection against a local WhatsApp Cloud API, edits it (a stored secret is kept unless retyped),
 * disables it and deletes it. The tier's shared API has no META_GRAPH_URL, so this suite starts an
 * API process of its own on the tier's database pointed at the fake.
 */
jest.setTimeout(120_000);

const ROOT = path.resolve(__dirname, '..', '..');
// DESK_SCREENSHOTS=1 refreshes the docs' pictures; otherwise they go to the temp folder.
const SCREENSHOTS = process.env.DESK_SCREENSHOTS === '1' ? join(ROOT, 'docs', 'screenshots') : join(tmpdir(), 'centralita-channels-admin');

describe('Channel accounts screen (browser)', () => {
  let fake: WhatsAppFake;
  let suite: SuiteApi | undefined;
  let url: string;
  let browser: Browser;
  const contexts: BrowserContext[] = [];
  let token: string;
  let kinds: ChannelKindView[];
  let line: OptionItem;
  const accountName = `WhatsApp ventas ${randomBytes(2).toString('hex')}`;

  const call = <T>(method: string, route: string, body?: unknown): Promise<T> => suite!.call<T>(method, route, token || null, body);

  const accounts = async () => {
    const answer = await call<ChannelAccountView[] | { items: ChannelAccountView[] }>('GET', '/api/channel-accounts');
    return Array.isArray(answer) ? answer : answer.items;
  };
  const ours = async () => (await accounts()).find((account) => account.externalAccountId === fake.phoneNumberId);

  async function adminPage(language: 'es' | 'en'): Promise<Page> {
    const context = await browser.newContext({ viewport: { width: 1366, height: 800 }, baseURL: url });
    contexts.push(context);
    await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: url });
    await context.addInitScript((lng) => window.localStorage.setItem('language', lng), language);
    const page = await context.newPage();
    await page.goto('/session/signin');
    await page.getByTestId('signin-email').fill(DEMO.admin);
    await page.getByTestId('signin-password').fill(DEMO_PASSWORD);
    await page.getByTestId('signin-submit').click();
    await page.waitForURL((where) => !where.pathname.startsWith('/session'));
    await page.goto('/ChannelsAdmin/ChannelsAdmin');
    await page.getByTestId('channel-accounts-table').waitFor();
    return page;
  }

  beforeAll(async () => {
    mkdirSync(SCREENSHOTS, { recursive: true });
    // A phone-number id of our own: the account is unique per (kind, provider id) across tenants.
    fake = await startWhatsAppFake({
      phoneNumberId: String(randomInt(100_000_000, 999_999_999)) + '42',
      verifiedName: 'Centralita Ventas',
    });
    suite = await startSuiteApi({ env: { META_GRAPH_URL: fake.url, META_GRAPH_VERSION: fake.graphVersion } });
    url = suite.url;
    token = (await call<{ accessToken: string }>('POST', '/api/auth/login', { email: DEMO.admin, password: DEMO_PASSWORD })).accessToken;
    kinds = await call<ChannelKindView[]>('GET', '/api/channel-kinds');
    const lines = await call<OptionItem[]>('GET', '/api/attention-lines/options');
    if (!lines.length) throw new Error('the demo tenant has no attention line');
    line = lines[0];
    browser = await launchBrowser();
  }, 180_000);

  afterAll(async () => {
    for (const context of contexts) await context.close().catch(() => undefined);
    await browser?.close();
    const account = token ? await ours().catch(() => undefined) : undefined;
    if (account) await call('DELETE', `/api/channel-accounts/${account.id}`).catch(() => undefined);
    await suite?.stop();
    await fake?.close();
  });

  it('connects a WhatsApp account, shows what to paste at Meta and tests the connection against the provider', async () => {
    const page = await adminPage('es');
    await page.getByTestId('channels-connect').click();
    const dialog = page.getByTestId('channel-account-dialog');
    await dialog.getByTestId('channel-kind-whatsapp').waitFor();
    // X is offered only when the API enables it (CHANNEL_X_ENABLED).
    const xOffered = kinds.find((kind) => kind.kind === 'twitter')?.enabled ?? false;
    expect(await dialog.getByTestId('channel-kind-twitter').count()).toBe(xOffered ? 1 : 0);
    await dialog.getByTestId('channel-kind-whatsapp').click();

    // Saving an empty form names each missing field where it is, and sends nothing.
    await dialog.getByTestId('channel-account-save').click();
    await dialog.getByTestId('channel-account-name-error').getByText('Este campo es obligatorio.').waitFor();
    await dialog.getByTestId('channel-account-external-id-error').waitFor();
    await dialog.getByTestId('channel-account-secret-accessToken-error').waitFor();
    expect(await ours()).toBeUndefined();

    const whatsapp = kinds.find((kind) => kind.kind === 'whatsapp')!;
    await dialog.getByTestId('channel-account-name').fill(accountName);
    await dialog.getByTestId('channel-account-external-id').fill(fake.phoneNumberId);
    await dialog.locator('.p-dropdown:has(#channel-account-line)').click();
    await page.getByRole('option', { name: line.name, exact: true }).click();
    const values: Record<string, string> = { accessToken: fake.accessToken, appSecret: fake.appSecret, wabaId: fake.wabaId };
    for (const name of whatsapp.settings)
      await dialog.getByTestId(`channel-account-setting-${name}`).fill(values[name] ?? `setting-${name}`);
    for (const name of whatsapp.secrets) {
      const input = dialog.getByTestId(`channel-account-secret-${name}`);
      expect(await input.getAttribute('type')).toBe('password');
      await input.fill(values[name] ?? `secret-${name}`);
    }
    // The access token has its translated label and help, not its bare name.
    await dialog.getByText('Token de acceso', { exact: true }).waitFor();
    await page.screenshot({ path: join(SCREENSHOTS, 'channels-admin-dialog-es.png') });

    await dialog.getByTestId('channel-account-save').click();
    await dialog.getByTestId('channel-webhook').waitFor();
    const stored = (await ours())!;
    expect(stored).toMatchObject({ name: accountName, kind: 'whatsapp', attentionLineId: line.id, enabled: true });
    expect([...stored.secretsSet].sort()).toEqual([...whatsapp.secrets].sort());
    // What to paste at Meta is the API's own URL and token, each one click from the clipboard.
    expect(await dialog.getByTestId('channel-webhook-url').inputValue()).toBe(stored.webhookUrl);
    expect(await dialog.getByTestId('channel-verify-token').inputValue()).toBe(stored.verifyToken);
    expect(stored.verifyToken.length).toBeGreaterThan(0);
    await dialog.getByTestId('channel-verify-token-copy').click();
    await eventually(async () => expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(stored.verifyToken));
    expect(await dialog.getByTestId('channel-webhook-steps').textContent()).toContain('WhatsApp → Configuración');

    await dialog.getByTestId('channel-test-connection').click();
    const result = dialog.getByTestId('channel-check-result');
    await result.getByText('Conectado como Centralita Ventas').waitFor();
    expect(await result.getAttribute('data-ok')).toBe('true');
    // The test really reached the provider with the stored token.
    expect(
      fake.requests.some(
        (request) =>
          request.method === 'GET' && request.path.includes(fake.phoneNumberId) && request.authorization === `Bearer ${fake.accessToken}`,
      ),
    ).toBe(true);
    await dialog.getByTestId('channel-dialog-done').click();

    const row = page.getByRole('row').filter({ hasText: accountName });
    await eventually(async () => expect(await row.getByTestId('channel-account-presence').getAttribute('data-presence')).toBe('online'));
    await row.getByText(line.name).waitFor();
    await row.getByTestId('channel-account-check').getByText('Correcta').waitFor();
    await page.screenshot({ path: join(SCREENSHOTS, 'channels-admin-list-es.png') });
    if (process.env.DESK_SCREENSHOTS === '1') await page.screenshot({ path: join(SCREENSHOTS, 'channels-admin-es.png') });
  });

  it('edits the account keeping stored secrets, shows the provider reason of a failed test, disables and deletes it', async () => {
    const page = await adminPage('es');
    const row = page.getByRole('row').filter({ hasText: accountName });
    await row.getByTestId('channel-account-edit').click();
    const dialog = page.getByTestId('channel-account-dialog');
    // Stored secrets show as set, never their values.
    const appSecret = dialog.getByTestId('channel-account-secret-appSecret');
    expect(await appSecret.inputValue()).toBe('');
    await dialog.getByTestId('channel-account-secret-appSecret-set').waitFor();
    const renamed = `${accountName} (editada)`;
    await dialog.getByTestId('channel-account-name').fill(renamed);
    // A wrong access token: the next test is refused by Meta with its own reason.
    await dialog.getByTestId('channel-account-secret-accessToken').fill('EAAG-revoked-token');
    await dialog.getByTestId('channel-account-save').click();
    await dialog.waitFor({ state: 'detached' });

    const edited = page.getByRole('row').filter({ hasText: renamed });
    await edited.waitFor();
    const stored = (await ours())!;
    expect(stored.name).toBe(renamed);
    expect(stored.secretsSet).toEqual(expect.arrayContaining(['accessToken', 'appSecret']));

    // WhatsApp's webhook is pasted at Meta: no register action (Telegram's accounts have one).
    expect(await edited.getByTestId('channel-account-register').count()).toBe(0);
    await edited.getByTestId('channel-account-test').click();
    await page.getByTestId('toast-container').getByText('La prueba de conexión falló').waitFor();
    await page
      .getByTestId('toast-container')
      .getByText(/access token/i)
      .first()
      .waitFor();
    await eventually(async () => expect(await edited.getByTestId('channel-account-presence').getAttribute('data-presence')).toBe('other'));
    await edited.getByText('Fallida').waitFor();
    expect((await ours())!.lastCheck).toMatchObject({ ok: false });

    await edited.getByTestId('channel-account-toggle').click();
    await eventually(async () => expect((await ours())!.enabled).toBe(false));

    await edited.getByTestId('channel-account-delete').click();
    await page.getByTestId('channel-delete-confirm').click();
    await edited.waitFor({ state: 'detached' });
    await eventually(async () => expect(await ours()).toBeUndefined());
  });

  it('shows the list and the connect dialog in English', async () => {
    // An account to show: created through the API, enabled, never tested.
    await call('POST', '/api/channel-accounts', {
      kind: 'whatsapp',
      name: 'Support line',
      externalAccountId: fake.phoneNumberId,
      attentionLineId: line.id,
      settings: { wabaId: fake.wabaId },
      secrets: { accessToken: fake.accessToken, appSecret: fake.appSecret },
    });
    const page = await adminPage('en');
    const row = page.getByRole('row').filter({ hasText: 'Support line' });
    await row.getByText('Never tested').waitFor();
    expect(await row.getByTestId('channel-account-presence').getAttribute('data-presence')).toBe('other');
    await page.getByTestId('channels-filter-whatsapp').click();
    await row.waitFor();
    await page.screenshot({ path: join(SCREENSHOTS, 'channels-admin-list-en.png') });
    if (process.env.DESK_SCREENSHOTS === '1') await page.screenshot({ path: join(SCREENSHOTS, 'channels-admin-en.png') });

    await page.getByTestId('channels-connect').click();
    const dialog = page.getByTestId('channel-account-dialog');
    await dialog.getByTestId('channel-kind-whatsapp').click();
    await dialog.getByText('Access token', { exact: true }).waitFor();
    await dialog.getByText('Phone number ID', { exact: true }).first().waitFor();
    await page.screenshot({ path: join(SCREENSHOTS, 'channels-admin-dialog-en.png') });
  });
});
