import {
  validateUser,
  type AdminUserDetail,
  type InvitationSummary,
  type Page,
  type PagedQuery,
  type UserFormOptions,
  type UserInput,
  type UserSummary,
} from '@centralita/contracts';
import { Injectable } from '@nestjs/common';
import { InjectDataSource, InjectRepository } from '@nestjs/typeorm';
import type { DataSource, EntityManager, Repository } from 'typeorm';
import { AppException } from '../../common/app.exception';
import { AuditService } from '../admin/audit.service';
import { paginate } from '../admin/paginate';
import { assertRules, isUniqueViolation } from '../admin/rule-check';
import { hashPassword } from '../auth/password-hasher';
import { assertStrongPassword } from '../auth/password-policy';
import type { Principal } from '../auth/principal';
import { SessionsService } from '../auth/sessions.service';
import { assertCanGrantRole, canGrant, type GrantAction } from '../roles/grants';
import { InvitationsService } from '../invitations/invitations.service';
import { Role } from '../roles/role.entity';
import type { UpdateUserDto, UserInputDto } from './dto/users.dto';
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
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly audit: AuditService,
    private readonly invitations: InvitationsService,
  ) {}

  list(clientId: string, query: PagedQuery = {}): Promise<Page<UserSummary>> {
    const qb = this.users.createQueryBuilder('u').innerJoinAndSelect('u.role', 'role').where('u.client_id = :clientId', { clientId });
    return paginate(
      qb,
      query,
      {
        sortable: {
          name: 'u.name',
          email: 'u.email',
          roleCode: 'role.code',
          active: 'u.active',
          lastLoginAt: 'u.last_login_at',
          createdAt: 'u.created_at',
        },
        searchable: ['u.name', 'u.email', 'role.code'],
        defaultSort: { field: 'name', order: 'asc' },
        defaultPageSize: 50,
      },
      toUserSummary,
    );
  }

  async detail(clientId: string, id: string): Promise<AdminUserDetail> {
    return this.detailIn(this.dataSource.manager, clientId, await this.find(clientId, id));
  }

  /** `grantable` per role says whether the caller may give it (grants.ts); the console offers only those. */
  async formOptions(principal: Principal): Promise<UserFormOptions> {
    const clientId = principal.clientId;
    const q = (sql: string) => this.dataSource.query(sql, [clientId]);
    const roleRows = this.roles.find({ where: { clientId }, order: { name: 'ASC' }, select: { id: true, name: true, permissions: true } });
    const [roleList, attentionLines, campaigns, pauseReasons] = await Promise.all([
      roleRows,
      q(`SELECT id, name FROM attention_lines WHERE client_id = $1 ORDER BY name`),
      q(`SELECT id, name FROM campaigns WHERE client_id = $1 AND deleted_at IS NULL ORDER BY name`),
      q(`SELECT code, label FROM pause_reasons WHERE tenant_id = $1 ORDER BY position, label`),
    ]);
    const roles = roleList.map((role) => ({ id: role.id, name: role.name, grantable: canGrant(principal.permissions, role.permissions) }));
    return { roles, attentionLines, campaigns, pauseReasons };
  }

  /**
   * "Add user" invites: the new user chooses their own password from the mail. The answer is the
   * same whether the address is new or already has an account in another organisation (that
   * address gets a mail saying so, and no user is created); a user of the caller's own tenant
   * with that address still answers user_exists. The role must be one the caller may give.
   */
  async create(principal: Principal, body: UserInputDto): Promise<InvitationSummary> {
    if (body.password)
      throw new AppException('validation', {
        message: 'password cannot be set when adding a user: they choose it from the invitation mail',
        messageKey: 'userPasswordOnCreate',
        data: { fields: { password: ['password cannot be set when adding a user'] } },
      });
    const input = this.normalise(body);
    assertRules(validateUser(input, 'create'));
    await this.checkReferences(principal.clientId, input);
    await this.assertGrantable(principal, input.roleId);
    const prepared = await this.dataSource.transaction(async (manager) => {
      const invitation = await this.invitations.prepare(manager, {
        clientId: principal.clientId,
        email: input.email,
        name: input.name,
        roleId: input.roleId,
        invitedBy: principal.userId,
        attentionLineIds: input.attentionLineIds,
        campaignIds: input.campaignIds,
        pauseReasonCodes: input.pauseReasonCodes,
      });
      await this.audit.record(
        principal,
        { entityType: 'invitation', entityId: invitation.summary.id, action: 'create', before: null, after: invitation.summary },
        manager,
      );
      return invitation;
    });
    await this.invitations.send(prepared);
    return prepared.summary;
  }

  /** Full replacement from the edit screen; a new password or deactivation ends the user's sessions. */
  async replace(principal: Principal, id: string, body: UserInputDto): Promise<AdminUserDetail> {
    const current = await this.find(principal.clientId, id);
    const input = this.normalise({ ...body, email: body.email ?? current.email });
    assertRules(validateUser(input, 'update'));
    // Nobody manages (or sets the password of) a user more powerful than themselves; the reset flow stays open.
    this.assertCanManage(principal, current, input.password ? 'set-password' : 'manage-user');
    if (input.password) assertStrongPassword(input.password, { email: input.email, name: input.name });
    if (id === principal.userId && !input.active)
      throw new AppException('conflict', { message: 'You cannot deactivate your own account.', messageKey: 'cannotDeactivateSelf' });
    if (id === principal.userId && input.roleId !== current.roleId)
      throw new AppException('conflict', { message: 'You cannot change your own role.', messageKey: 'cannotChangeOwnRole' });
    await this.checkReferences(principal.clientId, input);
    if (input.roleId !== current.roleId) await this.assertGrantable(principal, input.roleId);
    const before = await this.detail(principal.clientId, id);
    const passwordHash = input.password ? await hashPassword(input.password) : null;
    const endSessions = passwordHash !== null || (current.active && !input.active);
    let families: string[] = [];
    try {
      const after = await this.dataSource.transaction(async (manager) => {
        await manager.update(
          User,
          { id, clientId: principal.clientId },
          {
            name: input.name,
            email: input.email,
            roleId: input.roleId,
            active: input.active,
            passwordExpiresAt: input.passwordExpiresAt ? new Date(input.passwordExpiresAt) : null,
            ...(passwordHash ? { passwordHash } : {}),
          },
        );
        await this.writeLinks(manager, principal.clientId, id, input);
        if (endSessions) families = await this.sessions.endAllSessionsIn(manager, id);
        const detail = await this.detailIn(
          manager,
          principal.clientId,
          await manager.findOneOrFail(User, { where: { id }, relations: { role: true } }),
        );
        await this.audit.record(
          principal,
          {
            entityType: 'user',
            entityId: id,
            action: 'update',
            before,
            after: passwordHash ? { ...detail, password: '(changed)' } : detail,
          },
          manager,
        );
        return detail;
      });
      await this.sessions.afterChange(id, families);
      return after;
    } catch (error) {
      if (isUniqueViolation(error, 'uq_users_email')) throw new AppException('user_exists');
      throw error;
    }
  }

  /** Users are never removed (conversations and the audit trail name them): deleting deactivates. */
  async remove(principal: Principal, id: string): Promise<{ deleted: true }> {
    if (id === principal.userId)
      throw new AppException('conflict', { message: 'You cannot deactivate your own account.', messageKey: 'cannotDeactivateSelf' });
    this.assertCanManage(principal, await this.find(principal.clientId, id));
    const before = await this.detail(principal.clientId, id);
    await this.sessions.endAllSessions(id, async (manager) => {
      await manager.update(User, { id, clientId: principal.clientId }, { active: false });
      await this.audit.record(
        principal,
        { entityType: 'user', entityId: id, action: 'delete', before, after: { ...before, active: false } },
        manager,
      );
    });
    return { deleted: true };
  }

  private normalise(body: UserInputDto): UserInput {
    return {
      name: body.name ?? '',
      email: body.email ?? '',
      roleId: body.roleId ?? '',
      password: body.password ?? '',
      passwordExpiresAt: body.passwordExpiresAt ? body.passwordExpiresAt.slice(0, 10) : null,
      active: body.active ?? true,
      attentionLineIds: [...new Set(body.attentionLineIds ?? [])],
      campaignIds: [...new Set(body.campaignIds ?? [])],
      pauseReasonCodes: [...new Set(body.pauseReasonCodes ?? [])],
    };
  }

  /** Role, lines, campaigns and pause reasons must all be the caller's tenant's: otherwise 404. */
  private async checkReferences(clientId: string, input: UserInput): Promise<void> {
    const count = async (sql: string, ids: string[]) =>
      ids.length ? Number((await this.dataSource.query(sql, [clientId, ids]))[0].count) : 0;
    const ok =
      (await this.roles.exists({ where: { id: input.roleId, clientId } })) &&
      (await count(`SELECT count(*) FROM attention_lines WHERE client_id = $1 AND id = ANY($2::uuid[])`, input.attentionLineIds)) ===
        input.attentionLineIds.length &&
      (await count(
        `SELECT count(*) FROM campaigns WHERE client_id = $1 AND deleted_at IS NULL AND id = ANY($2::uuid[])`,
        input.campaignIds,
      )) === input.campaignIds.length &&
      (await count(`SELECT count(*) FROM pause_reasons WHERE tenant_id = $1 AND code = ANY($2::text[])`, input.pauseReasonCodes)) ===
        input.pauseReasonCodes.length;
    if (!ok) throw AppException.notFound();
  }

  private async writeLinks(manager: EntityManager, clientId: string, userId: string, input: UserInput): Promise<void> {
    await manager.query(`DELETE FROM agent_attention_lines WHERE user_id = $1`, [userId]);
    await manager.query(`DELETE FROM agent_campaigns WHERE user_id = $1`, [userId]);
    await manager.query(`DELETE FROM user_pause_reasons WHERE user_id = $1`, [userId]);
    if (input.attentionLineIds.length)
      await manager.query(`INSERT INTO agent_attention_lines (user_id, attention_line_id, tenant_id) SELECT $1, unnest($2::uuid[]), $3`, [
        userId,
        input.attentionLineIds,
        clientId,
      ]);
    if (input.campaignIds.length)
      await manager.query(`INSERT INTO agent_campaigns (user_id, campaign_id, tenant_id) SELECT $1, unnest($2::uuid[]), $3`, [
        userId,
        input.campaignIds,
        clientId,
      ]);
    if (input.pauseReasonCodes.length)
      await manager.query(`INSERT INTO user_pause_reasons (user_id, pause_reason_code, tenant_id) SELECT $1, unnest($2::text[]), $3`, [
        userId,
        input.pauseReasonCodes,
        clientId,
      ]);
  }

  private async detailIn(manager: EntityManager, clientId: string, user: User): Promise<AdminUserDetail> {
    const ids = async (sql: string) => ((await manager.query(sql, [user.id, clientId])) as { v: string }[]).map((row) => row.v);
    return {
      id: user.id,
      email: user.email,
      name: user.name,
      roleId: user.roleId,
      roleCode: user.role?.code ?? '',
      active: user.active,
      passwordExpiresAt: user.passwordExpiresAt?.toISOString() ?? null,
      attentionLineIds: await ids(
        `SELECT attention_line_id AS v FROM agent_attention_lines WHERE user_id = $1 AND tenant_id = $2 ORDER BY 1`,
      ),
      campaignIds: await ids(`SELECT campaign_id AS v FROM agent_campaigns WHERE user_id = $1 AND tenant_id = $2 ORDER BY 1`),
      pauseReasonCodes: await ids(`SELECT pause_reason_code AS v FROM user_pause_reasons WHERE user_id = $1 AND tenant_id = $2 ORDER BY 1`),
      lastLoginAt: user.lastLoginAt?.toISOString() ?? null,
      createdAt: user.createdAt.toISOString(),
    };
  }

  async get(clientId: string, id: string): Promise<UserSummary> {
    return toUserSummary(await this.find(clientId, id));
  }

  async update(principal: Principal, id: string, changes: UpdateUserDto): Promise<UserSummary> {
    if (changes.name === undefined && changes.active === undefined && changes.roleId === undefined) {
      throw new AppException('validation', { message: 'Give at least one of name, active, roleId', messageKey: 'userNothingToChange' });
    }
    const user = await this.find(principal.clientId, id);
    this.assertCanManage(principal, user);
    if (id === principal.userId && changes.active === false)
      throw new AppException('conflict', { message: 'You cannot deactivate your own account.', messageKey: 'cannotDeactivateSelf' });
    if (id === principal.userId && changes.roleId !== undefined && changes.roleId !== user.roleId) {
      throw new AppException('conflict', { message: 'You cannot change your own role.', messageKey: 'cannotChangeOwnRole' });
    }
    if (changes.roleId !== undefined && changes.roleId !== user.roleId) await this.assertGrantable(principal, changes.roleId);

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

  /** You may not manage someone more powerful than you: the user's CURRENT role must be within the caller's permissions. */
  private assertCanManage(principal: Principal, user: User, action: GrantAction = 'manage-user'): void {
    if (!user.role) throw new Error('assertCanManage needs the role relation loaded'); // fail closed
    assertCanGrantRole(principal, user.role, action);
  }

  /** A role of the caller's tenant (else 404) whose permissions the caller all holds (else 403, grants.ts). */
  private async assertGrantable(principal: Principal, roleId: string, action: GrantAction = 'assign'): Promise<void> {
    const role = await this.roles.findOne({ where: { id: roleId, clientId: principal.clientId } });
    if (!role) throw AppException.notFound();
    assertCanGrantRole(principal, role, action);
  }

  private async find(clientId: string, id: string): Promise<User> {
    const user = await this.users.findOne({ where: { id, clientId }, relations: { role: true } });
    if (!user) throw AppException.notFound();
    return user;
  }
}
