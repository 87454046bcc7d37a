import {
  DEFAULT_CALLING_WINDOWS,
  DEFAULT_RETRY_DELAYS,
  OUTBOUND_LIMITS,
  PERMISSIONS,
  validateDialerCampaign,
  type DialerCampaignInput,
  type DialerCampaignView,
  type DialerCampaignStatus,
  type OutboundFormOptions,
  type Page,
  type PagedQuery,
} from '@centralita/contracts';
import { LIVE_CAMPAIGN_STATUSES } from '@centralita/domain';
import { Injectable } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { DataSource, type EntityManager } from 'typeorm';
import { AppException } from '../../common/app.exception';
import { AuditService } from '../admin/audit.service';
import { rawListParts } from '../admin/paginate';
import { assertRules } from '../admin/rule-check';
import type { Principal } from '../auth/principal';
import { CampaignHostService } from './campaign-host.service';
import { supervisorActor, type CampaignRow } from './outbound-rows';
import { OutboundTransactions } from './outbound-transaction.service';

const E164_SQL = '^\\+[1-9][0-9]{6,14}$';

const SORTABLE: Record<string, string> = { name: 'c.name', createdAt: 'c.created_at', status: 'c.status', mode: 'c.mode' };

function campaignView(row: CampaignRow & { phone_list_name?: string | null; template_id?: string | null }): DialerCampaignView {
  return {
    id: row.id,
    name: row.name,
    phoneListId: row.phone_list_id,
    phoneListName: row.phone_list_name ?? null,
    mode: row.mode,
    abandonCapPercent: Number(row.abandon_cap_percent),
    abandonThresholdMs: row.abandon_threshold_ms,
    maxAttempts: row.max_attempts,
    retryDelays: row.retry_delays,
    callingWindows: row.calling_windows,
    scheduleFrom: row.schedule_from ? new Date(row.schedule_from).toISOString() : null,
    scheduleTo: row.schedule_to ? new Date(row.schedule_to).toISOString() : null,
    trunkId: row.trunk_id,
    callerId: row.caller_id,
    agentIds: row.agent_ids ?? [],
    templateId: row.template_id ?? null,
    status: row.status as DialerCampaignStatus,
    version: row.version,
    createdAt: new Date(row.created_at).toISOString(),
    updatedAt: new Date(row.updated_at).toISOString(),
  };
}

function normalise(input: Partial<DialerCampaignInput>): DialerCampaignInput {
  return {
    name: String(input.name ?? '').trim(),
    phoneListId: String(input.phoneListId ?? ''),
    mode: input.mode ?? 'progressive',
    abandonCapPercent: input.abandonCapPercent ?? OUTBOUND_LIMITS.abandonCapDefault,
    abandonThresholdMs: input.abandonThresholdMs ?? OUTBOUND_LIMITS.abandonThresholdMsDefault,
    maxAttempts: input.maxAttempts ?? OUTBOUND_LIMITS.maxAttemptsDefault,
    retryDelays: input.retryDelays ?? DEFAULT_RETRY_DELAYS,
    callingWindows: input.callingWindows ?? DEFAULT_CALLING_WINDOWS,
    scheduleFrom: input.scheduleFrom ?? null,
    scheduleTo: input.scheduleTo ?? null,
    trunkId: input.trunkId ?? null,
    callerId: input.callerId ?? null,
    agentIds: input.agentIds ?? [],
    templateId: input.templateId ?? null,
  };
}

/** $1..$15 of the campaign INSERT and UPDATE: id, tenant, then the editable columns in table order. */
function campaignParams(id: string, tenantId: string, input: DialerCampaignInput): unknown[] {
  return [
    id,
    tenantId,
    input.name,
    input.phoneListId,
    input.mode,
    input.abandonCapPercent,
    input.abandonThresholdMs,
    input.maxAttempts,
    JSON.stringify(input.retryDelays),
    JSON.stringify(input.callingWindows),
    input.scheduleFrom,
    input.scheduleTo,
    input.trunkId,
    input.callerId,
    input.agentIds,
  ];
}

/**
 * Copies the phone list's entries into the campaign's contacts. Only valid E.164 entries become
 * contacts: a bad phone-list row never reaches the dialer.
 */
async function addContacts(manager: EntityManager, tenantId: string, campaignId: string, phoneListId: string): Promise<void> {
  await manager.query(
    `INSERT INTO outbound_contacts (tenant_id, campaign_id, entry_id, phone, name)
     SELECT $1, $2, e.id, e.phone, e.name FROM phone_list_entries e WHERE e.list_id = $3 AND e.client_id = $1 AND e.phone ~ $4`,
    [tenantId, campaignId, phoneListId, E164_SQL],
  );
}

/** Campaign administration: the campaigns, their form's pickers, and the supervisor's start/pause/resume/cancel/schedule. */
@Injectable()
export class CampaignAdminService {
  constructor(
    private readonly dataSource: DataSource,
    private readonly tx: OutboundTransactions,
    private readonly campaigns: CampaignHostService,
    private readonly audit: AuditService,
  ) {}

  async list(principal: Principal, query: PagedQuery): Promise<Page<DialerCampaignView>> {
    const { page, pageSize, orderBy, limit, like } = rawListParts(
      query,
      { sortable: SORTABLE, defaultSort: { field: 'createdAt', order: 'desc' } },
      'c.id',
    );
    const params: unknown[] = [principal.clientId];
    let where = `c.tenant_id = $1 AND c.deleted_at IS NULL`;
    if (like) {
      params.push(like);
      where += ` AND c.name ILIKE $${params.length}`;
    }
    const [{ total }] = (await this.dataSource.query(`SELECT count(*)::int AS total FROM dialer_campaigns c WHERE ${where}`, params)) as {
      total: number;
    }[];
    const rows = (await this.dataSource.query(
      `SELECT c.*, l.name AS phone_list_name FROM dialer_campaigns c LEFT JOIN phone_lists l ON l.id = c.phone_list_id
        WHERE ${where} ORDER BY ${orderBy} ${limit}`,
      params,
    )) as CampaignRow[];
    return { items: rows.map(campaignView), total, page, pageSize } as Page<DialerCampaignView>;
  }

  async get(principal: Principal, id: string): Promise<DialerCampaignView> {
    const [row] = (await this.dataSource.query(
      `SELECT c.*, l.name AS phone_list_name FROM dialer_campaigns c LEFT JOIN phone_lists l ON l.id = c.phone_list_id
        WHERE c.id = $1 AND c.tenant_id = $2 AND c.deleted_at IS NULL`,
      [id, principal.clientId],
    )) as CampaignRow[];
    if (!row) throw AppException.notFound();
    return campaignView(row);
  }

  private async checkReferences(principal: Principal, input: DialerCampaignInput): Promise<void> {
    const [list] = (await this.dataSource.query(`SELECT id FROM phone_lists WHERE id = $1 AND client_id = $2 AND deleted_at IS NULL`, [
      input.phoneListId,
      principal.clientId,
    ])) as { id: string }[];
    if (!list) assertRules([{ field: 'phoneListId', key: 'unknown' }]);
    if (input.trunkId) {
      const [trunk] = (await this.dataSource.query(`SELECT id FROM trunks WHERE id = $1 AND client_id = $2 AND deleted_at IS NULL`, [
        input.trunkId,
        principal.clientId,
      ])) as { id: string }[];
      if (!trunk) assertRules([{ field: 'trunkId', key: 'unknown' }]);
    }
    if (input.templateId) {
      const [template] = (await this.dataSource.query(
        `SELECT id FROM outbound_templates WHERE id = $1 AND tenant_id = $2 AND deleted_at IS NULL`,
        [input.templateId, principal.clientId],
      )) as { id: string }[];
      if (!template) assertRules([{ field: 'templateId', key: 'unknown' }]);
    }
    if (input.agentIds.length > 0) {
      const [{ n }] = (await this.dataSource.query(`SELECT count(*)::int AS n FROM users WHERE id = ANY($1::uuid[]) AND client_id = $2`, [
        input.agentIds,
        principal.clientId,
      ])) as { n: number }[];
      if (n !== new Set(input.agentIds).size) assertRules([{ field: 'agentIds', key: 'unknown' }]);
    }
  }

  async create(principal: Principal, body: Partial<DialerCampaignInput>): Promise<DialerCampaignView> {
    assertRules(validateDialerCampaign(body));
    const input = normalise(body);
    await this.checkReferences(principal, input);
    const id = randomUUID();
    await this.tx.run(async (manager) => {
      const created = await this.campaigns.createCampaign(manager, id, principal.clientId, input.mode, supervisorActor(principal));
      await manager.query(
        `INSERT INTO dialer_campaigns (id, tenant_id, name, phone_list_id, mode, abandon_cap_percent, abandon_threshold_ms, max_attempts, retry_delays,
           calling_windows, schedule_from, schedule_to, trunk_id, caller_id, agent_ids, status, snapshot, version, last_event, created_by)
         VALUES ($1,$2,$3,$4,$5,$6,$7,$8,$9,$10,$11,$12,$13,$14,$15,$16,$17,1,$18,$19)`,
        [...campaignParams(id, principal.clientId, input), created.status, created.snapshot, created.record.event, principal.userId],
      );
      await this.campaigns.logCampaignCreated(manager, id, principal.clientId, created.record);
      await manager.query(`UPDATE dialer_campaigns SET template_id = $2 WHERE id = $1`, [id, input.templateId]);
      await addContacts(manager, principal.clientId, id, input.phoneListId);
      await this.audit.record(
        principal,
        { entityType: 'dialer_campaign', entityId: id, action: 'create', before: null, after: input },
        manager,
      );
    });
    return this.get(principal, id);
  }

  async update(principal: Principal, id: string, body: Partial<DialerCampaignInput>): Promise<DialerCampaignView> {
    const before = await this.get(principal, id);
    if (before.status === 'completed' || before.status === 'cancelled' || before.status === 'running') {
      throw new AppException('illegal_transition', {
        message: `A ${before.status} campaign cannot be edited${before.status === 'running' ? '; pause it first' : ''}`,
      });
    }
    // The DTO instance carries every declared field, unset ones as undefined: only sent fields replace stored ones.
    const sent = Object.fromEntries(Object.entries(body).filter(([, value]) => value !== undefined));
    const merged = { ...before, ...sent };
    assertRules(validateDialerCampaign(merged));
    const input = normalise(merged);
    if (input.phoneListId !== before.phoneListId && before.status !== 'draft') assertRules([{ field: 'phoneListId', key: 'unknown' }]);
    if (input.mode !== before.mode && before.status !== 'draft')
      assertRules([{ field: 'mode', key: 'oneOf', values: { options: before.mode } }]);
    await this.checkReferences(principal, input);
    await this.tx.run(async (manager, w) => {
      await this.campaigns.lockCampaign(manager, id, principal.clientId);
      // The mode lives in the machine's context too: a draft's mode changes as a step of its own.
      if (input.mode !== before.mode) {
        await this.campaigns.stepCampaign(manager, w, id, { type: 'campaign.modeChanged', mode: input.mode }, supervisorActor(principal));
      }
      await manager.query(
        `UPDATE dialer_campaigns SET name = $3, phone_list_id = $4, mode = $5::text, abandon_cap_percent = $6, abandon_threshold_ms = $7, max_attempts = $8,
           retry_delays = $9, calling_windows = $10, schedule_from = $11, schedule_to = $12, trunk_id = $13, caller_id = $14, agent_ids = $15,
           updated_at = now()
         WHERE id = $1 AND tenant_id = $2`,
        campaignParams(id, principal.clientId, input),
      );
      await manager.query(`UPDATE dialer_campaigns SET template_id = $2 WHERE id = $1`, [id, input.templateId]);
      if (input.phoneListId !== before.phoneListId) {
        await manager.query(`DELETE FROM outbound_contacts WHERE campaign_id = $1`, [id]);
        await addContacts(manager, principal.clientId, id, input.phoneListId);
      }
      await this.audit.record(principal, { entityType: 'dialer_campaign', entityId: id, action: 'update', before, after: input }, manager);
    });
    return this.get(principal, id);
  }

  async remove(principal: Principal, id: string): Promise<void> {
    const before = await this.get(principal, id);
    if (LIVE_CAMPAIGN_STATUSES.includes(before.status)) {
      throw new AppException('illegal_transition', { message: 'Cancel the campaign before deleting it' });
    }
    await this.tx.run(async (manager) => {
      await manager.query(`UPDATE dialer_campaigns SET deleted_at = now() WHERE id = $1 AND tenant_id = $2`, [id, principal.clientId]);
      await this.audit.record(principal, { entityType: 'dialer_campaign', entityId: id, action: 'delete', before, after: null }, manager);
    });
  }

  async act(
    principal: Principal,
    id: string,
    action: 'start' | 'pause' | 'resume' | 'cancel' | 'schedule',
    reason?: string,
  ): Promise<DialerCampaignView> {
    const actor = supervisorActor(principal);
    if (action === 'schedule') {
      const current = await this.get(principal, id);
      if (!current.scheduleFrom) assertRules([{ field: 'scheduleFrom', key: 'required' }]);
      const startsAt = Math.max(Date.parse(current.scheduleFrom!), Date.now());
      await this.campaigns.dispatchCampaign(
        id,
        { type: 'campaign.scheduled', startsAt, endsAt: current.scheduleTo ? Date.parse(current.scheduleTo) : null },
        actor,
        principal.clientId,
      );
    } else {
      const event =
        action === 'start'
          ? ({ type: 'campaign.started' } as const)
          : action === 'pause'
            ? ({ type: 'campaign.paused', ...(reason ? { reason } : {}) } as const)
            : action === 'resume'
              ? ({ type: 'campaign.resumed' } as const)
              : ({ type: 'campaign.cancelled', reason: reason?.trim() || 'cancelled by supervisor' } as const);
      await this.campaigns.dispatchCampaign(id, event, actor, principal.clientId);
    }
    return this.get(principal, id);
  }

  /** The campaign form's phone list, trunk and agent pickers, readable with outbound.manage alone. */
  async formOptions(principal: Principal): Promise<OutboundFormOptions> {
    const [phoneLists, trunks, agents] = await Promise.all([
      this.dataSource.query(
        `SELECT id, name, entry_count AS "entryCount" FROM phone_lists WHERE client_id = $1 AND deleted_at IS NULL ORDER BY name, id`,
        [principal.clientId],
      ) as Promise<OutboundFormOptions['phoneLists']>,
      this.dataSource.query(
        `SELECT id, name, caller_id AS "callerId", active FROM trunks WHERE client_id = $1 AND deleted_at IS NULL ORDER BY name, id`,
        [principal.clientId],
      ) as Promise<OutboundFormOptions['trunks']>,
      this.dataSource.query(
        `SELECT u.id, u.name, u.email, u.active FROM users u JOIN roles r ON r.id = u.role_id
          WHERE u.client_id = $1 AND $2 = ANY(r.permissions) ORDER BY u.active DESC, u.name, u.id`,
        [principal.clientId, PERMISSIONS.conversationsHandle],
      ) as Promise<OutboundFormOptions['agents']>,
    ]);
    return { phoneLists, trunks, agents };
  }
}
