import { validateClient, type ClientInput, type ClientSummary, type Page, type PagedQuery, normalizeOrigins } from '@centralita/contracts';
import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import { AppException } from '../../common/app.exception';
import { AuditService } from '../admin/audit.service';
import { paginate } from '../admin/paginate';
import { assertRules, isUniqueViolation } from '../admin/rule-check';
import type { Principal } from '../auth/principal';
import { provisionClient } from '../tenancy/client-provisioning';
import { Client } from '../tenancy/client.entity';
import { Reseller } from '../tenancy/reseller.entity';

export function toClientSummary(c: Client): ClientSummary {
  return {
    id: c.id,
    name: c.name,
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

/**
 * Customers (tenants) of the caller's reseller: the reseller is read from the caller's own tenant,
 * so a client of another reseller answers 404 like any other tenant's row.
 */
@Injectable()
export class ClientsService {
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly audit: AuditService,
  ) {}

  async list(principal: Principal, query: PagedQuery): Promise<Page<ClientSummary>> {
    const resellerId = await this.resellerOf(principal);
    const qb = this.dataSource.getRepository(Client).createQueryBuilder('c').where('c.reseller_id = :resellerId', { resellerId });
    return paginate(
      qb,
      query,
      {
        sortable: { name: 'c.name', subscriptionPlan: 'c.subscription_plan', createdAt: 'c.created_at' },
        searchable: ['c.name', 'c.subscription_plan'],
        defaultSort: { field: 'name', order: 'asc' },
      },
      toClientSummary,
    );
  }

  async get(principal: Principal, id: string): Promise<ClientSummary> {
    return toClientSummary(await this.find(principal, id));
  }

  /** A new tenant under the caller's reseller, with its copies of the built-in roles. */
  async create(principal: Principal, body: Partial<ClientInput>): Promise<ClientSummary> {
    const input = this.checked(body);
    const resellerId = await this.resellerOf(principal);
    if (await this.dataSource.getRepository(Client).exists({ where: { resellerId, name: input.name } })) {
      throw new AppException('conflict', { message: 'name is already used by another customer' });
    }
    return this.dataSource.transaction(async (manager) => {
      const { name, subscriptionPlan, allowedOrigins, ...branding } = input;
      const { client } = await provisionClient(manager, { resellerId, name, subscriptionPlan, branding });
      if (allowedOrigins.length) {
        await manager.update(Client, { id: client.id }, { allowedOrigins });
        client.allowedOrigins = allowedOrigins;
      }
      const after = toClientSummary(client);
      await this.audit.record(principal, { entityType: 'client', entityId: client.id, action: 'create', before: null, after }, manager);
      return after;
    });
  }

  async update(principal: Principal, id: string, body: Partial<ClientInput>): Promise<ClientSummary> {
    const current = await this.find(principal, id);
    const input = this.checked(body);
    try {
      return await this.dataSource.transaction(async (manager) => {
        const before = toClientSummary(current);
        await manager.update(Client, { id }, input);
        const after = toClientSummary(await manager.findOneByOrFail(Client, { id }));
        await this.audit.record(principal, { entityType: 'client', entityId: id, action: 'update', before, after }, manager);
        return after;
      });
    } catch (error) {
      if (isUniqueViolation(error)) throw new AppException('conflict', { message: 'name is already used by another customer' });
      throw error;
    }
  }

  async reseller(principal: Principal): Promise<{ id: string; name: string }> {
    const reseller = await this.dataSource.getRepository(Reseller).findOneByOrFail({ id: await this.resellerOf(principal) });
    return { id: reseller.id, name: reseller.name };
  }

  async renameReseller(principal: Principal, name: string): Promise<{ id: string; name: string }> {
    const trimmed = (name ?? '').trim();
    if (!trimmed) assertRules([{ field: 'name', key: 'required' }]);
    if (trimmed.length > 160) assertRules([{ field: 'name', key: 'maxLength', values: { count: 160 } }]);
    const before = await this.reseller(principal);
    try {
      await this.dataSource.transaction(async (manager) => {
        await manager.update(Reseller, { id: before.id }, { name: trimmed });
        await this.audit.record(
          principal,
          { entityType: 'reseller', entityId: before.id, action: 'update', before, after: { ...before, name: trimmed } },
          manager,
        );
      });
    } catch (error) {
      if (isUniqueViolation(error)) throw new AppException('conflict', { message: 'name is already used by another reseller' });
      throw error;
    }
    return { ...before, name: trimmed };
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
    assertRules(validateClient(input));
    return { ...input, allowedOrigins: normalizeOrigins(input.allowedOrigins) };
  }

  private async resellerOf(principal: Principal): Promise<string> {
    return (await this.dataSource.getRepository(Client).findOneByOrFail({ id: principal.clientId })).resellerId;
  }

  private async find(principal: Principal, id: string): Promise<Client> {
    const resellerId = await this.resellerOf(principal);
    const client = await this.dataSource.getRepository(Client).findOne({ where: { id, resellerId } });
    if (!client) throw AppException.notFound();
    return client;
  }
}
