import {
  normalizeOrigins,
  validateClient,
  validateInvitee,
  type ClientInput,
  type ClientSummary,
  type CreateClientRequest,
  type CreateClientResult,
  type CreateResellerRequest,
  type FirstAdminInvite,
  type FirstAdminState,
  type InvitationSummary,
  type Page,
  type PagedQuery,
  type ResellerSummary,
  type RoleCode,
} from '@centralita/contracts';
import { OutgoingAddressPolicy } from '@centralita/contracts/server';
import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource, SelectQueryBuilder } from 'typeorm';
import { AppException } from '../../common/app.exception';
import { AuditService } from '../admin/audit.service';
import { paginate } from '../admin/paginate';
import { assertRules, isUniqueViolation } from '../admin/rule-check';
import type { Principal } from '../auth/principal';
import { InvitationsService, type PreparedInvitation } from '../invitations/invitations.service';
import { FIRST_ADMIN_ROLE } from '../roles/built-in-roles';
import { ensureReseller, ensureResellerStaff, provisionClient } from '../tenancy/client-provisioning';
import { Client } from '../tenancy/client.entity';
import { Reseller } from '../tenancy/reseller.entity';

/** Whose first administrator: a customer tenant, or a reseller (its staff organisation). */
export interface FirstAdminOwner {
  kind: 'client' | 'reseller';
  id: string;
}

interface ManagedOrganisation {
  clientId: string;
  roleCode: RoleCode;
  entityType: 'client' | 'reseller';
  entityId: string;
}

export function toClientSummary(c: Client): ClientSummary {
  return {
    id: c.id,
    name: c.name,
    resellerId: c.resellerId ?? '',
    resellerName: c.reseller?.name ?? '',
    bannerUrl: c.bannerUrl,
    loginImageUrl: c.loginImageUrl,
    mainColor: c.mainColor,
    menuLogoUrl: c.menuLogoUrl,
    completeMenuLogoUrl: c.completeMenuLogoUrl,
    subscriptionPlan: c.subscriptionPlan,
    allowedOrigins: c.allowedOrigins,
    createdAt: c.createdAt.toISOString(),
  };
}

const blank = (v: string | null | undefined) => (v && v.trim() ? v.trim() : null);
const NAME_TAKEN = 'name is already used by another customer';
const RESELLER_NAME_TAKEN = 'name is already used by another reseller';

/**
 * Customers (tenants) and resellers, scoped by the caller's level (never by anything in the request):
 *
 * - platform operator: every reseller and every tenant; creates resellers and tenants;
 * - reseller staff: the tenants of their own reseller; renames only their own reseller;
 * - tenant administrator: their own tenant only, and only its branding and allowed origins.
 *
 * Anything outside the scope answers 404, like another tenant's row anywhere else. Staff
 * organisations (kind 'reseller' / 'platform') are never listed or reachable as customers.
 */
@Injectable()
export class ClientsService {
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly audit: AuditService,
    private readonly invitations: InvitationsService,
    private readonly outgoing: OutgoingAddressPolicy,
  ) {}

  async list(principal: Principal, query: PagedQuery): Promise<Page<ClientSummary>> {
    return paginate(
      this.scoped(principal),
      query,
      {
        sortable: { name: 'c.name', subscriptionPlan: 'c.subscription_plan', createdAt: 'c.created_at', resellerName: 'r.name' },
        searchable: ['c.name', 'c.subscription_plan', 'r.name'],
        defaultSort: { field: 'name', order: 'asc' },
      },
      toClientSummary,
    );
  }

  async get(principal: Principal, id: string): Promise<ClientSummary> {
    return toClientSummary(await this.find(principal, id));
  }

  /**
   * A new tenant with its copies of the built-in roles and an invitation for its first
   * administrator, in one transaction; the invitation mail is queued once it has committed.
   */
  async create(principal: Principal, body: Partial<CreateClientRequest>): Promise<CreateClientResult> {
    const resellerId = await this.targetReseller(principal, body.resellerId);
    const input = this.checked(body);
    const invitee = { adminEmail: (body.adminEmail ?? '').trim().toLowerCase(), adminName: (body.adminName ?? '').trim() };
    assertRules(validateInvitee(invitee));
    if (await this.dataSource.getRepository(Client).exists({ where: { resellerId, name: input.name } })) {
      throw new AppException('conflict', {
        message: NAME_TAKEN,
        messageKey: 'customerNameTaken',
        data: { fields: { name: [NAME_TAKEN] } },
      });
    }
    let invitation: PreparedInvitation;
    let created: ClientSummary;
    try {
      created = await this.dataSource.transaction(async (manager) => {
        const { name, subscriptionPlan, allowedOrigins, ...branding } = input;
        const { client, roles } = await provisionClient(manager, { resellerId, name, subscriptionPlan, branding });
        if (allowedOrigins.length) {
          await manager.update(Client, { id: client.id }, { allowedOrigins });
          client.allowedOrigins = allowedOrigins;
        }
        client.reseller = await manager.findOneByOrFail(Reseller, { id: resellerId });
        invitation = await this.invitations.prepare(manager, {
          clientId: client.id,
          email: invitee.adminEmail,
          name: invitee.adminName,
          roleId: roles.get(FIRST_ADMIN_ROLE.tenant)!.id,
          invitedBy: principal.userId,
        });
        const after = toClientSummary(client);
        await this.audit.record(
          principal,
          {
            entityType: 'client',
            entityId: client.id,
            action: 'create',
            before: null,
            after: { ...after, firstAdmin: invitee.adminEmail },
          },
          manager,
        );
        return after;
      });
    } catch (error) {
      if (isUniqueViolation(error, 'uq_clients_reseller_name'))
        throw new AppException('conflict', {
          message: NAME_TAKEN,
          messageKey: 'customerNameTaken',
          data: { fields: { name: [NAME_TAKEN] } },
        });
      throw error;
    }
    await this.invitations.send(invitation!);
    return { ...created, invitation: invitation!.summary };
  }

  /**
   * Reseller staff and the platform replace everything; a tenant administrator may change its own
   * branding and allowed origins only (name and plan are its reseller's to set).
   */
  async update(principal: Principal, id: string, body: Partial<ClientInput>): Promise<ClientSummary> {
    const current = await this.find(principal, id);
    const input = this.checked(
      principal.level === 'tenant'
        ? {
            ...body,
            name: body.name ?? current.name,
            subscriptionPlan: body.subscriptionPlan === undefined ? current.subscriptionPlan : body.subscriptionPlan,
          }
        : body,
    );
    if (principal.level === 'tenant' && (input.name !== current.name || input.subscriptionPlan !== current.subscriptionPlan)) {
      throw new AppException('forbidden', {
        message: 'The name and the subscription plan of your organisation are set by your reseller.',
        messageKey: 'organisationSetByReseller',
      });
    }
    try {
      return await this.dataSource.transaction(async (manager) => {
        const before = toClientSummary(current);
        await manager.update(Client, { id, kind: 'tenant' }, input);
        const after = toClientSummary(await manager.findOneOrFail(Client, { where: { id }, relations: { reseller: true } }));
        await this.audit.record(principal, { entityType: 'client', entityId: id, action: 'update', before, after }, manager);
        return after;
      });
    } catch (error) {
      if (isUniqueViolation(error))
        throw new AppException('conflict', {
          message: NAME_TAKEN,
          messageKey: 'customerNameTaken',
          data: { fields: { name: [NAME_TAKEN] } },
        });
      throw error;
    }
  }

  /**
   * The tenant's first administrator, as its reseller's staff and the platform see it: who holds the
   * built-in ADMIN role and the pending invitations to it (expired ones too, so they can be re-sent).
   * Only the level above manages these: a tenant administrator (its own tenant included) gets 404
   * here and uses its own invitations list.
   */
  async firstAdmin(principal: Principal, owner: FirstAdminOwner): Promise<FirstAdminState> {
    const target = await this.managed(principal, owner);
    return this.invitations.firstAdminState(target.clientId, target.roleCode);
  }

  async resendFirstAdmin(principal: Principal, owner: FirstAdminOwner, invitationId: string): Promise<InvitationSummary> {
    const target = await this.managed(principal, owner);
    const summary = await this.invitations.resendFirstAdmin(target.clientId, target.roleCode, invitationId);
    await this.auditInvitation(principal, target, 'resent', summary);
    return summary;
  }

  async revokeFirstAdmin(principal: Principal, owner: FirstAdminOwner, invitationId: string): Promise<{ revoked: true }> {
    const target = await this.managed(principal, owner);
    const result = await this.invitations.revokeFirstAdmin(target.clientId, target.roleCode, invitationId);
    await this.auditInvitation(principal, target, 'revoked', { id: invitationId });
    return result;
  }

  /** Invites another first administrator (the first address was wrong, or its invitation was revoked). */
  async inviteFirstAdmin(principal: Principal, owner: FirstAdminOwner, body: Partial<FirstAdminInvite>): Promise<InvitationSummary> {
    const target = await this.managed(principal, owner);
    const invitee = { adminEmail: (body.adminEmail ?? '').trim().toLowerCase(), adminName: (body.adminName ?? '').trim() };
    assertRules(validateInvitee(invitee));
    const summary = await this.invitations.inviteFirstAdmin(
      target.clientId,
      target.roleCode,
      { email: invitee.adminEmail, name: invitee.adminName },
      principal.userId,
    );
    await this.auditInvitation(principal, target, 'invited', summary);
    return summary;
  }

  /** In the audit trail of the tenant or reseller as an update naming what happened to which invitation. */
  private async auditInvitation(
    principal: Principal,
    target: ManagedOrganisation,
    event: 'invited' | 'resent' | 'revoked',
    invitation: Partial<InvitationSummary> & { id: string },
  ): Promise<void> {
    await this.audit.record(principal, {
      entityType: target.entityType,
      entityId: target.entityId,
      action: 'update',
      before: null,
      after: { firstAdminInvitation: { id: invitation.id, event, ...(invitation.email ? { email: invitation.email } : {}) } },
    });
  }

  /**
   * The organisation whose first administrator the caller manages from the level above: a tenant
   * (reseller staff's own tenants, any tenant for the platform) or a reseller's staff organisation
   * (the platform only; reseller staff invite their colleagues from their own users screen).
   * Anything else answers 404.
   */
  private async managed(principal: Principal, owner: FirstAdminOwner): Promise<ManagedOrganisation> {
    if (principal.level === 'tenant') throw AppException.notFound();
    if (owner.kind === 'client') {
      const client = await this.find(principal, owner.id);
      return { clientId: client.id, roleCode: FIRST_ADMIN_ROLE.tenant, entityType: 'client', entityId: client.id };
    }
    if (principal.level !== 'platform') throw AppException.notFound();
    const staff = await this.dataSource.getRepository(Client).findOne({ where: { resellerId: owner.id, kind: 'reseller' } });
    if (!staff) throw AppException.notFound();
    return { clientId: staff.id, roleCode: FIRST_ADMIN_ROLE.reseller, entityType: 'reseller', entityId: owner.id };
  }

  /** The caller's own reseller: reseller staff only (a tenant administrator and the platform get 404). */
  async currentReseller(principal: Principal): Promise<ResellerSummary> {
    if (principal.level !== 'reseller' || !principal.resellerId) throw AppException.notFound();
    return this.reseller(principal, principal.resellerId);
  }

  async renameCurrentReseller(principal: Principal, name: string): Promise<ResellerSummary> {
    if (principal.level !== 'reseller' || !principal.resellerId) throw AppException.notFound();
    return this.renameReseller(principal, principal.resellerId, name);
  }

  /** Resellers in the caller's scope: all of them for the platform, their own for reseller staff. */
  async resellers(principal: Principal, query: PagedQuery): Promise<Page<ResellerSummary>> {
    const qb = this.dataSource.getRepository(Reseller).createQueryBuilder('r');
    this.scopeResellers(principal, qb);
    const page = await paginate(
      qb,
      query,
      { sortable: { name: 'r.name', createdAt: 'r.created_at' }, searchable: ['r.name'], defaultSort: { field: 'name', order: 'asc' } },
      toResellerSummary,
    );
    const counts = await this.tenantCounts(page.items.map((item) => item.id));
    return { ...page, items: page.items.map((item) => ({ ...item, tenantCount: counts.get(item.id) ?? 0 })) };
  }

  private async tenantCounts(resellerIds: string[]): Promise<Map<string, number>> {
    if (!resellerIds.length) return new Map();
    const rows: { reseller_id: string; count: string }[] = await this.dataSource.query(
      `SELECT reseller_id, count(*) AS count FROM clients WHERE kind = 'tenant' AND reseller_id = ANY($1::uuid[]) GROUP BY reseller_id`,
      [resellerIds],
    );
    return new Map(rows.map((row) => [row.reseller_id, Number(row.count)]));
  }

  async reseller(principal: Principal, id: string): Promise<ResellerSummary> {
    return toResellerSummary(await this.findReseller(principal, id));
  }

  /** The platform operator creates a reseller, its staff organisation and an invitation for its first administrator. */
  async createReseller(principal: Principal, body: Partial<CreateResellerRequest>): Promise<ResellerSummary & { invitation: unknown }> {
    if (principal.level !== 'platform') throw AppException.notFound();
    const name = this.checkedName(body.name);
    const invitee = { adminEmail: (body.adminEmail ?? '').trim().toLowerCase(), adminName: (body.adminName ?? '').trim() };
    assertRules(validateInvitee(invitee));
    if (await this.dataSource.getRepository(Reseller).exists({ where: { name } })) {
      throw new AppException('conflict', {
        message: RESELLER_NAME_TAKEN,
        messageKey: 'resellerNameTaken',
        data: { fields: { name: [RESELLER_NAME_TAKEN] } },
      });
    }
    let invitation: PreparedInvitation;
    let created: ResellerSummary;
    try {
      created = await this.dataSource.transaction(async (manager) => {
        const reseller = await ensureReseller(manager, name);
        const { client, roles } = await ensureResellerStaff(manager, reseller);
        invitation = await this.invitations.prepare(manager, {
          clientId: client.id,
          email: invitee.adminEmail,
          name: invitee.adminName,
          roleId: roles.get(FIRST_ADMIN_ROLE.reseller)!.id,
          invitedBy: principal.userId,
        });
        const after = toResellerSummary(Object.assign(reseller, { tenantCount: 0 }));
        await this.audit.record(
          principal,
          {
            entityType: 'reseller',
            entityId: reseller.id,
            action: 'create',
            before: null,
            after: { ...after, firstAdmin: invitee.adminEmail },
          },
          manager,
        );
        return after;
      });
    } catch (error) {
      if (isUniqueViolation(error))
        throw new AppException('conflict', {
          message: RESELLER_NAME_TAKEN,
          messageKey: 'resellerNameTaken',
          data: { fields: { name: [RESELLER_NAME_TAKEN] } },
        });
      throw error;
    }
    await this.invitations.send(invitation!);
    return { ...created, invitation: invitation!.summary };
  }

  async renameReseller(principal: Principal, id: string, rawName: string | undefined): Promise<ResellerSummary> {
    const name = this.checkedName(rawName);
    const before = await this.reseller(principal, id);
    try {
      await this.dataSource.transaction(async (manager) => {
        await manager.update(Reseller, { id }, { name });
        // The staff organisation carries the reseller's name (the console shows it to its staff).
        await manager.update(Client, { resellerId: id, kind: 'reseller' }, { name });
        await this.audit.record(
          principal,
          { entityType: 'reseller', entityId: id, action: 'update', before, after: { ...before, name } },
          manager,
        );
      });
    } catch (error) {
      if (isUniqueViolation(error))
        throw new AppException('conflict', {
          message: RESELLER_NAME_TAKEN,
          messageKey: 'resellerNameTaken',
          data: { fields: { name: [RESELLER_NAME_TAKEN] } },
        });
      throw error;
    }
    return { ...before, name };
  }

  /** Customer tenants the caller may see: the one query every clients read goes through. */
  private scoped(principal: Principal): SelectQueryBuilder<Client> {
    const qb = this.dataSource
      .getRepository(Client)
      .createQueryBuilder('c')
      .leftJoinAndSelect('c.reseller', 'r')
      .where(`c.kind = 'tenant'`);
    if (principal.level === 'platform') return qb;
    if (principal.level === 'reseller') return qb.andWhere('c.reseller_id = :resellerId', { resellerId: principal.resellerId });
    return qb.andWhere('c.id = :clientId', { clientId: principal.clientId });
  }

  private scopeResellers(principal: Principal, qb: SelectQueryBuilder<Reseller>): void {
    if (principal.level === 'platform') return;
    // Reseller staff see their own reseller; a tenant sees none (its reseller is not its to manage).
    qb.where('r.id = :id', { id: principal.level === 'reseller' ? principal.resellerId : '00000000-0000-0000-0000-000000000000' });
  }

  private async find(principal: Principal, id: string): Promise<Client> {
    const client = await this.scoped(principal).andWhere('c.id = :id', { id }).getOne();
    if (!client) throw AppException.notFound();
    return client;
  }

  private async findReseller(principal: Principal, id: string): Promise<Reseller & { tenantCount: number }> {
    const qb = this.dataSource.getRepository(Reseller).createQueryBuilder('r');
    this.scopeResellers(principal, qb);
    const reseller = await qb.andWhere('r.id = :rid', { rid: id }).getOne();
    if (!reseller) throw AppException.notFound();
    return Object.assign(reseller, { tenantCount: (await this.tenantCounts([id])).get(id) ?? 0 });
  }

  /** Reseller staff always create under their own reseller; only the platform chooses one. */
  private async targetReseller(principal: Principal, requested: string | undefined): Promise<string> {
    if (principal.level === 'reseller' && principal.resellerId) {
      if (requested && requested !== principal.resellerId) throw AppException.notFound();
      return principal.resellerId;
    }
    if (principal.level === 'platform') {
      if (!requested) assertRules([{ field: 'resellerId', key: 'required' }]);
      if (!(await this.dataSource.getRepository(Reseller).exists({ where: { id: requested } }))) throw AppException.notFound();
      return requested!;
    }
    throw AppException.forbidden();
  }

  private checkedName(raw: string | undefined): string {
    const name = (raw ?? '').trim();
    if (!name) assertRules([{ field: 'name', key: 'required' }]);
    if (name.length > 120) assertRules([{ field: 'name', key: 'maxLength', values: { count: 120 } }]);
    return name;
  }

  private checked(body: Partial<ClientInput>): ClientInput {
    const input: ClientInput = {
      name: (body.name ?? '').trim(),
      bannerUrl: blank(body.bannerUrl),
      loginImageUrl: blank(body.loginImageUrl),
      mainColor: blank(body.mainColor),
      menuLogoUrl: blank(body.menuLogoUrl),
      completeMenuLogoUrl: blank(body.completeMenuLogoUrl),
      subscriptionPlan: blank(body.subscriptionPlan),
      allowedOrigins: body.allowedOrigins ?? [],
    };
    const issues = validateClient(input);
    // Branding images are loaded by every user's browser: never from loopback, link-local or private networks.
    for (const field of ['bannerUrl', 'loginImageUrl', 'menuLogoUrl', 'completeMenuLogoUrl'] as const) {
      const value = input[field];
      if (!value || issues.some((issue) => issue.field === field)) continue;
      const issue = this.outgoing.urlIssue(field, value, { schemes: ['http', 'https'], allowPath: true });
      if (issue) issues.push(issue);
    }
    assertRules(issues);
    return { ...input, allowedOrigins: normalizeOrigins(input.allowedOrigins) };
  }
}

function toResellerSummary(r: Reseller & { tenantCount?: number }): ResellerSummary {
  return { id: r.id, name: r.name, tenantCount: r.tenantCount ?? 0, createdAt: r.createdAt.toISOString() };
}
