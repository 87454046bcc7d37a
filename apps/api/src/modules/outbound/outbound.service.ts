import {
  csvCell,
  DEFAULT_CALLING_WINDOWS,
  DEFAULT_LANGUAGE,
  DOWNLOAD_LABELS,
  DEFAULT_RETRY_DELAYS,
  OUTBOUND_LIMITS,
  PERMISSIONS,
  validateDialerCampaign,
  type DialerCampaignInput,
  type DialerCampaignView,
  type DialerCampaignStatus,
  type CallbackDueFilter,
  type CallbackStatus,
  type DoNotCallEntry,
  type Language,
  type OutboundCallback,
  type OutboundFormOptions,
  type OutboundCallView,
  type Page,
  type PagedQuery,
} from '@centralita/contracts';
import { isE164, type Actor } from '@centralita/domain';
import { Injectable } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { DataSource, type EntityManager } from 'typeorm';
import { AppException } from '../../common/app.exception';
import { AuditService } from '../admin/audit.service';
import { escapeLike, rawListParts } from '../admin/paginate';
import { assertRules } from '../admin/rule-check';
import type { Principal } from '../auth/principal';
import { callView, OutboundHostService, type CallRow, type CampaignRow } from './outbound-host.service';
import { campaignScript } from '../outbound-templates/template-rules';

const E164_SQL = '^\\+[1-9][0-9]{6,14}$';

/** The do-not-call row as the console shows it: scope by campaign name, who added it. */
const DNC_SELECT = `SELECT d.id, d.phone, d.campaign_id AS "campaignId", c.name AS "campaignName", d.reason, d.created_at AS "createdAt",
    d.created_by AS "createdBy", u.name AS "createdByName"
  FROM do_not_call d LEFT JOIN dialer_campaigns c ON c.id = d.campaign_id LEFT JOIN users u ON u.id = d.created_by`;

export interface DncListQuery extends PagedQuery {
  campaignId?: string;
  /** 'tenant': only entries for every campaign; 'campaign': only per-campaign entries. */
  scope?: 'tenant' | 'campaign';
}

export interface CallbackListQuery {
  campaignId?: string;
  /** Only this agent's callbacks; agents without outbound.manage always get only their own. */
  agentId?: string;
  mine?: boolean;
  status?: CallbackStatus;
  due?: CallbackDueFilter;
}

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

/** Campaign administration, do-not-call lists, callbacks, the agent's call actions and the results report. */
@Injectable()
export class OutboundService {
  constructor(
    private readonly dataSource: DataSource,
    private readonly host: OutboundHostService,
    private readonly audit: AuditService,
  ) {}

  supervisor(principal: Principal): Actor {
    return { kind: 'supervisor', id: principal.userId };
  }

  // ── campaigns ──

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
    await this.host.run(async (manager) => {
      const created = await this.host.createCampaign(manager, id, principal.clientId, input.mode, this.supervisor(principal));
      await manager.query(
        `INSERT INTO dialer_campaigns (id, tenant_id, name, phone_list_id, mode, abandon_cap_percent, abandon_threshold_ms, max_attempts, retry_delays,
           calling_windows, schedule_from, schedule_to, trunk_id, caller_id, agent_ids, status, snapshot, version, last_event, created_by)
         VALUES ($1,$2,$3,$4,$5,$6,$7,$8,$9,$10,$11,$12,$13,$14,$15,$16,$17,1,$18,$19)`,
        [...campaignParams(id, principal.clientId, input), created.status, created.snapshot, created.record.event, principal.userId],
      );
      await this.host.logCampaignCreated(manager, id, principal.clientId, created.record);
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
    await this.host.run(async (manager) => {
      await this.host.lockCampaign(manager, id, principal.clientId);
      await manager.query(
        `UPDATE dialer_campaigns SET name = $3, phone_list_id = $4, mode = $5::text, abandon_cap_percent = $6, abandon_threshold_ms = $7, max_attempts = $8,
           retry_delays = $9, calling_windows = $10, schedule_from = $11, schedule_to = $12, trunk_id = $13, caller_id = $14, agent_ids = $15,
           snapshot = jsonb_set(snapshot, '{context,mode}', to_jsonb($5::text)), updated_at = now()
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
    if (before.status === 'running' || before.status === 'paused') {
      throw new AppException('illegal_transition', { message: 'Cancel the campaign before deleting it' });
    }
    await this.host.run(async (manager) => {
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
    const actor = this.supervisor(principal);
    if (action === 'schedule') {
      const current = await this.get(principal, id);
      if (!current.scheduleFrom) assertRules([{ field: 'scheduleFrom', key: 'required' }]);
      const startsAt = Math.max(Date.parse(current.scheduleFrom!), Date.now());
      await this.host.dispatchCampaign(
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
      await this.host.dispatchCampaign(id, event, actor, principal.clientId);
    }
    return this.get(principal, id);
  }

  // ── do-not-call ──

  async dncList(principal: Principal, query: DncListQuery): Promise<Page<DoNotCallEntry>> {
    const page = query.page ?? 1;
    const pageSize = query.pageSize ?? 25;
    const params: unknown[] = [principal.clientId];
    let where = 'd.tenant_id = $1';
    // Numbers are stored without separators: '+34 911' finds '+34911…'.
    const digits = (query.q ?? '').replace(/[\s().-]/g, '');
    if (digits) {
      params.push(`%${escapeLike(digits)}%`);
      where += ` AND d.phone ILIKE $${params.length}`;
    }
    if (query.campaignId) {
      params.push(query.campaignId);
      where += ` AND d.campaign_id = $${params.length}`;
    }
    if (query.scope === 'tenant') where += ' AND d.campaign_id IS NULL';
    else if (query.scope === 'campaign') where += ' AND d.campaign_id IS NOT NULL';
    const [{ total }] = (await this.dataSource.query(`SELECT count(*)::int AS total FROM do_not_call d WHERE ${where}`, params)) as {
      total: number;
    }[];
    const rows = (await this.dataSource.query(
      `${DNC_SELECT} WHERE ${where} ORDER BY d.created_at DESC, d.id LIMIT ${pageSize} OFFSET ${(page - 1) * pageSize}`,
      params,
    )) as DoNotCallEntry[];
    return { items: rows, total, page, pageSize } as Page<DoNotCallEntry>;
  }

  async dncAdd(principal: Principal, body: { phone: string; campaignId?: string | null; reason?: string | null }): Promise<DoNotCallEntry> {
    const phone = String(body.phone ?? '').replace(/[\s().-]/g, '');
    if (!isE164(phone)) assertRules([{ field: 'phone', key: 'pattern' }]);
    if (body.campaignId) await this.get(principal, body.campaignId);
    const rows = (await this.dataSource.query(
      `INSERT INTO do_not_call (tenant_id, campaign_id, phone, reason, created_by) VALUES ($1, $2, $3, $4, $5)
       ON CONFLICT DO NOTHING RETURNING id, phone, campaign_id AS "campaignId", reason, created_at AS "createdAt"`,
      [principal.clientId, body.campaignId ?? null, phone, body.reason?.trim() || null, principal.userId],
    )) as DoNotCallEntry[];
    if (rows.length === 0) throw new AppException('conflict', { message: `${phone} is already on that do-not-call list` });
    await this.audit.record(principal, { entityType: 'do_not_call', entityId: rows[0].id, action: 'create', before: null, after: rows[0] });
    const [entry] = (await this.dataSource.query(`${DNC_SELECT} WHERE d.id = $1`, [rows[0].id])) as DoNotCallEntry[];
    return entry ?? rows[0];
  }

  async dncRemove(principal: Principal, id: string): Promise<void> {
    const rows = (await this.dataSource.query(`DELETE FROM do_not_call WHERE id = $1 AND tenant_id = $2 RETURNING id, phone`, [
      id,
      principal.clientId,
    ])) as [{ id: string; phone: string }[], number];
    const deleted = rows[0];
    if (!deleted || deleted.length === 0) throw AppException.notFound();
    await this.audit.record(principal, { entityType: 'do_not_call', entityId: id, action: 'delete', before: deleted[0], after: null });
  }

  // ── the agent's call ──

  /** The agent's current (or last unfinished) outbound call, with the contact's data for the screen pop. */
  async currentCall(principal: Principal): Promise<(OutboundCallView & { campaignName: string }) | null> {
    const [row] = (await this.dataSource.query(
      `SELECT oc.*, ct.name AS contact_name, c.name AS campaign_name FROM outbound_calls oc
         JOIN outbound_contacts ct ON ct.id = oc.contact_id JOIN dialer_campaigns c ON c.id = oc.campaign_id
        WHERE oc.agent_id = $1 AND oc.tenant_id = $2 AND oc.status IN ('connected', 'wrapUp')
        ORDER BY oc.connected_at DESC LIMIT 1`,
      [principal.userId, principal.clientId],
    )) as (CallRow & { contact_name: string | null; campaign_name: string })[];
    if (!row) return null;
    const script = await campaignScript(this.dataSource, row.campaign_id, { name: row.contact_name, phone: row.phone });
    return { ...callView(row, row.contact_name), campaignName: row.campaign_name, script };
  }

  private async ownCall(principal: Principal, id: string): Promise<CallRow> {
    const [row] = (await this.dataSource.query(`SELECT * FROM outbound_calls WHERE id = $1 AND tenant_id = $2`, [
      id,
      principal.clientId,
    ])) as CallRow[];
    if (!row) throw AppException.notFound();
    const supervisor = principal.permissions?.includes('outbound.manage') ?? false;
    if (row.agent_id !== principal.userId && !supervisor) throw AppException.forbidden('This call is not yours');
    return row;
  }

  async hangUp(principal: Principal, id: string): Promise<OutboundCallView> {
    const row = await this.ownCall(principal, id);
    const actor: Actor = row.agent_id === principal.userId ? { kind: 'agent', id: principal.userId } : this.supervisor(principal);
    return callView(await this.host.dispatchCall(id, { type: 'call.hungUp' }, actor, principal.clientId));
  }

  /** UpdDISPO: stored on the call (machine event) and on the contact; 'callback' books one, 'doNotCall' lists the number. */
  async disposition(
    principal: Principal,
    id: string,
    body: { disposition: string; callbackAt?: string | null },
  ): Promise<OutboundCallView> {
    const row = await this.ownCall(principal, id);
    const actor: Actor = row.agent_id === principal.userId ? { kind: 'agent', id: principal.userId } : this.supervisor(principal);
    if (body.disposition === 'callback') {
      const due = body.callbackAt ? Date.parse(body.callbackAt) : NaN;
      if (Number.isNaN(due) || due <= Date.now()) assertRules([{ field: 'callbackAt', key: 'date' }]);
    }
    const updated = await this.host.run(async (manager, w) => {
      await manager.query(`UPDATE outbound_contacts SET disposition = $2, updated_at = now() WHERE id = $1`, [
        row.contact_id,
        body.disposition,
      ]);
      if (body.disposition === 'doNotCall') {
        await manager.query(
          `INSERT INTO do_not_call (tenant_id, campaign_id, phone, reason, created_by) VALUES ($1, NULL, $2, 'disposition', $3) ON CONFLICT DO NOTHING`,
          [row.tenant_id, row.phone, principal.userId],
        );
        await manager.query(`UPDATE outbound_contacts SET finished = true WHERE id = $1 AND active_call_id IS NULL`, [row.contact_id]);
      }
      if (body.disposition === 'callback' && body.callbackAt) {
        await manager.query(
          `INSERT INTO outbound_callbacks (tenant_id, campaign_id, contact_id, due_at, agent_id, created_by) VALUES ($1, $2, $3, $4, $5, $5)`,
          [row.tenant_id, row.campaign_id, row.contact_id, new Date(body.callbackAt), principal.userId],
        );
      }
      return this.host.stepCall(manager, w, id, { type: 'call.dispositioned', disposition: body.disposition }, actor, principal.clientId);
    });
    return callView(updated);
  }

  /**
   * Callbacks by due time (at most 500), with the contact, campaign and agent names. An agent
   * without outbound.manage sees only the callbacks they booked.
   */
  async callbacks(principal: Principal, query: CallbackListQuery = {}): Promise<OutboundCallback[]> {
    const supervisor = principal.permissions?.includes(PERMISSIONS.outboundManage) ?? false;
    const params: unknown[] = [principal.clientId];
    let where = 'b.tenant_id = $1';
    const agentId = !supervisor || query.mine ? principal.userId : query.agentId;
    if (agentId) {
      params.push(agentId);
      where += ` AND b.agent_id = $${params.length}`;
    }
    if (query.campaignId) {
      params.push(query.campaignId);
      where += ` AND b.campaign_id = $${params.length}`;
    }
    // Overdue and upcoming only mean something for callbacks still waiting to be dialled.
    const status = query.due ? 'pending' : query.status;
    if (status) {
      params.push(status);
      where += ` AND b.status = $${params.length}`;
    }
    if (query.due === 'overdue') where += ' AND b.due_at <= now()';
    else if (query.due === 'upcoming') where += ' AND b.due_at > now()';
    return (await this.dataSource.query(
      `SELECT b.id, b.campaign_id AS "campaignId", c.name AS "campaignName", b.contact_id AS "contactId", ct.name AS "contactName", ct.phone,
              b.due_at AS "dueAt", b.agent_id AS "agentId", u.name AS "agentName", b.status, b.created_at AS "createdAt"
         FROM outbound_callbacks b JOIN outbound_contacts ct ON ct.id = b.contact_id
         JOIN dialer_campaigns c ON c.id = b.campaign_id LEFT JOIN users u ON u.id = b.agent_id
        WHERE ${where} ORDER BY b.due_at, b.id LIMIT 500`,
      params,
    )) as OutboundCallback[];
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

  async cancelCallback(principal: Principal, id: string): Promise<void> {
    const [rows] = (await this.dataSource.query(
      `UPDATE outbound_callbacks SET status = 'cancelled' WHERE id = $1 AND tenant_id = $2 AND status = 'pending' RETURNING id`,
      [id, principal.clientId],
    )) as [{ id: string }[], number];
    if (rows.length === 0) throw AppException.notFound();
    // A supervisor undoing what an agent promised the customer leaves a trail.
    await this.audit.record(principal, {
      entityType: 'outbound_callback',
      entityId: id,
      action: 'update',
      before: { status: 'pending' },
      after: { status: 'cancelled' },
    });
  }

  // ── results ──

  async results(principal: Principal, campaignId: string, query: PagedQuery): Promise<Page<OutboundCallView>> {
    await this.get(principal, campaignId);
    const page = query.page ?? 1;
    const pageSize = query.pageSize ?? 25;
    const [{ total }] = (await this.dataSource.query(`SELECT count(*)::int AS total FROM outbound_calls WHERE campaign_id = $1`, [
      campaignId,
    ])) as {
      total: number;
    }[];
    const rows = (await this.dataSource.query(
      `SELECT oc.*, ct.name AS contact_name FROM outbound_calls oc JOIN outbound_contacts ct ON ct.id = oc.contact_id
        WHERE oc.campaign_id = $1 ORDER BY oc.created_at DESC, oc.id LIMIT ${pageSize} OFFSET ${(page - 1) * pageSize}`,
      [campaignId],
    )) as (CallRow & { contact_name: string | null })[];
    return { items: rows.map((row) => callView(row, row.contact_name)), total, page, pageSize } as Page<OutboundCallView>;
  }

  /** The campaign's calls as CSV, headed in `language`, the requester's (values stay codes and ISO times). */
  async resultsCsv(principal: Principal, campaignId: string, language: Language = DEFAULT_LANGUAGE): Promise<string> {
    await this.get(principal, campaignId);
    const rows = (await this.dataSource.query(
      `SELECT oc.*, ct.name AS contact_name, u.name AS agent_name FROM outbound_calls oc JOIN outbound_contacts ct ON ct.id = oc.contact_id
         LEFT JOIN users u ON u.id = oc.agent_id WHERE oc.campaign_id = $1 ORDER BY oc.created_at, oc.id LIMIT 100000`,
      [campaignId],
    )) as (CallRow & { contact_name: string | null; agent_name: string | null })[];
    const labels = DOWNLOAD_LABELS[language].outboundResults;
    const header = [
      labels.phone,
      labels.name,
      labels.attempt,
      labels.status,
      labels.outcome,
      labels.disposition,
      labels.agent,
      labels.createdAt,
      labels.answeredAt,
      labels.finishedAt,
    ];
    const iso = (value: Date | null) => (value ? new Date(value).toISOString() : '');
    const lines = rows.map((row) =>
      [
        row.phone,
        row.contact_name,
        row.attempt,
        row.status,
        row.outcome,
        row.disposition,
        row.agent_name,
        iso(row.created_at),
        iso(row.answered_at),
        iso(row.finished_at),
      ]
        .map(csvCell)
        .join(','),
    );
    return [header.map(csvCell).join(','), ...lines].join('\r\n') + '\r\n';
  }
}
