import { randomBytes } from 'node:crypto';
import type { Browser } from 'playwright-core';
import { api, DEMO, DEMO_PASSWORD, invitationPath, launchBrowser, newPage, signIn } from '../support/browser';

const suffix = randomBytes(3).toString('hex');

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
    await reseller.context.close();

    // The invitation link (read from the mail queue) opens the accept page in Spanish.
    const link = await invitationPath(adminEmail);
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
});
