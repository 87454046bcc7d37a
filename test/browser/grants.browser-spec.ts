import { Client } from 'pg';
import type { Browser } from 'playwright-core';
import { api, DEMO, DEMO_PASSWORD, launchBrowser, newPage, signIn } from '../support/browser';

const suffix = Date.now().toString(36).slice(-5);

/**
 * Grants never exceed the granter, as the console shows it: a user manager with a partial set of
 * permissions sees the roles it may not give locked, the permissions it lacks locked, and the
 * server's refusal of a more powerful role in its own language.
 */
/**
 * A demo-tenant user with the given role and the demo password (its hash copied): "Add user"
 * invites, and this suite is about what the user can do once signed in, not the invitation.
 */
async function demoUserWithRole(email: string, roleId: string): Promise<void> {
  const url = new URL(process.env.DATABASE_URL!);
  url.pathname = `/${process.env.CENTRALITA_BROWSER_TEST_DB}`;
  const db = new Client({ connectionString: url.toString() });
  await db.connect();
  try {
    await db.query(
      `INSERT INTO users (client_id, role_id, email, name, password_hash)
       SELECT client_id, $2, $3, $4, password_hash FROM users WHERE email = $1`,
      [DEMO.admin, roleId, email, `Grants ${suffix}`],
    );
  } finally {
    await db.end();
  }
}

describe('Grants in the console', () => {
  let browser: Browser;
  beforeAll(async () => {
    browser = await launchBrowser();
  });
  afterAll(async () => {
    await browser?.close();
  });

  it('locks what a partial administrator may not give and shows the refusal', async () => {
    const { accessToken } = await api<{ accessToken: string }>('POST', '/api/auth/login', null, {
      email: DEMO.admin,
      password: DEMO_PASSWORD,
    });
    const managerRole = await api<{ id: string }>('POST', '/api/roles', accessToken, {
      code: `GRANTS_${suffix}`.toUpperCase(),
      name: `Grants ${suffix}`,
      permissions: ['dashboard.view', 'users.manage', 'roles.manage'],
    });
    const email = `grants-${suffix}@demo.centralita.io`;
    await demoUserWithRole(email, managerRole.id);
    const roles = await api<{ items: { id: string; code: string }[] }>('GET', '/api/roles?pageSize=100', accessToken);
    const adminRole = roles.items.find((role) => role.code === 'ADMIN')!;

    const { context, page } = await newPage(browser, { language: 'en' });
    await signIn(page, email);
    await page.waitForURL('**/dashboard/default');

    // The user form offers the roles, the more powerful ones locked.
    await page.goto('/users/add');
    await page.getByTestId('user-role').click();
    const adminOption = page.getByRole('option', { name: /Administrator \(not yours to give\)/ });
    await adminOption.waitFor();
    expect(await adminOption.getAttribute('aria-disabled')).toBe('true');
    expect(await page.getByRole('option', { name: `Grants ${suffix}`, exact: true }).getAttribute('aria-disabled')).not.toBe('true');
    await page.keyboard.press('Escape');

    // The role form locks the permissions it does not hold; ADMIN cannot be changed, and saving says why.
    await page.goto(`/role/edit?id=${adminRole.id}`);
    await page.getByTestId('role-beyond-you').waitFor();
    expect(await page.locator('#role-permission-audit-view').isDisabled()).toBe(true);
    expect(await page.locator('#role-permission-users-manage').isDisabled()).toBe(false);
    await page.getByTestId('admin-save').click();
    const error = page.getByTestId('admin-form-error');
    await error.waitFor();
    expect(await error.textContent()).toMatch(/permissions you do not hold yourself \(.*audit\.view/);
    await context.close();
  });
});
