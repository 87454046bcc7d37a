import type { MenuItem, RoleCodeOption, RoleSummary } from '@centralita/contracts';
import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import type { Repository } from 'typeorm';
import { AppException } from '../../common/app.exception';
import type { Principal } from '../auth/principal';
import { buildMenu } from './menu.builder';
import { RoleMenu } from './role-menu.entity';
import { Role } from './role.entity';

export function toRoleSummary(role: Role): RoleSummary {
  return { id: role.id, code: role.code, name: role.name, permissions: [...role.permissions], builtIn: role.builtIn };
}

/** Roles of the caller's tenant only: every query is scoped by the tenant id from the token. */
@Injectable()
export class RolesService {
  constructor(
    @InjectRepository(Role) private readonly roles: Repository<Role>,
    @InjectRepository(RoleMenu) private readonly roleMenus: Repository<RoleMenu>,
  ) {}

  async list(clientId: string): Promise<RoleSummary[]> {
    const roles = await this.roles.find({ where: { clientId }, order: { builtIn: 'DESC', code: 'ASC' } });
    return roles.map(toRoleSummary);
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
