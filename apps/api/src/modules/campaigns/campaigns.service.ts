import {
  validateCampaign,
  type CampaignInput,
  type CampaignSummary,
  type OptionItem,
  type Page,
  type PagedQuery,
} from '@centralita/contracts';
import { Injectable } from '@nestjs/common';
import { InjectDataSource, InjectRepository } from '@nestjs/typeorm';
import type { DataSource, Repository } from 'typeorm';
import { AppException } from '../../common/app.exception';
import { AuditService } from '../admin/audit.service';
import { paginate } from '../admin/paginate';
import { assertRules, isUniqueViolation } from '../admin/rule-check';
import type { Principal } from '../auth/principal';
import { isIllegalTransition, MachineHostService } from '../machine-host/machine-host.service';
import { Campaign } from './campaign.entity';
import type { CampaignInputDto } from './dto/campaigns.dto';

export function toCampaignSummary(c: Campaign): CampaignSummary {
  return {
    id: c.id,
    name: c.name,
    description: c.description,
    fromDate: c.fromDate,
    toDate: c.toDate,
    identifier: c.identifier,
    allowedChatsPerAgent: c.allowedChatsPerAgent,
    templateCampaign: c.templateCampaign,
    customer: c.customer,
    createdAt: c.createdAt.toISOString(),
    updatedAt: c.updatedAt.toISOString(),
  };
}

const AUDIT_TYPE = 'campaign';

@Injectable()
export class CampaignsService {
  constructor(
    @InjectRepository(Campaign) private readonly campaigns: Repository<Campaign>,
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly audit: AuditService,
    private readonly host: MachineHostService,
  ) {}

  list(clientId: string, query: PagedQuery): Promise<Page<CampaignSummary>> {
    const qb = this.campaigns.createQueryBuilder('c').where('c.client_id = :clientId', { clientId });
    return paginate(
      qb,
      query,
      {
        sortable: {
          name: 'c.name',
          identifier: 'c.identifier',
          fromDate: 'c.from_date',
          toDate: 'c.to_date',
          allowedChatsPerAgent: 'c.allowed_chats_per_agent',
          customer: 'c.customer',
        },
        searchable: ['c.name', 'c.identifier', 'c.description', 'c.customer'],
        defaultSort: { field: 'name', order: 'asc' },
      },
      toCampaignSummary,
    );
  }

  async options(clientId: string): Promise<OptionItem[]> {
    const rows = await this.campaigns.find({ where: { clientId }, order: { name: 'ASC' }, select: { id: true, name: true } });
    return rows.map(({ id, name }) => ({ id, name }));
  }

  async get(clientId: string, id: string): Promise<CampaignSummary> {
    return toCampaignSummary(await this.find(clientId, id));
  }

  async create(principal: Principal, body: CampaignInputDto): Promise<CampaignSummary> {
    const input = this.normalise(body);
    assertRules(validateCampaign(input));
    return this.save(principal, null, input);
  }

  async update(principal: Principal, id: string, body: CampaignInputDto): Promise<CampaignSummary> {
    const current = await this.find(principal.clientId, id);
    const input = this.normalise(body);
    assertRules(validateCampaign(input));
    const previousCapacity = current.allowedChatsPerAgent;
    const saved = await this.save(principal, current, input);
    if (saved.allowedChatsPerAgent !== previousCapacity) await this.applyCapacity(principal, id, saved.allowedChatsPerAgent);
    return saved;
  }

  /**
   * Agents logged into the campaign take its new allowed chats per agent at once (their machine
   * keeps conversations already held above a lowered capacity and takes no more until below it).
   */
  private async applyCapacity(principal: Principal, campaignId: string, capacity: number): Promise<void> {
    const agents: { user_id: string }[] = await this.dataSource.query(
      `SELECT user_id FROM agent_presence WHERE tenant_id = $1 AND campaign_id = $2 AND status <> 'loggedOut'`,
      [principal.clientId, campaignId],
    );
    for (const agent of agents) {
      try {
        await this.host.dispatch(
          'agent',
          agent.user_id,
          { type: 'agent.capacityChanged', capacity },
          { kind: 'supervisor', id: principal.userId },
          principal.clientId,
        );
      } catch (error) {
        // Logged out meanwhile, or already at that capacity: nothing to change.
        if (!isIllegalTransition(error)) throw error;
      }
    }
  }

  /** Soft delete: conversations, users and reports keep pointing at the row. */
  async remove(principal: Principal, id: string): Promise<{ deleted: true }> {
    const current = await this.find(principal.clientId, id);
    await this.dataSource.transaction(async (manager) => {
      await manager.softDelete(Campaign, { id, clientId: principal.clientId });
      await this.audit.record(
        principal,
        { entityType: AUDIT_TYPE, entityId: id, action: 'delete', before: toCampaignSummary(current), after: null },
        manager,
      );
    });
    return { deleted: true };
  }

  private async save(principal: Principal, current: Campaign | null, input: CampaignInput): Promise<CampaignSummary> {
    try {
      const saved = await this.dataSource.transaction(async (manager) => {
        const repo = manager.getRepository(Campaign);
        const before = current ? toCampaignSummary(current) : null;
        const entity = current ? repo.merge(current, input) : repo.create({ ...input, clientId: principal.clientId });
        const row = await repo.save(entity);
        const after = toCampaignSummary(await repo.findOneByOrFail({ id: row.id }));
        await this.audit.record(
          principal,
          { entityType: AUDIT_TYPE, entityId: row.id, action: current ? 'update' : 'create', before, after },
          manager,
        );
        return after;
      });
      return saved;
    } catch (error) {
      if (isUniqueViolation(error, 'uq_campaigns_client_identifier')) {
        throw new AppException('conflict', {
          message: 'identifier is already used by another campaign',
          messageKey: 'campaignIdentifierTaken',
          data: { fields: { identifier: ['identifier is already used by another campaign'] } },
        });
      }
      throw error;
    }
  }

  private normalise(body: CampaignInputDto): CampaignInput {
    return {
      name: body.name ?? '',
      description: body.description ?? '',
      fromDate: body.fromDate ?? '',
      toDate: body.toDate ?? '',
      identifier: body.identifier ?? '',
      allowedChatsPerAgent: body.allowedChatsPerAgent as number,
      templateCampaign: body.templateCampaign ?? false,
      customer: body.customer ? body.customer : null,
    };
  }

  private async find(clientId: string, id: string): Promise<Campaign> {
    const row = await this.campaigns.findOne({ where: { id, clientId } });
    if (!row) throw AppException.notFound();
    return row;
  }
}
