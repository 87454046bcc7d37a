import { AuditLog } from '../src/modules/admin/audit-log.entity';
import { RoleMenu } from '../src/modules/roles/role-menu.entity';
import { Role } from '../src/modules/roles/role.entity';
import { createTenant, createUser, type TestTenant } from './support/factories';
import { bearer, login, startTestApp, type TestApp } from './support/test-app';

// Argon2 hashing and logins in beforeAll are slow on shared CI machines.
jest.setTimeout(30_000);

describe('Roles administration (e2e)', () => {
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

  const add = (body: Record<string, unknown>) => t.http().post('/api/roles').set(bearer(adminA)).send(body);

  it('adds a role with permissions and menu entries, and audits it', async () => {
    const response = await add({ code: 'QA_LEAD', name: 'QA lead', permissions: ['users.manage'], menuPaths: ['/users/Users'] }).expect(
      200,
    );
    expect(response.body.data).toMatchObject({ code: 'QA_LEAD', permissions: ['users.manage'], builtIn: false });
    const menu = await t.http().get(`/api/roles/${response.body.data.id}/menu-entries`).set(bearer(adminA)).expect(200);
    expect(menu.body.data).toEqual(['/users/Users']);
    const audit = await t.dataSource.getRepository(AuditLog).findOneByOrFail({ entityId: response.body.data.id, action: 'create' });
    expect(audit.after).toMatchObject({ code: 'QA_LEAD', menuPaths: ['/users/Users'] });
  });

  it('refuses unknown permissions, bad codes and missing names', async () => {
    const response = await add({ code: 'lower', permissions: ['root.all'] }).expect(400);
    expect(Object.keys(response.body.data.fields).sort()).toEqual(['code', 'name', 'permissions']);
    expect(response.body.data.fields.permissions).toEqual(['permissions has unknown values: root.all']);
  });

  it('enforces the permissions a role grants at once when it changes', async () => {
    const role = (await add({ code: 'HELPER', name: 'Helper', permissions: ['dashboard.view'] }).expect(200)).body.data;
    const helper = await createUser(t.dataSource, tenantA, { role: 'AGENT' });
    await t.dataSource.getRepository(Role).findOneByOrFail({ id: role.id });
    await t
      .http()
      .put(`/api/users/${helper.user.id}`)
      .set(bearer(adminA))
      .send({ name: 'Helper', email: helper.email, roleId: role.id })
      .expect(200);
    const session = await login(t, helper.email, helper.password);
    await t.http().get('/api/campaigns').set(bearer(session.accessToken)).expect(403);
    await t
      .http()
      .put(`/api/roles/${role.id}`)
      .set(bearer(adminA))
      .send({ code: 'HELPER', name: 'Helper', permissions: ['campaigns.manage'] })
      .expect(200);
    await t.http().get('/api/campaigns').set(bearer(session.accessToken)).expect(200);
    const audit = await t.dataSource.getRepository(AuditLog).findOneByOrFail({ entityId: role.id, action: 'update' });
    expect(audit.before).toMatchObject({ permissions: ['dashboard.view'] });
    expect(audit.after).toMatchObject({ permissions: ['campaigns.manage'] });
  });

  it('adds menu entries without duplicating the current ones', async () => {
    const role = (await add({ code: 'MENU_T', name: 'Menu', permissions: [], menuPaths: ['/users/Users'] }).expect(200)).body.data;
    const response = await t
      .http()
      .post(`/api/roles/${role.id}/menu`)
      .set(bearer(adminA))
      .send({ routePaths: ['/users/Users', '/role/roleMain'] })
      .expect(200);
    expect(response.body.data).toEqual(['/users/Users', '/role/roleMain']);
    await t
      .http()
      .post(`/api/roles/${role.id}/menu`)
      .set(bearer(adminA))
      .send({ routePaths: ['/no/such/route'] })
      .expect(400);
    expect(await t.dataSource.getRepository(RoleMenu).countBy({ roleId: role.id })).toBe(2);
  });

  it('refuses to delete built-in roles or roles given to users, and to lock the caller out', async () => {
    await t
      .http()
      .delete(`/api/roles/${tenantA.roles.get('AGENT')!.id}`)
      .set(bearer(adminA))
      .expect(409);
    const adminRole = tenantA.roles.get('ADMIN')!;
    await t
      .http()
      .put(`/api/roles/${adminRole.id}`)
      .set(bearer(adminA))
      .send({ code: 'ADMIN', name: 'Admin', permissions: ['users.manage'] })
      .expect(409);
    await t
      .http()
      .put(`/api/roles/${adminRole.id}`)
      .set(bearer(adminA))
      .send({ code: 'BOSS', name: 'Admin', permissions: [...adminRole.permissions] })
      .expect(409);
    const spare = (await add({ code: 'SPARE', name: 'Spare', permissions: [] }).expect(200)).body.data;
    await t.http().delete(`/api/roles/${spare.id}`).set(bearer(adminA)).expect(200);
    expect(await t.dataSource.getRepository(Role).countBy({ id: spare.id })).toBe(0);
  });

  it("answers 404 for another tenant's role and 403 for an agent", async () => {
    const other = tenantB.roles.get('AGENT')!;
    await t.http().put(`/api/roles/${other.id}`).set(bearer(adminA)).send({ code: 'AGENT', name: 'X', permissions: [] }).expect(404);
    await t.http().delete(`/api/roles/${other.id}`).set(bearer(adminA)).expect(404);
    await t
      .http()
      .post(`/api/roles/${other.id}/menu`)
      .set(bearer(adminA))
      .send({ routePaths: ['/users/Users'] })
      .expect(404);
    await t.http().post('/api/roles').set(bearer(agentA)).send({ code: 'X1', name: 'X', permissions: [] }).expect(403);
  });

  it('pages and searches roles on the server', async () => {
    const page = await t.http().get('/api/roles').query({ q: 'qa_', pageSize: 10 }).set(bearer(adminA)).expect(200);
    expect(page.body.data.items.map((role: { code: string }) => role.code)).toEqual(['QA_LEAD']);
  });
});
