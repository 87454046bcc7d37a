import { AuditLog } from '../src/modules/admin/audit-log.entity';
import { Role } from '../src/modules/roles/role.entity';
import { createReseller, createTenant, createUser, type TestTenant } from './support/factories';
import { uniqueEmail } from './support/test-app';
import { bearer, login, startTestApp, type TestApp } from './support/test-app';

jest.setTimeout(30_000);

describe('Clients and resellers (e2e)', () => {
  let t: TestApp;
  let tenantA: TestTenant;
  let tenantB: TestTenant;
  let adminA: string;
  let agentA: string;

  beforeAll(async () => {
    t = await startTestApp();
    tenantA = await createTenant(t.dataSource);
    tenantB = await createTenant(t.dataSource);
    const a = await createUser(t.dataSource, tenantA, { role: 'ADMIN' });
    const agent = await createUser(t.dataSource, tenantA, { role: 'AGENT' });
    adminA = (await login(t, a.email, a.password)).accessToken;
    agentA = (await login(t, agent.email, agent.password)).accessToken;
  });
  afterAll(() => t.close());

  it('updates its own branding and the console branding call shows it at once, with an audit row', async () => {
    const body = {
      name: tenantA.client.name,
      menuLogoUrl: 'https://cdn.example.com/a-compact.svg',
      completeMenuLogoUrl: 'https://cdn.example.com/a-full.svg',
      mainColor: '#0f766e',
    };
    await t.http().put(`/api/clients/${tenantA.client.id}`).set(bearer(adminA)).send(body).expect(200);
    const branding = (await t.http().get('/api/general/branding').set(bearer(adminA)).expect(200)).body.data;
    expect(branding).toMatchObject({ logoUrl: body.menuLogoUrl, completeLogoUrl: body.completeMenuLogoUrl, mainColor: '#0f766e' });
    const audit = await t.dataSource.getRepository(AuditLog).findOneByOrFail({ entityId: tenantA.client.id, action: 'update' });
    expect(audit.after).toMatchObject({ mainColor: '#0f766e' });
  });

  it('stores the widget’s allowed origins normalised, and the web-chat page may then be framed by them', async () => {
    const body = {
      name: tenantA.client.name,
      allowedOrigins: [' https://shop.example/ ', 'https://shop.example', 'http://localhost:8080'],
    };
    const saved = (await t.http().put(`/api/clients/${tenantA.client.id}`).set(bearer(adminA)).send(body).expect(200)).body.data;
    expect(saved.allowedOrigins).toEqual(['https://shop.example', 'http://localhost:8080']);
    const read = (await t.http().get(`/api/clients/${tenantA.client.id}`).set(bearer(adminA)).expect(200)).body.data;
    expect(read.allowedOrigins).toEqual(['https://shop.example', 'http://localhost:8080']);
    const refused = await t
      .http()
      .put(`/api/clients/${tenantA.client.id}`)
      .set(bearer(adminA))
      .send({ name: tenantA.client.name, allowedOrigins: ['https://x.example; script-src *'] })
      .expect(400);
    expect(Object.keys(refused.body.data.fields)).toEqual(['allowedOrigins']);
    const [row] = await t.dataSource.query(`SELECT allowed_origins FROM clients WHERE id = $1`, [tenantA.client.id]);
    expect(row.allowed_origins).toEqual(['https://shop.example', 'http://localhost:8080']);
  });

  it('refuses bad URLs and colours, and a missing name', async () => {
    const response = await t
      .http()
      .put(`/api/clients/${tenantA.client.id}`)
      .set(bearer(adminA))
      .send({ name: '', bannerUrl: 'javascript:alert(1)', mainColor: 'red' })
      .expect(400);
    expect(Object.keys(response.body.data.fields).sort()).toEqual(['bannerUrl', 'mainColor', 'name']);
  });

  it('reseller staff create a customer under their reseller with its built-in roles (tenant administrators cannot)', async () => {
    const { staff, tenants } = await createReseller(t.dataSource, 1);
    const staffUser = await createUser(t.dataSource, staff, { role: 'RESELLER_ADMIN' });
    const token = (await login(t, staffUser.email, staffUser.password)).accessToken;
    const body = { name: `Sub ${Date.now()}`, subscriptionPlan: 'basic', adminEmail: uniqueEmail('first'), adminName: 'First Admin' };
    await t.http().post('/api/clients').set(bearer(adminA)).send(body).expect(403);
    const created = (await t.http().post('/api/clients').set(bearer(token)).send(body).expect(200)).body.data;
    expect(await t.dataSource.getRepository(Role).countBy({ clientId: created.id })).toBe(3);
    const list = (await t.http().get('/api/clients').set(bearer(token)).expect(200)).body.data;
    expect(list.items.map((c: { id: string }) => c.id).sort()).toEqual([tenants[0].client.id, created.id].sort());
  });

  it("answers 404 for another reseller's customer and 403 for an agent", async () => {
    await t.http().get(`/api/clients/${tenantB.client.id}`).set(bearer(adminA)).expect(404);
    await t.http().put(`/api/clients/${tenantB.client.id}`).set(bearer(adminA)).send({ name: 'Hijacked' }).expect(404);
    await t.http().put(`/api/clients/${tenantA.client.id}`).set(bearer(agentA)).send({ name: 'X' }).expect(403);
  });

  it('reseller staff rename their reseller; a tenant administrator gets 404 and an agent 403', async () => {
    const { staff } = await createReseller(t.dataSource);
    const staffUser = await createUser(t.dataSource, staff, { role: 'RESELLER_ADMIN' });
    const token = (await login(t, staffUser.email, staffUser.password)).accessToken;
    const name = `Brand ${Date.now()}`;
    await t.http().put('/api/resellers/current').set(bearer(token)).send({ name }).expect(200);
    expect((await t.http().get('/api/resellers/current').set(bearer(token)).expect(200)).body.data.name).toBe(name);
    await t.http().put('/api/resellers/current').set(bearer(adminA)).send({ name: 'x' }).expect(404);
    await t.http().put('/api/resellers/current').set(bearer(agentA)).send({ name: 'x' }).expect(403);
  });
});
