import { CATALOGUE_MESSAGES, PERMISSIONS, REFRESH_TOKEN_HEADER, type MenuItem } from '@centralita/contracts';
import { PrincipalCacheService } from '../src/modules/auth/principal-cache.service';
import { Role } from '../src/modules/roles/role.entity';
import { RoleMenu } from '../src/modules/roles/role-menu.entity';
import { User } from '../src/modules/users/user.entity';
import { createTenant, createUser, type TestTenant } from './support/factories';
import { bearer, login, startTestApp, type TestApp } from './support/test-app';

describe('Tenancy, users and roles (e2e)', () => {
  let t: TestApp;
  let tenantA: TestTenant;
  let tenantB: TestTenant;
  let adminA: string;
  let agentA: string;
  let userB: User;

  beforeAll(async () => {
    t = await startTestApp();
    tenantA = await createTenant(t.dataSource);
    tenantB = await createTenant(t.dataSource);
    const a = await createUser(t.dataSource, tenantA, { role: 'ADMIN' });
    const agent = await createUser(t.dataSource, tenantA, { role: 'AGENT' });
    userB = (await createUser(t.dataSource, tenantB, { role: 'AGENT' })).user;
    adminA = (await login(t, a.email, a.password)).accessToken;
    agentA = (await login(t, agent.email, agent.password)).accessToken;
  });
  afterAll(() => t.close());

  describe('users', () => {
    it("GET /api/users lists only the caller's tenant", async () => {
      const response = await t.http().get('/api/users').set(bearer(adminA)).expect(200);
      const { items, total, page, pageSize } = response.body.data;
      expect({ total, page, pageSize }).toEqual({ total: 2, page: 1, pageSize: 50 });
      expect(items.map((user: { roleCode: string }) => user.roleCode).sort()).toEqual(['ADMIN', 'AGENT']);
      expect(items.some((user: { id: string }) => user.id === userB.id)).toBe(false);
    });

    it('pages and names bad paging parameters', async () => {
      const page = await t.http().get('/api/users').query({ page: 2, pageSize: 1 }).set(bearer(adminA)).expect(200);
      expect(page.body.data.items).toHaveLength(1);
      const bad = await t.http().get('/api/users').query({ pageSize: 1000 }).set(bearer(adminA)).expect(400);
      expect(bad.body.errorMessage).toBe('pageSize must not be greater than 200');
    });

    it("answers 404 for another tenant's user, and cannot patch it", async () => {
      const get = await t.http().get(`/api/users/${userB.id}`).set(bearer(adminA)).expect(404);
      expect(get.body).toEqual({ statusCode: 404, data: null, errorMessage: CATALOGUE_MESSAGES[404], errorCode: 'not_found' });
      await t.http().patch(`/api/users/${userB.id}`).set(bearer(adminA)).send({ active: false, name: 'Hijacked' }).expect(404);
      const untouched = await t.dataSource.getRepository(User).findOneByOrFail({ id: userB.id });
      expect(untouched).toMatchObject({ active: true, name: userB.name });
    });

    it("cannot give a user another tenant's role", async () => {
      const target = await createUser(t.dataSource, tenantA);
      await t
        .http()
        .patch(`/api/users/${target.user.id}`)
        .set(bearer(adminA))
        .send({ roleId: tenantB.roles.get('ADMIN')!.id })
        .expect(404);
      expect((await t.dataSource.getRepository(User).findOneByOrFail({ id: target.user.id })).roleId).toBe(tenantA.roles.get('AGENT')!.id);
    });

    it('PATCH changes name and role, and the new permissions apply at once', async () => {
      const target = await createUser(t.dataSource, tenantA);
      const session = await login(t, target.email, target.password);
      await t.http().get('/api/users').set(bearer(session.accessToken)).expect(403);
      const response = await t
        .http()
        .patch(`/api/users/${target.user.id}`)
        .set(bearer(adminA))
        .send({ name: '  Promoted  ', roleId: tenantA.roles.get('ADMIN')!.id })
        .expect(200);
      expect(response.body.data).toMatchObject({ name: 'Promoted', roleCode: 'ADMIN', active: true });
      await t.http().get('/api/users').set(bearer(session.accessToken)).expect(200);
    });

    it('deactivating a user kills their refresh and access tokens at once', async () => {
      const target = await createUser(t.dataSource, tenantA);
      const session = await login(t, target.email, target.password);
      await t.http().get('/api/auth/profile').set(bearer(session.accessToken)).expect(200);

      await t.http().patch(`/api/users/${target.user.id}`).set(bearer(adminA)).send({ active: false }).expect(200);

      const access = await t.http().get('/api/auth/profile').set(bearer(session.accessToken)).expect(401);
      expect(access.body.errorCode).toBe('account_disabled');
      await t.http().get('/Session/RefreshToken').set(REFRESH_TOKEN_HEADER, session.refreshToken).expect(401);
      await t.http().post('/api/auth/login').send({ email: target.email, password: target.password }).expect(401);

      // Reactivation does not revive the old session: its tokens were revoked, not suspended.
      await t.http().patch(`/api/users/${target.user.id}`).set(bearer(adminA)).send({ active: true }).expect(200);
      await t.http().get('/api/auth/profile').set(bearer(session.accessToken)).expect(401);
      await t.http().get('/Session/RefreshToken').set(REFRESH_TOKEN_HEADER, session.refreshToken).expect(401);
      await login(t, target.email, target.password);
    });

    it('an admin cannot deactivate themselves', async () => {
      const self = await t.http().get('/api/auth/profile').set(bearer(adminA)).expect(200);
      const response = await t.http().patch(`/api/users/${self.body.data.id}`).set(bearer(adminA)).send({ active: false }).expect(409);
      expect(response.body.errorCode).toBe('conflict');
    });

    it('names unknown fields and refuses an empty change', async () => {
      const target = await createUser(t.dataSource, tenantA);
      const extra = await t
        .http()
        .patch(`/api/users/${target.user.id}`)
        .set(bearer(adminA))
        .send({ clientId: tenantB.client.id })
        .expect(400);
      expect(extra.body.errorMessage).toBe('property clientId should not exist');
      const wrongType = await t.http().patch(`/api/users/${target.user.id}`).set(bearer(adminA)).send({ active: 'no' }).expect(400);
      expect(wrongType.body.errorMessage).toBe('active must be a boolean value');
      await t.http().patch(`/api/users/${target.user.id}`).set(bearer(adminA)).send({}).expect(400);
      const badId = await t.http().get('/api/users/not-a-uuid').set(bearer(adminA)).expect(400);
      expect(badId.body.errorMessage).toBe('id must be a UUID');
      expect((await t.dataSource.getRepository(User).findOneByOrFail({ id: target.user.id })).clientId).toBe(tenantA.client.id);
    });
  });

  describe('permissions', () => {
    it('a role without users.manage gets 403 forbidden', async () => {
      for (const path of ['/api/users', `/api/users/${userB.id}`, '/api/roles', '/api/roles/codes']) {
        const response = await t.http().get(path).set(bearer(agentA)).expect(403);
        expect(response.body).toMatchObject({ statusCode: 403, data: null, errorCode: 'forbidden' });
      }
      await t.http().patch(`/api/users/${userB.id}`).set(bearer(agentA)).send({ active: false }).expect(403);
    });

    it('permissions come from the role at request time, not from the token', async () => {
      const tenant = await createTenant(t.dataSource);
      const admin = await createUser(t.dataSource, tenant, { role: 'ADMIN' });
      const session = await login(t, admin.email, admin.password);
      await t.http().get('/api/roles').set(bearer(session.accessToken)).expect(200);
      const role = tenant.roles.get('ADMIN')!;
      await t.dataSource
        .getRepository(Role)
        .update({ id: role.id }, { permissions: role.permissions.filter((p) => p !== PERMISSIONS.rolesManage) });
      // The guard caches user state briefly; a role edit refreshes its users (as the roles admin will).
      await t.app.get(PrincipalCacheService).refresh(admin.user.id);
      await t.http().get('/api/roles').set(bearer(session.accessToken)).expect(403);
    });
  });

  describe('roles and menus', () => {
    it("GET /api/roles lists the tenant's own role copies", async () => {
      const response = await t.http().get('/api/roles').set(bearer(adminA)).expect(200);
      expect(response.body.data.items.map((role: { code: string }) => role.code)).toEqual(['ADMIN', 'AGENT', 'SUPER']);
      expect(response.body.data.items.map((role: { id: string }) => role.id)).not.toContain(tenantB.roles.get('ADMIN')!.id);
    });

    it('GET /api/roles/codes and /api/roles/:id', async () => {
      const codes = await t.http().get('/api/roles/codes').set(bearer(adminA)).expect(200);
      expect(codes.body.data).toEqual(
        ['ADMIN', 'AGENT', 'SUPER'].map((code) => ({ id: tenantA.roles.get(code)!.id, code, name: tenantA.roles.get(code)!.name })),
      );
      const one = await t
        .http()
        .get(`/api/roles/${tenantA.roles.get('SUPER')!.id}`)
        .set(bearer(adminA))
        .expect(200);
      expect(one.body.data).toMatchObject({ code: 'SUPER', builtIn: true, permissions: expect.arrayContaining(['dashboard.supervise']) });
    });

    it("answers 404 for another tenant's role and its menu", async () => {
      await t
        .http()
        .get(`/api/roles/${tenantB.roles.get('ADMIN')!.id}`)
        .set(bearer(adminA))
        .expect(404);
      await t
        .http()
        .get(`/api/roles/${tenantB.roles.get('ADMIN')!.id}/menu`)
        .set(bearer(adminA))
        .expect(404);
    });

    it("GET /api/menu builds the caller's menu from their permissions", async () => {
      const agentMenu: MenuItem[] = (await t.http().get('/api/menu').set(bearer(agentA)).expect(200)).body.data;
      const adminMenu: MenuItem[] = (await t.http().get('/api/menu').set(bearer(adminA)).expect(200)).body.data;
      const paths = (menu: MenuItem[]): string[] =>
        menu.flatMap((item) => (item.type === 'link' ? [item.path] : item.type === 'group' ? paths(item.children) : []));
      expect(agentMenu[0]).toEqual({ type: 'label', key: 'main' });
      expect(paths(agentMenu)).toContain('/conversations/agentConversations');
      // The desk has one entry (issue 24 item 9): its duplicate routes stay reachable by URL only.
      expect(paths(agentMenu)).not.toContain('/dashboard/DashboardAgente');
      expect(paths(agentMenu)).not.toContain('/users/Users');
      expect(adminMenu.filter((item) => item.type === 'label').map((item) => item.key)).toEqual(['main', 'administration', 'outbound']);
      expect(paths(adminMenu)).toEqual(expect.arrayContaining(['/users/Users', '/role/roleMain', '/SoftPhoneNew/Phone']));
    });

    it('GET /api/roles/:id/menu follows RoleMenu curation without granting routes', async () => {
      const tenant = await createTenant(t.dataSource);
      const admin = await createUser(t.dataSource, tenant, { role: 'ADMIN' });
      const token = (await login(t, admin.email, admin.password)).accessToken;
      const agentRole = tenant.roles.get('AGENT')!;
      await t.dataSource.getRepository(RoleMenu).insert([
        // A duplicate of the desk's entry: out of every menu, curated or not (issue 24 item 9).
        { clientId: tenant.client.id, roleId: agentRole.id, routePath: '/dashboard/DashboardAgente', position: 1 },
        { clientId: tenant.client.id, roleId: agentRole.id, routePath: '/conversations/agentConversations', position: 2 },
        // Not granted by the role: curation never grants a route.
        { clientId: tenant.client.id, roleId: agentRole.id, routePath: '/users/Users', position: 3 },
      ]);
      const menu = (await t.http().get(`/api/roles/${agentRole.id}/menu`).set(bearer(token)).expect(200)).body.data;
      expect(menu).toEqual([
        { type: 'label', key: 'main' },
        { type: 'link', key: 'myConversations', path: '/conversations/agentConversations', icon: 'pi pi-inbox' },
      ]);
    });
  });
});
