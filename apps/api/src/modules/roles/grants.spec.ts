import { ALL_PERMISSIONS, PERMISSIONS } from '@centralita/contracts';
import { AppException } from '../../common/app.exception';
import { assertCanGrantPermissions, assertCanGrantRole, canGrant, grantRefusal, missingPermissions } from './grants';

const P = PERMISSIONS;
const usersManager = { permissions: [P.usersManage, P.dashboardView] };
const admin = { permissions: [...ALL_PERMISSIONS] };

function refusal(run: () => void): AppException {
  try {
    run();
  } catch (error) {
    if (error instanceof AppException) return error;
    throw error;
  }
  throw new Error('expected a refusal');
}

describe('grants never exceed the granter', () => {
  it('lists what the granter lacks, once each, in the order asked', () => {
    expect(missingPermissions([P.usersManage], [P.rolesManage, P.usersManage, P.auditView, P.rolesManage])).toEqual([
      P.rolesManage,
      P.auditView,
    ]);
    expect(missingPermissions([], [])).toEqual([]);
  });

  it('grants a subset of what the granter holds, the empty set included, and nothing more', () => {
    expect(canGrant(usersManager.permissions, [])).toBe(true);
    expect(canGrant(usersManager.permissions, [P.dashboardView])).toBe(true);
    expect(canGrant(usersManager.permissions, [P.usersManage, P.dashboardView])).toBe(true);
    expect(canGrant(usersManager.permissions, [P.usersManage, P.rolesManage])).toBe(false);
    expect(canGrant([], [P.dashboardView])).toBe(false);
    expect(canGrant(admin.permissions, ALL_PERMISSIONS)).toBe(true);
  });

  it('does not treat unknown strings or prototype names as held', () => {
    expect(canGrant(usersManager.permissions, ['constructor'])).toBe(false);
    expect(canGrant(usersManager.permissions, ['__proto__'])).toBe(false);
    expect(canGrant(usersManager.permissions, ['users.manage '])).toBe(false);
  });

  it('refuses permissions the caller lacks with a 403 that names them', () => {
    const error = refusal(() => assertCanGrantPermissions(usersManager, [P.usersManage, P.rolesManage, P.auditView]));
    expect(error.status).toBe(403);
    expect(error.code).toBe('forbidden');
    expect(error.message).toBe('You cannot grant permissions you do not hold: roles.manage, audit.view.');
    expect(error.data).toEqual({ reason: 'grant_exceeds_granter', action: 'grant', missingPermissions: [P.rolesManage, P.auditView] });
    expect(() => assertCanGrantPermissions(usersManager, [P.usersManage])).not.toThrow();
  });

  it('refuses a role holding more than the caller, worded per action and naming the role', () => {
    const adminRole = { code: 'ADMIN', permissions: [...ALL_PERMISSIONS] };
    const assign = refusal(() => assertCanGrantRole(usersManager, adminRole));
    expect(assign.status).toBe(403);
    expect(assign.message).toMatch(/^You cannot give the role ADMIN: it has permissions you do not hold: /);
    expect(assign.message).toContain(P.rolesManage);
    expect(assign.message).not.toContain(P.usersManage);
    expect(assign.data).toMatchObject({ action: 'assign', roleCode: 'ADMIN' });

    const supervisor = { code: 'SUPER', permissions: [P.dashboardView, P.reportsView] };
    expect(refusal(() => assertCanGrantRole(usersManager, supervisor, 'set-password')).message).toBe(
      'You cannot set the password of a user whose role (SUPER) has permissions you do not hold: reports.view. Send a password reset instead.',
    );
    expect(refusal(() => assertCanGrantRole(usersManager, supervisor, 'manage-user')).message).toBe(
      'You cannot change a user whose role (SUPER) has permissions you do not hold: reports.view.',
    );
    expect(refusal(() => assertCanGrantRole(usersManager, supervisor, 'edit-role')).message).toBe(
      'You cannot change the role SUPER: it has permissions you do not hold: reports.view.',
    );
    expect(refusal(() => assertCanGrantRole(usersManager, supervisor, 'delete-role')).message).toBe(
      'You cannot delete the role SUPER: it has permissions you do not hold: reports.view.',
    );
  });

  it('lets a caller give roles within their permissions, their own included', () => {
    expect(() => assertCanGrantRole(usersManager, { code: 'VIEWER', permissions: [P.dashboardView] })).not.toThrow();
    expect(() => assertCanGrantRole(usersManager, { permissions: [] })).not.toThrow();
    expect(() => assertCanGrantRole(admin, { code: 'ADMIN', permissions: [...ALL_PERMISSIONS] }, 'edit-role')).not.toThrow();
  });

  it('builds a refusal without a role code', () => {
    expect(grantRefusal([P.auditView], 'assign').message).toBe(
      'You cannot give that role: it has permissions you do not hold: audit.view.',
    );
  });
});
