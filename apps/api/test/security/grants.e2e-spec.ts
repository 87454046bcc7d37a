import { ALL_PERMISSIONS, PERMISSIONS, type Permission } from '@centralita/contracts';
import { randomBytes } from 'node:crypto';
import { eventually } from '../../../../test/support/eventually';
import { AuditLog } from '../../src/modules/admin/audit-log.entity';
import { UserInvitation } from '../../src/modules/invitations/user-invitation.entity';
import { RoleMenu } from '../../src/modules/roles/role-menu.entity';
import { Role } from '../../src/modules/roles/role.entity';
import { User } from '../../src/modules/users/user.entity';
import { createTenant, createUser, type TestTenant } from '../support/factories';
import { bearer, login, startTestApp, uniqueEmail, type TestApp } from '../support/test-app';

// Class: grants never exceed the granter (issue 17 item 2). A caller may give, reshape or act on
// only what it holds itself: roles for users, permissions for roles, passwords of users within it.
jest.setTimeout(60_000);

const P = PERMISSIONS;

describe('Security: grants never exceed the granter (e2e)', () => {
  let t: TestApp;
  let tenant: TestTenant;
  let other: TestTenant;
  /** users.manage + dashboard.view only. */
  let usersManager: { token: string; userId: string };
  /** roles.manage only. */
  let rolesManager: { token: string; userId: string; roleId: string };
  let lite: Role;

  const role = (code: string) => tenant.roles.get(code)!;
  const strongPassword = () => `Granted-${randomBytes(9).toString('base64url')}-passphrase`;

  async function addRole(target: TestTenant, code: string, permissions: Permission[]): Promise<Role> {
    const repository = t.dataSource.getRepository(Role);
    const saved = await repository.save(repository.create({ clientId: target.client.id, code, name: code, permissions, builtIn: false }));
    target.roles.set(code, saved);
    return saved;
  }

  async function signIn(code: string): Promise<{ token: string; userId: string; email: string; password: string }> {
    const created = await createUser(t.dataSource, tenant, { role: code });
    return { token: (await login(t, created.email, created.password)).accessToken, userId: created.user.id, ...created };
  }

  const auditRowsBy = (userId: string) => t.dataSource.getRepository(AuditLog).countBy({ actorUserId: userId });

  /** A refusal of this class: 403 in the error envelope, naming the permission(s) the caller lacks. */
  function expectGrantRefusal(response: { status: number; body: Record<string, unknown> }, lacking: string[]): void {
    expect(response.status).toBe(403);
    expect(response.body).toMatchObject({ statusCode: 403, errorCode: 'forbidden' });
    const data = response.body.data as { reason: string; missingPermissions: string[] };
    expect(data.reason).toBe('grant_exceeds_granter');
    for (const permission of lacking) {
      expect(data.missingPermissions).toContain(permission);
      expect(response.body.errorMessage).toContain(permission);
    }
  }

  beforeAll(async () => {
    t = await startTestApp();
    tenant = await createTenant(t.dataSource);
    other = await createTenant(t.dataSource);
    await addRole(tenant, 'USERS_MGR', [P.usersManage, P.dashboardView]);
    const rolesRole = await addRole(tenant, 'ROLES_MGR', [P.rolesManage]);
    lite = await addRole(tenant, 'LITE', [P.dashboardView]);
    const u = await signIn('USERS_MGR');
    usersManager = { token: u.token, userId: u.userId };
    const r = await signIn('ROLES_MGR');
    rolesManager = { token: r.token, userId: r.userId, roleId: rolesRole.id };
  });
  afterAll(() => t.close());

  describe('users.manage without the target role’s permissions', () => {
    it('cannot add (invite) an ADMIN: 403 naming what it lacks, no user, no invitation, no audit row', async () => {
      const email = uniqueEmail('escalate');
      const audits = await auditRowsBy(usersManager.userId);
      const response = await t
        .http()
        .post('/api/users')
        .set(bearer(usersManager.token))
        .send({ name: 'Escalated', email, roleId: role('ADMIN').id });
      expectGrantRefusal(response, [P.rolesManage, P.auditView]);
      expect(response.body.errorMessage).toMatch(/ADMIN/);
      expect(response.body.data.missingPermissions).not.toContain(P.usersManage);
      expect(await t.dataSource.getRepository(User).existsBy({ email })).toBe(false);
      expect(await t.dataSource.getRepository(UserInvitation).existsBy({ email })).toBe(false);
      expect(await auditRowsBy(usersManager.userId)).toBe(audits);
      // A role within its permissions it may give.
      const allowed = await t
        .http()
        .post('/api/users')
        .set(bearer(usersManager.token))
        .send({ name: 'Viewer', email: uniqueEmail('viewer'), roleId: lite.id })
        .expect(200);
      expect(allowed.body.data.roleId).toBe(lite.id);
    });

    it('cannot give an existing user ADMIN or SUPER by PUT or PATCH', async () => {
      const target = await createUser(t.dataSource, tenant, { role: 'LITE' });
      const audits = await auditRowsBy(usersManager.userId);
      const put = await t
        .http()
        .put(`/api/users/${target.user.id}`)
        .set(bearer(usersManager.token))
        .send({ name: 'Target', email: target.email, roleId: role('ADMIN').id });
      expectGrantRefusal(put, [P.rolesManage]);
      const patch = await t
        .http()
        .patch(`/api/users/${target.user.id}`)
        .set(bearer(usersManager.token))
        .send({ roleId: role('SUPER').id });
      expectGrantRefusal(patch, [P.reportsView]);
      const stored = await t.dataSource.getRepository(User).findOneByOrFail({ id: target.user.id });
      expect(stored.roleId).toBe(lite.id);
      expect(stored.name).toBe(target.user.name);
      expect(await auditRowsBy(usersManager.userId)).toBe(audits);
      // Another tenant's role is still 404, and a role within its permissions (its own) is still given.
      await t
        .http()
        .patch(`/api/users/${target.user.id}`)
        .set(bearer(usersManager.token))
        .send({ roleId: other.roles.get('AGENT')!.id })
        .expect(404);
      await t
        .http()
        .patch(`/api/users/${target.user.id}`)
        .set(bearer(usersManager.token))
        .send({ roleId: role('USERS_MGR').id })
        .expect(200);
    });

    it("cannot set a SUPER's password (the reset flow stays the way), but sets a LITE user's, which ends their sessions", async () => {
      const supervisor = await createUser(t.dataSource, tenant, { role: 'SUPER' });
      const before = await t.dataSource.getRepository(User).findOneByOrFail({ id: supervisor.user.id });
      const response = await t
        .http()
        .put(`/api/users/${supervisor.user.id}`)
        .set(bearer(usersManager.token))
        .send({ name: supervisor.user.name, email: supervisor.email, roleId: role('SUPER').id, password: strongPassword() });
      expectGrantRefusal(response, [P.reportsView, P.dashboardSupervise]);
      expect(response.body.errorMessage).toMatch(/password reset/);
      const after = await t.dataSource.getRepository(User).findOneByOrFail({ id: supervisor.user.id });
      expect(after.passwordHash).toBe(before.passwordHash);
      await login(t, supervisor.email, supervisor.password);

      const peer = await createUser(t.dataSource, tenant, { role: 'LITE' });
      const peerSession = await login(t, peer.email, peer.password);
      await t.http().get('/api/menu').set(bearer(peerSession.accessToken)).expect(200);
      const password = strongPassword();
      await t
        .http()
        .put(`/api/users/${peer.user.id}`)
        .set(bearer(usersManager.token))
        .send({ name: 'Peer', email: peer.email, roleId: lite.id, password })
        .expect(200);
      await eventually(async () => expect((await t.http().get('/api/menu').set(bearer(peerSession.accessToken))).status).toBe(401));
      await login(t, peer.email, password);
    });

    it('cannot edit, deactivate or delete a user more powerful than itself', async () => {
      const admin = await createUser(t.dataSource, tenant, { role: 'ADMIN' });
      const audits = await auditRowsBy(usersManager.userId);
      expectGrantRefusal(await t.http().patch(`/api/users/${admin.user.id}`).set(bearer(usersManager.token)).send({ active: false }), [
        P.rolesManage,
      ]);
      expectGrantRefusal(await t.http().patch(`/api/users/${admin.user.id}`).set(bearer(usersManager.token)).send({ name: 'Renamed' }), [
        P.rolesManage,
      ]);
      expectGrantRefusal(await t.http().delete(`/api/users/${admin.user.id}`).set(bearer(usersManager.token)), [P.rolesManage]);
      expectGrantRefusal(
        await t
          .http()
          .put(`/api/users/${admin.user.id}`)
          .set(bearer(usersManager.token))
          .send({ name: 'Renamed', email: admin.email, roleId: role('ADMIN').id, active: false }),
        [P.rolesManage],
      );
      const stored = await t.dataSource.getRepository(User).findOneByOrFail({ id: admin.user.id });
      expect(stored).toMatchObject({ active: true, name: admin.user.name });
      expect(await auditRowsBy(usersManager.userId)).toBe(audits);
      await login(t, admin.email, admin.password);
      // A user within its permissions it may deactivate.
      const viewer = await createUser(t.dataSource, tenant, { role: 'LITE' });
      await t.http().delete(`/api/users/${viewer.user.id}`).set(bearer(usersManager.token)).expect(200);
    });

    it("marks in the form options which roles the caller may give (the console's only source)", async () => {
      const response = await t.http().get('/api/users/form-options').set(bearer(usersManager.token)).expect(200);
      const grantable = Object.fromEntries(
        (response.body.data.roles as { name: string; grantable: boolean }[]).map((option) => [option.name, option.grantable]),
      );
      expect(grantable).toMatchObject({ LITE: true, USERS_MGR: true, ROLES_MGR: false });
      const names = new Map([...tenant.roles.values()].map((r) => [r.id, r.name]));
      expect(grantable[names.get(role('ADMIN').id)!]).toBe(false);
      expect(grantable[names.get(role('SUPER').id)!]).toBe(false);
    });
  });

  describe('roles.manage without the permissions it hands out', () => {
    it('cannot grant its own role any permission it lacks', async () => {
      const audits = await auditRowsBy(rolesManager.userId);
      for (const permissions of [[...ALL_PERMISSIONS], [P.rolesManage, P.usersManage]]) {
        const response = await t
          .http()
          .put(`/api/roles/${rolesManager.roleId}`)
          .set(bearer(rolesManager.token))
          .send({ code: 'ROLES_MGR', name: 'ROLES_MGR', permissions });
        expectGrantRefusal(response, [P.usersManage]);
      }
      expect((await t.dataSource.getRepository(Role).findOneByOrFail({ id: rolesManager.roleId })).permissions).toEqual([P.rolesManage]);
      await t.http().get('/api/users').set(bearer(rolesManager.token)).expect(403);
      expect(await auditRowsBy(rolesManager.userId)).toBe(audits);
    });

    it('cannot create a role with permissions, or menu entries, it lacks', async () => {
      const refused = await t
        .http()
        .post('/api/roles')
        .set(bearer(rolesManager.token))
        .send({ code: 'SHADOW', name: 'Shadow', permissions: [P.rolesManage, P.auditView, P.settingsManage] });
      expectGrantRefusal(refused, [P.auditView, P.settingsManage]);
      expect(refused.body.data.missingPermissions).not.toContain(P.rolesManage);
      const menu = await t
        .http()
        .post('/api/roles')
        .set(bearer(rolesManager.token))
        .send({ code: 'SHADOW', name: 'Shadow', permissions: [], menuPaths: ['/users/Users'] });
      expectGrantRefusal(menu, [P.usersManage]);
      expect(await t.dataSource.getRepository(Role).existsBy({ clientId: tenant.client.id, code: 'SHADOW' })).toBe(false);
      // Within its permissions it may.
      await t
        .http()
        .post('/api/roles')
        .set(bearer(rolesManager.token))
        .send({ code: 'ROLE_CLERK', name: 'Clerk', permissions: [P.rolesManage], menuPaths: ['/role/roleMain'] })
        .expect(200);
    });

    it('cannot grant another role a permission it lacks', async () => {
      const empty = await addRole(tenant, 'EMPTY_ROLE', []);
      const response = await t
        .http()
        .put(`/api/roles/${empty.id}`)
        .set(bearer(rolesManager.token))
        .send({ code: 'EMPTY_ROLE', name: 'Empty', permissions: [P.auditView] });
      expectGrantRefusal(response, [P.auditView]);
      expectGrantRefusal(
        await t
          .http()
          .post(`/api/roles/${empty.id}/menu`)
          .set(bearer(rolesManager.token))
          .send({ routePaths: ['/users/Users'] }),
        [P.usersManage],
      );
      expect((await t.dataSource.getRepository(Role).findOneByOrFail({ id: empty.id })).permissions).toEqual([]);
      expect(await t.dataSource.getRepository(RoleMenu).countBy({ roleId: empty.id })).toBe(0);
      await t
        .http()
        .put(`/api/roles/${empty.id}`)
        .set(bearer(rolesManager.token))
        .send({ code: 'EMPTY_ROLE', name: 'Still empty', permissions: [P.rolesManage] })
        .expect(200);
    });

    it('cannot edit, strip, add menu entries to or delete ADMIN or any role holding more than it', async () => {
      const admin = role('ADMIN');
      const audits = await auditRowsBy(rolesManager.userId);
      expectGrantRefusal(
        await t
          .http()
          .put(`/api/roles/${admin.id}`)
          .set(bearer(rolesManager.token))
          .send({ code: 'ADMIN', name: 'Admin', permissions: [] }),
        [P.usersManage],
      );
      expectGrantRefusal(
        await t
          .http()
          .post(`/api/roles/${admin.id}/menu`)
          .set(bearer(rolesManager.token))
          .send({ routePaths: ['/role/roleMain'] }),
        [P.usersManage],
      );
      expectGrantRefusal(await t.http().delete(`/api/roles/${admin.id}`).set(bearer(rolesManager.token)), [P.usersManage]);
      const big = await addRole(tenant, 'BIG_UNUSED', [P.auditView, P.rolesManage]);
      expectGrantRefusal(await t.http().delete(`/api/roles/${big.id}`).set(bearer(rolesManager.token)), [P.auditView]);
      expectGrantRefusal(
        await t
          .http()
          .put(`/api/roles/${big.id}`)
          .set(bearer(rolesManager.token))
          .send({ code: 'BIG_UNUSED', name: 'Big', permissions: [P.rolesManage] }),
        [P.auditView],
      );
      const stored = await t.dataSource.getRepository(Role).findOneByOrFail({ id: admin.id });
      expect([...stored.permissions].sort()).toEqual([...admin.permissions].sort());
      expect(await t.dataSource.getRepository(RoleMenu).countBy({ roleId: admin.id })).toBe(0);
      expect((await t.dataSource.getRepository(Role).findOneByOrFail({ id: big.id })).permissions).toEqual([P.auditView, P.rolesManage]);
      expect(await auditRowsBy(rolesManager.userId)).toBe(audits);
    });
  });
});
