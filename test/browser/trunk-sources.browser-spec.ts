import { randomUUID } from 'node:crypto';
import { api } from '../support/browser';
import { adminConsole, createDemoTrunk, demoAdminSession } from './support/voice';

/**
 * A trunk's allowed carrier addresses (/settings/troncals, the carrier source check of inbound calls) on the demo
 * tenant: a malformed entry is refused naming it, the list is saved one entry per line, and the field reads in Spanish.
 * The trunk is created for the test and deleted afterwards.
 */
jest.setTimeout(90_000);
const tag = randomUUID().slice(0, 6);

describe('allowed carrier addresses of a trunk in the console', () => {
  const admin = adminConsole();
  let token: string;
  let trunkId: string;

  beforeAll(async () => {
    await admin.launch();
    token = (await demoAdminSession()).admin;
    trunkId = await createDemoTrunk(token, `Sources ${tag}`, 'sip.sources-carrier.example');
  }, 60_000);

  afterAll(async () => {
    await admin.close();
    if (token && trunkId) await api('DELETE', `/api/trunks/${trunkId}`, token).catch(() => undefined);
  });

  const open = admin.open;

  it('refuses an entry that is not an address or a network, naming it, then saves the list', async () => {
    const page = await open('en');
    await page.goto(`/settings/troncals?id=${trunkId}`);
    await page.getByText('Allowed carrier addresses', { exact: true }).waitFor();
    const field = page.getByTestId('trunk-allowed-sources');
    await field.fill('203.0.113.10\n203.0.113.0/33');
    await field.blur();
    await page.getByText('“203.0.113.0/33” is not an IP address or a network in CIDR form', { exact: false }).waitFor();
    await page.getByTestId('admin-save').click();
    expect((await api<{ allowedSources: string[] }>('GET', `/api/trunks/${trunkId}`, token)).allowedSources).toEqual([]);

    await field.fill('203.0.113.10\n198.51.100.0/24, 2001:db8::/32');
    await field.blur();
    expect(await page.getByText('is not an IP address or a network in CIDR form', { exact: false }).count()).toBe(0);
    await page.getByTestId('admin-save').click();
    await page.waitForURL('**/settings/troncals');
    expect((await api<{ allowedSources: string[] }>('GET', `/api/trunks/${trunkId}`, token)).allowedSources).toEqual([
      '203.0.113.10',
      '198.51.100.0/24',
      '2001:db8::/32',
    ]);
  });

  it('shows the saved list one per line, in Spanish', async () => {
    await api('PUT', `/api/trunks/${trunkId}`, token, {
      name: `Sources ${tag}`,
      host: 'sip.sources-carrier.example',
      port: 5060,
      transport: 'udp',
      maxConcurrentCalls: 10,
      allowedSources: ['203.0.113.10', '198.51.100.0/24'],
    });
    const page = await open('es');
    await page.goto(`/settings/troncals?id=${trunkId}`);
    await page.getByText('Direcciones permitidas del operador', { exact: true }).waitFor();
    await page.getByText('Vacío: solo se acepta el host indicado arriba', { exact: false }).waitFor();
    await page.waitForFunction(
      () => (document.querySelector('[data-testid="trunk-allowed-sources"]') as HTMLTextAreaElement | null)?.value !== '',
    );
    expect(await page.getByTestId('trunk-allowed-sources').inputValue()).toBe('203.0.113.10\n198.51.100.0/24');
  });
});
