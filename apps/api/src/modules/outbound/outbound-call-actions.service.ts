import {
  PERMISSIONS,
  type CallbackDueFilter,
  type CallbackStatus,
  type OutboundCallback,
  type OutboundCallView,
} from '@centralita/contracts';
import type { Actor, OutboundCallStatus } from '@centralita/domain';
import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { AppException } from '../../common/app.exception';
import { AuditService } from '../admin/audit.service';
import { assertRules } from '../admin/rule-check';
import type { Principal } from '../auth/principal';
import { campaignScript } from '../outbound-templates/template-rules';
import { CallHostService } from './call-host.service';
import { callView, sqlStatuses, supervisorActor, type CallRow } from './outbound-rows';
import { OutboundTransactions } from './outbound-transaction.service';

/** The states in which a call is the agent's to work on: talking, then wrapping up. */
const WITH_AGENT = sqlStatuses(['connected', 'wrapUp'] satisfies OutboundCallStatus[]);

export interface CallbackListQuery {
  campaignId?: string;
  /** Only this agent's callbacks; agents without outbound.manage always get only their own. */
  agentId?: string;
  mine?: boolean;
  status?: CallbackStatus;
  due?: CallbackDueFilter;
}

/** The agent's outbound call (screen pop, hang-up, disposition) and the callbacks agents book. */
@Injectable()
export class OutboundCallActionsService {
  constructor(
    private readonly dataSource: DataSource,
    private readonly tx: OutboundTransactions,
    private readonly calls: CallHostService,
    private readonly audit: AuditService,
  ) {}

  /** The agent's current (or last unfinished) outbound call, with the contact's data for the screen pop. */
  async currentCall(principal: Principal): Promise<(OutboundCallView & { campaignName: string }) | null> {
    const [row] = (await this.dataSource.query(
      `SELECT oc.*, ct.name AS contact_name, c.name AS campaign_name FROM outbound_calls oc
         JOIN outbound_contacts ct ON ct.id = oc.contact_id JOIN dialer_campaigns c ON c.id = oc.campaign_id
        WHERE oc.agent_id = $1 AND oc.tenant_id = $2 AND oc.status IN ${WITH_AGENT}
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
    const actor: Actor = row.agent_id === principal.userId ? { kind: 'agent', id: principal.userId } : supervisorActor(principal);
    return callView(await this.calls.dispatchCall(id, { type: 'call.hungUp' }, actor, principal.clientId));
  }

  /** UpdDISPO: stored on the call (machine event) and on the contact; 'callback' books one, 'doNotCall' lists the number. */
  async disposition(
    principal: Principal,
    id: string,
    body: { disposition: string; callbackAt?: string | null },
  ): Promise<OutboundCallView> {
    const row = await this.ownCall(principal, id);
    const actor: Actor = row.agent_id === principal.userId ? { kind: 'agent', id: principal.userId } : supervisorActor(principal);
    if (body.disposition === 'callback') {
      const due = body.callbackAt ? Date.parse(body.callbackAt) : NaN;
      if (Number.isNaN(due) || due <= Date.now()) assertRules([{ field: 'callbackAt', key: 'date' }]);
    }
    const updated = await this.tx.run(async (manager, w) => {
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
      return this.calls.stepCall(manager, w, id, { type: 'call.dispositioned', disposition: body.disposition }, actor, principal.clientId);
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
}
