import {
  INVITATION_TTL_DAYS,
  type AuthResult,
  type FirstAdminState,
  type InvitationCheck,
  type InvitationSummary,
  type MailJob,
  type RoleCode,
} from '@centralita/contracts';
import { Inject, Injectable, Logger } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, IsNull, MoreThan, type EntityManager } from 'typeorm';
import { AppException } from '../../common/app.exception';
import { APP_CONFIG, type AppConfig } from '../../config/app-config';
import { isUniqueViolation } from '../admin/rule-check';
import { AuthService } from '../auth/auth.service';
import { hashPassword } from '../auth/password-hasher';
import { assertStrongPassword } from '../auth/password-policy';
import type { Principal } from '../auth/principal';
import { randomToken, sha256 } from '../auth/refresh-token.service';
import type { ClientMeta } from '../auth/refresh-token.service';
import { MailQueueService } from '../mail/mail-queue.service';
import { renderExistingAccountMail, renderInvitationMail } from '../mail/invitation.mail';
import { RateLimiterService } from '../rate-limit/rate-limiter.service';
import { assertCanGrantRole } from '../roles/grants';
import { Role } from '../roles/role.entity';
import { Client } from '../tenancy/client.entity';
import { User } from '../users/user.entity';
import { UserInvitation } from './user-invitation.entity';

export interface InviteInput {
  clientId: string;
  email: string;
  name: string;
  roleId: string;
  invitedBy: string | null;
  attentionLineIds?: string[];
  campaignIds?: string[];
  pauseReasonCodes?: string[];
}

/** A prepared invitation: the row is written in the caller's transaction, the mail is queued after commit. */
export interface PreparedInvitation {
  summary: InvitationSummary;
  mail: MailJob;
}

const DAY_MS = 24 * 3600 * 1000;

export function toInvitationSummary(row: UserInvitation, roleName: string): InvitationSummary {
  return {
    id: row.id,
    email: row.email,
    name: row.name,
    roleId: row.roleId,
    roleName,
    expiresAt: row.expiresAt.toISOString(),
    createdAt: row.createdAt.toISOString(),
  };
}

/**
 * Invitations: the one way an account is created for someone else (a tenant's first administrator,
 * a reseller's, a user added by an administrator). The answer and the pending list look the same
 * whether or not the address already has an account elsewhere; only the mail to that address
 * differs. Tokens: 256 random bits, stored as SHA-256, single use, INVITATION_TTL_DAYS days,
 * replaced on every re-send; checking and accepting are rate-limited per IP like password resets.
 */
@Injectable()
export class InvitationsService {
  private readonly logger = new Logger(InvitationsService.name);

  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly mail: MailQueueService,
    private readonly rateLimiter: RateLimiterService,
    private readonly auth: AuthService,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  /**
   * Writes the invitation in `manager`'s transaction. An address that is already a user of this
   * same organisation answers user_exists (the administrator can see their own users anyway), one
   * with a pending invitation here answers conflict; an account elsewhere is never revealed.
   */
  async prepare(manager: EntityManager, input: InviteInput): Promise<PreparedInvitation> {
    const email = input.email.trim().toLowerCase();
    const existing = await manager.findOne(User, { where: { email }, select: { id: true, clientId: true } });
    if (existing?.clientId === input.clientId) throw new AppException('user_exists');
    const pending = await manager.exists(UserInvitation, {
      where: { clientId: input.clientId, email, acceptedAt: IsNull(), revokedAt: IsNull() },
    });
    if (pending) throw this.pendingConflict();
    const token = randomToken();
    let row: UserInvitation;
    try {
      row = await manager.getRepository(UserInvitation).save(
        manager.getRepository(UserInvitation).create({
          clientId: input.clientId,
          email,
          name: input.name.trim(),
          roleId: input.roleId,
          attentionLineIds: input.attentionLineIds ?? [],
          campaignIds: input.campaignIds ?? [],
          pauseReasonCodes: input.pauseReasonCodes ?? [],
          tokenHash: sha256(token),
          existingAccount: existing !== null,
          expiresAt: new Date(Date.now() + INVITATION_TTL_DAYS * DAY_MS),
          invitedBy: input.invitedBy,
        }),
      );
    } catch (error) {
      if (isUniqueViolation(error, 'uq_user_invitations_pending_email')) throw this.pendingConflict();
      throw error;
    }
    const [role, organisation] = await Promise.all([
      manager.findOneByOrFail(Role, { id: row.roleId }),
      manager.findOneByOrFail(Client, { id: row.clientId }),
    ]);
    return { summary: toInvitationSummary(row, role.name), mail: this.mailFor(row, organisation.name, token) };
  }

  /** Queues the invitation mail (after the transaction that wrote the invitation committed). */
  async send(prepared: PreparedInvitation): Promise<void> {
    await this.mail.enqueue(prepared.mail);
    this.logger.log(`invitation ${prepared.summary.id} mailed`);
  }

  /** Pending (not accepted, not revoked) invitations of the caller's organisation, newest first. */
  async listPending(principal: Principal): Promise<InvitationSummary[]> {
    const rows = await this.dataSource.getRepository(UserInvitation).find({
      where: { clientId: principal.clientId, acceptedAt: IsNull(), revokedAt: IsNull() },
      relations: { role: true },
      order: { createdAt: 'DESC' },
      take: 200,
    });
    return rows.map((row) => toInvitationSummary(row, row.role?.name ?? ''));
  }

  /** A new token and a new expiry replace the old ones (the old link stops working), and the mail goes again. */
  async resend(principal: Principal, id: string): Promise<InvitationSummary> {
    const row = await this.findPending({ id, clientId: principal.clientId });
    assertCanGrantRole(principal, row.role!, 'assign');
    return this.renew(row);
  }

  async revoke(principal: Principal, id: string): Promise<{ revoked: true }> {
    const row = await this.findPending({ id, clientId: principal.clientId });
    assertCanGrantRole(principal, row.role!, 'assign');
    return this.markRevoked(row);
  }

  /**
   * The first administrator of an organisation managed from the level above it (a reseller's
   * tenant, a reseller's staff for the platform): active holders of its built-in first-admin role
   * and the pending invitations to that role. The caller has already checked that `clientId` is in
   * its scope; the role is found by code inside that organisation only.
   */
  async firstAdminState(clientId: string, roleCode: RoleCode): Promise<FirstAdminState> {
    const [rows, [counted]] = await Promise.all([
      this.dataSource.getRepository(UserInvitation).find({
        where: { clientId, acceptedAt: IsNull(), revokedAt: IsNull(), role: { code: roleCode, builtIn: true } },
        relations: { role: true },
        order: { createdAt: 'DESC' },
        take: 50,
      }),
      this.dataSource.query<{ count: string }[]>(
        `SELECT count(*) AS count FROM users u JOIN roles r ON r.id = u.role_id
         WHERE u.client_id = $1 AND u.active AND r.client_id = $1 AND r.code = $2 AND r.built_in`,
        [clientId, roleCode],
      ),
    ]);
    return { activeAdmins: Number(counted.count), invitations: rows.map((row) => toInvitationSummary(row, row.role?.name ?? '')) };
  }

  /** Re-sends a first-admin invitation of an organisation in the caller's scope (another one answers 404). */
  async resendFirstAdmin(clientId: string, roleCode: RoleCode, id: string): Promise<InvitationSummary> {
    return this.renew(await this.findPending({ id, clientId, roleCode }));
  }

  async revokeFirstAdmin(clientId: string, roleCode: RoleCode, id: string): Promise<{ revoked: true }> {
    return this.markRevoked(await this.findPending({ id, clientId, roleCode }));
  }

  /** Invites a (further) first administrator: the role is the organisation's own built-in one, looked up here. */
  async inviteFirstAdmin(
    clientId: string,
    roleCode: RoleCode,
    invitee: { email: string; name: string },
    invitedBy: string,
  ): Promise<InvitationSummary> {
    const prepared = await this.dataSource.transaction(async (manager) => {
      const role = await manager.findOne(Role, { where: { clientId, code: roleCode, builtIn: true } });
      if (!role) throw AppException.notFound();
      return this.prepare(manager, { clientId, email: invitee.email, name: invitee.name, roleId: role.id, invitedBy });
    });
    await this.send(prepared);
    return prepared.summary;
  }

  private async renew(row: UserInvitation): Promise<InvitationSummary> {
    const token = randomToken();
    const existing = await this.dataSource.manager.exists(User, { where: { email: row.email } });
    const expiresAt = new Date(Date.now() + INVITATION_TTL_DAYS * DAY_MS);
    const updated = await this.dataSource.manager.update(
      UserInvitation,
      { id: row.id, acceptedAt: IsNull(), revokedAt: IsNull() },
      { tokenHash: sha256(token), expiresAt, existingAccount: existing },
    );
    // Accepted or revoked since it was read: nothing to re-send.
    if (!updated.affected) throw AppException.notFound();
    Object.assign(row, { expiresAt, existingAccount: existing });
    const organisation = await this.dataSource.manager.findOneByOrFail(Client, { id: row.clientId });
    const prepared = { summary: toInvitationSummary(row, row.role!.name), mail: this.mailFor(row, organisation.name, token) };
    await this.send(prepared);
    return prepared.summary;
  }

  private async markRevoked(row: UserInvitation): Promise<{ revoked: true }> {
    await this.dataSource.manager.update(UserInvitation, { id: row.id, revokedAt: IsNull() }, { revokedAt: new Date() });
    return { revoked: true };
  }

  /** What the accept page shows; any unusable token (unknown, used, revoked, expired) answers invitation_invalid. */
  async check(token: string, ip: string | null): Promise<InvitationCheck> {
    await this.rateLimiter.consume('invitation-ip', ip ?? 'unknown', this.config.rateLimits.resetPerIp);
    const row = await this.usable(this.dataSource.manager, token);
    const organisation = await this.dataSource.manager.findOneByOrFail(Client, { id: row.clientId });
    return { valid: true, email: row.email, name: row.name, organisationName: organisation.name, expiresAt: row.expiresAt.toISOString() };
  }

  /**
   * Creates the user with the chosen password (the shared password policy applies) and signs them
   * in. The token is claimed with a conditional UPDATE, so two accepts of one link create one user.
   */
  async accept(token: string, password: string, meta: ClientMeta): Promise<AuthResult> {
    await this.rateLimiter.consume('invitation-ip', meta.ip ?? 'unknown', this.config.rateLimits.resetPerIp);
    const found = await this.usable(this.dataSource.manager, token);
    assertStrongPassword(password, { email: found.email, name: found.name });
    const passwordHash = await hashPassword(password);
    let userId: string;
    try {
      userId = await this.dataSource.transaction(async (manager) => {
        const claimed = await manager
          .createQueryBuilder()
          .update(UserInvitation)
          .set({ acceptedAt: () => 'now()' })
          .where('token_hash = :hash AND accepted_at IS NULL AND revoked_at IS NULL AND existing_account = false AND expires_at > now()', {
            hash: sha256(token),
          })
          .returning(['id'])
          .execute();
        if (!(claimed.raw as { id: string }[]).length) throw new AppException('invitation_invalid');
        const inserted = await manager.insert(User, {
          clientId: found.clientId,
          roleId: found.roleId,
          email: found.email,
          name: found.name,
          passwordHash,
        });
        const id = (inserted.identifiers[0] as { id: string }).id;
        await this.linkServed(manager, found, id);
        return id;
      });
    } catch (error) {
      // The address got an account (another invitation, a registration) since this one was sent.
      if (isUniqueViolation(error, 'uq_users_email')) throw new AppException('invitation_invalid');
      throw error;
    }
    this.logger.log(`invitation ${found.id} accepted by user ${userId}`);
    return this.auth.signInAs(userId, meta);
  }

  private async usable(manager: EntityManager, token: string): Promise<UserInvitation> {
    const row = await manager.findOne(UserInvitation, {
      where: {
        tokenHash: sha256(token),
        acceptedAt: IsNull(),
        revokedAt: IsNull(),
        existingAccount: false,
        expiresAt: MoreThan(new Date()),
      },
    });
    if (!row) throw new AppException('invitation_invalid');
    return row;
  }

  /** Lines, campaigns and pause reasons chosen at invitation time that still exist in the organisation. */
  private async linkServed(manager: EntityManager, row: UserInvitation, userId: string): Promise<void> {
    const params = [userId, row.clientId];
    if (row.attentionLineIds.length)
      await manager.query(
        `INSERT INTO agent_attention_lines (user_id, attention_line_id, tenant_id)
         SELECT $1, l.id, $2 FROM attention_lines l WHERE l.client_id = $2 AND l.id = ANY($3::uuid[])`,
        [...params, row.attentionLineIds],
      );
    if (row.campaignIds.length)
      await manager.query(
        `INSERT INTO agent_campaigns (user_id, campaign_id, tenant_id)
         SELECT $1, c.id, $2 FROM campaigns c WHERE c.client_id = $2 AND c.deleted_at IS NULL AND c.id = ANY($3::uuid[])`,
        [...params, row.campaignIds],
      );
    if (row.pauseReasonCodes.length)
      await manager.query(
        `INSERT INTO user_pause_reasons (user_id, pause_reason_code, tenant_id)
         SELECT $1, p.code, $2 FROM pause_reasons p WHERE p.tenant_id = $2 AND p.code = ANY($3::text[])`,
        [...params, row.pauseReasonCodes],
      );
  }

  /** A pending invitation of one organisation (optionally to one built-in role); anything else answers 404. */
  private async findPending(scope: { id: string; clientId: string; roleCode?: RoleCode }): Promise<UserInvitation> {
    const row = await this.dataSource.getRepository(UserInvitation).findOne({
      where: {
        id: scope.id,
        clientId: scope.clientId,
        acceptedAt: IsNull(),
        revokedAt: IsNull(),
        ...(scope.roleCode ? { role: { code: scope.roleCode, builtIn: true } } : {}),
      },
      relations: { role: true },
    });
    if (!row?.role) throw AppException.notFound();
    return row;
  }

  /**
   * Neither kind of mail names the inviting organisation as its owner (clientId null): the dev
   * mailbox would otherwise show the inviter which addresses got "already has an account" instead
   * of a link (and hand them the invitee's link).
   */
  private mailFor(row: UserInvitation, organisation: string, token: string): MailJob {
    const mail = row.existingAccount
      ? renderExistingAccountMail({ to: row.email, name: row.name, organisation, signInLink: `${this.config.publicUrl}/session/signin` })
      : renderInvitationMail({
          to: row.email,
          name: row.name,
          organisation,
          link: `${this.config.publicUrl}/session/invitation/${token}`,
          validDays: INVITATION_TTL_DAYS,
        });
    return { ...mail, clientId: null };
  }

  private pendingConflict(): AppException {
    return new AppException('conflict', {
      message: 'An invitation to this address is already pending: re-send it from the list.',
      messageKey: 'invitationPending',
      data: { fields: { email: ['an invitation to this address is already pending'] } },
    });
  }
}
