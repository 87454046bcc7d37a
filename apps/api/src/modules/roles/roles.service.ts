import {
  ALL_PERMISSIONS,
  APP_ROUTES,
  PERMISSIONS,
  validateRole,
  type MenuItem,
  type Page,
  type PagedQuery,
  type RoleCodeOption,
  type RoleInput,
  type RoleSummary,
} from '@centralita/contracts';
import { Injectable } from '@nestjs/common';
import { InjectDataSource, InjectRepository } from '@nestjs/typeorm';
import type { DataSource, EntityManager, Repository } from 'typeorm';
import { AppException } from '../../common/app.exception';
import { AuditService } from '../admin/audit.service';
import { paginate } from '../admin/paginate';
import { assertRules, isUniqueViolation } from '../admin/rule-check';
import type { Principal } from '../auth/principal';
import { PrincipalCacheService } from '../auth/principal-cache.service';
import { User } from '../users/user.entity';
import { assertCanGrantPermissions, assertCanGrantRole } from './grants';
import { buildMenu } from './menu.builder';
import { RoleMenu } from './role-menu.entity';
import { Role } from './role.entity';

const ROUTE_PATHS = APP_ROUTES.map((route) => route.path);

/** The permissions the given routes need (a menu entry is inert without them, but is still only the editor's to give). */
function routePermissions(paths: readonly string[]): string[] {
  const wanted = new Set(paths);
  return APP_ROUTES.filter((route) => wanted.has(route.path) && route.permission !== null).map((route) => route.permission as string);
}

export function toRoleSummary(role: Role): RoleSummary {
  return { id: role.id, code: role.code, name: role.name, permissions: [...role.permissions], builtIn: role.builtIn };
}

/** Roles of the caller's tenant only: every query is scoped by the tenant id from the token. */
@Injectable()
export class RolesService {
  constructor(
    @InjectRepository(Role) private readonly roles: Repository<Role>,
    @InjectRepository(RoleMenu) private readonly roleMenus: Repository<RoleMenu>,
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly audit: AuditService,
    private readonly principals: PrincipalCacheService,
  ) {}

  list(clientId: string, query: PagedQuery = {}): Promise<Page<RoleSummary>> {
    const qb = this.roles.createQueryBuilder('r').where('r.client_id = :clientId', { clientId });
    return paginate(
      qb,
      query,
      {
        sortable: { code: 'r.code', name: 'r.name', builtIn: 'r.built_in' },
        searchable: ['r.code', 'r.name'],
        defaultSort: { field: 'code', order: 'asc' },
        defaultPageSize: 50,
      },
      toRoleSummary,
    );
  }

  /** Grants never exceed the granter: every permission (and menu route) given must be the caller's own. */
  async create(principal: Principal, body: Partial<RoleInput>): Promise<RoleSummary> {
    const input = this.checked(body);
    assertCanGrantPermissions(principal, [...input.permissions, ...routePermissions(input.menuPaths)]);
    try {
      return await this.dataSource.transaction(async (manager) => {
        const role = await manager
          .getRepository(Role)
          .save(
            manager
              .getRepository(Role)
              .create({ clientId: principal.clientId, code: input.code, name: input.name, permissions: input.permissions }),
          );
        await this.writeMenu(manager, principal.clientId, role.id, input.menuPaths);
        const after = await this.snapshot(manager, role);
        await this.audit.record(principal, { entityType: 'role', entityId: role.id, action: 'create', before: null, after }, manager);
        return toRoleSummary(role);
      });
    } catch (error) {
      throw this.conflict(error);
    }
  }

  /** Replaces a role; its users get the new permissions on their next request (principal cache refreshed). */
  async update(principal: Principal, id: string, body: Partial<RoleInput>): Promise<RoleSummary> {
    const current = await this.find(principal.clientId, id);
    // A role holding permissions the caller lacks is not theirs to reshape (or strip).
    assertCanGrantRole(principal, current, 'edit-role');
    const input = this.checked(body);
    const curated = new Set((await this.curated(principal.clientId, id)).map((row) => row.routePath));
    assertCanGrantPermissions(principal, [...input.permissions, ...routePermissions(input.menuPaths.filter((path) => !curated.has(path)))]);
    if (current.builtIn && input.code !== current.code)
      throw new AppException('conflict', {
        message: 'The code of a built-in role cannot change.',
        messageKey: 'builtInRoleCode',
        data: { fields: { code: ['the code of a built-in role cannot change'] } },
      });
    if (id === principal.roleId && !input.permissions.includes(PERMISSIONS.rolesManage)) {
      throw new AppException('conflict', { message: 'You cannot remove roles.manage from your own role.', messageKey: 'ownRolesManage' });
    }
    let saved: Role;
    try {
      saved = await this.dataSource.transaction(async (manager) => {
        const before = await this.snapshot(manager, current);
        await manager.update(
          Role,
          { id, clientId: principal.clientId },
          { code: input.code, name: input.name, permissions: input.permissions },
        );
        await this.writeMenu(manager, principal.clientId, id, input.menuPaths);
        const role = await manager.findOneByOrFail(Role, { id });
        await this.audit.record(
          principal,
          { entityType: 'role', entityId: id, action: 'update', before, after: await this.snapshot(manager, role) },
          manager,
        );
        return role;
      });
    } catch (error) {
      throw this.conflict(error);
    }
    await this.refreshUsersOf(id);
    return toRoleSummary(saved);
  }

  /** Built-in roles and roles still given to users cannot be deleted. */
  async remove(principal: Principal, id: string): Promise<{ deleted: true }> {
    const role = await this.find(principal.clientId, id);
    assertCanGrantRole(principal, role, 'delete-role');
    if (role.builtIn) throw new AppException('conflict', { message: 'Built-in roles cannot be deleted.', messageKey: 'builtInRoleDelete' });
    if (await this.dataSource.getRepository(User).exists({ where: { roleId: id, clientId: principal.clientId } })) {
      throw new AppException('conflict', { message: 'The role is still given to users.', messageKey: 'roleInUse' });
    }
    await this.dataSource.transaction(async (manager) => {
      const before = await this.snapshot(manager, role);
      await manager.delete(Role, { id, clientId: principal.clientId });
      await this.audit.record(principal, { entityType: 'role', entityId: id, action: 'delete', before, after: null }, manager);
    });
    return { deleted: true };
  }

  /** The curated menu entries of a role, in order (empty: every route its permissions open). */
  async menuPaths(clientId: string, id: string): Promise<string[]> {
    await this.find(clientId, id);
    return (await this.curated(clientId, id)).map((row) => row.routePath);
  }

  /** Adds menu entries to a role (after its current ones); entries never grant permissions. */
  async addMenuEntries(principal: Principal, id: string, paths: string[]): Promise<string[]> {
    const role = await this.find(principal.clientId, id);
    assertCanGrantRole(principal, role, 'edit-role');
    const current = (await this.curated(principal.clientId, id)).map((row) => row.routePath);
    assertCanGrantPermissions(principal, routePermissions(paths.filter((path) => !current.includes(path))));
    const next = [...current, ...paths.filter((path) => !current.includes(path))];
    assertRules(
      validateRole({ code: role.code, name: role.name, permissions: role.permissions, menuPaths: next }, ALL_PERMISSIONS, ROUTE_PATHS),
    );
    await this.dataSource.transaction(async (manager) => {
      await this.writeMenu(manager, principal.clientId, id, next);
      await this.audit.record(
        principal,
        { entityType: 'role', entityId: id, action: 'update', before: { menuPaths: current }, after: { menuPaths: next } },
        manager,
      );
    });
    return next;
  }

  private checked(body: Partial<RoleInput>): RoleInput {
    const input: RoleInput = {
      code: (body.code ?? '').trim(),
      name: (body.name ?? '').trim(),
      permissions: [...new Set(body.permissions ?? [])],
      menuPaths: [...new Set(body.menuPaths ?? [])],
    };
    assertRules(validateRole(input, ALL_PERMISSIONS, ROUTE_PATHS));
    return input;
  }

  private async writeMenu(manager: EntityManager, clientId: string, roleId: string, paths: string[]): Promise<void> {
    await manager.delete(RoleMenu, { roleId, clientId });
    if (paths.length) {
      await manager.insert(
        RoleMenu,
        paths.map((routePath, index) => ({ clientId, roleId, routePath, position: index + 1 })),
      );
    }
  }

  private async snapshot(manager: EntityManager, role: Role): Promise<RoleSummary & { menuPaths: string[] }> {
    const menu = await manager.find(RoleMenu, { where: { roleId: role.id }, order: { position: 'ASC' } });
    return { ...toRoleSummary(role), menuPaths: menu.map((row) => row.routePath) };
  }

  private async refreshUsersOf(roleId: string): Promise<void> {
    const users = await this.dataSource.getRepository(User).find({ where: { roleId }, select: { id: true } });
    for (const user of users) await this.principals.refresh(user.id);
  }

  private conflict(error: unknown): unknown {
    return isUniqueViolation(error, 'uq_roles_client_code')
      ? new AppException('conflict', {
          message: 'code is already used by another role',
          messageKey: 'roleCodeTaken',
          data: { fields: { code: ['code is already used by another role'] } },
        })
      : error;
  }

  async get(clientId: string, id: string): Promise<RoleSummary> {
    return toRoleSummary(await this.find(clientId, id));
  }

  async codes(clientId: string): Promise<RoleCodeOption[]> {
    const roles = await this.roles.find({ where: { clientId }, order: { code: 'ASC' }, select: { id: true, code: true, name: true } });
    return roles.map(({ id, code, name }) => ({ id, code, name }));
  }

  async menuForRole(clientId: string, id: string): Promise<MenuItem[]> {
    const role = await this.find(clientId, id);
    return buildMenu(role.permissions, await this.curated(clientId, role.id));
  }

  /** The caller's menu, from the permissions the guard resolved for this request. */
  async menuFor(principal: Principal): Promise<MenuItem[]> {
    return buildMenu(principal.permissions, await this.curated(principal.clientId, principal.roleId));
  }

  private async find(clientId: string, id: string): Promise<Role> {
    const role = await this.roles.findOne({ where: { id, clientId } });
    if (!role) throw AppException.notFound();
    return role;
  }

  private curated(clientId: string, roleId: string): Promise<RoleMenu[]> {
    return this.roleMenus.find({ where: { clientId, roleId }, order: { position: 'ASC' } });
  }
}
