import {
  TRUNK_LIMITS,
  parseAllowedSources,
  validateTrunk,
  type Page,
  type PagedQuery,
  type TrunkDialingConfig,
  type TrunkInput,
  type TrunkSummary,
  type TrunkTransport,
} from '@centralita/contracts';
import { ConfigCrypto, OutgoingAddressPolicy } from '@centralita/contracts/server';
import { Injectable } from '@nestjs/common';
import { InjectDataSource, InjectRepository } from '@nestjs/typeorm';
import type { DataSource, Repository } from 'typeorm';
import { AppException } from '../../common/app.exception';
import { AuditService } from '../admin/audit.service';
import { paginate } from '../admin/paginate';
import { assertRules } from '../admin/rule-check';
import type { Principal } from '../auth/principal';
import { Trunk } from './trunk.entity';

const AUDIT_TYPE = 'trunk';

/** What the API answers and audits: the secret only as `hasPassword`. */
export function toTrunkSummary(t: Trunk): TrunkSummary {
  return {
    id: t.id,
    name: t.name,
    host: t.host,
    port: t.port,
    transport: t.transport as TrunkTransport,
    username: t.username,
    hasPassword: t.passwordEncrypted !== null,
    callerId: t.callerId,
    maxConcurrentCalls: t.maxConcurrentCalls,
    active: t.active,
    countryCode: t.countryCode ?? null,
    nationalPrefix: t.nationalPrefix ?? null,
    allowedSources: t.allowedSources ?? [],
    createdAt: t.createdAt.toISOString(),
    updatedAt: t.updatedAt.toISOString(),
  };
}

type TrunkBody = Partial<Omit<TrunkInput, 'port' | 'maxConcurrentCalls'>> & { port?: number | null; maxConcurrentCalls?: number | null };

@Injectable()
export class TrunksService {
  constructor(
    @InjectRepository(Trunk) private readonly trunks: Repository<Trunk>,
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly audit: AuditService,
    private readonly crypto: ConfigCrypto,
    private readonly outgoing: OutgoingAddressPolicy,
  ) {}

  list(clientId: string, query: PagedQuery): Promise<Page<TrunkSummary>> {
    const qb = this.trunks.createQueryBuilder('t').where('t.client_id = :clientId', { clientId });
    return paginate(
      qb,
      query,
      {
        sortable: {
          name: 't.name',
          host: 't.host',
          transport: 't.transport',
          maxConcurrentCalls: 't.max_concurrent_calls',
          active: 't.active',
          updatedAt: 't.updated_at',
        },
        searchable: ['t.name', 't.host', 't.username', 't.caller_id'],
        defaultSort: { field: 'name', order: 'asc' },
      },
      toTrunkSummary,
    );
  }

  async get(clientId: string, id: string): Promise<TrunkSummary> {
    return toTrunkSummary(await this.find(clientId, id));
  }

  create(principal: Principal, body: TrunkBody): Promise<TrunkSummary> {
    return this.save(principal, null, body);
  }

  async update(principal: Principal, id: string, body: TrunkBody): Promise<TrunkSummary> {
    return this.save(principal, await this.find(principal.clientId, id), body);
  }

  /** Soft delete: call history may name the trunk. */
  async remove(principal: Principal, id: string): Promise<{ deleted: true }> {
    const current = await this.find(principal.clientId, id);
    await this.dataSource.transaction(async (manager) => {
      await manager.softDelete(Trunk, { id, clientId: principal.clientId });
      // A deleted trunk answers no call: its numbers are freed for any trunk to take.
      await manager.query(`DELETE FROM trunk_inbound_numbers WHERE trunk_id = $1 AND client_id = $2`, [id, principal.clientId]);
      await this.audit.record(
        principal,
        { entityType: AUDIT_TYPE, entityId: id, action: 'delete', before: toTrunkSummary(current), after: null },
        manager,
      );
    });
    return { deleted: true };
  }

  /**
   * Server-side only (the worker's dialer): an active trunk of the tenant with its secret
   * decrypted. Never expose this through a controller.
   */
  async resolveTrunkForDialing(tenantId: string, trunkId: string): Promise<TrunkDialingConfig> {
    const t = await this.trunks.findOne({ where: { id: trunkId, clientId: tenantId, active: true } });
    if (!t) throw AppException.notFound();
    return {
      id: t.id,
      name: t.name,
      host: t.host,
      port: t.port,
      transport: t.transport as TrunkTransport,
      username: t.username,
      password: t.passwordEncrypted === null ? null : this.crypto.decrypt(t.passwordEncrypted),
      callerId: t.callerId,
      maxConcurrentCalls: t.maxConcurrentCalls,
    };
  }

  private async save(principal: Principal, current: Trunk | null, body: TrunkBody): Promise<TrunkSummary> {
    const input = {
      name: (body.name ?? '').trim(),
      host: (body.host ?? '').trim(),
      port: body.port ?? TRUNK_LIMITS.defaultPort,
      transport: (body.transport ?? 'udp') as TrunkTransport,
      username: body.username?.trim() || null,
      password: body.password ?? '',
      callerId: body.callerId?.trim() || null,
      maxConcurrentCalls: body.maxConcurrentCalls ?? null,
      active: body.active ?? true,
      countryCode: body.countryCode?.trim() || null,
      nationalPrefix: body.nationalPrefix?.trim() || null,
      allowedSources: (body.allowedSources === undefined ? (current?.allowedSources ?? []) : body.allowedSources) as string[],
    };
    const issues = validateTrunk(input);
    // Stored as the trimmed list (validateTrunk refused anything that is not one).
    if (!issues.length) input.allowedSources = parseAllowedSources(input.allowedSources) ?? [];
    // The dialer connects to this host: a literal loopback, private or link-local address is refused
    // now (names are checked again, resolved, when the worker connects).
    const hostIssue = issues.some((issue) => issue.field === 'host') ? null : this.outgoing.hostIssue('host', input.host);
    assertRules(hostIssue ? [...issues, hostIssue] : issues);
    const clash = await this.trunks
      .createQueryBuilder('t')
      .where('t.client_id = :clientId AND lower(t.name) = lower(:name)', { clientId: principal.clientId, name: input.name })
      .andWhere(current ? 't.id <> :id' : '1=1', { id: current?.id })
      .getExists();
    if (clash) {
      throw new AppException('conflict', {
        message: 'name is already used by another trunk',
        data: { fields: { name: ['name is already used by another trunk'] }, issues: [{ field: 'name', key: 'duplicate' }] },
      });
    }
    const { password, ...fields } = input;
    // An empty password on edit keeps the stored secret; a new one replaces it.
    const passwordEncrypted = password !== '' ? this.crypto.encrypt(password) : (current?.passwordEncrypted ?? null);
    return this.dataSource.transaction(async (manager) => {
      const repo = manager.getRepository(Trunk);
      const before = current ? toTrunkSummary(current) : null;
      const values = { ...fields, maxConcurrentCalls: fields.maxConcurrentCalls!, passwordEncrypted };
      const row = await repo.save(current ? repo.merge(current, values) : repo.create({ ...values, clientId: principal.clientId }));
      const after = toTrunkSummary(await repo.findOneByOrFail({ id: row.id }));
      const passwordChanged = password !== '';
      await this.audit.record(
        principal,
        {
          entityType: AUDIT_TYPE,
          entityId: row.id,
          action: current ? 'update' : 'create',
          before,
          after: passwordChanged && current ? { ...after, passwordChanged: true } : after,
        },
        manager,
      );
      return after;
    });
  }

  private async find(clientId: string, id: string): Promise<Trunk> {
    const row = await this.trunks.findOne({ where: { id, clientId } });
    if (!row) throw AppException.notFound();
    return row;
  }
}
