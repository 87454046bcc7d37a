import { randomBytes } from 'node:crypto';
import type { Browser } from 'playwright-core';
import { api, DEMO, DEMO_PASSWORD, invitationPath, launchBrowser, newPage, signIn } from '../support/browser';
import { eventually } from '../support/eventually';

const suffix = randomBytes(3).toString('hex');
// The first case walks two sessions through create, re-send and accept: room for a loaded machine.
jest.setTimeout(60_000);

/** Issue 17 item 1: reseller staff create a tenant in the console; its first administrator joins through the invitation. */
describe('Tenancy hierarchy and invitations', () => {
  let browser: Browser;
  beforeAll(async () => {
    browser = await launchBrowser();
  });
  afterAll(async () => {
    await browser?.close();
  });

  it('a reseller administrator creates a tenant and its first administrator signs in from the invitation (Spanish)', async () => {
    const tenantName = `Cliente ${suffix}`;
    const adminEmail = `primer-admin-${suffix}@example.com`;

    // Reseller staff land on their customers, not on a dashboard, and may add one.
    const reseller = await newPage(browser);
    await signIn(reseller.page, DEMO.reseller);
    await reseller.page.waitForURL('**/clients/ClientList');
    await reseller.page.getByTestId('admin-list').getByText('Demo Contact Centre').waitFor();
    await reseller.page.getByTestId('admin-add').click();
    await reseller.page.waitForURL('**/clients/Add');
    await reseller.page.getByTestId('client-name').fill(tenantName);
    await reseller.page.getByTestId('client-plan').fill('básico');
    await reseller.page.getByTestId('client-admin-name').fill('Paula Primera');
    // The shared rules check the address before anything is sent.
    await reseller.page.getByTestId('client-admin-email').fill('not-an-email');
    await reseller.page.getByTestId('admin-save').click();
    await reseller.page.getByTestId('client-admin-email-error').waitFor();
    await reseller.page.getByTestId('client-admin-email').fill(adminEmail);
    await reseller.page.getByTestId('admin-save').click();
    await reseller.page.waitForURL('**/clients/ClientList');
    await reseller.page.getByTestId('admin-list').getByText(tenantName).waitFor();
    await reseller.page.screenshot({ path: '/tmp/tenancy-clients-list.png' });

    // The customer's edit screen shows its first administrator's pending invitation; re-sending it
    // mails a new link and the first one stops working.
    const firstLink = await invitationPath(adminEmail);
    await reseller.page.getByTestId('admin-list').locator('tr', { hasText: tenantName }).getByTestId('admin-edit').click();
    await reseller.page.waitForURL('**/clients/Update**');
    const access = reseller.page.getByTestId('first-admin');
    await access.getByTestId('first-admin-invitation').getByText(adminEmail).waitFor();
    await access.getByTestId('first-admin-resend').click();
    const link = await eventually(async () => {
      const newest = await invitationPath(adminEmail);
      if (newest === firstLink) throw new Error('not re-sent yet');
      return newest;
    });
    await reseller.page.screenshot({ path: '/tmp/tenancy-first-admin-access.png' });
    await reseller.context.close();
    const stale = await newPage(browser);
    await stale.page.goto(firstLink);
    await stale.page.getByTestId('invitation-invalid').waitFor();
    await stale.context.close();

    // The re-sent invitation link (read from the mail queue) opens the accept page in Spanish.
    const invitee = await newPage(browser);
    await invitee.page.goto(link);
    await invitee.page.getByTestId('invitation-password').waitFor();
    await invitee.page.getByText(`Únete a ${tenantName}`).waitFor();
    await invitee.page.screenshot({ path: '/tmp/tenancy-accept-invitation.png' });
    await invitee.page.getByTestId('invitation-password').fill('paula elige una frase larga');
    await invitee.page.getByTestId('invitation-confirm').fill('paula elige otra cosa');
    await invitee.page.getByTestId('invitation-submit').click();
    await invitee.page.getByTestId('invitation-confirm-error').waitFor();
    await invitee.page.getByTestId('invitation-confirm').fill('paula elige una frase larga');
    await invitee.page.getByTestId('invitation-submit').click();
    await invitee.page.waitForURL('**/dashboard/default');
    await invitee.page.screenshot({ path: '/tmp/tenancy-first-admin-signed-in.png' });

    // The new administrator belongs to the new tenant, and sees only it among the customers.
    const session = await api<{ accessToken: string; user: { clientName: string; role: string } }>('POST', '/api/auth/login', null, {
      email: adminEmail,
      password: 'paula elige una frase larga',
    });
    expect(session.user).toMatchObject({ clientName: tenantName, role: 'ADMIN' });
    const clients = await api<{ items: { name: string }[] }>('GET', '/api/clients', session.accessToken);
    expect(clients.items.map((client) => client.name)).toEqual([tenantName]);

    // The link is single use.
    const again = await newPage(browser);
    await again.page.goto(link);
    await again.page.getByTestId('invitation-invalid').waitFor();
    await again.context.close();
    await invitee.context.close();
  });

  it('the platform operator sees the tenants of every reseller with their reseller', async () => {
    const { context, page } = await newPage(browser, { language: 'en' });
    await signIn(page, DEMO.platform, DEMO_PASSWORD);
    await page.waitForURL('**/clients/ClientList');
    await page.getByTestId('admin-list').getByText('Demo Contact Centre').waitFor();
    await page.getByTestId('admin-list').getByText('Centralita Demo').first().waitFor();
    await context.close();
  });

  it('the platform operator renames a reseller on the Brands page', async () => {
    const { accessToken } = await api<{ accessToken: string }>('POST', '/api/auth/login', null, {
      email: DEMO.platform,
      password: DEMO_PASSWORD,
    });
    const name = `Marca ${suffix}`;
    const created = await api<{ id: string }>('POST', '/api/resellers', accessToken, {
      name,
      adminEmail: `brand-admin-${suffix}@example.com`,
      adminName: 'Bruno Brand',
    });
    const { context, page } = await newPage(browser, { language: 'en' });
    await signIn(page, DEMO.platform, DEMO_PASSWORD);
    await page.waitForURL('**/clients/ClientList');
    await page.goto('/reseller/resellerSubmit');
    const row = page.getByTestId('reseller-row').filter({ hasText: name });
    // The reseller's first administrator's invitation is shown to the platform, which may re-send it.
    await row.getByTestId('reseller-access').click();
    await row.getByTestId('first-admin-invitation').getByText(`brand-admin-${suffix}@example.com`).waitFor();
    await row.getByTestId('reseller-rename').click();
    await page.locator(`#reseller-name-${created.id}`).fill(`${name} renamed`);
    await page.getByTestId('reseller-rename-save').click();
    await page
      .getByTestId('reseller-row')
      .filter({ hasText: `${name} renamed` })
      .waitFor();
    const stored = await api<{ name: string }>('GET', `/api/resellers/${created.id}`, accessToken);
    expect(stored.name).toBe(`${name} renamed`);
    await context.close();
  });

  it('the roles screen offers only the permissions the editor’s level can hold', async () => {
    const tenant = await newPage(browser, { language: 'en' });
    await signIn(tenant.page, DEMO.admin);
    await tenant.page.waitForURL('**/dashboard/default');
    await tenant.page.goto('/role/add');
    await tenant.page.locator('#role-permission-users-manage').waitFor({ state: 'attached' });
    for (const levelOnly of ['tenants-manage', 'resellers-manage', 'platform-manage'])
      expect(await tenant.page.locator(`#role-permission-${levelOnly}`).count()).toBe(0);
    await tenant.context.close();

    const reseller = await newPage(browser, { language: 'en' });
    await signIn(reseller.page, DEMO.reseller);
    await reseller.page.waitForURL('**/clients/ClientList');
    await reseller.page.goto('/role/add');
    await reseller.page.locator('#role-permission-tenants-manage').waitFor({ state: 'attached' });
    expect(await reseller.page.locator('#role-permission-platform-manage').count()).toBe(0);
    expect(await reseller.page.locator('#role-permission-conversations-handle').count()).toBe(0);
    await reseller.context.close();
  });
});
