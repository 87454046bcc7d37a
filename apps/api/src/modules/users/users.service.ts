import type { Page, UserSummary } from '@centralita/contracts';
import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import type { Repository } from 'typeorm';
import { AppException } from '../../common/app.exception';
import type { Principal } from '../auth/principal';
import { SessionsService } from '../auth/sessions.service';
import { Role } from '../roles/role.entity';
import type { UpdateUserDto } from './dto/users.dto';
import { User } from './user.entity';

export function toUserSummary(user: User): UserSummary {
  return {
    id: user.id,
    email: user.email,
    name: user.name,
    avatar: user.avatarUrl,
    roleId: user.roleId,
    roleCode: user.role?.code ?? '',
    active: user.active,
    sessionTime: user.sessionTimeMinutes,
    passwordExpiresAt: user.passwordExpiresAt?.toISOString() ?? null,
    lastLoginAt: user.lastLoginAt?.toISOString() ?? null,
    createdAt: user.createdAt.toISOString(),
  };
}

/** Users of the caller's tenant only: the tenant id always comes from the token. */
@Injectable()
export class UsersService {
  constructor(
    @InjectRepository(User) private readonly users: Repository<User>,
    @InjectRepository(Role) private readonly roles: Repository<Role>,
    private readonly sessions: SessionsService,
  ) {}

  async list(clientId: string, page = 1, pageSize = 50): Promise<Page<UserSummary>> {
    const [users, total] = await this.users.findAndCount({
      where: { clientId },
      relations: { role: true },
      order: { name: 'ASC', id: 'ASC' },
      skip: (page - 1) * pageSize,
      take: pageSize,
    });
    return { items: users.map(toUserSummary), total, page, pageSize };
  }

  async get(clientId: string, id: string): Promise<UserSummary> {
    return toUserSummary(await this.find(clientId, id));
  }

  async update(principal: Principal, id: string, changes: UpdateUserDto): Promise<UserSummary> {
    if (changes.name === undefined && changes.active === undefined && changes.roleId === undefined) {
      throw new AppException('validation', { message: 'Give at least one of name, active, roleId' });
    }
    const user = await this.find(principal.clientId, id);
    if (id === principal.userId && changes.active === false)
      throw new AppException('conflict', { message: 'You cannot deactivate your own account.' });
    if (id === principal.userId && changes.roleId !== undefined && changes.roleId !== user.roleId) {
      throw new AppException('conflict', { message: 'You cannot change your own role.' });
    }
    if (changes.roleId !== undefined && !(await this.roles.exists({ where: { id: changes.roleId, clientId: principal.clientId } }))) {
      throw AppException.notFound();
    }

    const patch: Partial<User> = {};
    if (changes.name !== undefined) patch.name = changes.name;
    if (changes.active !== undefined) patch.active = changes.active;
    if (changes.roleId !== undefined) patch.roleId = changes.roleId;

    if (changes.active === false && user.active) {
      // Deactivation ends every session in the same transaction.
      await this.sessions.endAllSessions(user.id, (manager) => manager.update(User, { id: user.id, clientId: principal.clientId }, patch));
    } else {
      await this.users.update({ id: user.id, clientId: principal.clientId }, patch);
      await this.sessions.afterChange(user.id);
    }
    return this.get(principal.clientId, id);
  }

  private async find(clientId: string, id: string): Promise<User> {
    const user = await this.users.findOne({ where: { id, clientId }, relations: { role: true } });
    if (!user) throw AppException.notFound();
    return user;
  }
}
