import type { AgentView, PreviewRecord } from '@centralita/contracts';
import { isWithinCallingWindow, type CallingWindows } from '@centralita/domain';
import { Injectable } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { DataSource } from 'typeorm';
import { AppException } from '../../common/app.exception';
import type { Principal } from '../auth/principal';
import { MachineHostService } from '../machine-host/machine-host.service';
import { agentView } from '../machine-host/views';
import { CallHostService } from './call-host.service';
import { OutboundTransactions } from './outbound-transaction.service';
import { campaignScript } from '../outbound-templates/template-rules';

const PREVIEW_OWNER = 'preview';

/** The agent's side of outbound dialing: presence and preview records, all presence changes through the machine host. */
@Injectable()
export class OutboundAgentService {
  constructor(
    private readonly host: MachineHostService,
    private readonly tx: OutboundTransactions,
    private readonly calls: CallHostService,
    private readonly dataSource: DataSource,
  ) {}

  /**
   * 'Waiting for outbound call': from ready, or straight from after-call work (which it ends). A
   * person who already answered and is still waiting for an agent is connected at once.
   */
  async waiting(principal: Principal): Promise<AgentView> {
    const actor = { kind: 'agent' as const, id: principal.userId };
    const row = await this.tx.run(async (manager, w) => {
      const current = await this.host.lockAgent(manager, principal.userId, principal.clientId);
      if (current.status === 'waitingOutboundCall') return current;
      if (current.status === 'afterCallWork') {
        const armedAt = (current.snapshot.context as { lastStateChangeAt: number }).lastStateChangeAt;
        const ended = await this.host.dispatchAgent(
          manager,
          principal.userId,
          { type: 'agent.afterCallWorkEnded', armedAt },
          actor,
          principal.clientId,
        );
        w.outbox.push(...ended.outboxIds);
      }
      const result = await this.host.dispatchAgent(
        manager,
        principal.userId,
        { type: 'agent.outboundWaitStarted' },
        actor,
        principal.clientId,
      );
      w.outbox.push(...result.outboxIds);
      const connected = await this.calls.offerAnsweredCall(manager, w, principal.userId, principal.clientId);
      return connected ? await this.host.lockAgent(manager, principal.userId, principal.clientId) : result.row;
    });
    return agentView(row);
  }

  private async reserved(principal: Principal): Promise<PreviewRecord | null> {
    const [row] = (await this.dataSource.query(
      `SELECT ct.active_call_id AS "callId", ct.id AS "contactId", ct.campaign_id AS "campaignId", c.name AS "campaignName", ct.phone, ct.name,
              ct.attempts AS attempt, ct.preview_dial_at IS NOT NULL AS "dialRequested",
              to_char(ct.preview_line_wait_since AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS "waitingForLineSince"
         FROM outbound_contacts ct JOIN dialer_campaigns c ON c.id = ct.campaign_id
        WHERE ct.preview_agent_id = $1 AND ct.tenant_id = $2 AND ct.active_call_id IS NOT NULL
          AND NOT EXISTS (SELECT 1 FROM outbound_calls oc WHERE oc.id = ct.active_call_id)
        LIMIT 1`,
      [principal.userId, principal.clientId],
    )) as PreviewRecord[];
    if (!row) return null;
    return { ...row, script: await campaignScript(this.dataSource, row.campaignId, { name: row.name, phone: row.phone }) };
  }

  /** The next record of a running preview campaign, reserved for this agent (the same one until dialled or skipped). */
  async previewNext(principal: Principal): Promise<PreviewRecord> {
    const held = await this.reserved(principal);
    if (held) return held;
    const manager = this.dataSource;
    const campaigns = (await manager.query(
      `SELECT id, name, max_attempts, calling_windows FROM dialer_campaigns
        WHERE tenant_id = $1 AND status = 'running' AND mode = 'preview' AND deleted_at IS NULL
          AND (cardinality(agent_ids) = 0 OR $2 = ANY(agent_ids)) ORDER BY created_at, id`,
      [principal.clientId, principal.userId],
    )) as { id: string; name: string; max_attempts: number; calling_windows: CallingWindows }[];
    const now = Date.now();
    for (const campaign of campaigns) {
      const candidates = (await manager.query(
        `SELECT ct.id, ct.phone FROM outbound_contacts ct
          WHERE ct.campaign_id = $1 AND ct.finished = false AND ct.active_call_id IS NULL AND ct.next_attempt_at <= now() AND ct.attempts < $2
            AND NOT EXISTS (SELECT 1 FROM do_not_call d WHERE d.tenant_id = ct.tenant_id AND d.phone = ct.phone AND (d.campaign_id IS NULL OR d.campaign_id = ct.campaign_id))
            AND NOT EXISTS (SELECT 1 FROM outbound_live_numbers l WHERE l.tenant_id = ct.tenant_id AND l.phone = ct.phone)
          ORDER BY ct.next_attempt_at, ct.id LIMIT 50`,
        [campaign.id, campaign.max_attempts],
      )) as { id: string; phone: string }[];
      for (const candidate of candidates) {
        if (!isWithinCallingWindow(candidate.phone, now, campaign.calling_windows ?? {})) continue;
        const callId = randomUUID();
        const reserved = await manager.transaction(async (tx) => {
          const taken = (await tx.query(
            `INSERT INTO outbound_live_numbers (tenant_id, phone, call_id, contact_id) VALUES ($1, $2, $3, $4) ON CONFLICT DO NOTHING RETURNING call_id`,
            [principal.clientId, candidate.phone, callId, candidate.id],
          )) as unknown[];
          if (taken.length === 0) return false;
          const [rows] = (await tx.query(
            `UPDATE outbound_contacts SET active_call_id = $2, dialer_owner = $3, preview_agent_id = $4, preview_dial_at = NULL, reserved_at = now(),
               attempts = attempts + 1, updated_at = now()
             WHERE id = $1 AND active_call_id IS NULL AND finished = false RETURNING id`,
            [candidate.id, callId, PREVIEW_OWNER, principal.userId],
          )) as [unknown[], number];
          if (rows.length === 0) {
            await tx.query(`DELETE FROM outbound_live_numbers WHERE call_id = $1`, [callId]);
            return false;
          }
          return true;
        });
        if (reserved) return (await this.reserved(principal))!;
      }
    }
    throw new AppException('not_found', { message: 'No record to preview: no running preview campaign has a contact to call now' });
  }

  /** The agent dials the previewed record: they wait for it, and the dialer places it on its next tick. */
  async previewDial(principal: Principal, callId: string): Promise<PreviewRecord> {
    const held = await this.reserved(principal);
    if (!held || held.callId !== callId) throw AppException.notFound();
    await this.waiting(principal);
    await this.dataSource.query(
      `UPDATE outbound_contacts SET preview_dial_at = now() WHERE active_call_id = $1 AND preview_agent_id = $2`,
      [callId, principal.userId],
    );
    return { ...held, dialRequested: true };
  }

  /** The agent skips the previewed record: the reservation (and its attempt) is given back. */
  async previewSkip(principal: Principal, callId: string): Promise<void> {
    const held = await this.reserved(principal);
    if (!held || held.callId !== callId) throw AppException.notFound();
    if (held.dialRequested) throw new AppException('illegal_transition', { message: 'The call is already being dialled' });
    await this.dataSource.transaction(async (tx) => {
      await tx.query(
        `UPDATE outbound_contacts SET active_call_id = NULL, dialer_owner = NULL, preview_agent_id = NULL, attempts = GREATEST(attempts - 1, 0), updated_at = now()
          WHERE active_call_id = $1 AND preview_agent_id = $2 AND preview_dial_at IS NULL`,
        [callId, principal.userId],
      );
      await tx.query(`DELETE FROM outbound_live_numbers WHERE call_id = $1`, [callId]);
    });
  }
}
